"""Cross-validation as a grid of independent tasks, run in-process, in worker processes or on Dask.

A comparison is one task per (dataset, criterion, repeat, fold): fit a tree on
the fold's training rows, predict its test rows, score the predictions
(`score_predictions`). The folds depend only on a dataset's labels, the number
of folds, the seed and the repeat (`folds.repeat_folds`), and trees are
deterministic, so a task's result does not depend on where or in which order
it runs: `--jobs 1`, `--jobs 8` and a Dask cluster give the same numbers
(timings aside).

Every task has a key (`tasks.task_key`: the dataset's content, the criterion,
the tree options, the protocol, the repeat and the fold, and dtree's version).
A `ResultStore` (`dtcli.evaluate.results`) keeps finished tasks as JSON lines
under that key, so a rerun skips them and a changed option reruns only the
tasks it changes. Adding repeats keeps the earlier ones; renaming or moving a
data file keeps its results.

Workers: a pool of processes ("spawn" start method, so nothing of the parent's
threads or locks is inherited; `dtcli.evaluate.workers`) that receive the
datasets once, through the pool's initializer, and then only small `Task`
records; each tree is grown on one thread. A worker costs a Python start and loading the numba kernels
(about 2-3 s), so for a comparison of a few seconds one process is as fast.
Before the tasks start, the kernels of every (criterion, form of data) they
need are compiled ahead, side by side in processes (`compile_ahead`), so that
no worker compiles. As with any spawn-based pool, a script that calls
`run_grid` needs the `if __name__ == "__main__":` guard. `dtcli.evaluate.distributed`
does the same on a Dask cluster.
"""
from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from dtcli.errors import DataError, DtreeError
from dtcli.evaluate import metrics
from dtcli.evaluate.folds import repeat_folds
from dtcli.evaluate.report import METRICS, TIMING
from dtcli.evaluate.results import ResultStore
from dtcli.evaluate.tasks import (CriterionChoice, Protocol, Task, TreeOptions, dataset_digest,
                                  task_key)
from dtcli.io.dataset import NOMINAL, Dataset


# --------------------------------------------------------------------------
# One task
# --------------------------------------------------------------------------


def score_predictions(y_true: np.ndarray, proba: np.ndarray) -> dict:
    """Metrics of class probabilities against true class indices.

    Returns {"metrics": {accuracy, balanced_accuracy, auc, log_loss, f1_macro},
    "confusion_matrix": K x K list}. The predicted class is the most probable
    one (the first on ties, as `predict`). log_loss is the FDF paper's P_cost
    (eq. (4)) divided by the number of rows, in nats, with the true class's
    probability clipped to at least 1e-15 (so a confident mistake costs 34.5).
    auc is NaN when the rows hold a single class.
    """
    y_pred = np.argmax(proba, axis=1)
    return {
        "metrics": {
            "accuracy": metrics.accuracy(y_true, y_pred),
            "balanced_accuracy": metrics.balanced_accuracy(y_true, y_pred),
            "auc": metrics.auc(y_true, proba),
            "log_loss": metrics.log_loss(y_true, proba, normalize=True),
            "f1_macro": metrics.f1_macro(y_true, y_pred),
        },
        "confusion_matrix": metrics.confusion_matrix(y_true, y_pred, proba.shape[1]).tolist(),
    }


def tree_facts(model) -> dict:
    """Size of the tree; of a forest, its nodes and leaves in all and its deepest tree's
    depth (counts: results.py keeps them as integers)."""
    trees = [e.tree_ for e in model.estimators_] if hasattr(model, "estimators_") else [model.tree_]
    return {"n_nodes": sum(int(t.node_count) for t in trees),
            "n_leaves": sum(int(t.n_leaves) for t in trees),
            "depth": max(int(t.max_depth) for t in trees)}


def _subset(dataset: Dataset, rows: np.ndarray) -> Dataset:
    return dataclasses.replace(dataset, X=np.ascontiguousarray(dataset.X[rows]),
                               y=dataset.y[rows], warnings=[])


