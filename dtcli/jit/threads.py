"""Run a nogil kernel over chunks of an index range on a pool of threads.

The engine's kernels are plain serial `njit(nogil=True)` loops over
`range(lo, hi)`; parallelism comes from calling them on contiguous chunks
from Python threads. Compared with numba's prange this compiles faster,
loads faster from the cache and starts no threading layer, and a chunk is
a whole run of work items, so threads share no reference counts in the hot
loop. Results never depend on the number of threads: every item is
computed the same way whichever thread runs it.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

_pools: dict[int, ThreadPoolExecutor] = {}

# Below this many units of work (rows x features, say) threads cost more than they save.
MIN_PARALLEL_WORK = 200_000
CHUNKS_PER_THREAD = 4


def _pool(n_threads: int) -> ThreadPoolExecutor:
    if n_threads not in _pools:
        _pools[n_threads] = ThreadPoolExecutor(n_threads, thread_name_prefix="dtree")
    return _pools[n_threads]


def run_chunks(kernel, n_items: int, n_threads: int, work: int, *args,
               chunks_per_thread: int = CHUNKS_PER_THREAD) -> list:
    """kernel(*args, lo, hi) for contiguous chunks covering range(n_items); returns
    what the calls returned, in the order of their chunks."""
    if n_threads <= 1 or work < MIN_PARALLEL_WORK or n_items <= 1:
        return [kernel(*args, 0, n_items)]
    # A few chunks per thread, so that a thread that drew cheap items takes more.
    chunks = min(n_items, chunks_per_thread * n_threads)
    bounds = [n_items * k // chunks for k in range(chunks + 1)]
    futures = [_pool(n_threads).submit(kernel, *args, lo, hi)
               for lo, hi in zip(bounds[:-1], bounds[1:]) if hi > lo]
    try:
        return [future.result() for future in futures]
    except BaseException:  # a stop (Ctrl-C) while waiting: the chunks not begun never begin
        for future in futures:
            future.cancel()
        raise


def run_stoppable(stop: np.ndarray, kernel, n_items: int, n_threads: int, work: int, *args,
                  chunks_per_thread: int = CHUNKS_PER_THREAD) -> list:
    """run_chunks for a kernel that may run long (S-pruning's permutation test) and reads
    `stop[0]` by blocks of work: it runs on the pool's threads even when one chunk would
    do, so that this thread waits where Python handles signals at once. When Ctrl-C,
    SIGTERM or SIGHUP stops the wait, stop[0] is set, the running chunks end within a
    block, and the stop is raised once they have: no kernel is left running on buffers
    the unwinding frees, or holds the interpreter's exit for minutes."""
    chunks = max(1, min(n_items, chunks_per_thread * n_threads)) if (
        n_threads > 1 and work >= MIN_PARALLEL_WORK) else 1
    bounds = [n_items * k // chunks for k in range(chunks + 1)]
    futures = [_pool(max(n_threads, 1)).submit(kernel, *args, lo, hi)
               for lo, hi in zip(bounds[:-1], bounds[1:]) if hi > lo or chunks == 1]
    try:
        return [future.result() for future in futures]
    except BaseException:
        stop[0] = 1
        for future in futures:
            future.cancel()
        while not all(future.done() for future in futures):
            try:
                wait(futures)
            except BaseException:  # noqa: BLE001 - a second signal: still wait, briefly
                continue
        raise
