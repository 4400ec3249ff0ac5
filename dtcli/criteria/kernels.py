"""Jitted split criteria.

A criterion scores one candidate binary split from the class-count vectors of
the parent node and its two children plus a small parameter vector; larger is
better. It is split in two so that the engine pays once per node for what
depends only on the parent:

    term = node_term(code, params, tables, parent, n_parent, node)
    score = split_score(code, params, tables, parent, left, right,
                        n_parent, n_left, n_right, node, term)

`n_*` are the totals of the count vectors (passed because the engine tracks
them anyway); `node` is a scratch array (NODE_ROWS x classes) for constants
per class of the parent. Counts are float64 so that sample weights fit the same code.

Each criterion is a pair of plain functions (`node_term`, `split_score`) in
`KERNELS`, most of them made by `impurity_decrease` from an impurity, plus,
for a criterion that breaks ties by a second measure (CCPDT), a `tie_score`
and its bound, which the engine adds only where it can matter, and for one
whose scan compares a monotone stand-in (HDDT: squared distances), a `finish`
applied to the best (`Kernel`). Its
code is an int, but the only member of an IntEnum class of its own: numba
types an IntEnum member by its class, so the engine is compiled once per
criterion used, and `node_term` / `split_score` (numba overloads, inlined)
put only that criterion's arithmetic into the scan loop, at the price of a
first compilation per criterion (docs/criteria.md, "Speed and compilation",
has the measurements). Anything that times fits should warm up every
criterion it uses (engine/warm.py). The disk cache is keyed on the sources of
every kernel module (engine/cache.py): an edit here recompiles what inlines it.

Logarithms are natural (nats). docs/criteria.md has the formulas and our
readings of the papers.
"""
import math
from enum import IntEnum
from typing import Callable, NamedTuple

import numpy as np
from numba.core import types
from numba.core.errors import TypingError
from numba.extending import overload

from dtcli.criteria.elementary import exp_unit, fast_log, fast_power
from dtcli.engine.jit import inline_njit, njit


# --- codes: one IntEnum class each, so numba specialises the engine per criterion ------

class GiniCode(IntEnum):
    GINI = 0


class EntropyCode(IntEnum):
    ENTROPY = 1


class GainRatioCode(IntEnum):
    GAIN_RATIO = 2


class TsallisCode(IntEnum):
    TSALLIS = 3


class TsallisGainRatioCode(IntEnum):
    TSALLIS_GAIN_RATIO = 4


class RenyiCode(IntEnum):
    RENYI = 5


class PECode(IntEnum):
    PE = 6


class PGCode(IntEnum):
    PG = 7


class PTCode(IntEnum):
    PT = 8


class PRCode(IntEnum):
    PR = 9


class GECode(IntEnum):
    GE = 10


class ABICode(IntEnum):
    ABI = 11


class DCSMCode(IntEnum):
    DCSM = 12


class HDDTCode(IntEnum):
    HDDT = 13


class CCPDTCode(IntEnum):
    CCPDT = 14


class IHDCode(IntEnum):
    IHD = 15


class IHDWCode(IntEnum):
    IHDW = 16


GINI, ENTROPY, GAIN_RATIO = GiniCode.GINI, EntropyCode.ENTROPY, GainRatioCode.GAIN_RATIO
TSALLIS, TSALLIS_GAIN_RATIO = TsallisCode.TSALLIS, TsallisGainRatioCode.TSALLIS_GAIN_RATIO
RENYI, PE, PG, PT, PR = RenyiCode.RENYI, PECode.PE, PGCode.PG, PTCode.PT, PRCode.PR
GE, ABI, DCSM, HDDT = GECode.GE, ABICode.ABI, DCSMCode.DCSM, HDDTCode.HDDT
CCPDT, IHD, IHDW = CCPDTCode.CCPDT, IHDCode.IHD, IHDWCode.IHDW

# CCPDT breaks ties of its CCP gain by the Hellinger distance (iHD paper,
# section 2.4): score = gain + CCP_TIE_WEIGHT * squared HDDT distance. Gains
# closer than ~1e-8 nats count as tied; the engine's own tie tolerance
# (splitter.TIE_EPS, 1e-12 relative) then sees HDDT differences above ~1e-4.
# The squared distance is at most 2; the bound leaves room for rounding.
CCP_TIE_WEIGHT = 1e-8
CCP_TIE_BOUND = 4.0 * CCP_TIE_WEIGHT

# Stands in for a zero total in a division, so a node of zero weight costs no branch.
TINY = 1e-300


# --- count tables ------------------------------------------------------------------------
# With unit sample weights every count the scan meets is an integer in 0..n,
# so the functions of a count the criteria need (c ln c, c ** param) come
# from tables filled once per fit (`count_tables`) instead of a log or pow
# per candidate threshold (the idea of issue 3; entropy's scan is then
# nearly as cheap as Gini's). A criterion names the tables it reads in the
# registry; without them (sample weights, or a table that would overflow) the
# helpers compute, with the same arithmetic that filled the table. Square roots
# come from a table only with more than two classes: in the two-class scan, which
# vectorises, a table load measured 2-3x slower in iHD than the square root.

TABLE_KINDS = ("xlogx", "power0", "power1", "sqrt")  # powerK: c ** params[K]

