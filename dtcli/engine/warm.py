"""Compile ahead: the units that fits will need, compiled on all cores at once.

A fit compiles, the first time, the drivers (once for all criteria) and its
criterion's searches (forms.py lists the units). `warm` compiles the cold units of
every (criterion, form of data) asked for, each unit in one process of a pool
(dtcli.processes: they die with dtree), so that the compilations run side by side
and no two processes compile the same unit; the code lands in the disk cache
(jit/cache.py), where the fits that follow, in this process or in workers, load it.
A marker per unit in the cache directory makes a second `warm` free.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

SMALL_ROWS = 64
# Features of the warming data: two numeric and, for the nominal forms, one nominal.
N_FEATURES = 3


class Form(NamedTuple):
    two_classes: bool
    nominal: bool  # has nominal features
    levels: bool  # has nodes too large for one subtree call (builder.SUBTREE_BYTES)


class WarmTask(NamedTuple):
    criterion: str
    params: tuple[tuple[str, float], ...]
    form: Form

    def units(self) -> list:
        """The units (forms.Unit) a fit of this task compiles; a form with nodes large
        enough for the level driver adds the presort of large data."""
        from dtcli import criteria
        from dtcli.engine.forms import Unit, units_for

        engine = criteria.get(self.criterion).engine(dict(self.params))
        units = units_for(engine, 2 if self.form.two_classes else 3, self.form.nominal)
        return units + ([Unit("presort")] if self.form.levels else [])

    @property
    def marker(self) -> str:
        """The compiled code the task loads, named: parameters are runtime values, so
        tasks that differ only in them (a grid of q, say) share one marker."""
        return "+".join(unit.name for unit in self.units())


def form_of(X: np.ndarray, n_classes: int, is_nominal: np.ndarray) -> Form:
    from dtcli.engine.builder import SUBTREE_BYTES

    rows_per_subtree = SUBTREE_BYTES // (16 * max(X.shape[1], 1))
    return Form(n_classes == 2, bool(np.any(is_nominal)), X.shape[0] > rows_per_subtree)


def _level_rows() -> int:
    """Rows whose root the level driver grows (and above numpy's sort's limit in
    presort, so that the radix sort compiles too)."""
    from dtcli.engine.builder import SUBTREE_BYTES

    return SUBTREE_BYTES // (16 * N_FEATURES) + 1000


def _small_data(form: Form):
    """Data of `form`: two numeric features and a third, nominal or numeric; noisy
    classes; for a level form, enough rows that the root is grown by the level driver
    and the small nodes below it as subtrees."""
    n = _level_rows() if form.levels else SMALL_ROWS
    rng = np.random.default_rng(0)
    n_classes = 2 if form.two_classes else 3
    y = rng.integers(0, n_classes, n)
    third = ((y + rng.integers(0, 2, n)) % 3).astype(float) if form.nominal else rng.normal(0, 1, n)
    X = np.column_stack([y + rng.normal(0, 1.5, n), rng.normal(0, 1, n), third])
    X[rng.random(X.shape) < 0.05] = np.nan
    is_nominal = np.array([0, 0, form.nominal], np.uint8)
    n_categories = np.array([0, 0, 3 if form.nominal else 0], np.int64)
    return X, y, n_classes, is_nominal, n_categories


def presort_large() -> None:
    """Presort data too large for numpy's sort, compiling the radix sort (presort.py)."""
    from dtcli.engine import builder

    X, y, n_classes, is_nominal, n_categories = _small_data(Form(True, False, True))
    builder.prepare(X, y, n_classes, is_nominal, n_categories, n_threads=1)


def run_task(task: WarmTask) -> None:
    """Fit and apply one tree of the task's criterion and form, and grow and predict two
    folds as cross-validation does (engine/folds.py), compiling what they need."""
    from dtcli import criteria
    from dtcli.engine import builder
    from dtcli.engine.folds import predict_folds

    X, y, n_classes, is_nominal, n_categories = _small_data(task.form)
    prepared = builder.prepare(X, y, n_classes, is_nominal, n_categories, n_threads=1)
    engine = criteria.get(task.criterion).engine(dict(task.params))
    rules = builder.StopRules(max_depth=4)
    tree = builder.grow(prepared, engine, rules, n_threads=1)
    tree.apply(X, is_nominal, 1)
    even = np.arange(X.shape[0]) % 2 == 0
    predict_folds(prepared, engine, rules, [even, ~even], X,
                  [np.flatnonzero(~even), np.flatnonzero(even)])


def warm(tasks: Iterable[WarmTask], jobs: int | None = None) -> int:
    """Compile the cold units of `tasks`, in up to `jobs` processes (default: all
    cores), showing progress (jit/notice.py); return how many were cold. Nothing to do
    (all marked) costs no process and says nothing."""
    from concurrent.futures import as_completed

    from dtcli.engine.forms import compile_unit, is_warm, mark
    from dtcli.jit.cache import cache_root
    from dtcli.jit.notice import compile_progress
    from dtcli.processes import available_cores, process_pool

    if cache_root() is None:
        return 0  # no disk cache: what other processes compile is lost to this one
    units = {}
    for task in sorted(set(tasks)):
        for unit in task.units():
            units.setdefault(unit.name, unit)
    pending = [unit for name, unit in sorted(units.items()) if not is_warm(unit)]
    if not pending:
        return 0
    workers = min(jobs or available_cores(), len(pending))
    with compile_progress(len(pending), "the engine's kernels, side by side",
                          str(cache_root().parent)) as step, \
            process_pool(compile_unit, pending, workers) as futures:
        for future in as_completed(futures):
            future.result()
            unit = pending[futures[future]]
            mark(unit)
            step(unit.name)
    return len(pending)
