"""Run cross-validation tasks on a Dask distributed cluster (`compare --scheduler`).

Dask is an optional dependency, imported by dtcli/scheduler/connection.py. Every
dataset is scattered to all workers once (`broadcast=True`), and each Dask task is a
run of `Task` records of one dataset (`batch.task_groups`, sized as for local worker
processes: `workers.chunk_size`) that refers to its dataset's future and runs on one
presort of it (`workers.run_group`, the function local workers run, so the results
are the same); dtcli must be installed on the workers.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from dtcli.errors import DtreeError
from dtcli.scheduler.connection import connect, first_line, import_distributed, quiet_client


def run_on_dask(address: str, datasets: Sequence, tasks: Sequence,
                on_done: Callable[[int, dict], None], describe: Callable) -> None:
    """Run `tasks` on the cluster whose scheduler listens at `address`; call
    on_done(task index, result) as each one finishes."""
    with quiet_client():
        _run(address, datasets, tasks, on_done, describe)


def _run(address: str, datasets: Sequence, tasks: Sequence,
         on_done: Callable[[int, dict], None], describe: Callable) -> None:
    distributed = import_distributed()
    from dtcli.crossval.batch import task_failed, task_groups
    from dtcli.crossval.workers import chunk_size, run_group

    client = connect(address)
    done = 0
    try:
        shipped = client.scatter(list(datasets), broadcast=True, hash=False)
        threads = max(sum(client.nthreads().values()), 1)
        groups = task_groups(tasks, lambda task: chunk_size(datasets[task.dataset], task.cv,
                                                           len(tasks), threads))
        futures = {client.submit(run_group, shipped[tasks[group[0]].dataset],
                                 [tasks[j] for j in group], pure=False): group
                   for group in groups}
        for future in distributed.as_completed(futures, loop=client.loop):
            group = futures[future]
            for j, (result, error) in zip(group, future.result()):
                if error is not None:
                    raise task_failed(error, describe(tasks[j])) from None
                on_done(j, result)
                done += 1
    except (DtreeError, KeyboardInterrupt):
        raise
    except Exception as exc:  # noqa: BLE001 - the cluster failed, not a task
        raise DtreeError(f"the Dask cluster at {address} failed mid-run "
                         f"({first_line(exc)}): {done} of {len(tasks)} tasks finished, "
                         "their results kept (with --results FILE, the same command "
                         "resumes from them)") from None
    finally:
        _close_quietly(client)


def _close_quietly(client) -> None:
    """Close the client; a cluster already gone makes that fail too, which adds nothing."""
    try:
        client.close(timeout=5)
    except Exception:  # noqa: BLE001
        pass
