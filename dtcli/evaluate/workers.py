"""Cross-validation tasks in local worker processes (dtcli.processes: they never
outlive their parent and stop at once when it stops early). Each worker receives
the datasets once, through the pool's initializer, and then only small `Task`
records.
"""
from __future__ import annotations

from dtcli.errors import DtreeError
from dtcli.processes import process_pool

_WORKER_DATASETS: list = []


def _init_worker(datasets: list, tasks: list) -> None:
    """Keep the datasets (sent once per worker) and load the kernels."""
    from dtcli.evaluate.runner import warm_up

    global _WORKER_DATASETS
    _WORKER_DATASETS = datasets
    warm_up(datasets, tasks)


def _run_in_worker(task) -> dict:
    from dtcli.evaluate.runner import run_task

    return run_task(_WORKER_DATASETS[task.dataset], task)


def run_pool(datasets: list, tasks: list, workers: int, on_done, describe) -> None:
    """Run `tasks` in `workers` processes; call on_done(task index, result) as each ends."""
    from concurrent.futures import as_completed
    from concurrent.futures.process import BrokenProcessPool

    from dtcli.evaluate.runner import task_failed

    with process_pool(_run_in_worker, tasks, workers, _init_worker, (datasets, tasks)) as futures:
        for future in as_completed(futures):
            j = futures[future]
            try:
                result = future.result()
            except DtreeError as exc:
                raise task_failed(exc, describe(tasks[j])) from None
            except BrokenProcessPool:
                raise DtreeError("a worker process died (out of memory?); finished tasks are "
                                 "kept with --results, rerun to continue") from None
            on_done(j, result)
