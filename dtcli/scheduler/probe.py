"""Ask whether a Dask scheduler answers at an address, within deadlines, before Dask's
client connects to it.

Dask's client retries a refused connection until its timeout, and then reads the
scheduler's handshake with no deadline at all (distributed.comm.core.connect): a
port where something accepts connections but says nothing (a proxy, a service that
waits for its client to speak first) hangs it for ever. So `probe` connects first,
in at most CONNECT_SECONDS (a refused connection fails at once), and waits at most
HANDSHAKE_SECONDS for the message a Dask scheduler sends on every new connection:
its handshake, one frame whose 8-byte length (native byte order) leads
(distributed.comm.tcp.TCP.read). The error names the address and what did not
answer. Only tcp:// addresses are read so far; a tls:// one is only connected to.
"""
from __future__ import annotations

import socket
import struct
import time

from dtcli.errors import DtreeError

CONNECT_SECONDS = 5.0
HANDSHAKE_SECONDS = 5.0
# A scheduler's handshake is a few hundred bytes; a longer "frame" is not Dask speaking.
LARGEST_HANDSHAKE = 1 << 20
_LENGTH = struct.Struct("Q")


def host_and_port(address: str) -> tuple[str, str, int]:
    """(scheme, host, port) of an address distributed.check_address accepted: the scheme
    defaults to tcp, an IPv6 host loses its brackets."""
    scheme, _, location = address.rpartition("://")
    host, _, port = location.rpartition(":")
    return scheme or "tcp", host.strip("[]"), int(port)


def probe(address: str, connect_seconds: float = CONNECT_SECONDS,
          handshake_seconds: float = HANDSHAKE_SECONDS) -> None:
    """DtreeError unless a Dask scheduler answers at `address` within the deadlines."""
    scheme, host, port = host_and_port(address)
    if scheme not in ("tcp", "tls"):
        return  # another transport (inproc, ucx, ws): Dask's own timeouts apply
    failed = f"cannot connect to the Dask scheduler at {address}"
    try:
        connection = socket.create_connection((host, port), timeout=connect_seconds)
    except ConnectionRefusedError:
        raise DtreeError(f"{failed}: connection refused (nothing listens on port {port} "
                         f"of {host})") from None
    except TimeoutError:
        raise DtreeError(f"{failed}: {host} did not answer the connection in "
                         f"{connect_seconds:g} s (an address that does not route, or a "
                         "firewall that drops it)") from None
    except socket.gaierror as exc:
        raise DtreeError(f"{failed}: cannot resolve {host} ({exc.strerror})") from None
    except OSError as exc:
        raise DtreeError(f"{failed}: {exc.strerror or exc}") from None
    with connection:
        if scheme == "tcp":
            _read_handshake(connection, handshake_seconds, failed)


def _read_handshake(connection: socket.socket, seconds: float, failed: str) -> None:
    deadline = time.monotonic() + seconds
    try:
        (length,) = _LENGTH.unpack(_receive(connection, _LENGTH.size, deadline))
        if not 0 < length <= LARGEST_HANDSHAKE:
            raise DtreeError(f"{failed}: something answers there, but not a Dask scheduler")
        _receive(connection, length, deadline)
    except TimeoutError:
        raise DtreeError(f"{failed}: it accepted the connection but sent no Dask handshake "
                         f"in {seconds:g} s (is a Dask scheduler listening there?)") from None
    except (ConnectionError, EOFError):
        raise DtreeError(f"{failed}: it closed the connection without a Dask handshake "
                         "(is a Dask scheduler listening there?)") from None


def _receive(connection: socket.socket, size: int, deadline: float) -> bytes:
    """Exactly `size` bytes before `deadline` (TimeoutError), EOFError if the peer closes."""
    data = bytearray()
    while len(data) < size:
        connection.settimeout(max(deadline - time.monotonic(), 1e-3))
        chunk = connection.recv(min(size - len(data), 1 << 16))
        if not chunk:
            raise EOFError
        data += chunk
    return bytes(data)
