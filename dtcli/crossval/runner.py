"""Cross-validation as a grid of independent tasks, run in-process, in worker processes or on Dask.

A comparison is one task per (dataset, criterion, repeat, fold): fit a tree on
the fold's training rows, predict its test rows, score the predictions
(`scoring.score_predictions`). The folds depend only on a dataset's labels, the number
of folds, the seed and the repeat (`folds.repeat_folds`), and trees are
deterministic, so a task's result does not depend on where or in which order
it runs: `--jobs 1`, `--jobs 8` and a Dask cluster give the same numbers
(timings aside).

Every task has a key (`tasks.task_key`: the dataset's content, the criterion,
the tree options, the protocol, the repeat and the fold, and dtree's version).
A `ResultStore` (`dtcli.crossval.results`) keeps finished tasks as JSON lines
under that key, so a rerun skips them and a changed option reruns only the
tasks it changes. Adding repeats keeps the earlier ones; renaming or moving a
data file keeps its results.

Workers: a pool of processes ("spawn" start method, so nothing of the parent's
threads or locks is inherited; `dtcli.crossval.workers`) that receive each
dataset once and then only small `Task` records; each tree is grown on one
thread; one pool serves a whole run (`workers.shared_workers`). A worker costs a
Python start, imports and loading the kernels of its tasks, so a run too small to
pay for that runs in this process whatever `jobs` says (`workers_for`).
Before the tasks start, the kernels of every (criterion, form of data) they
need are compiled ahead, side by side in processes (`warm.compile_ahead`), so that
no worker compiles. The workers run dtree's code only (dtcli.processes), so a
script that calls `run_grid` needs no `if __name__ == "__main__":` guard.
`dtcli.crossval.distributed` does the same on a Dask cluster.
"""
from __future__ import annotations

import logging
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from dtcli.crossval.batch import run_tasks, task_failed, task_groups
from dtcli.crossval.results import ResultStore
from dtcli.crossval.tasks import (CriterionChoice, Protocol, Task, TreeOptions, dataset_digest,
                                  task_key)
from dtcli.crossval.warm import compile_ahead, warm_up
from dtcli.errors import DtreeError
from dtcli.io.dataset import NOMINAL, Dataset
from dtcli.reporting.report import METRICS, TIMING


# --------------------------------------------------------------------------
# One task
# --------------------------------------------------------------------------


def run_task(dataset: Dataset, task: Task) -> dict:
    """Fit on the task's training fold, score on its test fold (`batch.run_tasks` for one
    task; the tree is the one fitted on the training rows alone)."""
    return next(run_tasks(dataset, [task]))


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


# What a run costs in this process, on the batch path (docs/engine.md, "Batch path"):
# a fixed cost per task (fold weights, the grower's set-up, prediction, metrics) and
# the growth, about proportional to training rows x features; and what starting a
# worker costs (a Python start and dtree's imports, then loading the kernels of each
# criterion and form of data it is given), in parallel with the others. Workers pay
# when the run's seconds spread over them save more than that (docs/development.md,
# "Workers"; benchmarks/bench_compare.py --start measures both).
SECONDS_PER_TASK = 4e-4
SECONDS_PER_UNIT = 1e-7
WORKER_START_SECONDS = 0.75
KERNEL_LOAD_SECONDS = 0.02
# Set to a number of seconds, the start cost assumed instead (0: any run with jobs > 1
# starts workers; the tests of the pools set it).
START_VARIABLE = "DTREE_WORKER_START_SECONDS"


def idle_cores(cores: int) -> int:
    """Of `cores`, how many other processes leave idle: the cores less the system's load
    over the last minute, this process aside (at least 1)."""
    try:
        busy = os.getloadavg()[0] - 1.0
    except (AttributeError, OSError):  # no load average here
        return cores
    return max(1, min(cores, round(cores - max(busy, 0.0))))


def work_seconds(datasets: Sequence[Dataset], tasks: Sequence[Task]) -> float:
    """The seconds `tasks` take in this process, estimated."""
    work = sum(len(datasets[t.dataset].y) * (t.cv - 1) // t.cv * datasets[t.dataset].X.shape[1]
               for t in tasks)
    return SECONDS_PER_TASK * len(tasks) + SECONDS_PER_UNIT * work


def start_seconds(datasets: Sequence[Dataset], tasks: Sequence[Task]) -> float:
    """What starting one worker for `tasks` costs (0 when the run's workers are running
    already); `$DTREE_WORKER_START_SECONDS` if set."""
    from dtcli.crossval.workers import pool_running

    if pool_running():
        return 0.0
    given = os.environ.get(START_VARIABLE)
    if given:
        try:
            return max(float(given), 0.0)
        except ValueError:
            raise DtreeError(f"{START_VARIABLE}={given!r} is not a number of seconds") from None
    loads = {(t.criterion, t.params, len(datasets[t.dataset].classes) == 2,
              any(f.kind == NOMINAL for f in datasets[t.dataset].features)) for t in tasks}
    return WORKER_START_SECONDS + KERNEL_LOAD_SECONDS * len(loads)