def run_task(dataset: Dataset, task: Task) -> dict:
    """Fit on the task's training fold, score on its test fold (what a worker runs)."""
    from dtcli.estimator import DecisionTreeClassifier

    train, test = repeat_folds(dataset.y, task.cv, task.seed, task.repeat)[task.fold]
    model = DecisionTreeClassifier(criterion=task.criterion, criterion_params=dict(task.params),
                                   n_jobs=1, **task.options.estimator_params())
    if task.trees:
        from dtcli.ensemble.forest import RandomForestClassifier

        model = RandomForestClassifier(n_estimators=task.trees, **model.get_params()
                                       | {"max_features": "sqrt", "random_state": task.seed})
    model.fit_dataset(_subset(dataset, train))
    start = time.perf_counter()
    proba = model.proba_from_matrix(np.ascontiguousarray(dataset.X[test]))
    predict_seconds = time.perf_counter() - start
    result = score_predictions(dataset.y[test], proba)
    result["metrics"].update(tree_facts(model), fit_seconds=model.fit_seconds_,
                             predict_seconds=predict_seconds)
    return result


def evaluate_model(model, fit_seconds: float, X: np.ndarray, labels: np.ndarray,
                   source: str) -> tuple[dict, int]:
    """Score a saved model on rows whose true class labels (text, None = missing) are known.

    Returns (fold result as `run_task` gives it, number of rows scored). Rows
    without a label are left out; a label the model does not know is a DataError.
    """
    classes = [str(c) for c in model.classes_]
    index = {label: i for i, label in enumerate(classes)}
    known = np.array([label is not None for label in labels], dtype=bool)
    unknown = sorted({label for label in labels[known] if label not in index})
    if unknown:
        raise DataError(f"{source}: class label(s) {', '.join(map(repr, unknown[:5]))} are not "
                        f"among the model's classes ({', '.join(classes)})")
    if not known.any():
        raise DataError(f"{source}: no row has a class label to evaluate against")
    y = np.array([index[label] for label in labels[known]], dtype=np.int64)
    rows = np.ascontiguousarray(X[known])
    model.proba_from_matrix(rows[:1])  # load the kernels before timing
    start = time.perf_counter()
    proba = model.proba_from_matrix(rows)
    predict_seconds = time.perf_counter() - start
    result = score_predictions(y, proba)
    result["metrics"].update(tree_facts(model), fit_seconds=fit_seconds,
                             predict_seconds=predict_seconds)
    return result, int(known.sum())


def compile_ahead(datasets: Sequence[Dataset], tasks: Sequence[Task], jobs: int | None) -> None:
    """Compile the kernels of every (criterion, form of data) the tasks need, side by
    side in processes (`jobs` if given, else all cores: compiling is a one-time cost),
    before any worker starts: no two processes compile the same kernel, and workers
    only load code (engine.warm)."""
    from dtcli.engine.warm import WarmTask, form_of, warm

    forms = [form_of(d.X, len(d.classes), np.array([f.kind == NOMINAL for f in d.features]))
             for d in datasets]
    warm(sorted({WarmTask(t.criterion, t.params, forms[t.dataset]) for t in tasks}), jobs)


def warm_up(datasets: Sequence[Dataset], tasks: Sequence[Task] = ()) -> None:
    """Load (or compile) the engine's kernels before timing anything.

    numba compiles the engine per criterion, and per form of data (with or
    without nominal features, two classes or more, weighted rows or not): a
    small tree of every criterion the tasks use, with their class weights, on
    one dataset of each form runs every kernel the real fits will, so no fold's
    time includes a compilation.
    """
    from dtcli.estimator import DecisionTreeClassifier

    # default stopping rules with the tasks' class weights
    choices = list(dict.fromkeys((task.criterion, task.params,
                                  TreeOptions(class_weight=task.options.class_weight))
                                 for task in tasks)) or [("gini", (), TreeOptions())]
    seen = set()
    for dataset in datasets:
        form = (any(f.kind == NOMINAL for f in dataset.features), len(dataset.classes) == 2)
        if form in seen:
            continue
        seen.add(form)
        # rows spread over the file: class-sorted files still give every class
        small = _subset(dataset, np.unique(np.linspace(0, len(dataset.y) - 1, 300).astype(int)))
        if len(np.unique(small.y)) < 2:
            continue
        for name, params, weighted in choices:
            model = DecisionTreeClassifier(criterion=name, criterion_params=dict(params), n_jobs=1,
                                           **weighted.estimator_params()).fit_dataset(small)
            model.proba_from_matrix(small.X)