# Near q = 1 the tabled Tsallis form (1 - sum c^q / n^q) / (q - 1) cancels;
# closer than this the expm1 form below is used.
TABLE_ORDER_GAP = 0.05


@inline_njit
def _xlogx(c):
    return c * math.log(c) if c > 0.0 else 0.0


def table_or(table, c, compute):
    """table[c] if there is a table (an array), else compute(c) (no table: None).
    Whether there is one is a type, so each compilation has one of the two and no
    branch: a call of log or pow left in a scan, even on a branch never taken,
    keeps the compiler from vectorising it. The index is unsigned (`table_index`)."""
    return compute(c) if table is None else table[int(c)]


@inline_njit
def table_index(c):
    """A count as a table index. Unsigned, since numba wraps a negative signed
    index around (three more instructions a load); converted through int64, the
    one instruction without AVX-512. Ten-class fits, one thread: CCPDT 6.1 -> 5.5 s,
    HDDT 4.4 -> 4.2 s, iHDw 3.4 -> 3.1 s."""
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
    return table_or(tables[0], c, _xlogx)


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


def count_power(c, table, exponent):
    """c ** exponent, from `table` (tables[1] or tables[2], made for this exponent)."""
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
            out[i] = _xlogx(c)
        elif kind == 3:
            out[i] = math.sqrt(c)
        else:
            out[i] = c ** params[kind - 1]


def count_tables(kinds, n_max: int, params: np.ndarray) -> tuple[np.ndarray | None, ...]:
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
    return tuple(tables)


NO_TABLES = (None,) * len(TABLE_KINDS)

# The engine takes a criterion's parameters as a tuple of this many floats, padded
# with zeros: a value of a tuple is in a register, where a scan's read of params[k]
# from an array is repeated at every threshold (a store to the scores might change
# it, as far as the compiler knows), which kept two-class PG from vectorising.
PARAM_SLOTS = 3


def param_tuple(vector: np.ndarray) -> tuple[float, ...]:
    """A parameter vector as the engine takes it (PARAM_SLOTS floats)."""
    if len(vector) > PARAM_SLOTS:
        raise ValueError(f"at most {PARAM_SLOTS} criterion parameters, not {len(vector)}")
    return tuple(float(v) for v in vector) + (0.0,) * (PARAM_SLOTS - len(vector))


# --- impurities ------------------------------------------------------------------------

@inline_njit
def power(x, exponent):
    """x ** exponent for x >= 0, exact and free for the common exponent 1. The C
    library's pow: a polynomial e^(a ln x) measured slower where table loads keep
    the scan scalar anyway (two-class PG, which has none, takes it: _pg_pair).
    Rounding a hair below 0 counts as 0."""
    return x if exponent == 1.0 else max(x, 0.0) ** exponent


@inline_njit
def tsallis_term(c, log_total, q_minus_1):
    """c (1 - p^(q-1)) / (q-1) with ln p = ln c - log_total; -c ln p at q = 1.

    Summed over classes and divided by the total this is the Tsallis entropy
    (tsallis-unified-criterion.txt, eq. 1). Written as
    -c expm1((q-1) ln p) / (q-1): no cancellation near q = 1 and no overflow
    for large q (ln p <= 0).
    """
    if c <= 0.0:
        return 0.0
    log_p = math.log(c) - log_total
    if q_minus_1 == 0.0:
        return -c * log_p
    return -c * math.expm1(q_minus_1 * log_p) / q_minus_1


@inline_njit
def sum_of_squares(counts):
    s = 0.0
    for k in range(len(counts)):  # not `for c in counts`: an array iterator costs a reference count
        s += counts[k] * counts[k]
    return s


@inline_njit
def gini_impurity(counts, total):
    """Gini index 1 - sum p_i^2 (gini-entropy-splitting.txt, section 1.1)."""
    if total <= 0.0:
        return 0.0
    return 1.0 - sum_of_squares(counts) / (total * total)


@inline_njit
def gini_mass(counts, total):
    """total x Gini index = total - sum c_k^2 / total: one division (the scan's
    cost). max(): a node of zero weight (weights may be 0) has mass 0, branch-free."""
    return total - sum_of_squares(counts) / max(total, TINY)


@inline_njit
def shannon_mass(counts, total, tables):
    """total x Shannon entropy in nats (gini-entropy-splitting.txt, eq. 1.1):
    total ln total - sum_i c_i ln c_i."""
    s = xlogx(total, tables)
    for k in range(len(counts)):
        s -= xlogx(counts[k], tables)
    return s


@inline_njit
def child_class_xlogx(counts, tables):
    """sum_i c_i ln c_i."""
    s = 0.0
    for k in range(len(counts)):
        s += xlogx(counts[k], tables)
    return s


@inline_njit
def shannon_entropy(counts, total, tables):
    return shannon_mass(counts, total, tables) / total if total > 0.0 else 0.0


