"""Cross-validation tasks in local worker processes, which never outlive their parent.

The pool uses the "spawn" start method (nothing of the parent's threads or
locks is inherited); each worker receives the datasets once, through the
pool's initializer, and then only small `Task` records. A worker dies with
its parent however the parent ends: on Linux the kernel kills it
(prctl PR_SET_PDEATHSIG), elsewhere a thread watches the parent's pid. When
the parent stops early (an error, Ctrl-C, SIGTERM), it ends the workers at
once instead of waiting for their running tasks.
"""
from __future__ import annotations

import os
import signal
import sys
import threading
import time
from contextlib import contextmanager

from dtcli.errors import DtreeError

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
_WATCH_SECONDS = 1.0

_WORKER_DATASETS: list = []
# Held while the pool starts its processes, see run_pool.
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


def _init_worker(parent: int, datasets: list, tasks: list) -> None:
    """Pool initializer: die with the parent, ignore Ctrl-C (the parent handles it), keep
    the datasets (sent once per worker), load the kernels."""
    from dtcli.evaluate.runner import warm_up

    global _WORKER_DATASETS
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
    _WORKER_DATASETS = datasets
    warm_up(datasets, tasks)


def _run_in_worker(task) -> dict:
    from dtcli.evaluate.runner import run_task

    return run_task(_WORKER_DATASETS[task.dataset], task)


def run_pool(datasets: list, tasks: list, workers: int, on_done, describe) -> None:
    """Run `tasks` in `workers` processes; call on_done(task index, result) as each ends."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    from dtcli.evaluate.runner import task_failed

    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_init_worker, initargs=(os.getpid(), datasets, tasks))
    finished = False
    try:
        with _stop_signals_held():  # submit() starts the processes
            futures = {pool.submit(_run_in_worker, task): j for j, task in enumerate(tasks)}
        for future in as_completed(futures):
            j = futures[future]
            try:
                result = future.result()
            except DtreeError as exc:
                raise task_failed(exc, describe(tasks[j])) from None
            except BrokenProcessPool:
                raise DtreeError("a worker process died (out of memory?); finished tasks are "
                                 "kept with --results, rerun to continue") from None
            on_done(j, result)
        finished = True
    finally:
        if not finished:
            # shutdown() would wait for the running tasks; the executor has no public way
            # to stop its processes, hence its private table of them. SIGKILL: a worker
            # still starting holds SIGTERM.
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                process.kill()
        pool.shutdown(wait=True, cancel_futures=True)
