"""Files dtree appends lines to (`--results`): read, repaired and appended under a lock,
each line written whole or not at all.

Reading: a file none of whose lines is one of ours, or with a bad line before its
last, is refused untouched (it is not ours, or someone edited it); a bad *last* line
is what an interrupted write leaves, so it is cut off in place and kept in a
`.damaged` copy beside the file. Appending: under an exclusive `flock` (several runs
may share a file), at the end, and on a failed or short write (a full disk) the file
is truncated back to where the line began, so it never ends in half a line.
"""
from __future__ import annotations

import errno
import fcntl
import os
import stat
from collections.abc import Callable
from typing import Any

from dtcli.errors import DtreeError


class AppendFile:
    """`path`, a file of lines that `parse(line bytes)` turns into records (None: not a
    line of ours); `what` names it in messages ("results file")."""

    def __init__(self, path: str, what: str):
        self.path, self.what = path, what
        self.repaired: tuple[int, str] | None = None  # (line number, the .damaged copy)
        self._fd: int | None = None

    def _fail(self, exc: OSError, doing: str):
        raise DtreeError(f"{self.path}: cannot {doing} the {self.what} ({exc.strerror})") from None

    def read(self, parse: Callable[[bytes], Any]) -> list[Any]:
        """The records of the file's lines (none if it does not exist), after refusing a
        file that is not ours and cutting off a damaged last line (`repaired` says so)."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return []
        except OSError as exc:
            self._fail(exc, "read")
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise DtreeError(f"{self.path}: the {self.what} must be a regular file (it is "
                                 "read and appended to)")
            fcntl.flock(fd, fcntl.LOCK_EX)  # no other run appends while we read and repair
            with os.fdopen(os.dup(fd), "rb") as handle:
                raw = handle.read()
            records, bad, start, good_end = [], [], 0, 0
            for number, line in enumerate(raw.split(b"\n"), start=1):
                if line.strip():
                    record = parse(line)
                    if record is None:
                        bad.append(number)
                    else:
                        records.append(record)
                        good_end = start + len(line) + 1
                start += len(line) + 1
            if bad:
                self._repair(raw, records, bad, good_end)
            return records
        except OSError as exc:
            self._fail(exc, "read")
        finally:
            os.close(fd)  # and with it the lock

    def _repair(self, raw: bytes, records: list, bad: list[int], good_end: int) -> None:
        """Refuse the file, or cut off its damaged last line (and the blank lines around
        it: all after `good_end`, the end of the last good line), keeping it in a copy."""
        if not records:
            raise DtreeError(f"{self.path}: not a {self.what} (none of its lines is one); "
                             "left untouched: name another file")
        if len(bad) > 1 or raw.count(b"\n", 0, good_end) >= bad[0]:
            raise DtreeError(f"{self.path}: line {bad[0]} is damaged and is not the last line "
                             "(an interrupted write damages only the last): left untouched; "
                             "remove that line or name another file")
        copy = self._keep(raw[good_end:])
        try:
            os.truncate(self.path, good_end)
        except OSError as exc:  # (a read-only file): as it was, and no copy of nothing
            os.unlink(copy)
            raise DtreeError(f"{self.path}: cannot cut off its damaged last line {bad[0]} "
                             f"({exc.strerror})") from None
        self.repaired = (bad[0], copy)

    def _keep(self, data: bytes) -> str:
        """Write `data` to a new file beside ours, never over an existing one; its path."""
        for n in range(1, 1000):
            copy = f"{self.path}.damaged" + ("" if n == 1 else f".{n}")
            try:
                fd = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            except FileExistsError:
                continue
            try:
                _write_all(fd, data)
            finally:
                os.close(fd)
            return copy
        raise DtreeError(f"{self.path}: cannot keep its damaged last line: {self.path}.damaged "
                         "and 998 more copies exist")

    def append(self, line: bytes) -> None:
        """Append `line` and a newline, whole or not at all (OSError if not)."""
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o666)
        fd = self._fd
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            end = os.lseek(fd, 0, os.SEEK_END)
            if end and os.pread(fd, 1, end - 1) != b"\n":  # a last line with no end
                line = b"\n" + line
            try:
                _write_all(fd, line + b"\n")
            except OSError:
                try:
                    os.ftruncate(fd, end)
                except OSError:  # the next run's read cuts the half line off instead
                    pass
                raise
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)

    def close(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    """os.write until all of `data` is written; a write that writes nothing is ENOSPC."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if written == 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[written:]