@inline_njit
def tsallis_entropy(counts, total, q, tables, power):
    """Tsallis entropy S_q = (1 - sum p_i^q) / (q - 1), q > 0 (tsallis-unified-criterion.txt,
    eq. 1); `power` is the table of c ** q (tables[1] or tables[2]) or None. q = 1 is
    Shannon's -sum p_i ln p_i exactly (Theorem 1) and q = 2 is the Gini index exactly
    (Theorem 2), with their own arithmetic."""
    if q == 2.0:
        return gini_impurity(counts, total)
    if has_table(power):  # then |q - 1| >= TABLE_ORDER_GAP (count_tables)
        s = 0.0
        for i in range(len(counts)):
            s += count_power(counts[i], power, q)
        value = (1.0 - s / count_power(total, power, q)) / (q - 1.0)
        return value if total > 0.0 else 0.0
    if total <= 0.0:
        return 0.0
    if q == 1.0:
        return shannon_entropy(counts, total, tables)
    log_total = math.log(total)
    s = 0.0
    for i in range(len(counts)):
        s += tsallis_term(counts[i], log_total, q - 1.0)
    return s / total


@inline_njit
def renyi_entropy(counts, total, gamma, tables, power):
    """Renyi entropy ln(sum p^g) / (1 - g), g > 0 (parameterised-impurities-s-pruning.txt,
    eq. 3), from the Tsallis entropy of the same order: sum p^g = 1 - (g-1) S_g,
    so R_g = -log1p(-(g-1) S_g) / (g-1), stable near g = 1 and Shannon at g = 1.
    With a power table |g - 1| >= TABLE_ORDER_GAP: no cancellation in 1 + y, and
    the vectorisable log serves."""
    s = tsallis_entropy(counts, total, gamma, tables, power)
    if has_table(power):
        return -fast_log(1.0 - (gamma - 1.0) * s) / (gamma - 1.0)
    if gamma == 1.0:
        return s
    return -math.log1p(-(gamma - 1.0) * s) / (gamma - 1.0)


@inline_njit
def alpha_beta_mass(counts, total, alpha, beta, tables):
    """total x ABI, ABI = sum p_i^alpha (1 - p_i)^beta (parameterised-impurities-s-pruning.txt,
    eq. 10), as sum c^alpha (n - c)^beta / n^(alpha + beta - 1)."""
    if total <= 0.0:
        return 0.0
    s = 0.0
    for i in range(len(counts)):
        c = counts[i]
        if c > 0.0:
            s += (count_power(c, tables[1], alpha)
                  * count_power(max(total - c, 0.0), tables[2], beta))
    return s * total / (count_power(total, tables[1], alpha) * count_power(total, tables[2], beta))


# Each criterion's impurity times the node's total weight (its "mass"), as
# f(counts, total, params, tables), params in registry order. Parameters that
# make a criterion a classic one never get here: the registry runs the classic one.

@inline_njit
def _gini(counts, total, params, tables):
    return gini_mass(counts, total)


@inline_njit
def _entropy(counts, total, params, tables):
    return shannon_mass(counts, total, tables)


@inline_njit
def _tsallis(counts, total, params, tables):
    return total * tsallis_entropy(counts, total, params[0], tables, tables[1])


@inline_njit
def _renyi(counts, total, params, tables):
    return total * renyi_entropy(counts, total, params[0], tables, tables[1])


@inline_njit
def _pe(counts, total, params, tables):
    """PE = E^alpha, eq. (5)."""
    return total * power(shannon_entropy(counts, total, tables), params[0])


@inline_njit
def _pg(counts, total, params, tables):
    """PG = G^alpha, eq. (6)."""
    return total * power(gini_impurity(counts, total), params[0])


@inline_njit
def _pg_pair(counts, total, params, tables):
    """_pg for two classes, G^alpha by fast_power: no table loads or calls, so the
    scan vectorises (100k x 20, alpha = 0.5, one thread: 0.93 -> 0.49 s), at the
    price of a longer first compilation of its two-class form (6 -> 10 s). PE, PT,
    PR and GE read count tables, so their scans stay scalar; PE and GE with
    polynomial logs in place of the x ln x table were not vectorised either (the
    compiler's cost model declined) and were slower. With more classes fast_power,
    scalar, was slower than the C library's pow."""
    g = gini_mass(counts, total) / max(total, TINY)
    return total * (g if params[0] == 1.0 else fast_power(g, params[0]))


@inline_njit
def _pt(counts, total, params, tables):
    """PT = T_gamma^alpha, eq. (8); params (alpha, gamma)."""
    return total * power(tsallis_entropy(counts, total, params[1], tables, tables[2]), params[0])


@inline_njit
def _pr(counts, total, params, tables):
    """PR = R_gamma^alpha, eq. (7); params (alpha, gamma)."""
    return total * power(renyi_entropy(counts, total, params[1], tables, tables[2]), params[0])


@inline_njit
def _ge(counts, total, params, tables):
    """GE = G^alpha + E^beta, eq. (9); at alpha = beta = 1 the sum of the two masses
    (no division by the total, no power)."""
    gini = gini_mass(counts, total)
    entropy = shannon_mass(counts, total, tables)
    if params[0] == 1.0 and params[1] == 1.0:
        return gini + entropy
    inverse = 1.0 / max(total, TINY)
    return total * (power(gini * inverse, params[0])
                    + power(entropy * inverse, params[1]))


@inline_njit
def _abi(counts, total, params, tables):
    return alpha_beta_mass(counts, total, params[0], params[1], tables)


@inline_njit
def _order_one(params):
    return 1.0


