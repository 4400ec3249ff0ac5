"""A damaged kernel cache is a cache miss, and `dtree warm --check` repairs it.

numba reads a function's index (`.nbi`: numba's version, then a pickle of the
source stamp and the entries) and then an entry's code (`.nbc`, a pickle)
without guarding against damage: one truncated, empty or garbage file (a crash
between a write and its rename, a full disk, a bad copy) raised an
UnpicklingError traceback in every later run, or, for an empty index, an
EOFError that Click reports as a bare `Aborted.`. `tolerate_damage` makes both
reads take a file they cannot read for a missing entry: the kernel is compiled
again and numba's next write replaces the file; one line on stderr names it.
(Whether a folder may be read at all is cache.py's concern: unpickling runs code.)
"""
from __future__ import annotations

import pickle
import sys
from pathlib import Path

from numba.core import caching

_NAMED: set = set()  # the damaged files named on stderr in this process


def _say_damaged(path: str, error: BaseException) -> None:
    if path not in _NAMED:
        _NAMED.add(path)
        print(f"dtree: the kernel cache file {path} is damaged ({type(error).__name__}); "
              "compiling it again", file=sys.stderr, flush=True)


def tolerate_damage() -> None:
    """Make numba take an unreadable index or code file for a cache miss (once per
    process; see the module docstring)."""
    index_file, cache = caching.IndexDataCacheFile, caching.Cache
    if getattr(index_file._load_index, "tolerant_by_dtree", False):
        return
    load_index, load_overload = index_file._load_index, cache._load_overload

    def _load_index(self):
        try:
            overloads = load_index(self)
            if not isinstance(overloads, dict):
                raise TypeError(f"an index of {type(overloads).__name__}")
            return overloads
        except Exception as error:  # noqa: BLE001 - any unpickling failure is damage
            _say_damaged(self._index_path, error)
            return {}

    def _load_overload(self, sig, target_context):
        try:
            return load_overload(self, sig, target_context)
        except Exception as error:  # noqa: BLE001 - a code file that cannot be rebuilt
            _say_damaged(_data_file(self, sig, target_context), error)
            return None

    _load_index.tolerant_by_dtree = True
    index_file._load_index = _load_index
    cache._load_overload = _load_overload


def _data_file(cache, sig, target_context) -> str:
    """The code file of `sig`'s entry in `cache` (a numba Cache), or its index if unknown."""
    files = cache._cache_file
    try:
        name = files._load_index().get(cache._index_key(sig, target_context.codegen()))
    except Exception:  # noqa: BLE001 - naming the file is best effort
        name = None
    return files._data_path(name) if name else files._index_path


def _readable(index: Path) -> list[Path]:
    """The files of the function indexed by `index` that cannot be read: the index, or
    the code files it names; [] when all can."""
    try:
        with open(index, "rb") as f:
            version = pickle.load(f)
            rest = f.read()
        if version != caching.numba.__version__:
            return []  # another numba's: numba ignores it
        _stamp, overloads = pickle.loads(rest)
        names = list(overloads.values())
    except Exception:  # noqa: BLE001 - damage of any kind
        return [index]
    damaged = []
    for name in names:
        try:
            pickle.loads((index.parent / name).read_bytes())
        except FileNotFoundError:
            continue  # numba takes a missing code file for a miss
        except Exception:  # noqa: BLE001
            damaged.append(index.parent / name)
    return damaged


def check_and_repair(root: Path) -> list[Path]:
    """Read every index and code file of the cache at `root`; remove the damaged ones
    (a damaged index takes its code files with it) and, if any, the warm markers, so
    that the next warm or fit compiles what they held. Returns the damaged files."""
    damaged = []
    for index in sorted(root.rglob("*.nbi")):
        bad = _readable(index)
        damaged += bad
        if index in bad:
            bad = [index, *index.parent.glob(index.name[:-len(".nbi")] + ".*.nbc")]
        for path in bad:
            path.unlink(missing_ok=True)
    if damaged:
        markers = root / "warmed"
        for marker in markers.glob("*") if markers.is_dir() else ():
            marker.unlink(missing_ok=True)
    return damaged

