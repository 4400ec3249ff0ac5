"""Cross-validation tasks in local worker processes (dtcli.processes: they never
outlive their parent and stop at once when it stops early). Each worker receives
the datasets once, through the pool's initializer, and then only small lists of
`Task` records, runs of tasks of one dataset (`batch.task_groups`), which it runs on
one presort of that dataset (`batch.run_tasks`), kept for the next run of the same one.

A worker sends each task's result to the parent as soon as it has it, on a queue
of its own beside the pool: a run's future only says how the run ended. When the
parent stops early (Ctrl-C), it takes what the queue holds before it ends the
workers, so every fold finished by then is kept (`--results`).
"""
from __future__ import annotations

import queue as queue_module
import time

from dtcli.crossval.batch import PreparedDataset, run_tasks, task_failed, task_groups
from dtcli.crossval.warm import warm_up
from dtcli.errors import DtreeError
from dtcli.processes import process_pool, spawn_context

_WORKER_DATASETS: list = []
_PREPARED: dict = {}  # dataset index -> batch.PreparedDataset, the last one used
_RESULTS = None  # in a worker: the parent's queue of (run, position, result)

# Tasks of one dataset sent to a worker at once: at most this much work (training rows
# x features, summed), so that the workers stay evenly loaded; and at most MAX_CHUNK
# tasks.
CHUNK_WORK = 2_000_000
MAX_CHUNK = 64
# How long the parent sleeps when the queue is empty (a SimpleQueue's get has no
# timeout): short beside a fold, long beside a wake-up.
POLL_SECONDS = 0.002


def _init_worker(datasets: list, tasks: list, results) -> None:
    """Keep the datasets (sent once per worker) and the results queue, and load the
    kernels."""
    global _WORKER_DATASETS, _RESULTS
    _WORKER_DATASETS = datasets
    _RESULTS = results
    warm_up(datasets, tasks)


def _run_in_worker(run: tuple[int, list]) -> tuple[int, DtreeError] | None:
    """Run `run` = (its index, tasks of one dataset) on the worker's copy of that dataset,
    presorted once for as long as its runs keep coming; each result goes to the parent's
    queue. Returns None, or (the failing task's position, its error)."""
    index, tasks = run
    dataset = tasks[0].dataset
    if dataset not in _PREPARED:
        _PREPARED.clear()
        _PREPARED[dataset] = PreparedDataset.of(_WORKER_DATASETS[dataset])
    for position, (result, error) in enumerate(group_results(_PREPARED[dataset], tasks)):
        if error is not None:
            return position, error
        _RESULTS.put((index, position, result))
    return None


def group_results(dataset, tasks: list):
    """Yield, for a run of tasks of one dataset (a Dataset, or a batch.PreparedDataset)
    on one presort, (result, None) for each task, up to a failing one: (None, its
    error)."""
    try:
        for result in run_tasks(dataset, tasks):
            yield result, None
    except DtreeError as exc:
        yield None, exc


def run_group(dataset, tasks: list) -> list[tuple[dict | None, DtreeError | None]]:
    """group_results as a list (a Dask task's return value)."""
    return list(group_results(dataset, tasks))


def chunk_size(dataset, cv: int, tasks: int, workers: int) -> int:
    """How many tasks of `dataset` go to a worker at once (see CHUNK_WORK)."""
    work = max(len(dataset.y) * (cv - 1) // cv * dataset.X.shape[1], 1)
    balanced = -(-tasks // (4 * workers))  # at least four runs per worker
    return max(1, min(CHUNK_WORK // work, MAX_CHUNK, balanced))


def run_pool(datasets: list, tasks: list, workers: int, on_done, describe) -> None:
    """Run `tasks` in `workers` processes; call on_done(task index, result) as each ends.
    On Ctrl-C, the results already sent are taken before the interrupt goes on."""
    from concurrent.futures.process import BrokenProcessPool

    groups = task_groups(tasks, lambda task: chunk_size(datasets[task.dataset], task.cv,
                                                       len(tasks), workers))
    runs = [(r, [tasks[j] for j in group]) for r, group in enumerate(groups)]
    # one task per (criterion, options) is all warm_up reads: the workers' start-up data
    # stays small however many folds there are
    kinds = list({(t.criterion, t.params, t.options): t for t in tasks}.values())
    # a SimpleQueue writes from the worker's own thread: a Queue's feeder thread and
    # locks cost seven times as much per result, a fifth of a compare's time
    results = spawn_context().SimpleQueue()
    received = [0] * len(groups)  # results taken, per run
    expected = [len(group) for group in groups]  # lowered to a failing task's position

    def take() -> bool:
        """on_done for the next result on the queue; False if there is none yet."""
        if results.empty():
            return False
        run, position, result = results.get()
        received[run] += 1
        on_done(groups[run][position], result)
        return True

    with process_pool(_run_in_worker, runs, workers, _init_worker,
                      (datasets, kinds, results)) as futures:
        try:
            pending = dict(futures)
            ended = queue_module.SimpleQueue()  # runs whose futures are done, as they end
            for future in futures:
                future.add_done_callback(ended.put)
            failure = None
            while pending or received != expected:
                if not take():
                    time.sleep(POLL_SECONDS)
                while not ended.empty():
                    future = ended.get()
                    run = pending.pop(future)
                    outcome = future.result()
                    if outcome is not None and failure is None:
                        expected[run] = outcome[0]
                        failure = run, outcome[1]
                # a failed run's results before the failure are taken first
                if failure is not None and received[failure[0]] == expected[failure[0]]:
                    run, error = failure
                    raise task_failed(error, describe(tasks[groups[run][expected[run]]])) \
                        from None
        except BrokenProcessPool:
            # not read: a worker that died may have left half a result on the queue
            raise DtreeError("a worker process died (out of memory?); finished tasks are "
                             "kept with --results, rerun to continue") from None
        except BaseException:
            while take():  # what the workers finished before it stopped
                pass
            raise
