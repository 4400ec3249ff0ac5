"""Grid search by cross-validation, and its honest (nested) assessment.

`grid_search` scores every grid point on the same seeded folds: each point is
a `CriterionChoice` (with, for tree options in the grid, its own
`TreeOptions`) run by `dtcli.crossval.runner.run_grid`, so the folds are the
ones `evaluate` and `compare` use, a point runs in worker processes or on Dask
like any comparison, and `--results` resumes it. Tsallis at q = 2 is then
scored exactly as gini is on the same folds (the registry runs gini's kernel
for it).

`nested` measures what tuning is worth without letting the test folds choose:
for each outer fold, a grid search on the outer training rows alone (inner
folds of those rows) picks the parameters, and the outer test rows score a
tree grown with them on the outer training rows (nested cross-validation,
Varma and Simon 2006; Cawley and Talbot 2010). The papers' protocol (the
point of best mean score over the very folds it is then reported on) is
computed beside it from the same outer fits, and the difference of the two
is the optimism that choosing on the test folds adds.
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from dtcli.errors import ParameterError
from dtcli.sampling.folds import repeat_folds
from dtcli.reporting.report import METRICS
from dtcli.crossval.results import ResultStore
from dtcli.crossval.runner import mean_std, plan, run_grid
from dtcli.crossval.tasks import CriterionChoice, Protocol, TreeOptions
from dtcli.io.dataset import Dataset
from dtcli.tuning import grid as grids

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Search:
    """What to tune: a criterion with its fixed parameters, a grid (name -> values) over
    its other parameters and tree options, the base tree options, the metric to choose by."""

    criterion: str
    grid: Mapping[str, tuple[float, ...]]
    fixed: tuple[tuple[str, float], ...] = ()
    options: TreeOptions = TreeOptions()
    metric: str = "accuracy"

    def __post_init__(self):
        if self.metric not in METRICS:
            raise ParameterError(f"unknown metric {self.metric!r} (metrics: {', '.join(METRICS)})")
        clash = sorted(set(self.grid) & {name for name, _ in self.fixed})
        if clash:
            raise ParameterError(f"{clash[0]} is both fixed and in the grid")
        grids.check_names(self.criterion, self.grid)
        _check_pruning_grid(self.grid, self.options)

    def points(self) -> list[dict[str, float]]:
        return grids.points(self.grid)

    def candidate(self, point: Mapping[str, float]) -> tuple[CriterionChoice, TreeOptions]:
        """The criterion choice and tree options of a grid point."""
        options = grids.option_names()
        params = dict(self.fixed)
        changes = {}
        for name, value in point.items():
            if name in options:
                changes[name] = _option_value(name, value)
            else:
                params[name] = value
        return (CriterionChoice(self.criterion, tuple(params.items())),
                dataclasses.replace(self.options, **changes))

    def better(self, a: float, b: float) -> bool:
        """Whether mean score a beats b (NaN never wins)."""
        if math.isnan(a):
            return False
        if math.isnan(b):
            return True
        return a > b if METRICS[self.metric] else a < b


def _check_pruning_grid(grid: Mapping[str, Sequence[float]], options: TreeOptions) -> None:
    """ParameterError if the grid varies a pruning method's parameter that the trees' own
    pruning does not use (significance without s-pruning would score equal trees)."""
    from dtcli.pruning.methods import METHODS

    used = METHODS[options.pruning].params if options.pruning else ()
    pruned = f"pruned by {options.pruning}" if options.pruning else "not pruned"
    for method, spec in METHODS.items():
        for name in sorted(set(spec.params) & set(grid) - set(used)):
            raise ParameterError(f"--grid: {name} is a parameter of --pruning {method}, but the "
                                 f"trees are {pruned}")


def _option_value(name: str, value: float):
    """A tree option's value as TreeOptions takes it: whole numbers for counts."""
    current = getattr(TreeOptions(), name)
    if isinstance(current, int) or name == "max_depth":
        if not float(value).is_integer():
            raise ParameterError(f"--grid: {name} takes whole numbers, got {value:g}")
        return int(value)
    return float(value)


