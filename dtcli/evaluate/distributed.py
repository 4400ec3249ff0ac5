"""Run cross-validation tasks on a Dask distributed cluster (`compare --scheduler`).

Dask is an optional dependency (`pip install "dtcli[dask]"`), imported only
here. Every dataset is scattered to all workers once (`broadcast=True`), and
each task refers to its dataset's future, so a task ships only its small
`Task` record. The workers run `runner.run_task`, the same function as local
worker processes, so the results are the same; dtcli must be installed on
the workers.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from dtcli.errors import DtreeError

INSTALL_HINT = 'install the extra: pip install "dtcli[dask]"'
CONNECT_TIMEOUT = "20s"


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise DtreeError(f"--scheduler needs Dask distributed; {INSTALL_HINT}") from None
    return distributed


def run_on_dask(address: str, datasets: Sequence, tasks: Sequence,
                on_done: Callable[[int, dict], None], describe: Callable) -> None:
    """Run `tasks` on the cluster whose scheduler listens at `address`; call
    on_done(task index, result) as each one finishes."""
    distributed = _import_distributed()
    from dtcli.evaluate.runner import run_task, task_failed

    try:
        client = distributed.Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise DtreeError(f"cannot connect to the Dask scheduler at {address} ({exc})") from None
    try:
        shipped = client.scatter(list(datasets), broadcast=True, hash=False)
        futures = {client.submit(run_task, shipped[task.dataset], task, pure=False): j
                   for j, task in enumerate(tasks)}
        for future in distributed.as_completed(futures, loop=client.loop):
            j = futures[future]
            try:
                result = future.result()
            except DtreeError as exc:
                raise task_failed(exc, describe(tasks[j])) from None
            on_done(j, result)
    finally:
        client.close()
