"""Getting a file's bytes: path or stdin, gzip, format from the extension, UTF-8."""
from __future__ import annotations

import gzip
import mmap
import os
import re
import sys
import zlib
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np

from dtcli.errors import DataError, ParameterError

FORMATS = ("csv", "arff", "keel")
_FORMAT_OF_EXTENSION = {
    ".csv": "csv", ".tsv": "csv", ".txt": "csv", ".arff": "arff", ".dat": "keel",
}
_GZIP_MAGIC = b"\x1f\x8b"
_BOM = b"\xef\xbb\xbf"
_NOT_SPACE = re.compile(rb"[^ \t\n\r\x0b\x0c]")  # what bytes.isspace() calls space
# A larger file is memory-mapped, not read: reading 190 MB into new memory takes a
# quarter of the time pyarrow takes to parse it (each new page is zeroed, then copied to).
MAP_BYTES = 1 << 20
STDIN = "-"
FileContent = bytes | memoryview  # a memoryview is of a mapped file


@dataclass
class RawInput:
    name: str  # for messages: the path as given, or "<stdin>"
    format: str
    data: FileContent  # decompressed, UTF-8 byte-order mark removed


def read_source(source: str, format: str | None = None) -> RawInput:
    """Read a whole input into memory, decompressing gzip (detected by its magic bytes).

    The format is `format` if given, else "csv" for stdin, else taken from the
    extension (under a trailing ".gz").
    """
    if format is not None and format not in FORMATS:
        raise ParameterError(f"unknown format '{format}'; choose one of {', '.join(FORMATS)}")
    name = "<stdin>" if source == STDIN else source
    data = sys.stdin.buffer.read() if source == STDIN else _read_file(source)
    fmt = format or ("csv" if source == STDIN else _format_from_extension(source))
    if data[:len(_GZIP_MAGIC)] == _GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise DataError(f"{name}: damaged gzip data ({exc})") from None
    if data[:len(_BOM)] == _BOM:
        data = data[len(_BOM):]
    if not _NOT_SPACE.search(data):
        raise DataError(f"{name}: the file is empty")
    return RawInput(name, fmt, data)


def decode_utf8(data: FileContent, name: str) -> str:
    """Decode UTF-8 text, or raise a DataError giving the line of the first bad byte."""
    if _is_ascii(data):  # fast path: plain ASCII is valid UTF-8
        return str(data, "ascii")
    try:
        return str(data, "utf-8")
    except UnicodeDecodeError as exc:
        line = bytes(data[:exc.start]).count(b"\n") + 1
        raise DataError(
            f"{name}:{line}: not UTF-8 text (byte 0x{data[exc.start]:02x}); save the file as UTF-8"
        ) from None


def _is_ascii(data: FileContent) -> bool:
    """bytes.isascii() for a memoryview too, at memory speed."""
    return len(data) == 0 or int(np.frombuffer(data, dtype=np.uint8).max()) < 0x80


def _format_from_extension(path: str) -> str:
    base = path[:-3] if path.lower().endswith(".gz") else path
    ext = os.path.splitext(base)[1].lower()
    try:
        return _FORMAT_OF_EXTENSION[ext]
    except KeyError:
        raise DataError(
            f"{path}: cannot tell the format from the extension '{ext}'; "
            f"give --input-format ({', '.join(FORMATS)})"
        ) from None


def _read_file(path: str) -> FileContent:
    try:
        with open(path, "rb") as f:
            if os.fstat(f.fileno()).st_size > MAP_BYTES:
                return _map(f)
            return f.read()
    except FileNotFoundError:
        raise DataError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise DataError(f"{path}: is a directory, not a data file") from None
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror or exc})") from None


def _map(f: BinaryIO) -> FileContent:
    """The file mapped into memory, or read where it cannot be (some file systems)."""
    try:
        return memoryview(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ))
    except (OSError, ValueError):
        return f.read()