@inline_njit
def _order_q(params):
    return params[0]


def impurity_decrease(mass):
    """(node_term, split_score) of a gain: parent impurity minus the size-weighted
    child impurities (tsallis-unified-criterion.txt, eq. 5; parameterised-impurities-s-pruning.txt,
    section 3), from the impurity's mass (total x impurity): the size weights
    cancel, and the division by the parent's total is a multiplication by
    its inverse, which the compiler hoists out of the scan."""
    def node_term(code, params, tables, parent, n_parent, node):
        return mass(parent, n_parent, params, tables) / n_parent

    def split_score(code, params, tables, parent, left, right, n_parent, n_left, n_right, node,
                    term):
        return term - ((mass(left, n_left, params, tables) + mass(right, n_right, params, tables))
                       * (1.0 / n_parent))

    return node_term, split_score


def tsallis_gain_ratio(order):
    """(node_term, split_score) of the Tsallis gain ratio of order q = order(params):
    the Tsallis gain over the Tsallis entropy of the split proportions
    (tsallis-unified-criterion.txt, eq. 4). At q = 1 it is C4.5's gain ratio,
    information gain over split information (ihd-inter-node-hellinger-distance.txt,
    eq. 4-5), computed in masses."""
    def node_term(code, params, tables, parent, n_parent, node):
        if order(params) == 1.0:
            return child_class_xlogx(parent, tables)
        return tsallis_entropy(parent, n_parent, order(params), tables, tables[1])

    def split_score(code, params, tables, parent, left, right, n_parent, n_left, n_right, node,
                    term):
        q = order(params)
        if q == 1.0:
            # In masses (total x entropy) the 1/n_parent of gain and split information
            # cancel, and the split information's mass is part of the gain's:
            # gain mass = split mass + sum_t sum_j N_tj ln N_tj - sum_j N_j ln N_j (term).
            split_mass = shannon_mass((n_left, n_right), n_parent, tables)
            gain_mass = (split_mass - term + child_class_xlogx(left, tables)
                         + child_class_xlogx(right, tables))
            return gain_mass / split_mass if split_mass > 0.0 else 0.0
        gain = term - (n_left * tsallis_entropy(left, n_left, q, tables, tables[1])
                       + n_right * tsallis_entropy(right, n_right, q, tables, tables[1])) / n_parent
        split_info = tsallis_entropy((n_left, n_right), n_parent, q, tables, tables[1])
        return gain / split_info if split_info > 0.0 else 0.0

    return node_term, split_score


# --- per-node constants ------------------------------------------------------------------

def is_pair(counts):
    """Whether a count vector is the two-class form (a 2-tuple in registers); a constant
    of each compilation, so the other form's code is dropped."""
    return isinstance(counts, tuple)


@overload(is_pair, inline="always")
def _is_pair(counts):
    pair = isinstance(counts, types.BaseTuple)
    return lambda counts: pair


class ByForm(NamedTuple):
    """A kernel function given per form of the count vectors (2-tuples or arrays), for
    when a branch on is_pair is not enough (see DCSM in KERNELS)."""
    pair: Callable
    many: Callable


# Rows of the per-node scratch `node` that node_term fills with per-class constants
# of the parent, for the score to read at every threshold: with more than two
# classes the compiler cannot keep them in registers and recomputed them per
# threshold (a square root and a division per class; HDDT with ten classes spent
# most of its time there). Absent classes get 0 (ABSENT: 1), so the score's loop
# over classes has no branch.
INV_SQRT_CLASS, INV_SQRT_REST, SQRT_CLASS, INV_CLASS, ABSENT, EXP_DISTINCT = range(6)
# Rows the score itself writes, per threshold: its terms per class (for DCSM, of
# each child), stored so that the loop computing them has no sum or maximum across
# classes and vectorises.
CLASS_TERMS, CLASS_TERMS_RIGHT = 6, 7
NODE_ROWS = 8


# --- distinct class based split measure (DCSM) -----------------------------------------

@inline_njit
def distinct_classes(counts):
    """D(v) of eq. (6) of ihd-inter-node-hellinger-distance.txt: classes present."""
    d = 0.0
    for k in range(len(counts)):
        d += 1.0 if counts[k] > 0.0 else 0.0
    return d


@inline_njit
def inv_distinct_classes(parent):
    """1 / D(u), for the deltas D(v) / D(u) of eq. (6); 1 for a node with no class."""
    return 1.0 / max(distinct_classes(parent), 1.0)


@inline_njit
def dcsm_partition_pair(counts, total, inv_parent_distinct):
    """One partition's bracket of eq. (6) of ihd-inter-node-hellinger-distance.txt,
    D e^D sum_k a_k exp(delta (1 - a_k^2)), delta = D / D(parent), for two classes;
    0 for an empty partition. No branch: the two-class scan vectorises."""
    distinct = 0.0
    exp_distinct = 1.0  # e^D as a product of one e per class present: no table, no exp
    for k in range(len(counts)):
        present = counts[k] > 0.0
        distinct += 1.0 if present else 0.0
        exp_distinct *= math.e if present else 1.0
    delta = distinct * inv_parent_distinct
    inv_total = 1.0 / max(total, TINY)
    s = 0.0
    for k in range(len(counts)):
        a = counts[k] * inv_total  # an absent class adds 0
        s += a * exp_unit(delta * (1.0 - a * a))
    return distinct * exp_distinct * s


