"""All numba compilation flags in one place.

Every kernel is nopython and cached on disk (where, and keyed on what:
cache.py), so only the first run with given sources pays for compilation.
Kernels are compiled for one set of argument types each (int64 / float64 /
uint64 arrays): callers convert before calling, which keeps the number of
compiled specialisations, and the cold start, small.
Inside kernels, write loops rather than slice assignments (`a[:] = b`):
numba's broadcasting machinery behind a slice assignment takes seconds to
compile, a loop milliseconds.
"""
import os

import numba
from numba.core import caching

from dtcli.jit import cache


def _lock_cache_writes() -> None:
    """Make numba's writes to its disk cache one process at a time (POSIX).

    numba files a compiled function under the next free number of its index:
    it reads the index, takes a number, writes the index, then the code. Two
    processes compiling different specialisations of one function at once (the
    workers of `dtree compare --jobs N`, of a Dask cluster on a shared disk, of
    `pytest -n`) can take the same number: one index entry is lost and the other
    may point at the other process's machine code, which later runs for the
    wrong criterion or form (seen here: a wrong tree; numba issues #4807 and
    #10128, open). An exclusive lock per index around the read-write makes the
    number unique. Reads need no lock: an entry is written before its code, and
    numba takes a missing code file for a cache miss.
    """
    try:
        import fcntl
    except ImportError:  # no flock (Windows): numba's own behaviour
        return
    unlocked = caching.IndexDataCacheFile.save
    if getattr(unlocked, "locked_by_dtree", False):
        return

    def save(self, key, data):
        os.makedirs(self._cache_path, exist_ok=True)
        with open(self._index_path + ".lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            unlocked(self, key, data)

    save.locked_by_dtree = True
    caching.IndexDataCacheFile.save = save


_lock_cache_writes()
CACHE = cache.install()

# fastmath={"contract"}: a product and a sum may be fused into one multiply-add
# (rounded once, so no less accurate); no other fast-math licence (results stay
# those of the written order of operations). The polynomials of elementary.py are
# mostly such pairs: two-class CCPDT 0.505 -> 0.47 s, ten-class 4.1 -> 4.0 s
# (100k rows, one thread).
# error_model="numpy": a division by zero gives inf or nan instead of raising.
# With Python's model every division carries a test and a path that raises
# (a branch in every scan, and a division that must select its result, as the
# tabled Tsallis form does for an empty node, would raise); the kernels guard
# their divisions themselves.
njit = numba.njit(cache=CACHE, nogil=True, error_model="numpy", fastmath={"contract"})
# Small helpers that take arrays are inlined at the numba IR level: an
# out-of-line call passing arrays costs ~40 ns in reference counting, more
# than a whole Gini evaluation.
inline_njit = numba.njit(cache=CACHE, nogil=True, inline="always", error_model="numpy",
                         fastmath={"contract"})


def njit_form(func, form: str):
    """njit for one form of a kernel that a factory makes several of (a closure per
    form). Each form gets a qualified name of its own, so it has a cache index of
    its own and its compiled code a symbol name no other form shares (numba names
    code by qualified name and a counter that depends on the order of compilation
    in a process).
    """
    func.__qualname__ = f"{func.__qualname__}_{form}"
    func.__name__ = f"{func.__name__}_{form}"
    return njit(func)
