"""Cross-validation tasks in local worker processes (dtcli.processes: they never
outlive their parent and stop at once when it stops early).

One pool serves a whole run (`shared_workers`: a compare's grid and its tuned
methods, a tune's search, a reproduce run's tables): it is started by the first
batch of tasks that pays for it (runner.workers_for) and ended with the run. A
batch's datasets are handed over once, as files in a private folder of the run,
which a worker reads when it first gets a task of one; the tasks go as small lists
of `Task` records, runs of tasks of one dataset (`batch.task_groups`), which a worker
runs on one presort of that dataset (`batch.run_tasks`), kept for the next run of the
same one. A worker loads the kernels of the tasks it is given, before timing them
(crossval.warm.warm_up, once per process), not those of every task of the run.

A worker sends each task's result to the parent as soon as it has it, on a queue
of its own beside the pool: a run's future only says how the run ended. When the
parent stops early (Ctrl-C), it takes what the queue holds before it ends the
workers, so every fold finished by then is kept (`--results`).
"""
from __future__ import annotations

import os
import pickle
import queue as queue_module
import shutil
import tempfile
import time
from contextlib import contextmanager

from dtcli.crossval.batch import PreparedDataset, run_tasks, task_failed, task_groups
from dtcli.crossval.warm import warm_up
from dtcli.errors import DtreeError
from dtcli.processes import ProcessPool, spawn_context

_PREPARED: dict = {}  # in a worker: dataset file -> batch.PreparedDataset, the last one used
_RESULTS = None  # in a worker: the parent's queue of (run, position, result)

# Tasks of one dataset sent to a worker at once: at most this much work (training rows
# x features, summed), so that the workers stay evenly loaded; and at most MAX_CHUNK
# tasks.
CHUNK_WORK = 2_000_000
MAX_CHUNK = 64
# How long the parent sleeps when the queue is empty (a SimpleQueue's get has no
# timeout): short beside a fold, long beside a wake-up.
POLL_SECONDS = 0.002


def _init_worker(results) -> None:
    """Keep the parent's results queue."""
    global _RESULTS
    _RESULTS = results


def _run_in_worker(run: tuple[int, str, list]) -> tuple[int, DtreeError] | None:
    """Run `run` = (its index, its dataset's file, tasks of that dataset) on the worker's
    copy of the dataset, presorted once for as long as its runs keep coming; each result
    goes to the parent's queue. Returns None, or (the failing task's position, its
    error)."""
    index, path, tasks = run
    if path not in _PREPARED:
        _PREPARED.clear()
        with open(path, "rb") as file:  # written by this run's parent, in its own folder
            _PREPARED[path] = PreparedDataset.of(pickle.load(file))
    prepared = _PREPARED[path]
    # what these tasks run, loaded before they are timed
    warm_up({tasks[0].dataset: prepared.dataset}, tasks)
    for position, (result, error) in enumerate(group_results(prepared, tasks)):
        if error is not None:
            return position, error
        _RESULTS.put((index, position, result))
    return None


class _Workers:
    """The pool of one run (`shared_workers`), started when a batch first needs it, its
    results queue, and the folder the run's datasets are handed over in."""

    def __init__(self):
        self.pool: ProcessPool | None = None
        self.results = None
        self.folder: str | None = None
        self.files: dict = {}  # id(dataset) -> (dataset, its file): the dataset kept alive

    def pool_of(self, workers: int) -> ProcessPool:
        if self.pool is not None and self.pool.workers < workers:
            self.pool.close()
            self.pool = None
        if self.pool is None:
            # a SimpleQueue writes from the worker's own thread: a Queue's feeder thread
            # and locks cost seven times as much per result, a fifth of a compare's time
            self.results = spawn_context().SimpleQueue()
            self.pool = ProcessPool(workers, _init_worker, (self.results,))
        return self.pool

    def file_of(self, dataset) -> str:
        """The file a worker reads `dataset` from, written once per run."""
        if id(dataset) not in self.files:
            if self.folder is None:
                self.folder = tempfile.mkdtemp(prefix="dtree-datasets-")  # mode 700
            path = os.path.join(self.folder, f"{len(self.files)}.pickle")
            with open(path, "wb") as file:
                pickle.dump(dataset, file, protocol=pickle.HIGHEST_PROTOCOL)
            self.files[id(dataset)] = dataset, path
        return self.files[id(dataset)][1]

    def stop(self) -> None:
        """End the processes at once (a failure or an interrupt: what they still send
        must not reach a later batch)."""
        if self.pool is not None:
            self.pool.stop()
            self.pool = None

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


_SCOPES: list[_Workers] = []  # in the parent: the run open now (`shared_workers`), if any


@contextmanager
def shared_workers():
    """One pool of workers for every batch of tasks run inside the block (started by the
    first that pays for it; inside another such block, that block's pool)."""
    if _SCOPES:
        yield
        return
    _SCOPES.append(_Workers())
    try:
        yield
    finally:
        _SCOPES.pop().close()


def pool_running() -> bool:
    """Whether the run open now has its workers started already (they cost nothing more)."""
    return bool(_SCOPES) and _SCOPES[-1].pool is not None


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
    """Run `tasks` in `workers` processes (the run's pool: `shared_workers`); call
    on_done(task index, result) as each ends. On Ctrl-C, the results already sent are
    taken before the interrupt goes on."""
    with shared_workers():
        _run_pool(_SCOPES[-1], datasets, tasks, workers, on_done, describe)


def _run_pool(scope: _Workers, datasets: list, tasks: list, workers: int, on_done,
              describe) -> None:
    from concurrent.futures.process import BrokenProcessPool

    groups = task_groups(tasks, lambda task: chunk_size(datasets[task.dataset], task.cv,
                                                       len(tasks), workers))
    runs = [(r, scope.file_of(datasets[tasks[group[0]].dataset]), [tasks[j] for j in group])
            for r, group in enumerate(groups)]
    received = [0] * len(groups)  # results taken, per run
    expected = [len(group) for group in groups]  # lowered to a failing task's position
    pool = scope.pool_of(workers)
    results = scope.results

    def take() -> bool:
        """on_done for the next result on the queue; False if there is none yet."""
        if results.empty():
            return False
        run, position, result = results.get()
        received[run] += 1
        on_done(groups[run][position], result)
        return True

    try:
        futures = pool.submit(_run_in_worker, runs)
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
        scope.stop()
        raise DtreeError("a worker process died (out of memory?); finished tasks are "
                         "kept with --results, rerun to continue") from None
    except BaseException:
        try:
            while take():  # what the workers finished before it stopped
                pass
        finally:
            scope.stop()
        raise
