"""Run cross-validation tasks on a Dask distributed cluster (`compare --scheduler`).

Dask is an optional dependency (`pip install "dtcli[dask]"`), imported only
here. Every dataset is scattered to all workers once (`broadcast=True`), and
each task refers to its dataset's future, so a task ships only its small
`Task` record. The workers run `runner.run_task`, the same function as local
worker processes, so the results are the same; dtcli must be installed on
the workers.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from dtcli.errors import DtreeError, ParameterError

INSTALL_HINT = 'install the extra: pip install "dtcli[dask]"'
CONNECT_TIMEOUT = "20s"


# [protocol://]host:port, the host a name, an IPv4 address or a bracketed IPv6 address
_ADDRESS = re.compile(r"^(?:[a-z][a-z0-9+.-]*://)?(?:[^\s/:\[\]]+|\[[0-9a-fA-F:.]+\]):\d{1,5}$")


def check_address(address: str) -> str:
    """ParameterError unless `address` reads as a scheduler address, before any work starts
    (Dask's client would fail only after it, and then again when it is collected)."""
    if not _ADDRESS.match(address):
        raise ParameterError(f"--scheduler {address!r} is not a scheduler address; expected "
                             "tcp://HOST:PORT")
    return address


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
