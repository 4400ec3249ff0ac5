"""Write outputs without destroying anything.

A regular file (or a missing one) is written to a temporary file beside it and
renamed over it on success, so a failed or interrupted command never leaves a
half-written file. Anything else that already exists (a device such as
/dev/null, a FIFO, a shell's `>(...)` pipe) is written in place: renaming over
it would replace the device or pipe with a regular file. Symlinks are
followed: the link stays and its target is replaced. An output that is one of
the command's inputs is refused (`refuse_output_over_input`).
"""
from __future__ import annotations

import os
import stat
import sys
import tempfile
from contextlib import contextmanager, suppress
from typing import IO, Iterator

from dtcli.errors import DtreeError, ParameterError


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)  # follows symlinks: the kind of the target is what matters
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise DtreeError(f"{path}: cannot write ({exc.strerror})") from None


def _text_options(mode: str) -> dict:
    return {} if "b" in mode else {"encoding": "utf-8", "newline": ""}


@contextmanager
def open_output(path: str | None, mode: str = "w") -> Iterator[IO]:
    """Yield a file to write; '-' or None means stdout. A regular file is replaced atomically
    on success; an error while writing (a full disk) is one DtreeError naming the file."""
    if path in (None, "-"):
        yield sys.stdout.buffer if "b" in mode else sys.stdout
        return
    status = _stat(path)
    if status is not None and stat.S_ISDIR(status.st_mode):
        raise DtreeError(f"{path}: cannot write: it is a directory")
    try:
        if status is not None and not stat.S_ISREG(status.st_mode):
            with open(path, mode, **_text_options(mode)) as handle:
                yield handle
        else:
            with _replace_atomically(os.path.realpath(path), path, status, mode) as handle:
                yield handle
    except OSError as exc:
        raise DtreeError(f"{path}: cannot write ({exc.strerror or exc})") from None


@contextmanager
def _replace_atomically(target: str, shown: str, status: os.stat_result | None,
                        mode: str) -> Iterator[IO]:
    directory = os.path.dirname(target)
    if not os.path.isdir(directory):
        raise DtreeError(f"{shown}: cannot write: directory {directory} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=".dtree-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, mode, **_text_options(mode)) as handle:
            yield handle
        # mkstemp makes 0600: keep the replaced file's mode, or give a new file the usual one
        os.chmod(tmp, stat.S_IMODE(status.st_mode) if status is not None else 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        with suppress(FileNotFoundError):  # a signal just after the rename: nothing to remove
            os.unlink(tmp)
        raise


def _umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask


def refuse_output_over_input(output: str | None, option: str, inputs: dict[str, str]) -> None:
    """ParameterError if `output` is the same file as one of `inputs` ({what: path}), by
    inode where both exist, else by real path; '-' and None are never the same file."""
    if output in (None, "-"):
        return
    for what, path in inputs.items():
        if path in (None, "-"):
            continue
        if _same_file(output, path):
            raise ParameterError(f"{option} {output} is the {what}: refusing to overwrite an "
                                 "input; choose another output file")


def _same_file(output: str, path: str) -> bool:
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False  # a device or pipe as input and output is no file to destroy
        return os.path.samefile(output, path)
    except OSError:  # one of them does not exist (yet)
        return os.path.realpath(output) == os.path.realpath(path)
