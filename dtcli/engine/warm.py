"""Compiling and loading the units (forms.py lists them): one function for all.

A fit compiles, the first time, the drivers (once for all criteria) and its
criterion's searches. One function compiles or loads any list of units
(`compile_units`), showing progress for the cold ones (jit/notice.py): those the
caller needs are compiled or loaded in this process, the other cold ones side by
side in a pool (dtcli.processes: they die with dtree) so that no two processes
compile the same unit; the code lands in the disk cache (jit/cache.py), where the
fits that follow, in this process or in workers, load it. Its callers: a first fit
asks before it compiles (`before_compiling`: the engine's growth calls up to here,
the one deliberate up-call of the layout); `warm` compiles the cold units of every
(criterion, form of data) asked for (`dtree warm`, and a run's tasks before its
workers start); a run, or `dtcli.train`, loads the units of its fits before it times
them (crossval.warm.warm_up, experiments.training.load_kernels). A marker per unit in
the cache directory makes a second `warm` free.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import nullcontext
from typing import NamedTuple

import numpy as np

from dtcli.engine.forms import Unit, is_warm, mark, units_for

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
    tables: bool = True  # rows of whole-number weights (count tables), or not

    def units(self) -> list:
        """The units (forms.Unit) a fit of this task compiles; a form with nodes large
        enough for the level driver adds the presort of large data."""
        from dtcli import criteria

        engine = criteria.get(self.criterion).engine(dict(self.params))
        units = units_for(engine, 2 if self.form.two_classes else 3, self.form.nominal,
                          self.tables)
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
    """Presort data too large for numpy's sort, compiling the radix sort (presort.py),
    and grow its root with the level driver (a search that finds no split)."""
    from dtcli.engine import builder
    from dtcli.engine.searches import NO_SPLIT

    X, y, n_classes, is_nominal, n_categories = _small_data(Form(True, False, True))
    prepared = builder.prepare(X, y, n_classes, is_nominal, n_categories, n_threads=1)
    builder.grow(prepared, NO_SPLIT, builder.StopRules(max_depth=1), n_threads=1)


def check_cache() -> list:
    """Read every file of the kernel cache, remove the damaged ones and, if there were any,
    the warm markers (jit/repair.py); the damaged files' paths."""
    from dtcli.jit import flags  # noqa: F401 - the cache is chosen once the jit is set up
    from dtcli.jit.cache import cache_root
    from dtcli.jit.repair import check_and_repair

    root = cache_root()
    return [] if root is None else check_and_repair(root)


_UNIT = {"compiling": False}  # inside compile_unit: its own fit compiles nothing more
_CHECKED: set = set()  # the fits' configurations checked in this process (before_compiling)


def compile_unit(unit: Unit) -> None:
    """Compile `unit` in this process (or load it from the cache) and mark it warm."""
    from dtcli.engine import searches

    _UNIT["compiling"] = True
    try:
        if unit.kind == "drivers":
            from dtcli.engine.folds import compile_drivers

            compile_drivers(unit.nominal)
        elif unit.kind == "presort":
            presort_large()
        else:
            for form in (unit.criterion, unit.criterion.screen):
                if form is not None:
                    searches.searches_for(form, unit.n_classes, unit.tables,
                                          searches.WARM_TABLE_SIZE, True, unit.nominal)
    finally:
        _UNIT["compiling"] = False
    mark(unit)


_LOADED: set = set()  # names of the units loaded in this process (compile_units' `here`)


def compile_units(units: Sequence[Unit], here: Sequence[Unit] = (), jobs: int = 1,
                  what: str = "the engine's kernels") -> int:
    """Have `units` compiled into the disk cache, once, and those in `here` loaded in
    this process too: the cold ones announced with progress (`what` they are), one cold
    unit of `here` (the drivers, if cold: the slowest) compiled in this process while
    the other cold ones compile side by side in up to `jobs` processes (at least one:
    a first fit waits for the slower of two compiles, not for both), and then loaded
    here from the cache if `here` needs them; the warm ones of `here` loaded without a
    word (a unit loaded in this process already costs nothing). Without a disk cache
    (what a process compiles would not reach the others), every unit of `here`
    compiles here and the others are left to the fits that need them. Returns how many
    units were cold."""
    from concurrent.futures import as_completed

    from dtcli.jit.cache import cache_root
    from dtcli.jit.notice import compile_progress
    from dtcli.processes import process_pool

    units = list({unit.name: unit for unit in units}.values())
    needed = {unit.name for unit in here}
    cold = [unit for unit in units if not is_warm(unit)]
    cached = cache_root() is not None
    if not cached:
        cold = [unit for unit in cold if unit.name in needed]
    cold_here = sorted((unit for unit in cold if unit.name in needed),
                       key=lambda unit: unit.kind != "drivers")
    local = {unit.name for unit in (cold_here[:1] if cached else cold_here)}
    away = [unit for unit in cold if unit.name not in local] if cached else []
    pool = (process_pool(compile_unit, away, max(1, min(jobs, len(away)))) if away
            else nullcontext({}))
    announce = (compile_progress(len(cold), what, str(cache_root().parent))
                if cold and cached else nullcontext(lambda name: None))
    with announce as step, pool as futures:
        for unit in units:
            if unit.name in needed and unit.name not in _LOADED and (
                    unit.name in local or unit not in away):
                compile_unit(unit)
                _LOADED.add(unit.name)
                if unit.name in local:
                    step(unit.name)
        for future in as_completed(futures):
            future.result()
            unit = away[futures[future]]
            mark(unit)
            step(unit.name)
    for unit in away:  # compiled by the pool: load them here from the cache
        if unit.name in needed and unit.name not in _LOADED:
            compile_unit(unit)
            _LOADED.add(unit.name)
    return len(cold)


def before_compiling(criterion, n_classes: int, nominal: bool) -> None:
    """Before a fit's first compilation in this process: compile its cold units, if any;
    if the drivers are cold too, the searches in a second process while this one
    compiles the drivers (independent units), so that a first fit waits for the slower
    of the two rather than for both."""
    from dtcli.jit.cache import cache_root

    key = (criterion.code, criterion.params.tobytes(), n_classes == 2, nominal)
    if _UNIT["compiling"] or criterion.code is None or key in _CHECKED:
        return
    _CHECKED.add(key)
    cold = [unit for unit in units_for(criterion, n_classes, nominal) if not is_warm(unit)]
    if not cold or cache_root() is None:
        return
    what = ("the engine" if cold[0].kind == "drivers"
            else f"the {criterion.code.name.lower().replace('_', '-')} search")
    drivers = [unit for unit in cold if unit.kind == "drivers"]
    compile_units(cold, here=drivers or cold, what=what)


def warm(tasks: Iterable[WarmTask], jobs: int | None = None) -> int:
    """Compile the cold units of `tasks`, in up to `jobs` processes (default: all
    cores); return how many were cold. Nothing to do (all marked) costs no process and
    says nothing."""
    from dtcli.jit.cache import cache_root
    from dtcli.processes import available_cores

    if cache_root() is None:
        return 0  # no disk cache: what other processes compile is lost to this one
    units = {}
    for task in sorted(set(tasks)):
        for unit in task.units():
            units.setdefault(unit.name, unit)
    return compile_units([unit for _, unit in sorted(units.items())],
                         jobs=jobs or available_cores(),
                         what="the engine's kernels, side by side")
