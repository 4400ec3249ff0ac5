"""Compile ahead: the kernels that fits will need, compiled on all cores at once.

numba compiles the engine per criterion and per form of data (`Form`: two
classes or more, nominal features or not, and whether nodes are large enough
for the level driver), the first time a fit needs it, on one core. `warm`
fits a small tree of every (criterion, form) asked for, each in a process of
a pool, so that the compilations run side by side and no two processes
compile the same kernel; the code lands in the disk cache (cache.py), where
the fits that follow, in this process or in workers, load it. A marker per
(criterion, form) in the cache directory makes a second `warm` free.
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from typing import NamedTuple

import numpy as np

# Rows of the data that warms a level-driver form: above numpy's sort's limit in
# presort, so that the radix sort compiles too.
LEVEL_ROWS = 5000
SMALL_ROWS = 64


class Form(NamedTuple):
    two_classes: bool
    nominal: bool  # has nominal features
    levels: bool  # has nodes too large for one subtree call (builder.SUBTREE_BYTES)


class WarmTask(NamedTuple):
    criterion: str
    params: tuple[tuple[str, float], ...]
    form: Form

    @property
    def marker(self) -> str:
        params = "".join(f"-{k}={v:g}" for k, v in self.params)
        return f"{self.criterion}{params}-{''.join('1' if f else '0' for f in self.form)}"


def form_of(X: np.ndarray, n_classes: int, is_nominal: np.ndarray) -> Form:
    from dtcli.engine.builder import SUBTREE_BYTES

    rows_per_subtree = SUBTREE_BYTES // (16 * max(X.shape[1], 1))
    return Form(n_classes == 2, bool(np.any(is_nominal)), X.shape[0] > rows_per_subtree)


def _small_data(form: Form):
    """Data of `form`: two numeric features (and a nominal one), noisy classes."""
    n = LEVEL_ROWS if form.levels else SMALL_ROWS
    rng = np.random.default_rng(0)
    n_classes = 2 if form.two_classes else 3
    y = rng.integers(0, n_classes, n)
    columns = [y + rng.normal(0, 1.5, n), rng.normal(0, 1, n)]
    if form.nominal:
        columns.append(((y + rng.integers(0, 2, n)) % 3).astype(float))
    X = np.column_stack(columns)
    X[rng.random(X.shape) < 0.05] = np.nan
    is_nominal = np.array([0, 0, 1][:X.shape[1]], np.uint8)
    n_categories = np.array([0, 0, 3][:X.shape[1]], np.int64)
    return X, y, n_classes, is_nominal, n_categories


def run_task(task: WarmTask) -> None:
    """Fit and apply one tree of the task's criterion and form (compiling what it needs)."""
    from dtcli import criteria
    from dtcli.engine import builder

    X, y, n_classes, is_nominal, n_categories = _small_data(task.form)
    if task.form.levels:
        builder.SUBTREE_BYTES = 0  # this process only warms: every node by the level driver
    prepared = builder.prepare(X, y, n_classes, is_nominal, n_categories, n_threads=1)
    engine = criteria.get(task.criterion).engine(dict(task.params))
    tree = builder.grow(prepared, engine, builder.StopRules(max_depth=4), n_threads=1)
    tree.apply(X, is_nominal, 1)


def _marked(task: WarmTask, root) -> bool:
    return root is not None and (root / "warmed" / task.marker).exists()


def warm(tasks: Iterable[WarmTask], jobs: int | None = None) -> int:
    """Compile what `tasks` need, in up to `jobs` processes (default: all cores); return
    how many were not warm yet. Nothing to do (all marked) costs no process."""
    from dtcli.engine.cache import cache_root

    root = cache_root()
    if root is None:
        return 0  # no disk cache: what other processes compile is lost to this one
    pending = sorted({t for t in tasks if not _marked(t, root)})
    if not pending:
        return 0
    workers = min(jobs or len(os.sched_getaffinity(0)), len(pending))
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        for task, _ in zip(pending, pool.map(run_task, pending)):
            (root / "warmed").mkdir(exist_ok=True)
            (root / "warmed" / task.marker).touch()
    return len(pending)