def workers_for(jobs: int | None, datasets: Sequence[Dataset], tasks: Sequence[Task]) -> int:
    """How many processes run `tasks`: `jobs` (default: the cores other processes leave
    idle), or 1 when the run is too small to pay for starting workers, whatever `jobs`
    says (said on the "dtcli" logger: `dtree -v`)."""
    from dtcli.processes import available_cores

    cores = min(jobs or idle_cores(available_cores()), len(tasks))
    if cores <= 1:
        return 1
    seconds, start = work_seconds(datasets, tasks), start_seconds(datasets, tasks)
    if seconds * (1 - 1 / cores) <= start:
        logging.getLogger("dtcli").info(
            "%d folds, about %.1f s of work: run in this process (starting %d workers "
            "costs about %.1f s each; %s=0 starts them)", len(tasks), seconds, cores, start,
            START_VARIABLE)
        return 1
    return cores


def plan(datasets: Sequence[Dataset], criteria: Sequence[CriterionChoice], options: TreeOptions,
         protocol: Protocol) -> tuple[list[Task], list[str]]:
    """The tasks of a run and their keys, in (dataset, criterion, repeat, fold) order."""
    tasks, keys = [], []
    for d, dataset in enumerate(datasets):
        digest = dataset_digest(dataset)
        for choice in criteria:
            own = choice.tree_options(options)
            for repeat in range(protocol.repeats):
                for fold in range(protocol.cv):
                    tasks.append(Task(d, choice.name, choice.params, own, protocol.cv,
                                      protocol.seed, repeat, fold, choice.options, choice.trees,
                                      protocol.folds))
                    keys.append(task_key(digest, choice, own, protocol.cv, protocol.seed,
                                         repeat, fold, protocol.folds))
    return tasks, keys


def run_grid(names: Sequence[str], datasets: Sequence[Dataset], criteria: Sequence[CriterionChoice],
             options: TreeOptions, protocol: Protocol, *, jobs: int | None = None,
             store: ResultStore | None = None, scheduler: str | None = None,
             progress: Progress | None = None) -> Grid:
    """Every dataset x criterion x repeat x fold, skipping tasks already in `store`.

    Runs on the Dask cluster at `scheduler` if given, else in `jobs` worker
    processes (by default, the idle cores), or in this process for jobs=1 or a run
    too small to pay for starting workers (`workers_for`). Inside
    `workers.shared_workers`, the batches of a run share one pool.
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
    workers = workers_for(jobs, datasets, batch) if batch else 1
    try:
        if not batch:
            pass
        elif scheduler is not None:
            from dtcli.crossval.distributed import run_on_dask

            run_on_dask(scheduler, list(datasets), batch, finished, describe)
        else:
            if jobs != 1:  # one process compiles as fast here as in a pool of one
                compile_ahead(datasets, batch, jobs)
            if workers == 1:
                _run_here(list(datasets), batch, finished, describe)
            else:
                from dtcli.crossval.workers import run_pool

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
        return (f"dataset '{names[task.dataset]}', criterion {task.choice.label}, "
                f"repeat {task.repeat + 1}, fold {task.fold + 1}")
    return describe


def _run_here(datasets: list[Dataset], tasks: list[Task], on_done, describe) -> None:
    warm_up(datasets, tasks)
    for group in task_groups(tasks):
        results = run_tasks(datasets[tasks[group[0]].dataset], [tasks[j] for j in group])
        for j in group:
            try:
                result = next(results)
            except DtreeError as exc:
                raise task_failed(exc, describe(tasks[j])) from None
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
    if all("calibration" in fold for fold in folds):
        summary["calibration"] = pooled_calibration(folds)
    return summary


def pooled_calibration(folds: Sequence[dict]) -> dict:
    """The reliability diagram of the folds' pooled out-of-fold probabilities: {bins, count,
    confidence, accuracy} (probabilities.calibration_of the bin sums added over the folds)."""
    from dtcli.measures.probabilities import calibration_of

    sums = {name: np.sum([fold["calibration"][name] for fold in folds], axis=0)
            for name in ("count", "confidence", "correct")}
    pooled = calibration_of(sums)
    return {"bins": len(pooled["count"]), **{name: values.tolist()
                                              for name, values in pooled.items()}}


def repeat_means(folds: Sequence[dict], metric: str, cv: int) -> list[float]:
    """The mean of `metric` in each repeat (folds listed in (repeat, fold) order)."""
    return [mean_std([f["metrics"][metric] for f in folds[start:start + cv]])[0]
            for start in range(0, len(folds), cv)]
