"""`--scheduler` at an address that does not behave: one line naming the address and what
did not answer, within seconds, never a hang (issues 36 and 37). Every address here is
a loopback one: an unroutable address is played by a listener whose queue of
connections is full, so that the kernel drops a new connection's first packet as it
would be lost on its way."""
import socket
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner

from dtcli.cli import cli
from dtcli.errors import DtreeError
from dtcli.scheduler.probe import host_and_port, probe

IRIS = Path(__file__).resolve().parent.parent / "examples" / "iris.csv"
SECONDS = 0.5  # the probe's deadlines in these tests


@contextmanager
def listener(backlog=16, answer=None, close=False):
    """A loopback port that accepts connections and then sends `answer` (bytes), closes
    them (`close`), or says nothing; yields its address."""
    server = socket.create_server(("127.0.0.1", 0), backlog=backlog)
    accepted = []

    def serve():
        while True:
            try:
                connection, _ = server.accept()
            except OSError:  # closed: the test is over
                return
            accepted.append(connection)
            if answer is not None:
                connection.sendall(answer)
            if close:
                connection.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.close()
        for connection in accepted:
            connection.close()


@contextmanager
def unroutable():
    """An address where a connection gets no answer: a listener that never accepts,
    its queue (one connection at backlog 0) already full (Linux drops the next SYN)."""
    server = socket.create_server(("127.0.0.1", 0), backlog=0)
    port = server.getsockname()[1]
    queued = [socket.create_connection(("127.0.0.1", port))]
    try:
        yield f"tcp://127.0.0.1:{port}"
    finally:
        for connection in queued:
            connection.close()
        server.close()


def closed_port() -> str:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
    return f"tcp://127.0.0.1:{port}"


def failure(address) -> tuple[str, float]:
    start = time.monotonic()
    with pytest.raises(DtreeError) as raised:
        probe(address, SECONDS, SECONDS)
    return str(raised.value), time.monotonic() - start


def test_addresses_are_split_into_scheme_host_and_port():
    assert host_and_port("tcp://10.0.0.1:8786") == ("tcp", "10.0.0.1", 8786)
    assert host_and_port("node7:8786") == ("tcp", "node7", 8786)
    assert host_and_port("tls://[::1]:8786") == ("tls", "::1", 8786)


def test_a_closed_port_fails_at_once():
    address = closed_port()
    message, seconds = failure(address)
    assert message.startswith(f"cannot connect to the Dask scheduler at {address}: "
                              "connection refused")
    assert seconds < SECONDS


@pytest.mark.parametrize("place, said", [
    (listener, "it accepted the connection but sent no Dask handshake in 0.5 s"),
    pytest.param(unroutable, "127.0.0.1 did not answer the connection in 0.5 s",
                 marks=pytest.mark.skipif(not sys.platform.startswith("linux"),
                                          reason="Linux drops the SYN")),
], ids=["mute listener", "no answer to the connection"])
def test_silence_fails_at_the_deadline(place, said):
    with place() as address:
        message, seconds = failure(address)
    assert message.startswith(f"cannot connect to the Dask scheduler at {address}: {said}")
    assert SECONDS <= seconds < SECONDS + 1


@pytest.mark.parametrize("answer, close, said", [
    (b"SSH-2.0-OpenSSH_9.6\r\n", False, "something answers there, but not a Dask scheduler"),
    (b"", True, "it closed the connection without a Dask handshake"),
    (b"\x10\x00\x00\x00\x00\x00\x00\x00 too short", True,
     "it closed the connection without a Dask handshake"),
])
def test_a_listener_that_is_not_dask_is_named(answer, close, said):
    with listener(answer=answer, close=close) as address:
        message, _ = failure(address)
    assert message.startswith(f"cannot connect to the Dask scheduler at {address}: {said}")


def test_a_dask_scheduler_passes_the_probe():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        probe(cluster.scheduler_address, 5, 5)


# --- on the command line ---------------------------------------------------------------------

def run_with_scheduler(address, *command):
    pytest.importorskip("distributed")
    start = time.monotonic()
    result = CliRunner().invoke(cli, [*command, "--scheduler", address])
    return result, time.monotonic() - start


@pytest.mark.parametrize("command", [
    ("evaluate", str(IRIS), "-c", "gini", "--cv", "2", "-q"),
    ("train", str(IRIS), "--model", "forest", "--trees", "4", "-q"),
], ids=["evaluate", "forest"])
def test_a_dead_scheduler_is_one_line_within_seconds(command):
    address = closed_port()
    result, seconds = run_with_scheduler(address, *command)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"Error: cannot connect to the Dask scheduler at {address}: connection refused "
        f"(nothing listens on port {address.rsplit(':', 1)[1]} of 127.0.0.1)"]
    assert seconds < 10  # 20 s and more before issue 36


def test_a_mute_scheduler_is_one_line_after_the_handshake_deadline():
    from dtcli.scheduler.probe import HANDSHAKE_SECONDS

    with listener() as address:
        result, seconds = run_with_scheduler(address, "evaluate", str(IRIS), "-c", "gini",
                                             "--cv", "2", "-q")
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"Error: cannot connect to the Dask scheduler at {address}: it accepted the "
        f"connection but sent no Dask handshake in {HANDSHAKE_SECONDS:g} s (is a Dask "
        "scheduler listening there?)"]
    assert seconds < HANDSHAKE_SECONDS + 10  # was still waiting after 7 minutes
