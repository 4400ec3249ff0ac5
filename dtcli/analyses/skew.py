"""The skew sweep: how each method's score moves as the training data grows more imbalanced.

For each dataset and each majority : minority ratio it reaches, every method is
cross-validated on the same folds with the training rows resampled to that ratio
(crossval/resample.py; the test rows keep their natural class mix). The tasks run
through the runner (`runner.run_grid`) as entries of a comparison whose tree options
carry the ratio, so one worker grows every ratio's folds of a dataset from one presort
(0/1 weights on its rows, crossval/batch.py), and `--results` keeps and reuses them.

Reported per method: the mean score over the folds of the datasets reaching each ratio,
and the slope of the score against ln(ratio) within folds: a least-squares fit with one
intercept per (dataset, repeat, fold), so the difficulty of a test fold, which every
ratio shares, does not enter the slope; its standard error is the classical one of
that fit (n - groups - 1 degrees of freedom), which takes the folds as independent.
Whether one method is flatter than another is the same fit on their difference fold by
fold (`slope_differences`). Per ratio: Demsar's average ranks, Friedman and Nemenyi over
the datasets reaching it. The mean per ratio pools the datasets that reach it, which
differ from ratio to ratio (a dataset reaches only the ratios above its own): compare
means across ratios on datasets that reach them all, or read the slopes.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from dtcli.errors import ParameterError
from dtcli.crossval.tasks import CriterionChoice, Protocol, TreeOptions
from dtcli.io.dataset import Dataset


def parse_ratios(text: str) -> list[float]:
    """[1.0, 2.0, 5.0] from '1,2,5' (ParameterError unless each is a number >= 1)."""
    ratios = []
    for part in text.split(","):
        try:
            ratio = float(part)
        except ValueError:
            raise ParameterError(f"--imbalance: expected ratios such as 1,2,5,10, got "
                                 f"{part.strip()!r}") from None
        if not ratio >= 1 or math.isinf(ratio):
            raise ParameterError(f"--imbalance: a ratio is majority : minority rows, at "
                                 f"least 1; got {part.strip()}")
        ratios.append(ratio)
    return sorted(set(ratios))


def at_ratio(choice: CriterionChoice, ratio: float, minority: str | None) -> CriterionChoice:
    """The method with its training rows resampled to `ratio`."""
    return CriterionChoice(choice.name, choice.params,
                           choice.options + (("imbalance", ratio), ("minority", minority)),
                           choice.trees)


@dataclass
class SkewSweep:
    """The sweep's fold scores: `scores[(dataset, ratio, method)]` lists `metric` over the
    folds in (repeat, fold) order; `skipped[dataset]` the ratios it cannot reach."""

    metric: str
    higher_is_better: bool
    ratios: list[float]
    methods: list[str]
    datasets: list[str]
    minority: dict[str, str]
    skipped: dict[str, list[float]]
    scores: dict[tuple[str, float, str], list[float]]
    about: dict = field(default_factory=dict)

    def reaching(self, ratio: float) -> list[str]:
        return [d for d in self.datasets if (d, ratio, self.methods[0]) in self.scores]

    def summary(self, ratio: float, method: str) -> dict:
        """{mean, std, folds}: over the finite fold scores of the datasets reaching ratio."""
        values = [v for d in self.reaching(ratio) for v in self.scores[(d, ratio, method)]]
        finite = np.array([v for v in values if v is not None and math.isfinite(v)])
        return {"mean": float(finite.mean()) if finite.size else math.nan,
                "std": float(finite.std(ddof=1)) if finite.size > 1 else math.nan,
                "folds": values}

    def slope(self, method: str, minus: str | None = None) -> tuple[float, float]:
        """(slope, standard error) of the score against ln(ratio), one intercept per fold;
        of the score less `minus`'s on the same fold if given (how much flatter or steeper
        `method` is than `minus`, paired by fold)."""
        x, y, group = [], [], []
        for d, dataset in enumerate(self.datasets):
            for ratio in self.ratios:
                values = self.scores.get((dataset, ratio, method), [])
                others = self.scores[(dataset, ratio, minus)] if minus and values else []
                for k, value in enumerate(values):
                    if minus is not None:
                        value = _difference(value, others[k])
                    if value is not None and math.isfinite(value):
                        x.append(math.log(ratio))
                        y.append(value)
                        group.append((d, k))
        return within_slope(np.array(x), np.array(y), group)

    def tests(self, ratio: float) -> dict | None:
        """Average ranks, Friedman, Iman-Davenport and Nemenyi over the datasets reaching
        `ratio` (None with fewer than two methods or a dataset without a score)."""
        from dtcli.reporting.comparison import comparison_document

        reaching = self.reaching(ratio)
        table = [[_mean(self.scores[(d, ratio, m)]) for m in self.methods] for d in reaching]
        if len(self.methods) < 2 or not reaching or np.isnan(table).any():
            return None
        doc = comparison_document(reaching, self.methods, table,
                                  higher_is_better=self.higher_is_better)
        return {key: doc[key] for key in ("datasets", "average_ranks", "friedman",
                                          "iman_davenport", "nemenyi", "warnings")}

    def to_json(self) -> dict:
        slopes = {m: self.slope(m) for m in self.methods}
        return {**self.about, "metric": self.metric, "ratios": self.ratios,
                "methods": self.methods, "datasets": self.datasets,
                "minority": self.minority,
                "skipped": {d: r for d, r in self.skipped.items() if r},
                "imbalance": {f"{r:g}": {m: self.summary(r, m) for m in self.methods}
                              for r in self.ratios if self.reaching(r)},
                "slope": {m: s for m, (s, _) in slopes.items()},
                "slope_se": {m: se for m, (_, se) in slopes.items()},
                "slope_differences": {f"{a} - {b}": dict(zip(("difference", "se"),
                                                             self.slope(a, minus=b)))
                                      for i, a in enumerate(self.methods)
                                      for b in self.methods[i + 1:]},
                "tests": {f"{r:g}": self.tests(r) for r in self.ratios if self.reaching(r)},
                "by_dataset": {d: {f"{r:g}": {m: {"mean": _mean(self.scores[(d, r, m)]),
                                                  "folds": self.scores[(d, r, m)]}
                                              for m in self.methods}
                                   for r in self.ratios if (d, r, self.methods[0]) in self.scores}
                               for d in self.datasets}}


def _difference(a, b) -> float:
    return math.nan if a is None or b is None else a - b


def _mean(values) -> float:
    finite = [v for v in values if v is not None and math.isfinite(v)]
    return math.fsum(finite) / len(finite) if finite else math.nan


def within_slope(x: np.ndarray, y: np.ndarray, group: Sequence) -> tuple[float, float]:
    """Least-squares slope of y on x with one intercept per group, and its classical
    standard error (NaN when x does not vary within a group or no degree of freedom is
    left)."""
    if len(x) == 0:
        return math.nan, math.nan
    index: dict = {}
    codes = np.array([index.setdefault(g, len(index)) for g in group])
    n_groups = len(index)
    counts = np.bincount(codes, minlength=n_groups)
    dx = x - (np.bincount(codes, x, n_groups) / counts)[codes]
    dy = y - (np.bincount(codes, y, n_groups) / counts)[codes]
    sxx = float(dx @ dx)
    if sxx <= 0:
        return math.nan, math.nan
    slope = float(dx @ dy) / sxx
    dof = len(x) - n_groups - 1
    if dof <= 0:
        return slope, math.nan
    residual = dy - slope * dx
    return slope, math.sqrt(float(residual @ residual) / dof / sxx)


def skew_sweep(names: Sequence[str], datasets: Sequence[Dataset],
               choices: Sequence[CriterionChoice], options: TreeOptions, protocol: Protocol,
               ratios: Sequence[float], *, metric: str = "auc", minority: str | None = None,
               run_grid=None, **run) -> SkewSweep:
    """Cross-validate every method at every ratio each dataset reaches (`run`: the
    runner's jobs, store, scheduler, progress; `run_grid`: the runner's, or a wrapper of
    it). Datasets that reach the same ratios run in one grid."""
    from dtcli.sampling.folds import repeat_folds
    from dtcli.reporting.report import METRICS
    from dtcli.crossval.resample import minority_class, reachable

    if run_grid is None:
        from dtcli.crossval.runner import run_grid
    ratios = sorted(set(ratios))
    groups: dict[tuple[float, ...], list[int]] = {}
    labels, skipped = {}, {}
    for d, (name, dataset) in enumerate(zip(names, datasets)):
        k = minority_class(dataset.y, dataset.classes, minority, name)
        labels[name] = dataset.classes[k]
        folds = [fold for repeat in range(protocol.repeats)
                 for fold in repeat_folds(dataset.y, protocol.cv, protocol.seed, repeat)]
        reached = tuple(r for r in ratios if reachable(dataset.y, folds, k, r))
        skipped[name] = [r for r in ratios if r not in reached]
        groups.setdefault(reached, []).append(d)
    progress, offset = run.pop("progress", None), 0
    total = sum(len(r) * len(m) for r, m in groups.items()) * len(choices) * protocol.cv \
        * protocol.repeats
    scores = {}
    for reached, members in groups.items():
        if not reached:
            continue
        swept = [at_ratio(c, r, minority) for r in reached for c in choices]
        part = len(swept) * len(members) * protocol.cv * protocol.repeats

        def step(done, _total, offset=offset):
            if progress:
                progress(offset + done, total)

        grid = run_grid([names[d] for d in members], [datasets[d] for d in members], swept,
                        options, protocol, progress=step, **run)
        offset += part
        for local, d in enumerate(members):
            for i, ratio in enumerate(reached):
                for c, choice in enumerate(choices):
                    folds = grid.cells[(local, i * len(choices) + c)]
                    scores[(names[d], ratio, choice.label)] = [f["metrics"][metric]
                                                               for f in folds]
    return SkewSweep(metric, METRICS[metric], list(ratios), [c.label for c in choices],
                     list(names), labels, skipped, scores)