@dataclass
class SearchResult:
    """Scores of every grid point on one dataset's folds: `folds[i]` lists point i's fold
    results (as `runner.run_task` gives them) in (repeat, fold) order."""

    search: Search
    protocol: Protocol
    points: list[dict[str, float]]
    folds: list[list[dict]]

    def scores(self, i: int) -> list[float]:
        return [f["metrics"][self.search.metric] for f in self.folds[i]]

    def mean_std(self, i: int) -> tuple[float, float]:
        return mean_std(self.scores(i))

    @property
    def best_index(self) -> int:
        """The point of best mean score; the first in grid order among equals."""
        best = 0
        means = [self.mean_std(i)[0] for i in range(len(self.points))]
        for i, mean in enumerate(means):
            if self.search.better(mean, means[best]):
                best = i
        return best

    @property
    def best_params(self) -> dict[str, float]:
        return dict(self.points[self.best_index])

    @property
    def best_score(self) -> float:
        return self.mean_std(self.best_index)[0]

    def results(self) -> list[dict]:
        """[{params, mean, std}] in grid order."""
        return [{"params": dict(p), "mean": m, "std": s}
                for p, (m, s) in zip(self.points, map(self.mean_std, range(len(self.points))))]


class ScoreStore(ResultStore):
    """A ResultStore that keeps in memory only the metrics a search chooses by (a nested
    search runs about 10^5 tasks per dataset); its file, if any, gets every line in full."""

    def __init__(self, path: str | None, keep: Sequence[str]):
        super().__init__(path)
        self.keep = tuple(keep)
        self.cells = {key: self._slim(value) for key, value in self.cells.items()}

    def _slim(self, result: dict) -> dict:
        return {"metrics": {name: result["metrics"][name] for name in self.keep}}

    def add(self, key: str, result: dict, **about) -> None:
        super().add(key, result, **about)
        self.cells[key] = self._slim(self.cells[key])


def search_many(names: Sequence[str], datasets: Sequence[Dataset], search: Search,
                protocol: Protocol, *, jobs: int | None = None, store: ResultStore | None = None,
                scheduler: str | None = None, progress: Progress | None = None
                ) -> list[SearchResult]:
    """`grid_search` on several datasets at once (one run of the runner per distinct set
    of tree options in the grid, so that all their tasks share one pool of workers)."""
    store = store if store is not None else ResultStore()
    points = search.points()
    folds: list[list[list[dict]]] = [[[] for _ in points] for _ in datasets]
    for options, members, choices in _groups(search):
        run = run_grid(names, datasets, choices, options, protocol,
                       jobs=jobs, store=store, scheduler=scheduler, progress=progress)
        for d in range(len(datasets)):
            for c, i in enumerate(members):
                folds[d][i] = run.cells[(d, c)]
    return [SearchResult(search, protocol, points, f) for f in folds]


def grid_search(name: str, dataset: Dataset, search: Search, protocol: Protocol,
                **run) -> SearchResult:
    """Every grid point on the same folds of `dataset` (see the module docstring);
    `run`: jobs, store, scheduler, progress, as for `runner.run_grid`."""
    return search_many([name], [dataset], search, protocol, **run)[0]


def subset(dataset: Dataset, rows: np.ndarray) -> Dataset:
    """The dataset's rows `rows` (a training fold, searched on its own)."""
    return dataclasses.replace(dataset, X=np.ascontiguousarray(dataset.X[rows]),
                               y=dataset.y[rows], warnings=[])