@inline_njit
def dcsm_children_many(left, right, n_left, n_right, inv_parent_distinct, node):
    """N_L x (bracket of L) + N_R x (bracket of R), dcsm_partition_pair's brackets, for
    any number of classes, both children in one pass (100k x 50, ten classes, one
    thread: 12.3-12.7 s a child a pass, 11.4-12.1 s both). The terms go to the
    CLASS_TERMS rows and are summed after: a sum in the loop would keep it scalar
    (27.6 s -> 16.6 s); e^D comes from the EXP_DISTINCT row."""
    present_left = 0  # integer counts: the loop vectorises
    present_right = 0
    for k in range(len(left)):
        present_left += 1 if left[k] > 0.0 else 0
        present_right += 1 if right[k] > 0.0 else 0
    delta_left = present_left * inv_parent_distinct
    delta_right = present_right * inv_parent_distinct
    inv_left = 1.0 / max(n_left, TINY)
    inv_right = 1.0 / max(n_right, TINY)
    for k in range(len(left)):
        a = left[k] * inv_left  # an absent class adds 0
        b = right[k] * inv_right
        node[CLASS_TERMS, k] = a * exp_unit(delta_left * (1.0 - a * a))
        node[CLASS_TERMS_RIGHT, k] = b * exp_unit(delta_right * (1.0 - b * b))
    s_left = 0.0
    s_right = 0.0
    for k in range(len(left)):
        s_left += node[CLASS_TERMS, k]
        s_right += node[CLASS_TERMS_RIGHT, k]
    return (n_left * present_left * node[EXP_DISTINCT, max(present_left, 1) - 1] * s_left
            + n_right * present_right * node[EXP_DISTINCT, max(present_right, 1) - 1]
            * s_right)


def _dcsm_node_term(code, params, tables, parent, n_parent, node):
    """M of the unsplit node: eq. (6) with the node as its only partition (delta = 1),
    computed as the node split into two copies of itself. Row EXP_DISTINCT: e^(k + 1),
    as the two-class form's product of e's."""
    power = 1.0
    for k in range(len(parent)):
        power *= math.e
        node[EXP_DISTINCT, k] = power
    return dcsm_children_many(parent, parent, n_parent, n_parent, inv_distinct_classes(parent),
                              node) / (2.0 * n_parent)


def _dcsm_split_score_pair(code, params, tables, parent, left, right, n_parent, n_left,
                           n_right, node, term):
    """The paper minimises M; we maximise M(unsplit node) - M(split), which is >= 0
    and 0 when both children have the parent's class distribution."""
    inv_parent_distinct = inv_distinct_classes(parent)
    return term - (n_left * dcsm_partition_pair(left, n_left, inv_parent_distinct)
                   + n_right * dcsm_partition_pair(right, n_right, inv_parent_distinct)
                   ) / n_parent


def _dcsm_split_score_many(code, params, tables, parent, left, right, n_parent, n_left,
                           n_right, node, term):
    """_dcsm_split_score_pair for any number of classes."""
    return term - dcsm_children_many(left, right, n_left, n_right,
                                     inv_distinct_classes(parent), node) / n_parent


# --- Hellinger distances and class confidence proportions ------------------------------

@inline_njit
def hellinger_constants(parent, n_parent, node):
    """Rows INV_SQRT_CLASS, INV_SQRT_REST: 1 / sqrt(N_j), 1 / sqrt(N - N_j), for the
    classes with a one-versus-all problem (present, not all of the node)."""
    for j in range(len(parent)):
        valid = parent[j] > 0.0 and n_parent - parent[j] > 0.0
        node[INV_SQRT_CLASS, j] = 1.0 / sqrt_count(parent[j]) if valid else 0.0
        node[INV_SQRT_REST, j] = 1.0 / sqrt_count(n_parent - parent[j]) if valid else 0.0


@inline_njit
def class_constants(parent, node):
    """Rows SQRT_CLASS, INV_CLASS, ABSENT (iHD, iHDw): sqrt(N_j), 1 / N_j (0 for an
    absent class), whether class j is absent."""
    for j in range(len(parent)):
        present = parent[j] > 0.0
        node[SQRT_CLASS, j] = sqrt_count(parent[j])
        node[INV_CLASS, j] = 1.0 / parent[j] if present else 0.0
        node[ABSENT, j] = 0.0 if present else 1.0


@inline_njit
def sqrt_of_count(c, tables):
    """sqrt(c), from the count table when there is one."""
    return table_or(tables[3], c, sqrt_count)


def roots_of_count_and_rest(c, total, table):
    """(sqrt(c), sqrt(total - c)), from the square-root table (tables[3]) when there is
    one: the rest's index is the difference of the two indices, so a count costs one
    conversion to an index, not two (ten-class HDDT, one thread: 3.4 -> 3.0 s)."""
    return sqrt_count(c), sqrt_count(total - c)


@overload(roots_of_count_and_rest, inline="always")
def _roots_of_count_and_rest(c, total, table):
    if isinstance(table, types.NoneType):
        return lambda c, total, table: (sqrt_count(c), sqrt_count(total - c))
    return lambda c, total, table: (table[table_index(c)],
                                    table[table_index(total) - table_index(c)])


