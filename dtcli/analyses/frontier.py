"""The pruning frontier: what each pruning method trades between tree size and score.

Every pruning method is swept over its own parameter (`SWEEPS`) for each criterion, on
the same folds, as entries of one comparison (`gini:pruning=pessimistic:confidence=0.1`,
so each point is the mean that `compare` reports for that entry). A point is (mean
leaves, mean metric), each the mean over datasets of the mean over folds, with the
standard error of that mean: sqrt(sum of std_d^2 / folds_d) / datasets, the datasets
taken as fixed. A point is on a Pareto front when no other point of the set has at most
as many leaves and at least as good a score, one of them strictly.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from dtcli.errors import ParameterError
from dtcli.crossval.tasks import CriterionChoice, Protocol, TreeOptions
from dtcli.io.dataset import Dataset

# each pruning method's parameter and the values swept; cost-complexity's come from the
# criterion's own pruning paths (`path_alphas`)
SWEEPS: dict[str, tuple[str | None, tuple]] = {
    "none": (None, (None,)),
    "ccp": ("ccp_alpha", ()),
    "pessimistic": ("confidence", (0.01, 0.05, 0.1, 0.25, 0.5)),
    "s-pruning": ("significance", (0.001, 0.01, 0.05, 0.1, 0.25, 0.5)),
    "reduced-error": ("pruning_folds", (2, 3, 5, 10)),
}


@dataclass(frozen=True)
class Point:
    """One (criterion, pruning method, parameter value): mean leaves and score, their
    standard errors, and the compare entry that gives them."""

    criterion: str
    pruning: str
    parameter: str | None
    value: float | None
    entry: str
    leaves: float
    leaves_se: float
    score: float
    score_se: float

    @property
    def method(self) -> str:
        return f"{self.criterion} {self.pruning}"


def pareto_front(points: Sequence[Point], higher_is_better: bool = True) -> list[Point]:
    """The points no other point dominates, by increasing leaves."""
    sign = 1.0 if higher_is_better else -1.0

    def dominates(q: Point, p: Point) -> bool:
        return (q.leaves <= p.leaves and sign * q.score >= sign * p.score
                and (q.leaves < p.leaves or sign * q.score > sign * p.score))

    return sorted((p for p in points if not any(dominates(q, p) for q in points)),
                  key=lambda p: (p.leaves, -sign * p.score))


@dataclass
class Frontier:
    metric: str
    higher_is_better: bool
    datasets: list[str]
    points: list[Point]
    about: dict = field(default_factory=dict)

    def methods(self) -> list[str]:
        return list(dict.fromkeys(p.method for p in self.points))

    def reading(self) -> list[str]:
        """Which pruning method holds the overall front where, the best point and the
        smallest tree within one standard error of it, and the methods never on the
        front, in sentences."""
        sign = 1.0 if self.higher_is_better else -1.0
        front = pareto_front(self.points, self.higher_is_better)
        lines, run = [], []
        for p in front + [None]:
            if run and (p is None or p.pruning != run[0].pruning):
                span = (f"{run[0].leaves:.1f} leaves" if len(run) == 1 else
                        f"{run[0].leaves:.1f} to {run[-1].leaves:.1f} leaves")
                criteria = ", ".join(dict.fromkeys(q.criterion for q in run))
                lines.append(f"At {span} the front is {run[0].pruning} ({criteria}; "
                             f"{self.metric} {run[0].score:.4f}"
                             + (f" to {run[-1].score:.4f})." if len(run) > 1 else ")."))
                run = []
            if p is not None:
                run.append(p)
        best = max(self.points, key=lambda p: sign * p.score)
        near = [p for p in self.points if sign * (best.score - p.score) <= best.score_se]
        small = min(near, key=lambda p: p.leaves)
        lines.append(f"Best {self.metric}: {best.score:.4f} ± {best.score_se:.4f} "
                     f"({best.entry}, {best.leaves:.1f} leaves); the smallest tree within one "
                     f"standard error of it: {small.entry}, {small.leaves:.1f} leaves, "
                     f"{small.score:.4f}.")
        never = [m for m in self.methods() if not any(p.method == m for p in front)]
        if never:
            lines.append("Never on the overall front: " + ", ".join(never) + ".")
        return lines

    def to_json(self) -> dict:
        front = pareto_front(self.points, self.higher_is_better)
        fields = ("criterion", "pruning", "parameter", "value", "entry", "leaves",
                  "leaves_se", "score", "score_se")
        return {**self.about, "metric": self.metric, "higher_is_better": self.higher_is_better,
                "datasets": self.datasets,
                "points": [{f: getattr(p, f) for f in fields} for p in self.points],
                "method_fronts": {m: [p.entry for p in pareto_front(
                    [q for q in self.points if q.method == m], self.higher_is_better)]
                    for m in self.methods()},
                "front": [p.entry for p in front],
                "reading": self.reading()}


CCP_POINTS = 7


def path_alphas(datasets: Sequence[Dataset], choice: CriterionChoice, options: TreeOptions,
                points: int = CCP_POINTS) -> tuple[float, ...]:
    """Cost-complexity's alphas for `choice`, from its pruning paths (its unpruned tree on
    each whole dataset, the risk as `options.ccp_risk` says): `points` values evenly
    spaced on a log scale from the 10th percentile of the paths' positive alphas (little
    pruned) to the median over datasets of each path's largest alpha (the one that
    prunes to the root), to two significant digits. One value means one setting on every
    dataset, so the paths are pooled."""
    import numpy as np

    from dtcli.crossval import methods
    from dtcli.pruning.cost_complexity import model_links

    if choice.trees or not methods.tree_criterion(choice.name):
        raise ParameterError(f"--frontier: '{choice.label}' is not a single tree; the "
                             "frontier prunes trees")
    from dtcli.estimator import DecisionTreeClassifier

    params = {**methods.method_of(choice).estimator_params(options), "pruning": None}
    alphas, largest = [], []
    for dataset in datasets:
        model = DecisionTreeClassifier(n_jobs=1, **params)
        model.fit_dataset(dataset)
        path = [a for a in model_links(model)[1] if a > 0]
        alphas += path
        largest += path[-1:]
    if not alphas:
        return ()
    low, high = float(np.quantile(alphas, 0.1)), float(np.median(largest))
    grid = np.geomspace(low, max(high, low), points)
    return tuple(sorted({float(f"{a:.2g}") for a in grid}))


def swept(choice: CriterionChoice, ccp_alphas: Sequence[float] = ()
          ) -> list[tuple[str, str | None, object, CriterionChoice]]:
    """(pruning, parameter, value, entry) for every point of the criterion's frontier,
    cost-complexity at `ccp_alphas`."""
    kept = tuple((k, v) for k, v in choice.options
                 if k not in ("pruning",) + tuple(p for p, _ in SWEEPS.values() if p))
    out = []
    for pruning, (parameter, values) in SWEEPS.items():
        for value in (ccp_alphas if pruning == "ccp" else values):
            extra = (("pruning", None if pruning == "none" else pruning),)
            if parameter is not None:
                extra += ((parameter, value),)
            out.append((pruning, parameter, value,
                        CriterionChoice(choice.name, choice.params, kept + extra, choice.trees)))
    return out


def frontier(names: Sequence[str], datasets: Sequence[Dataset],
             choices: Sequence[CriterionChoice], options: TreeOptions, protocol: Protocol, *,
             metric: str = "accuracy", run_grid=None, **run) -> Frontier:
    """Every criterion under every pruning method and parameter of `SWEEPS` (`run`: the
    runner's jobs, store, scheduler, progress; `run_grid`: the runner's or a wrapper)."""
    from dtcli.reporting.report import METRICS

    if run_grid is None:
        from dtcli.crossval.runner import run_grid
    entries = [(c, *point) for c in choices
               for point in swept(c, path_alphas(datasets, c, options))]
    grid = run_grid(names, datasets, [e[-1] for e in entries], options, protocol, **run)
    points = []
    for j, (choice, pruning, parameter, value, entry) in enumerate(entries):
        cells = [grid.cells[(d, j)] for d in range(len(names))]
        leaves, leaves_se = _mean_se(cells, "n_leaves")
        score, score_se = _mean_se(cells, metric)
        points.append(Point(choice.label, pruning, parameter, value, entry.label, leaves,
                            leaves_se, score, score_se))
    return Frontier(metric, METRICS[metric], list(names), points)


def _mean_se(cells: Sequence[Sequence[dict]], metric: str) -> tuple[float, float]:
    """The mean over datasets of the mean over folds, and its standard error."""
    from dtcli.crossval.runner import mean_std

    means, variances = [], []
    for folds in cells:
        values = [f["metrics"][metric] for f in folds]
        mean, std = mean_std(values)
        n = sum(v is not None and math.isfinite(v) for v in values)
        means.append(mean)
        variances.append(std ** 2 / n if n else math.nan)
    return (math.fsum(means) / len(means),
            math.sqrt(math.fsum(variances)) / len(means))
