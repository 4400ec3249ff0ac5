"""Run cross-validation tasks on a Dask distributed cluster (`compare --scheduler`).

Dask is an optional dependency (`pip install "dtcli[dask]"`), imported only
here. Every dataset is scattered to all workers once (`broadcast=True`), and
each Dask task is a run of `Task` records of one dataset (`batch.task_groups`,
sized as for local worker processes: `workers.chunk_size`) that refers to its
dataset's future and runs on one presort of it (`workers.run_group`, the
function local workers run, so the results are the same); dtcli must be
installed on the workers.
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


def connect(address: str):
    """A Dask client of the scheduler at `address`, connected within deadlines (the
    scheduler is probed first: scheduler_probe.py); DtreeError naming the address and
    what did not answer otherwise."""
    distributed = _import_distributed()
    from dtcli.scheduler.probe import probe

    probe(address)
    try:
        return distributed.Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise DtreeError(f"cannot connect to the Dask scheduler at {address} ({exc})") from None


def run_on_dask(address: str, datasets: Sequence, tasks: Sequence,
                on_done: Callable[[int, dict], None], describe: Callable) -> None:
    """Run `tasks` on the cluster whose scheduler listens at `address`; call
    on_done(task index, result) as each one finishes."""
    distributed = _import_distributed()
    from dtcli.crossval.batch import task_failed, task_groups
    from dtcli.crossval.workers import chunk_size, run_group

    client = connect(address)
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
    finally:
        client.close()