@inline_njit
def hellinger_ova_squared(parent, left, right, n_parent, n_left, n_right, node, tables):
    """Largest one-versus-all squared Hellinger distance of HDDT.

    For class j against the rest, eq. (7) of ihd-inter-node-hellinger-distance.txt
    squared: sum over the two partitions t of
    (sqrt(N_tj / N_j) - sqrt((N_t - N_tj) / (N - N_j)))^2; the maximum over
    classes is the multi-class HDDT of section 2.3 (for two classes both
    classes give the same value, so one is computed). Classes absent from
    the node, or making up all of it, have no one-versus-all problem (their
    constants in `node` are 0: a distance of 0). With more classes the
    distances go to the CLASS_TERMS row and the maximum is taken after
    (ten classes, one thread: 4.2 -> 3.7 s).
    """
    if is_pair(parent):
        best = 0.0
        n_j = parent[0]
        n_rest = n_parent - n_j
        if n_j > 0.0 and n_rest > 0.0:
            # 1 / sqrt(parent count): in registers, the compiler hoists it out of the scan
            inv_j = 1.0 / sqrt_count(n_j)
            inv_rest = 1.0 / sqrt_count(n_rest)
            d_left = sqrt_count(left[0]) * inv_j - sqrt_count(n_left - left[0]) * inv_rest
            d_right = sqrt_count(right[0]) * inv_j - sqrt_count(n_right - right[0]) * inv_rest
            best = d_left * d_left + d_right * d_right
        return best
    for j in range(len(parent)):
        inv_j, inv_rest = node[INV_SQRT_CLASS, j], node[INV_SQRT_REST, j]
        root_left, root_left_rest = roots_of_count_and_rest(left[j], n_left, tables[3])
        root_right, root_right_rest = roots_of_count_and_rest(right[j], n_right, tables[3])
        d_left = root_left * inv_j - root_left_rest * inv_rest
        d_right = root_right * inv_j - root_right_rest * inv_rest
        node[CLASS_TERMS, j] = d_left * d_left + d_right * d_right
    best = 0.0
    for j in range(len(parent)):
        best = max(best, node[CLASS_TERMS, j])
    return best


def _hddt_node_term(code, params, tables, parent, n_parent, node):
    hellinger_constants(parent, n_parent, node)
    return 0.0


def _hddt_split_score(code, params, tables, parent, left, right, n_parent, n_left, n_right,
                      node, term):
    """HDDT's Hellinger distance, eq. (7) (one-versus-all maximum, section 2.3), squared:
    the scan compares squares and `finish` takes the root of the best (a square root
    per threshold cost ten-class HDDT 13% of its search)."""
    return hellinger_ova_squared(parent, left, right, n_parent, n_left, n_right, node, tables)


@inline_njit
def ccp_split_mass(parent, left, right, node, tables):
    """sum_t W_t H(CCP_t) - sum_j ln N_j over the two children t, where
    CC_tj = N_tj / N_j (eq. 9 of ihd-inter-node-hellinger-distance.txt),
    W_t = sum_j CC_tj and CCP_tj = CC_tj / W_t (eq. 8 for two classes).
    W_t H(CCP_t) = W_t ln W_t - sum_j CC_tj ln CC_tj and
    CC ln CC = (N_tj ln N_tj - N_tj ln N_j) / N_j; since N_Lj + N_Rj = N_j the
    second parts sum to sum_j ln N_j, which node_term takes instead.

    Two classes: six logs by fast_log, no table and no branch, so the scoring of
    the candidates vectorises (100k x 20, one thread: 0.54 -> 0.51 s). More
    classes: per class and threshold two table loads and three products."""
    if is_pair(parent):
        inv0 = 1.0 / parent[0] if parent[0] > 0.0 else 0.0  # hoisted out of the scan
        inv1 = 1.0 / parent[1] if parent[1] > 0.0 else 0.0
        t = ((xlogx_polynomial(left[0]) + xlogx_polynomial(right[0])) * inv0
             + (xlogx_polynomial(left[1]) + xlogx_polynomial(right[1])) * inv1)
        return (xlogx_polynomial(left[0] * inv0 + left[1] * inv1)
                + xlogx_polynomial(right[0] * inv0 + right[1] * inv1) - t)
    w_left = 0.0
    w_right = 0.0
    t = 0.0
    for j in range(len(parent)):
        inv_j = node[INV_CLASS, j]  # 0 for an absent class, whose counts are 0
        w_left += left[j] * inv_j
        w_right += right[j] * inv_j
        t += (xlogx(left[j], tables) + xlogx(right[j], tables)) * inv_j
    return _xlogx(w_left) + _xlogx(w_right) - t  # weights, not counts: no table


def _ccpdt_node_term(code, params, tables, parent, n_parent, node):
    """ln K - (sum_j ln N_j) / K, K the classes present: ln K is the CCP entropy of the
    node (all CCPs 1/K), the rest is ccp_split_mass's share. Row INV_CLASS: 1 / N_j."""
    hellinger_constants(parent, n_parent, node)
    log_sum = 0.0
    for j in range(len(parent)):
        present = parent[j] > 0.0
        node[INV_CLASS, j] = 1.0 / parent[j] if present else 0.0
        log_sum += xlogx(parent[j], tables) / parent[j] if present else 0.0
    n_present = max(distinct_classes(parent), 1.0)
    return math.log(n_present) - log_sum / n_present