# --------------------------------------------------------------------------
# Running the grid
# --------------------------------------------------------------------------

Progress = Callable[[int, int], None]  # (tasks done, total), called as tasks finish


@dataclass
class Grid:
    """Results of a run: `cells[(dataset index, criterion index)]` lists the fold results
    in (repeat, fold) order; `computed` and `reused` count tasks run now and taken from
    the store."""

    names: list[str]
    criteria: list[CriterionChoice]
    protocol: Protocol
    cells: dict[tuple[int, int], list[dict]]
    computed: int = 0
    reused: int = 0

    def table(self, metric: str) -> tuple[list[list[float]], list[list[float]], list[list[float]]]:
        """(means, stds, repeat_stds) of `metric`, one row per dataset, one column per
        criterion: the mean and the sample std over all folds of all repeats, and the std
        of the per-repeat means (NaN with a single repeat)."""
        means, stds, repeat_stds = [], [], []
        for d in range(len(self.names)):
            row = [self.cells[(d, c)] for c in range(len(self.criteria))]
            pairs = [mean_std([f["metrics"][metric] for f in folds]) for folds in row]
            means.append([m for m, _ in pairs])
            stds.append([s for _, s in pairs])
            repeat_stds.append([mean_std(repeat_means(folds, metric, self.protocol.cv))[1]
                                if self.protocol.repeats > 1 else math.nan for folds in row])
        return means, stds, repeat_stds

    def timing(self) -> dict[str, dict[str, float]]:
        """Mean fit and predict seconds per fold of each criterion, over all datasets."""
        return {choice.label: {name: mean_std([f["metrics"][name] for d in range(len(self.names))
                                               for f in self.cells[(d, c)]])[0]
                               for name in TIMING}
                for c, choice in enumerate(self.criteria)}


# Below this much work (training rows x features, summed over the tasks: about 5 s
# of fitting) starting worker processes costs more than it saves.
SMALL_RUN = 5_000_000


def default_jobs(datasets: Sequence[Dataset] = (), tasks: Sequence[Task] = ()) -> int:
    """The cores this process may use; 1 for a run too small to pay for starting workers."""
    if tasks:
        work = sum(len(datasets[t.dataset].y) * (t.cv - 1) // t.cv * datasets[t.dataset].X.shape[1]
                   for t in tasks)
        if work < SMALL_RUN:
            return 1
    from dtcli.processes import available_cores

    return available_cores()


def plan(datasets: Sequence[Dataset], criteria: Sequence[CriterionChoice], options: TreeOptions,
         protocol: Protocol) -> tuple[list[Task], list[str]]:
    """The tasks of a run and their keys, in (dataset, criterion, repeat, fold) order."""
    tasks, keys = [], []
    for d, dataset in enumerate(datasets):
        digest = dataset_digest(dataset)
        for choice in criteria:
            for repeat in range(protocol.repeats):
                for fold in range(protocol.cv):
                    tasks.append(Task(d, choice.name, choice.params, options, protocol.cv,
                                      protocol.seed, repeat, fold, choice.trees))
                    keys.append(task_key(digest, choice, options, protocol.cv, protocol.seed,
                                         repeat, fold))
    return tasks, keys


