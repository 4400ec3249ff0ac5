"""A Dask scheduler's address and the client connected to it (Dask is an optional
dependency, `pip install "dtcli[dask]"`, imported only here): the forests and
cross-validation both connect through `connect`."""
from __future__ import annotations

import logging
import re
from contextlib import contextmanager

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


def import_distributed():
    try:
        import distributed
    except ImportError:
        raise DtreeError(f"--scheduler needs Dask distributed; {INSTALL_HINT}") from None
    return distributed


def connect(address: str):
    """A Dask client of the scheduler at `address`, connected within deadlines (the
    scheduler is probed first: probe.py); DtreeError naming the address and
    what did not answer otherwise."""
    distributed = import_distributed()
    from dtcli.scheduler.probe import host_and_port, probe

    failed = f"cannot connect to the Dask scheduler at {address}"
    if host_and_port(address)[0] == "tls" and not _tls_configured():
        raise DtreeError(f"{failed}: tls:// needs Dask's TLS settings (distributed.comm.tls: "
                         "ca-file, and client.cert and client.key), and none are set")
    probe(address)
    try:
        return distributed.Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except Exception as exc:  # noqa: BLE001 - any transport's failure (ucx:// without ucx...)
        raise DtreeError(f"{failed} ({first_line(exc)})") from None


@contextmanager
def quiet_client():
    """While a run talks to the cluster and closes its client, Dask's logs stay quiet: a
    scheduler that dies logs its lost connection and every reconnection attempt as
    tracebacks (36 lines) before the run fails, which the caller says in one line.
    (Dask's handlers hang on the "distributed" logger, which its children reach.)"""
    import_distributed()  # which sets up its loggers
    handlers = logging.getLogger("distributed").handlers + logging.getLogger().handlers
    for handler in handlers:
        handler.addFilter(_drop_distributed)
    try:
        yield
    finally:
        for handler in handlers:
            handler.removeFilter(_drop_distributed)


def _drop_distributed(record: logging.LogRecord) -> bool:
    return not record.name.startswith("distributed")


def _tls_configured() -> bool:
    import dask

    return bool(dask.config.get("distributed.comm.tls.ca-file", None))


def first_line(exc: BaseException) -> str:
    """An exception as one line: its type and its message's first line."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
