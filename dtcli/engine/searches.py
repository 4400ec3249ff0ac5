"""The split searches as the drivers take them: compiled per criterion and form, called
by address.

Only the searches hold a criterion's arithmetic (splitter.numeric_search,
splitter.nominal_search: one compiled form per criterion, number of classes,
skipping of runs and count tables read). Everything that drives them, the subtree
grower, the growth step, S-pruning's permutation test, is compiled once for all
criteria: it receives a `Scorer`, the searches' machine-code addresses with the
criterion's parameters and count tables, and calls them through `call_search`
(jit/indirect.py). A new criterion, or a new form of a search, compiles that
search and nothing else.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from dtcli.criteria.counts import NO_TABLES, CountTables, count_tables
from dtcli.criteria.kernels import param_tuple
from dtcli.criteria.registry import EngineCriterion
from dtcli.engine import splitter
from dtcli.engine.level import example_step_arguments
from dtcli.engine.scorer import NO_SCORER, Scorer
from dtcli.jit.dispatch import remember_types
from dtcli.jit.flags import njit
from dtcli.jit.indirect import Signature, address, caller


def example_search_arguments() -> tuple:
    """Values of the types every search takes (and every driver passes): the records it
    shares with the growth step are level.example_step_arguments'."""
    words, level, found, _, _, columns, rows, _, _, _, _, _ = example_step_arguments()
    table = np.zeros(1)
    return (words, level, np.zeros(1, np.int64), np.zeros((1, 1), np.uint8), columns, rows,
            param_tuple(np.zeros(0)), CountTables(table, table, table, table),
            (np.int64(1), np.float64(0.0)), found, np.int64(0), np.int64(1))


SEARCH = Signature.of("a split search", *example_search_arguments())
# call_search(address, *arguments of SEARCH): what the compiled drivers call.
call_search = caller(SEARCH)

_EMPTY = np.zeros(0)
_FORMS: dict = {}
# The count tables' size of the searches compiled ahead (forms.py): whether a power
# table exists can depend on it (counts.count_tables), and so the form.
WARM_TABLE_SIZE = 64


def compiled(factory, key: tuple, signature: Signature) -> tuple:
    """factory(*key), a per-criterion function, and its address for `signature`, made
    once per process (numba compiles it, or loads it from the disk cache, on first
    use)."""
    if (factory, key) not in _FORMS:
        function = factory(*key)
        remember_types(function)
        _FORMS[factory, key] = function, np.int64(address(function, signature))
    return _FORMS[factory, key]


def made_forms() -> set:
    """The per-criterion functions made in this process: (factory name, key) each."""
    return {(factory.__name__, key) for factory, key in _FORMS}


class Searches(NamedTuple):
    """A criterion's searches for one fit: the dispatchers (for calls from Python: the
    level driver; None where not needed) and the Scorer the compiled drivers take."""

    numeric: object
    nominal: object
    scorer: Scorer
    present: tuple  # which count tables the searches read (counts.TABLE_KINDS)


def _keys(criterion, n_classes: int, present: tuple, has_numeric: bool,
          has_nominal: bool) -> list:
    """(factory, key) of each search a fit compiles: numeric, then nominal (None where
    the data has no such feature)."""
    return [(splitter.numeric_search, (criterion.code, n_classes == 2,
                                       skips_runs(criterion, n_classes), present))
            if has_numeric else None,
            (splitter.nominal_search, (criterion.code, present)) if has_nominal else None]


def form_names(criterion, n_classes: int, has_nominal: bool) -> list[str]:
    """The names of the searches (and the screening criterion's) a fit of `criterion`
    compiles on such data (with count tables for WARM_TABLE_SIZE): forms.py's markers."""
    names = []
    for form in (criterion, criterion.screen):
        if form is None:
            continue
        tables = count_tables(form.tables, WARM_TABLE_SIZE, form.params)
        present = tuple(table is not None for table in tables)
        numeric, nominal = _keys(form, n_classes, present, True, has_nominal)
        names.append(f"{form.code.name.lower()}_{splitter.form_name(*numeric[1][1:])}")
        if nominal is not None:
            names.append(f"{form.code.name.lower()}_nominal_{splitter.form_name(*nominal[1][1:])}")
    return names


def searches_for(criterion, n_classes: int, use_tables: bool, table_size: int,
                 has_numeric: bool, has_nominal: bool) -> Searches:
    """The searches of a registry.EngineCriterion for data of `n_classes` classes with
    numeric and/or nominal features; its count tables for counts up to `table_size`
    when `use_tables` (builder.count_weights says whether they apply)."""
    if criterion.code is None:  # NO_SPLIT
        return _no_split_searches()
    tables = (count_tables(criterion.tables, table_size, criterion.params) if use_tables
              else NO_TABLES)
    present = tuple(table is not None for table in tables)
    numeric, nominal = (compiled(*made, SEARCH) if made else (None, np.int64(0))
                        for made in _keys(criterion, n_classes, present, has_numeric,
                                          has_nominal))
    scorer = Scorer(numeric[1], nominal[1], param_tuple(criterion.params),
                    CountTables(*(_EMPTY if table is None else table for table in tables)))
    return Searches(numeric[0], nominal[0], scorer, present)


def skips_runs(criterion, n_classes: int) -> bool:
    """Whether the search skips thresholds inside runs of one class (builder.grow)."""
    return criterion.skip_runs and not (criterion.score_all_two_class and n_classes == 2)


@njit
def _no_split(words, nodes, features, mask, columns, rows, params, tables, leaf_rule, found,
              lo, hi):
    """A search that finds no split (every score stays -inf): `compile_drivers`'s."""


# A criterion whose searches find no split: a fit with it compiles the drivers alone.
NO_SPLIT = EngineCriterion(None, np.zeros(0), (), False, False, None)


def _no_split_searches() -> Searches:
    where = np.int64(address(_no_split, SEARCH))
    return Searches(_no_split, _no_split, Scorer(where, where, NO_SCORER.params,
                                                 NO_SCORER.tables), (False,) * 4)


NO_SEARCHES = Searches(None, None, NO_SCORER, (False,) * 4)
