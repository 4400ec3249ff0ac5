"""Functions of class counts for the criteria's scans: count tables and forms (jitted).

With unit sample weights (or integer ones) every count the scan meets is an
integer in 0..n, so the functions of a count the criteria need (c ln c,
c ** param, sqrt c) come from tables filled once per fit (`count_tables`)
instead of a log or pow per candidate threshold. A criterion names the tables
it reads in its registry entry; without them (real-valued weights, or a table
that would overflow) the helpers compute, with the same arithmetic that
filled the table. Whether a table exists is part of the kernel's type (an
array or None), so each compilation holds either the load or the computation,
never a branch between them: a call of log or pow left in a scan, even on a
branch never taken, keeps the compiler from vectorising it. Square roots come
from a table only with more than two classes: in the two-class scan, which
vectorises, the processor's square root is faster than a table load.
docs/criteria.md ("Speed and compilation") has the measurements.

Count vectors come in two forms: a 2-tuple in registers (two classes) or an
array; `is_pair` tells them apart as a constant of each compilation.
"""
import math
from typing import NamedTuple

import numpy as np
from numba.core import types
from numba.extending import overload

from dtcli.criteria.elementary import fast_log
from dtcli.jit.flags import inline_njit, njit



class CountTables(NamedTuple):
    """A fit's tables for counts 0..n (each an array, or None where the kernels compute):
    c ln c, c ** params[0], c ** params[1], sqrt(c). A registry entry names the ones its
    criterion reads (TABLE_KINDS)."""

    xlogx: object
    power0: object
    power1: object
    sqrt: object


TABLE_KINDS = CountTables._fields

# Near q = 1 the tabled Tsallis form (1 - sum c^q / n^q) / (q - 1) cancels;
# closer than this the expm1 form (impurity.tsallis_term) is used.
TABLE_ORDER_GAP = 0.05

# Stands in for a zero total in a division, so a node of zero weight costs no branch.
TINY = 1e-300


def is_pair(counts):
    """Whether a count vector is the two-class form (a 2-tuple in registers); a constant
    of each compilation, so the other form's code is dropped."""
    return isinstance(counts, tuple)


@overload(is_pair, inline="always")
def _is_pair(counts):
    pair = isinstance(counts, types.BaseTuple)
    return lambda counts: pair


@inline_njit
def xlogx_computed(c):
    return c * math.log(c) if c > 0.0 else 0.0


def table_or(table, c, compute):
    """table[c] if there is a table (an array), else compute(c) (no table: None).
    Whether there is one is a type, so each compilation has one of the two and no
    branch. The index is unsigned (`table_index`)."""
    return compute(c) if table is None else table[int(c)]


@inline_njit
def table_index(c):
    """A count as a table index. Unsigned, since numba wraps a negative signed
    index around (three more instructions a load); converted through int64, the
    one instruction without AVX-512."""
    return np.uint64(np.int64(c))


@overload(table_or, inline="always")
def _table_or(table, c, compute):
    if isinstance(table, types.NoneType):
        return lambda table, c, compute: compute(c)
    return lambda table, c, compute: table[table_index(c)]


def has_table(table):
    return table is not None


@overload(has_table, inline="always")
def _has_table(table):
    present = not isinstance(table, types.NoneType)
    return lambda table: present


@inline_njit
def xlogx(c, tables):
    """c ln c (0 at 0)."""
    return table_or(tables.xlogx, c, xlogx_computed)


@inline_njit
def xlogx_polynomial(c):
    """c ln c (0 at 0 and, for a weighted count rounded a hair below, below), by
    fast_log and without a branch: for two-class scans that vectorise, where a
    table load (a gather) or the C library's log would keep them scalar."""
    c = max(c, 0.0)
    return c * fast_log(max(c, TINY))


@inline_njit
def sqrt_count(c):
    """sqrt(c); rounding may leave a weighted count a hair below zero, hence the max."""
    return math.sqrt(max(c, 0.0))


@inline_njit
def sqrt_of_count(c, tables):
    """sqrt(c), from the count table when there is one."""
    return table_or(tables.sqrt, c, sqrt_count)


@inline_njit
def distinct_classes(counts):
    """The classes present (D(v) of DCSM, K of CCPDT)."""
    d = 0.0
    for k in range(len(counts)):
        d += 1.0 if counts[k] > 0.0 else 0.0
    return d


def count_power(c, table, exponent):
    """c ** exponent, from `table` (tables.power0 or power1, made for this exponent)."""
    return c ** exponent if table is None else table[int(c)]


@overload(count_power, inline="always")
def _count_power(c, table, exponent):
    if isinstance(table, types.NoneType):
        return lambda c, table, exponent: c ** exponent
    return lambda c, table, exponent: table[table_index(c)]


@njit
def _fill_table(kind, params, out):
    for i in range(out.shape[0]):
        c = np.float64(i)
        if kind == 0:
            out[i] = xlogx_computed(c)
        elif kind == 3:
            out[i] = math.sqrt(c)
        else:
            out[i] = c ** params[kind - 1]


def count_tables(kinds, n_max: int, params: np.ndarray) -> CountTables:
    """The tables named in `kinds` for counts 0..n_max, None for the others. No power
    table for an exponent within TABLE_ORDER_GAP of 1 (the tabled Tsallis form
    would cancel there) or whose powers leave the float range: those compute."""
    tables = []
    for index, kind in enumerate(TABLE_KINDS):
        table = None
        if kind in kinds and not (kind.startswith("power")
                                  and abs(params[index - 1] - 1.0) < TABLE_ORDER_GAP):
            table = np.empty(n_max + 1)
            _fill_table(index, params, table)
            if not np.isfinite(table).all():
                table = None
        tables.append(table)
    return CountTables(*tables)


NO_TABLES = CountTables(None, None, None, None)
