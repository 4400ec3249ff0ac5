"""Cross-validation tasks in local worker processes (dtcli.processes: they never
outlive their parent and stop at once when it stops early). Each worker receives
the datasets once, through the pool's initializer, and then only small lists of
`Task` records, runs of tasks of one dataset (`runner.task_groups`), which it runs on
one presort of that dataset (`batch.run_tasks`), kept for the next run of the same one.
"""
from __future__ import annotations

from dtcli.errors import DtreeError
from dtcli.processes import process_pool

_WORKER_DATASETS: list = []
_PREPARED: dict = {}  # dataset index -> batch.PreparedDataset, the last one used

# Tasks of one dataset sent to a worker at once: at most this much work (training rows
# x features, summed), so that the workers stay evenly loaded and an interrupted run
# loses little finished work; and at most MAX_CHUNK tasks.
CHUNK_WORK = 2_000_000
MAX_CHUNK = 64


def _init_worker(datasets: list, tasks: list) -> None:
    """Keep the datasets (sent once per worker) and load the kernels."""
    from dtcli.evaluate.runner import warm_up

    global _WORKER_DATASETS
    _WORKER_DATASETS = datasets
    warm_up(datasets, tasks)


def _run_in_worker(tasks: list) -> list[tuple[dict | None, DtreeError | None]]:
    """run_group on the worker's copy of the tasks' dataset, presorted once for as long
    as its runs keep coming."""
    from dtcli.evaluate.batch import PreparedDataset

    index = tasks[0].dataset
    if index not in _PREPARED:
        _PREPARED.clear()
        _PREPARED[index] = PreparedDataset.of(_WORKER_DATASETS[index])
    return run_group(_PREPARED[index], tasks)


def run_group(dataset, tasks: list) -> list[tuple[dict | None, DtreeError | None]]:
    """A run of tasks of one dataset (a Dataset, or a batch.PreparedDataset) on one
    presort: (result, None) for each task, up to a failing one: (None, its error)."""
    from dtcli.evaluate.batch import run_tasks

    done = []
    try:
        for result in run_tasks(dataset, tasks):
            done.append((result, None))
    except DtreeError as exc:
        done.append((None, exc))
    return done


def chunk_size(dataset, cv: int, tasks: int, workers: int) -> int:
    """How many tasks of `dataset` go to a worker at once (see CHUNK_WORK)."""
    work = max(len(dataset.y) * (cv - 1) // cv * dataset.X.shape[1], 1)
    balanced = -(-tasks // (4 * workers))  # at least four runs per worker
    return max(1, min(CHUNK_WORK // work, MAX_CHUNK, balanced))


def run_pool(datasets: list, tasks: list, workers: int, on_done, describe) -> None:
    """Run `tasks` in `workers` processes; call on_done(task index, result) as each ends."""
    from concurrent.futures import as_completed
    from concurrent.futures.process import BrokenProcessPool

    from dtcli.evaluate.runner import task_failed, task_groups

    groups = task_groups(tasks, lambda task: chunk_size(datasets[task.dataset], task.cv,
                                                       len(tasks), workers))
    runs = [[tasks[j] for j in group] for group in groups]
    # one task per (criterion, options) is all warm_up reads: the workers' start-up data
    # stays small however many folds there are
    kinds = list({(t.criterion, t.params, t.options): t for t in tasks}.values())
    with process_pool(_run_in_worker, runs, workers, _init_worker, (datasets, kinds)) as futures:
        for future in as_completed(futures):
            group = groups[futures[future]]
            try:
                results = future.result()
            except BrokenProcessPool:
                raise DtreeError("a worker process died (out of memory?); finished tasks are "
                                 "kept with --results, rerun to continue") from None
            for j, (result, error) in zip(group, results):
                if error is not None:
                    raise task_failed(error, describe(tasks[j])) from None
                on_done(j, result)
