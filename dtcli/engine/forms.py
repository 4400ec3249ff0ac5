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

`units_for` lists the units of a configuration; warm.py compiles or loads them (one
function, `warm.compile_units`, for a first fit, for compiling ahead and for loading a
run's kernels before it is timed). Each
compiled unit leaves a marker in the cache directory, so that what is warm is
known without loading it.
"""
from __future__ import annotations

from typing import NamedTuple

_WARM_HERE: set = set()  # units known warm in this process: no file is looked at again


class Unit(NamedTuple):
    """A unit of compilation: "drivers" (`nominal`: with nominal_sets), "presort" (the
    radix sort of data too large for numpy's sort and the level driver, warm.presort_large)
    or "search", of `criterion` (a registry.EngineCriterion) for data of `n_classes`
    classes (2, or 3 standing for more) with or without nominal features, reading count
    tables (`tables`: rows of whole-number weights) or not (weights that are not whole
    numbers, e.g. balanced class weights)."""

    kind: str
    criterion: object = None
    n_classes: int = 2
    nominal: bool = False
    tables: bool = True

    @property
    def name(self) -> str:
        """The unit's compiled forms, named (its marker's name): parameters are runtime
        values, so units that differ only in them share a name, and so do a search with
        and without count tables for a criterion that reads none."""
        if self.kind == "drivers":
            return "drivers-nominal" if self.nominal else "drivers"
        if self.kind == "presort":
            return "presort-large"
        from dtcli.engine import searches

        return "search-" + "-".join(searches.form_names(self.searched(), self.n_classes,
                                                        self.nominal))

    def searched(self):
        """The criterion as the unit's searches see it: without count tables to read
        unless `tables`."""
        if self.tables:
            return self.criterion
        screen = self.criterion.screen
        return self.criterion._replace(tables=(), screen=screen and screen._replace(tables=()))


def units_for(criterion, n_classes: int, nominal: bool, tables: bool = True) -> list[Unit]:
    """The units a fit of `criterion` (a registry.EngineCriterion) compiles on data of
    `n_classes` classes, with nominal features or not, with count tables or not."""
    classes = 2 if n_classes == 2 else 3
    drivers = [Unit("drivers")] + ([Unit("drivers", nominal=True)] if nominal else [])
    return drivers + [Unit("search", criterion, classes, nominal, tables)]


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
