"""A forest's per-tree work on threads, ended between trees when dtree is stopped.

`threads.run_chunks` hands each thread a few chunks of items. When Ctrl-C, SIGTERM
or SIGHUP stops the main thread while it waits for them, the pool's threads would
still run every chunk to its end (Python joins them at exit): a forest would finish
growing before dtree exits. Here a flag, set as the stop leaves the wait, is
checked before every tree, so the threads end with the tree in hand.
"""
from __future__ import annotations

import threading
from typing import Callable

from dtcli.jit.threads import CHUNKS_PER_THREAD, run_chunks


def for_each_tree(work: Callable[[int], None], n_trees: int, n_threads: int, size: int,
                  chunks_per_thread: int = CHUNKS_PER_THREAD) -> None:
    """work(t) for t in range(n_trees), on threads as run_chunks(..., size) would run
    them, ending between trees when the caller is stopped."""
    stopped = threading.Event()

    def run(lo, hi):
        for t in range(lo, hi):
            if stopped.is_set():
                return
            work(t)

    try:
        run_chunks(run, n_trees, n_threads, size, chunks_per_thread=chunks_per_thread)
    except BaseException:
        stopped.set()
        raise