def run_grid(names: Sequence[str], datasets: Sequence[Dataset], criteria: Sequence[CriterionChoice],
             options: TreeOptions, protocol: Protocol, *, jobs: int | None = None,
             store: ResultStore | None = None, scheduler: str | None = None,
             progress: Progress | None = None) -> Grid:
    """Every dataset x criterion x repeat x fold, skipping tasks already in `store`.

    Runs on the Dask cluster at `scheduler` if given, else in `jobs` worker
    processes, or in this process for jobs=1. By default, all cores, unless
    the run is small (`SMALL_RUN`): then in this process.
    """
    store = store if store is not None else ResultStore()
    tasks, keys = plan(datasets, criteria, options, protocol)
    # Larger datasets first, so that the last tasks to finish are short ones.
    cost = [len(d.y) * max(d.X.shape[1], 1) for d in datasets]
    pending = sorted((i for i, key in enumerate(keys) if store.get(key) is None),
                     key=lambda i: -cost[tasks[i].dataset])
    done = len(tasks) - len(pending)
    if progress:
        progress(done, len(tasks))

    def finished(j: int, result: dict) -> None:
        nonlocal done
        task = tasks[pending[j]]
        store.add(keys[pending[j]], result, dataset=names[task.dataset],
                  criterion=task.choice.label,
                  repeat=task.repeat, fold=task.fold)
        done += 1
        if progress:
            progress(done, len(tasks))

    batch, describe = [tasks[i] for i in pending], _describer(names)
    workers = min(jobs or default_jobs(datasets, batch), len(batch))
    try:
        if not batch:
            pass
        elif scheduler is not None:
            from dtcli.evaluate.distributed import run_on_dask

            run_on_dask(scheduler, list(datasets), batch, finished, describe)
        else:
            compile_ahead(datasets, batch, jobs)
            if workers == 1:
                _run_here(list(datasets), batch, finished, describe)
            else:
                from dtcli.evaluate.workers import run_pool

                run_pool(list(datasets), batch, workers, finished, describe)
    finally:
        store.close()

    per_cell = protocol.repeats * protocol.cv
    cells = {(d, c): [store.get(k) for k in keys[(d * len(criteria) + c) * per_cell:
                                                  (d * len(criteria) + c + 1) * per_cell]]
             for d in range(len(datasets)) for c in range(len(criteria))}
    return Grid(list(names), list(criteria), protocol, cells, computed=len(batch),
                reused=len(tasks) - len(batch))


def _describer(names: Sequence[str]) -> Callable[[Task], str]:
    def describe(task: Task) -> str:
        choice = task.choice
        return (f"dataset '{names[task.dataset]}', criterion {choice.label}, "
                f"repeat {task.repeat + 1}, fold {task.fold + 1}")
    return describe


def task_failed(exc: BaseException, where: str) -> DtreeError:
    """A library error inside a task, as one line that says which task."""
    kind = type(exc) if isinstance(exc, DtreeError) else DtreeError
    return kind(f"{where}: {exc}")


def _run_here(datasets: list[Dataset], tasks: list[Task], on_done, describe) -> None:
    warm_up(datasets, tasks)
    for j, task in enumerate(tasks):
        try:
            result = run_task(datasets[task.dataset], task)
        except DtreeError as exc:
            raise task_failed(exc, describe(task)) from None
        on_done(j, result)


# --------------------------------------------------------------------------
# Summaries
# --------------------------------------------------------------------------


def _finite(values) -> list[float]:
    return [float(v) for v in values if v is not None and math.isfinite(float(v))]


def mean_std(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (n - 1) of the finite values; std 0 for one value,
    both NaN for none."""
    finite = _finite(values)
    if not finite:
        return math.nan, math.nan
    mean = math.fsum(finite) / len(finite)
    if len(finite) == 1:
        return mean, 0.0
    return mean, math.sqrt(math.fsum((v - mean) ** 2 for v in finite) / (len(finite) - 1))


def summarize(folds: Sequence[dict]) -> dict:
    """{metric: {mean, std, values}} over fold results, plus the summed confusion matrix."""
    summary = {}
    for name in METRICS:
        values = [fold["metrics"][name] for fold in folds]
        mean, std = mean_std(values)
        summary[name] = {"mean": mean, "std": std, "values": values}
    summary["confusion_matrix"] = np.sum([fold["confusion_matrix"] for fold in folds],
                                         axis=0).astype(int).tolist()
    return summary


def repeat_means(folds: Sequence[dict], metric: str, cv: int) -> list[float]:
    """The mean of `metric` in each repeat (folds listed in (repeat, fold) order)."""
    return [mean_std([f["metrics"][metric] for f in folds[start:start + cv]])[0]
            for start in range(0, len(folds), cv)]