@dataclass
class Nested:
    """A tuned method on one dataset: `outer` scores every grid point on the outer folds;
    `chosen[j]` is the point index the inner search on outer fold j's training rows
    picked (folds in (repeat, fold) order); `paper` the point the papers' protocol picks:
    the best mean on the outer folds themselves."""

    outer: SearchResult
    chosen: list[int]
    paper: int

    def nested_folds(self) -> list[dict]:
        """The outer fold results of the trees grown with the parameters chosen inside."""
        return [self.outer.folds[i][j] for j, i in enumerate(self.chosen)]

    def paper_folds(self) -> list[dict]:
        return self.outer.folds[self.paper]

    def summary(self) -> dict:
        """Both protocols' mean and std, the optimism, the choices."""
        metric = self.outer.search.metric
        nested_mean, nested_std = mean_std([f["metrics"][metric] for f in self.nested_folds()])
        paper_mean, paper_std = self.outer.mean_std(self.paper)
        cv = self.outer.protocol.cv
        return {"metric": metric,
                "nested": {"mean": nested_mean, "std": nested_std,
                           "chosen": [{"repeat": j // cv + 1, "fold": j % cv + 1,
                                       "params": self.outer.points[i]}
                                      for j, i in enumerate(self.chosen)]},
                "paper": {"mean": paper_mean, "std": paper_std,
                          "params": self.outer.points[self.paper]},
                "optimism": paper_mean - nested_mean}


def nested_many(names: Sequence[str], datasets: Sequence[Dataset], search: Search,
                protocol: Protocol, inner: Protocol, **run) -> list[Nested]:
    """Nested cross-validation of `search` on each dataset (see the module docstring).

    The outer folds are `protocol`'s (those of `evaluate` and `compare`); the inner
    search on outer fold j's training rows uses `inner`'s folds of those rows (its cv,
    repeats and seed). Each outer test fold's labels enter only its own score.
    """
    outer = search_many(names, datasets, search, protocol, **run)
    store = run.pop("store", None)
    inner_store = ScoreStore(store.path if store is not None else None, (search.metric,))
    results = []
    for name, dataset, scored in zip(names, datasets, outer):
        parts, part_names = [], []
        for repeat in range(protocol.repeats):
            for fold, (train, _) in enumerate(repeat_folds(dataset.y, protocol.cv, protocol.seed,
                                                           repeat, protocol.folds)):
                parts.append(subset(dataset, train))
                part_names.append(f"{name} [training rows of repeat {repeat + 1}, "
                                  f"fold {fold + 1}]")
        searched = search_many(part_names, parts, search, inner, store=inner_store, **run)
        for key in _task_keys(parts, search, inner):  # in the file, if any; done with here
            inner_store.cells.pop(key, None)
        results.append(Nested(scored, [s.best_index for s in searched], scored.best_index))
    return results


def _task_keys(datasets: Sequence[Dataset], search: Search, protocol: Protocol) -> list[str]:
    """The keys of every task `search_many` runs for these datasets."""
    return [key for options, _, choices in _groups(search)
            for key in plan(datasets, choices, options, protocol)[1]]


def _groups(search: Search) -> list[tuple[TreeOptions, list[int], list[CriterionChoice]]]:
    """The grid's points by their tree options: (options, point indices, their criterion
    choices), one run of the runner each."""
    candidates = [search.candidate(p) for p in search.points()]
    groups = []
    for options in dict.fromkeys(options for _, options in candidates):
        members = [i for i, (_, o) in enumerate(candidates) if o == options]
        groups.append((options, members, [candidates[i][0] for i in members]))
    return groups


def follow(names: Sequence[str], datasets: Sequence[Dataset], search: Search,
           leaders: Sequence[Nested], protocol: Protocol, **run) -> list[Nested]:
    """`search` (another criterion) at the points its leaders chose, fold by fold: the
    Tsallis paper's Tsallis gain ratio "with the same q" as Tsallis entropy. The grids
    must have the same points."""
    outer = search_many(names, datasets, search, protocol, **run)
    for scored, leader in zip(outer, leaders):
        if scored.points != leader.outer.points:
            raise ParameterError(f"{search.criterion} follows a method tuned over another grid")
    return [dataclasses.replace(leader, outer=scored) for scored, leader in zip(outer, leaders)]
