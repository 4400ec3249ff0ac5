"""Write output files atomically: a temporary file beside the target, then rename.

A failed or interrupted command never leaves a half-written output behind.
"""
from __future__ import annotations

import os
import sys
import tempfile
from contextlib import contextmanager
from typing import IO, Iterator

from dtcli.errors import DtreeError


@contextmanager
def open_output(path: str | None, mode: str = "w") -> Iterator[IO]:
    """Yield a file to write; '-' or None means stdout. Renamed into place on success."""
    if path in (None, "-"):
        yield sys.stdout.buffer if "b" in mode else sys.stdout
        return
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".dtree-", suffix=".tmp", dir=directory)
    except FileNotFoundError:
        raise DtreeError(f"{path}: cannot write: directory {directory} does not exist") from None
    except OSError as exc:
        raise DtreeError(f"{path}: cannot write ({exc.strerror})") from None
    try:
        with os.fdopen(fd, mode, **({} if "b" in mode else {"encoding": "utf-8", "newline": ""})) as handle:
            yield handle
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give the usual file mode
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
