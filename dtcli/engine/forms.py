"""What a configuration compiles: the forms registry, in one place.

A fit compiles (or loads from the disk cache) units of two kinds:

- the drivers, criterion-free: the subtree grower and the growth step, the
  partition, the node store, compaction, prediction and the cross-validation
  fold readers (folds.compile_drivers); one unit for numeric data, and
  `nominal_sets` besides for data with nominal features;
- a criterion's searches (searches.py): its numeric search, one form per number
  of classes (two, or more), skipping of runs and count tables read, and its
  nominal search for data with nominal features; gain-ratio's screening
  criterion's searches besides.

S-pruning adds its permutation test, compiled once for all criteria, and each
bounded criterion's p-value bound (significance.py); they compile on first use.

`units_for` lists the units of a configuration; `dtree warm` compiles the cold
ones side by side (warm.py); a first fit compiles the drivers here while a second
process compiles the criterion's searches (`before_compiling`), showing progress
(jit/notice.py). Each compiled unit leaves a marker in the cache directory, so that what is
warm is known without loading it.
"""
from __future__ import annotations

from typing import NamedTuple

_WARM_HERE: set = set()  # units known warm in this process: no file is looked at again
_UNIT = {"compiling": False}  # inside compile_unit: its own fit announces nothing
_CHECKED: set = set()  # the fits' configurations checked in this process (before_compiling)


class Unit(NamedTuple):
    """A unit of compilation: "drivers" (`nominal`: with nominal_sets), "presort" (the
    radix sort of data too large for numpy's sort, warm.presort_large) or "search", of
    `criterion` (a registry.EngineCriterion) for data of `n_classes` classes (2, or 3
    standing for more) with or without nominal features."""

    kind: str
    criterion: object = None
    n_classes: int = 2
    nominal: bool = False

    @property
    def name(self) -> str:
        """The unit's compiled forms, named (its marker's name): parameters are runtime
        values, so units that differ only in them share a name."""
        if self.kind == "drivers":
            return "drivers-nominal" if self.nominal else "drivers"
        if self.kind == "presort":
            return "presort-large"
        from dtcli.engine import searches

        return "search-" + "-".join(searches.form_names(self.criterion, self.n_classes,
                                                        self.nominal))


def units_for(criterion, n_classes: int, nominal: bool) -> list[Unit]:
    """The units a fit of `criterion` (a registry.EngineCriterion) compiles on data of
    `n_classes` classes, with nominal features or not."""
    classes = 2 if n_classes == 2 else 3
    drivers = [Unit("drivers")] + ([Unit("drivers", nominal=True)] if nominal else [])
    return drivers + [Unit("search", criterion, classes, nominal)]


def _marker_dir():
    from dtcli.jit.cache import cache_root

    root = cache_root()
    return None if root is None else root / "warmed"


def is_warm(unit) -> bool:
    """Whether `unit` (a Unit, or anything with the `name` of a compiled part) is in the
    cache: marked in this process, or by a marker file."""
    if unit.name in _WARM_HERE:
        return True
    folder = _marker_dir()
    if folder is not None and (folder / unit.name).exists():
        _WARM_HERE.add(unit.name)
        return True
    return False


def mark(unit) -> None:
    _WARM_HERE.add(unit.name)
    folder = _marker_dir()
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / unit.name).touch()


class Part(NamedTuple):
    """A compiled part outside the units, named (S-pruning's test and bounds, which
    compile on first use: pruning/significance.py)."""

    name: str


def compile_unit(unit: Unit) -> None:
    """Compile `unit` in this process (or load it from the cache) and mark it warm."""
    from dtcli.engine import searches

    _UNIT["compiling"] = True
    try:
        if unit.kind == "drivers":
            from dtcli.engine.folds import compile_drivers

            compile_drivers(unit.nominal)
        elif unit.kind == "presort":
            from dtcli.engine.warm import presort_large

            presort_large()
        else:
            for form in (unit.criterion, unit.criterion.screen):
                if form is not None:
                    searches.searches_for(form, unit.n_classes, True,
                                          searches.WARM_TABLE_SIZE, True, unit.nominal)
    finally:
        _UNIT["compiling"] = False
    mark(unit)


def before_compiling(criterion, n_classes: int, nominal: bool) -> None:
    """Before a fit's first compilation in this process: if some of its units are cold,
    compile them now, showing progress (jit/notice.py); if the drivers are cold too,
    compile the searches in a second process while this one compiles the drivers
    (independent units), so that a first fit waits for the slower of the two rather
    than for both."""
    from dtcli.jit.cache import cache_root
    from dtcli.jit.notice import compile_progress

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
    search = [unit for unit in cold if unit.kind == "search"]
    with compile_progress(len(cold), what, str(cache_root().parent)) as step:
        if drivers and search:
            from dtcli.processes import process_pool

            with process_pool(compile_unit, search, 1) as futures:
                for unit in drivers:
                    compile_unit(unit)
                    step(unit.name)
                for future in futures:
                    future.result()
            for unit in search:
                mark(unit)
                step(unit.name)
        else:
            for unit in cold:
                compile_unit(unit)
                step(unit.name)
