"""Process pools whose processes never outlive dtree and stop as soon as it stops.

Used for the workers of a cross-validation (crossval.workers) and for compiling
ahead (engine.warm). The pools use the "spawn" start method (nothing of the
parent's threads or locks is inherited), and their processes run dtree's code
only: a spawned process would otherwise import the user's main module again, so
that a script without `if __name__ == "__main__":` ran its own top level once
more in every worker (and crashed, since that top level starts the pool again).
dtree's tasks are all dtree functions, so the workers do not need the main
module: it is hidden while the processes start (`_main_module_hidden`). A
process dies with its parent however
the parent ends: on Linux the kernel kills it (prctl PR_SET_PDEATHSIG),
elsewhere a thread watches the parent's pid. When the parent stops early (an
error, Ctrl-C, SIGTERM), it ends the processes at once instead of waiting for
their running tasks.
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
import types
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Callable, Iterator, Sequence

from dtcli.errors import DtreeError

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
_WATCH_SECONDS = 1.0

# Held while a pool starts its processes (`_stop_signals_held`).
_STOP_SIGNALS = {getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                 if hasattr(signal, name)}


@contextmanager
def _stop_signals_held():
    """Delay Ctrl-C, SIGTERM and SIGHUP until the pool's processes have started: stopped
    half-way through writing a starting worker's start-up data, this process would leave
    it to print a traceback (EOFError). Blocked here, they are blocked in the workers too,
    which inherit the mask and release it in their initializer. Blocking covers only this
    thread, though: another one (pyarrow's, numba's) may take the signal, and Python then
    runs its handler in the main thread all the same; so meanwhile the handlers only note
    a signal, and it is raised again once the processes have started."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    caught: list[int] = []
    handlers = {}
    if threading.current_thread() is threading.main_thread():  # handlers can change there
        handlers = {number: signal.signal(number, lambda signum, frame: caught.append(signum))
                    for number in _STOP_SIGNALS if callable(signal.getsignal(number))}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)  # a pending signal is noted now
        for number, handler in handlers.items():
            signal.signal(number, handler)
        if caught:
            signal.raise_signal(caught[0])


@contextmanager
def _main_module_hidden():
    """While processes are spawned, `__main__` is an empty module: multiprocessing
    sends the main module's path (or name, under `python -m`) to each new process,
    which imports it again before running anything; an empty module sends neither.
    The user's own module is back as soon as the processes have started."""
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is None:
            del sys.modules["__main__"]
        else:
            sys.modules["__main__"] = main


def _kernel_kills_orphans() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies; False where it cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_WATCH_SECONDS)
    os._exit(1)


def die_with_parent(parent: int) -> None:
    """End this process when process `parent` ends (see the module docstring)."""
    if _kernel_kills_orphans():
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)
        return
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def spawn_context():
    """The multiprocessing context of dtree's pools (and of what is shared with them)."""
    return multiprocessing.get_context("spawn")


def available_cores() -> int:
    """The cores this process may use (its CPU affinity where the system has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _init_process(parent: int, initializer: Callable | None, initargs: tuple) -> None:
    """Pool initializer: die with the parent, ignore Ctrl-C (the parent handles it), then
    the caller's initializer."""
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
    if initializer is not None:
        initializer(*initargs)


class ProcessPool:
    """`workers` processes that run dtree's tasks, batch after batch, for as long as a run
    needs them (`open_pool`). `submit(func, items)` starts what processes are missing (the
    main module hidden, stop signals held) and returns {future: item index}; `stop()` ends
    the processes at once, without waiting for running tasks."""

    def __init__(self, workers: int, initializer: Callable | None = None, initargs: tuple = ()):
        self.workers = workers
        self._executor = ProcessPoolExecutor(max_workers=workers, mp_context=spawn_context(),
                                             initializer=_init_process,
                                             initargs=(os.getpid(), initializer, initargs))

    def submit(self, func: Callable, items: Sequence) -> dict[Future, int]:
        # a submit starts one more process while fewer than `workers` are idle: any
        # submit may start one ("spawn"), so each is made with the main module hidden
        with _stop_signals_held(), _main_module_hidden():
            return {self._executor.submit(func, item): j for j, item in enumerate(items)}

    def stop(self) -> None:
        # shutdown() would wait for the running tasks; the executor has no public way to
        # stop its processes, hence its private table of them. SIGKILL: a process still
        # starting holds SIGTERM.
        for process in list((getattr(self._executor, "_processes", None) or {}).values()):
            process.kill()
        self.close()

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)


BROKEN = ("a process dtree started ended unexpectedly (killed, or out of memory?); run "
          "again, or with jobs=1 (-j 1)")


@contextmanager
def open_pool(workers: int, initializer: Callable | None = None,
              initargs: tuple = ()) -> Iterator[ProcessPool]:
    """A ProcessPool for the block. Leaving it with an exception (or a signal) ends the
    processes at once. A process that dies (killed, out of memory) breaks the pool: the
    futures' results raise at once (BrokenProcessPool, from the executor's watch of its
    processes), so no wait on them outlasts the processes; unless the block turns it into
    an error of its own, it becomes one DtreeError line."""
    pool = ProcessPool(workers, initializer, initargs)
    finished = False
    try:
        yield pool
        finished = True
    except BrokenProcessPool:
        raise DtreeError(BROKEN) from None
    finally:
        if finished:
            pool.close()
        else:
            pool.stop()


@contextmanager
def process_pool(func: Callable, items: Sequence, workers: int, initializer: Callable | None = None,
                 initargs: tuple = ()) -> Iterator[dict[Future, int]]:
    """func(item) for every item in `workers` processes (`open_pool`): yields {future:
    item index}."""
    with open_pool(workers, initializer, initargs) as pool:
        yield pool.submit(func, items)