def _ccpdt_split_score(code, params, tables, parent, left, right, n_parent, n_left, n_right,
                       node, term):
    """Information gain with CCP in place of p(y|X), children weighted by their share
    W_t / K of the class-balanced node. (1 / K: the compiler hoists it, not a division.)"""
    return term - ccp_split_mass(parent, left, right, node, tables) * (
        1.0 / distinct_classes(parent))


def _ccpdt_tie_score(code, params, tables, parent, left, right, n_parent, n_left, n_right, node):
    """CCP_TIE_WEIGHT x the squared HDDT distance (at most 2: section 2.4's tie-break)."""
    return CCP_TIE_WEIGHT * hellinger_ova_squared(parent, left, right, n_parent, n_left, n_right,
                                                  node, tables)


@inline_njit
def inter_node_hellinger(n_child, n_parent, weighted, scaled, share):
    """One child's term of iHD (eq. 12-13) or iHDw (eq. 15-16) of
    ihd-inter-node-hellinger-distance.txt: rho_t D_H^2(P_t || P), times
    w_t = 1 - prod_j N_tj / N_j when `weighted` (over the classes present in
    the parent), from scaled = sqrt(N_t / N) sum_j sqrt(N_tj N_j) and
    share = prod_j N_tj / N_j: rho_t D_H^2 = (N_t - scaled) / N. An empty
    child gives 0 without a test: no branch on the counts, so the two-class
    scan vectorises."""
    inv_parent = 1.0 / n_parent  # hoisted out of the scan: no division per threshold
    term = (n_child - scaled) * inv_parent
    return term * (1.0 - share) if weighted else term


@inline_njit
def hellinger_sums_pair(child, n_child, parent, n_parent):
    """(scaled, share) of inter_node_hellinger for two classes, with
    sqrt(N_t / N) sqrt(N_tj N_j) = sqrt(N_j / N) sqrt(N_t N_tj): two square roots
    a child, not three (sqrt(N_j / N), 1 / N_j and the tests on the parent's
    classes are hoisted out of the scan)."""
    scaled = 0.0
    share = 1.0
    for j in range(2):
        if parent[j] > 0.0:
            scaled += sqrt_count(parent[j] / n_parent) * sqrt_count(n_child * child[j])
            share *= child[j] * (1.0 / parent[j])
    return scaled, share


@inline_njit
def hellinger_sums(child, n_child, n_parent, node, tables):
    """(scaled, share) of inter_node_hellinger for any number of classes, from the
    node's constants (absent classes: SQRT_CLASS 0, INV_CLASS 0, ABSENT 1) and the
    count table's square roots."""
    s = 0.0
    share = 1.0
    for j in range(len(child)):
        s += sqrt_of_count(child[j], tables) * node[SQRT_CLASS, j]
        share *= child[j] * node[INV_CLASS, j] + node[ABSENT, j]
    return sqrt_count(n_child * (1.0 / n_parent)) * s, share  # the reciprocal is hoisted


def _ihd_node_term(code, params, tables, parent, n_parent, node):
    class_constants(parent, node)
    return 0.0


def inter_node_score(weighted):
    """split_score of iHD (eq. 13) or iHDw (eq. 16):
    rho_L D_H^2(P_L || P) [w_L] + rho_R D_H^2(P_R || P) [w_R]."""
    def split_score(code, params, tables, parent, left, right, n_parent, n_left, n_right, node,
                    term):
        if is_pair(parent):  # parent constants in registers, hoisted by the compiler
            scaled_left, share_left = hellinger_sums_pair(left, n_left, parent, n_parent)
            scaled_right, share_right = hellinger_sums_pair(right, n_right, parent, n_parent)
        else:
            scaled_left, share_left = hellinger_sums(left, n_left, n_parent, node, tables)
            scaled_right, share_right = hellinger_sums(right, n_right, n_parent, node, tables)
        return (inter_node_hellinger(n_left, n_parent, weighted, scaled_left, share_left)
                + inter_node_hellinger(n_right, n_parent, weighted, scaled_right, share_right))

    return split_score


# --- the table and the two entry points -------------------------------------------------

def _no_tie_score(code, params, tables, parent, left, right, n_parent, n_left, n_right, node):
    return 0.0


def _unchanged(code, score):
    return score


class Kernel(NamedTuple):
    """A criterion's functions (see the module docstring). `finish` maps the score
    the scan compares to the criterion's value, monotonically (HDDT compares
    squared distances: one square root per scan, not per threshold)."""
    node_term: Callable
    split_score: Callable | ByForm
    tie_score: Callable = _no_tie_score
    tie_bound: float = 0.0
    finish: Callable = _unchanged


def _hellinger_distance(code, score):
    return math.sqrt(score)


