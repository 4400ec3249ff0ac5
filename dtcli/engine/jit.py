"""All numba compilation flags in one place.

Every kernel is nopython and cached on disk, so only the first run after an
install pays for compilation. Kernels are compiled for one set of argument
types each (int64 / float64 / uint64 arrays): callers convert before calling,
which keeps the number of compiled specialisations, and the cold start, small.
Inside kernels, write loops rather than slice assignments (`a[:] = b`):
numba's broadcasting machinery behind a slice assignment takes seconds to
compile, a loop milliseconds.
"""
import numba

njit = numba.njit(cache=True, nogil=True)
parallel_njit = numba.njit(cache=True, nogil=True, parallel=True)
# Small helpers that take arrays are inlined at the numba IR level: an
# out-of-line call passing arrays costs ~40 ns in reference counting, more
# than a whole Gini evaluation.
inline_njit = numba.njit(cache=True, nogil=True, inline="always")