KERNELS = {
    GINI: Kernel(*impurity_decrease(_gini)),
    ENTROPY: Kernel(*impurity_decrease(_entropy)),
    GAIN_RATIO: Kernel(*tsallis_gain_ratio(_order_one)),
    TSALLIS: Kernel(*impurity_decrease(_tsallis)),
    TSALLIS_GAIN_RATIO: Kernel(*tsallis_gain_ratio(_order_q)),
    RENYI: Kernel(*impurity_decrease(_renyi)),
    PE: Kernel(*impurity_decrease(_pe)),
    # by form: the many-class form must not carry the pair form's polynomial, which
    # numba lowers before the compiler drops it (seconds of compilation)
    PG: Kernel(impurity_decrease(_pg)[0], ByForm(impurity_decrease(_pg_pair)[1],
                                                 impurity_decrease(_pg)[1])),
    PT: Kernel(*impurity_decrease(_pt)),
    PR: Kernel(*impurity_decrease(_pr)),
    GE: Kernel(*impurity_decrease(_ge)),
    ABI: Kernel(*impurity_decrease(_abi)),
    # by form: a branch on is_pair with the stores of the many-class form behind it
    # kept the two-class scan from vectorising (100k x 20, one thread: 1.2 -> 3.4 s)
    DCSM: Kernel(_dcsm_node_term, ByForm(_dcsm_split_score_pair, _dcsm_split_score_many)),
    HDDT: Kernel(_hddt_node_term, _hddt_split_score, finish=_hellinger_distance),
    CCPDT: Kernel(_ccpdt_node_term, _ccpdt_split_score, _ccpdt_tie_score, CCP_TIE_BOUND),
    IHD: Kernel(_ihd_node_term, inter_node_score(False)),
    IHDW: Kernel(_ihd_node_term, inter_node_score(True)),
}


def _form_of(function, parent_is_pair):
    """The function itself, or its form for these counts if given per form (ByForm)."""
    if isinstance(function, ByForm):
        return function.pair if parent_is_pair else function.many
    return function


def _kernel(code_type, which):
    """KERNELS[code].which for the numba type of a code (an IntEnum class of one member)."""
    if not isinstance(code_type, types.IntEnumMember):
        raise TypingError(f"a criterion code must be a member of kernels' code classes "
                          f"(registry.resolve gives it), not {code_type}")
    (code,) = code_type.instance_class
    return getattr(KERNELS[code], which)


def node_term(code, params, tables, parent, n_parent, node):
    """The part of a criterion that depends on the parent only (computed once per
    (feature, node) pair, not per threshold), returned, and constants per class
    written into `node` (NODE_ROWS x classes).

    Jitted callers get the criterion's own function inlined (see the module
    docstring); Python callers run it uncompiled.
    """
    return KERNELS[code].node_term(code, params, tables, parent, n_parent, node)


def split_score(code, params, tables, parent, left, right, n_parent, n_left, n_right, node,
                term):
    """Score of one candidate split (larger is better); `term` and `node` are what
    `node_term` of the parent returned and wrote. `tables` are `count_tables` (or NO_TABLES)."""
    score = _form_of(KERNELS[code].split_score, isinstance(parent, tuple))
    return score(code, params, tables, parent, left, right, n_parent, n_left, n_right, node, term)


def tie_score(code, params, tables, parent, left, right, n_parent, n_left, n_right, node):
    """A criterion's tie-break term, 0 <= tie_score <= tie_bound(code): its score is
    split_score + tie_score. Computing it at every threshold cost CCPDT a quarter of
    its time, so the engine adds it only where the sum could beat the best so far
    (`splitter.with_tie`), which picks the same split. 0 for most criteria."""
    return KERNELS[code].tie_score(code, params, tables, parent, left, right, n_parent, n_left,
                                   n_right, node)


def tie_bound(code):
    """The largest tie_score of the criterion; 0.0 if it has none (a constant of its
    compilation: the engine's tie code is dropped)."""
    return KERNELS[code].tie_bound


@overload(tie_score, inline="always")
def _tie_score_of(code, params, tables, parent, left, right, n_parent, n_left, n_right, node):
    return _kernel(code, "tie_score")


@overload(tie_bound, inline="always")
def _tie_bound_of(code):
    bound = _kernel(code, "tie_bound")
    return lambda code: bound


def finish_score(code, score):
    """The criterion's value of a score split_score (+ tie_score) gave; the scan compares
    scores, and finishes the best."""
    return KERNELS[code].finish(code, score)


@overload(finish_score, inline="always")
def _finish_score_of(code, score):
    return _kernel(code, "finish")


@overload(node_term, inline="always")
def _node_term_of(code, params, tables, parent, n_parent, node):
    return _kernel(code, "node_term")


@overload(split_score, inline="always")
def _split_score_of(code, params, tables, parent, left, right, n_parent, n_left, n_right, node,
                    term):
    return _form_of(_kernel(code, "split_score"), isinstance(parent, types.BaseTuple))


@njit
def score_split(code, params, tables, parent, left, right):
    """node_term, then split_score plus tie_score, finished, compiled: what
    `registry.score` calls."""
    n_parent, n_left, n_right = parent.sum(), left.sum(), right.sum()
    node = np.zeros((NODE_ROWS, parent.shape[0]))
    term = node_term(code, params, tables, parent, n_parent, node)
    return finish_score(code, split_score(code, params, tables, parent, left, right, n_parent,
                                          n_left, n_right, node, term)
                        + tie_score(code, params, tables, parent, left, right, n_parent, n_left,
                                    n_right, node))
