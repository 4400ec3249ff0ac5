"""Hellinger distances and class confidence proportions: HDDT, CCPDT, iHD, iHDw (jitted,
inlined into the engine's scans).

HDDT scores a split by the Hellinger distance between the children's class
distributions (ihd-inter-node-hellinger-distance.txt, eq. 7; one-versus-all
maximum for more classes, section 2.3); CCPDT by the information gain of class
confidence proportions, ties broken by HDDT (eq. 8-9, section 2.4); iHD and
iHDw by the Hellinger distances between each child and the parent (eq. 12-16).
All need per-class constants of the parent, which node_term writes to the
scratch rows (ROWS) once per node. docs/criteria.md has our readings of the
paper and the measurements behind the choices made here.
"""
import math

from numba.core import types
from numba.extending import overload

from dtcli.criteria.counts import (distinct_classes, is_pair, sqrt_count, sqrt_of_count,
                                   table_index, xlogx, xlogx_computed, xlogx_polynomial)
from dtcli.criteria.kernels import scratch_rows
from dtcli.jit.flags import inline_njit

# Per class of the parent: 1 / sqrt(N_j) and 1 / sqrt(N - N_j) (HDDT, CCPDT's
# tie-break); sqrt(N_j), 1 / N_j and whether class j is absent (iHD, iHDw; 1 / N_j
# for CCPDT too); the one-versus-all distances of a threshold (HDDT, maximum after
# the loop).
ROWS = scratch_rows("inv_sqrt_class", "inv_sqrt_rest", "sqrt_class", "inv_class", "absent",
                    "class_terms")

# CCPDT breaks ties of its CCP gain by the Hellinger distance (section 2.4):
# score = gain + CCP_TIE_WEIGHT * squared HDDT distance. Gains closer than ~1e-8
# nats count as tied; the engine's own tie tolerance (splitter.TIE_EPS, 1e-12
# relative) then sees HDDT differences above ~1e-4. The squared distance is at
# most 2; the bound leaves room for rounding.
CCP_TIE_WEIGHT = 1e-8
CCP_TIE_BOUND = 4.0 * CCP_TIE_WEIGHT


@inline_njit
def hellinger_constants(parent, n_parent, node):
    """Rows inv_sqrt_class, inv_sqrt_rest: 1 / sqrt(N_j), 1 / sqrt(N - N_j), for the
    classes with a one-versus-all problem (present, not all of the node)."""
    for j in range(len(parent)):
        valid = parent[j] > 0.0 and n_parent - parent[j] > 0.0
        node[ROWS.inv_sqrt_class, j] = 1.0 / sqrt_count(parent[j]) if valid else 0.0
        node[ROWS.inv_sqrt_rest, j] = 1.0 / sqrt_count(n_parent - parent[j]) if valid else 0.0


@inline_njit
def class_constants(parent, node):
    """Rows sqrt_class, inv_class, absent (iHD, iHDw): sqrt(N_j), 1 / N_j (0 for an
    absent class), whether class j is absent."""
    for j in range(len(parent)):
        present = parent[j] > 0.0
        node[ROWS.sqrt_class, j] = sqrt_count(parent[j])
        node[ROWS.inv_class, j] = 1.0 / parent[j] if present else 0.0
        node[ROWS.absent, j] = 0.0 if present else 1.0


def roots_of_count_and_rest(c, total, table):
    """(sqrt(c), sqrt(total - c)), from the square-root table (tables.sqrt) when there is
    one: the rest's index is the difference of the two indices, so a count costs one
    conversion to an index, not two."""
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
    distances go to the class_terms row and the maximum is taken after (the
    loop computing them then vectorises).
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
        inv_j, inv_rest = node[ROWS.inv_sqrt_class, j], node[ROWS.inv_sqrt_rest, j]
        root_left, root_left_rest = roots_of_count_and_rest(left[j], n_left, tables.sqrt)
        root_right, root_right_rest = roots_of_count_and_rest(right[j], n_right, tables.sqrt)
        d_left = root_left * inv_j - root_left_rest * inv_rest
        d_right = root_right * inv_j - root_right_rest * inv_rest
        node[ROWS.class_terms, j] = d_left * d_left + d_right * d_right
    best = 0.0
    for j in range(len(parent)):
        best = max(best, node[ROWS.class_terms, j])
    return best


def hddt_node_term(code, params, tables, parent, n_parent, node):
    hellinger_constants(parent, n_parent, node)
    return 0.0


def hddt_split_score(code, params, tables, parent, left, right, n_parent, n_left, n_right,
                     node, term):
    """HDDT's Hellinger distance, eq. (7) (one-versus-all maximum, section 2.3), squared:
    the scan compares squares and `finish` (hellinger_distance) takes the root of the
    best: one square root per scan, not per threshold."""
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
    the candidates vectorises. More classes: per class and threshold two table
    loads and three products."""
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
        inv_j = node[ROWS.inv_class, j]  # 0 for an absent class, whose counts are 0
        w_left += left[j] * inv_j
        w_right += right[j] * inv_j
        t += (xlogx(left[j], tables) + xlogx(right[j], tables)) * inv_j
    # weights, not counts: no table
    return xlogx_computed(w_left) + xlogx_computed(w_right) - t


def ccpdt_node_term(code, params, tables, parent, n_parent, node):
    """ln K - (sum_j ln N_j) / K, K the classes present: ln K is the CCP entropy of the
    node (all CCPs 1/K), the rest is ccp_split_mass's share. Row inv_class: 1 / N_j."""
    hellinger_constants(parent, n_parent, node)
    log_sum = 0.0
    for j in range(len(parent)):
        present = parent[j] > 0.0
        node[ROWS.inv_class, j] = 1.0 / parent[j] if present else 0.0
        log_sum += xlogx(parent[j], tables) / parent[j] if present else 0.0
    n_present = max(distinct_classes(parent), 1.0)
    return math.log(n_present) - log_sum / n_present


def ccpdt_split_score(code, params, tables, parent, left, right, n_parent, n_left, n_right,
                      node, term):
    """Information gain with CCP in place of p(y|X), children weighted by their share
    W_t / K of the class-balanced node. (1 / K: the compiler hoists it, not a division.)"""
    return term - ccp_split_mass(parent, left, right, node, tables) * (
        1.0 / distinct_classes(parent))


def ccpdt_tie_score(code, params, tables, parent, left, right, n_parent, n_left, n_right, node):
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
    node's constants (absent classes: sqrt_class 0, inv_class 0, absent 1) and the
    count table's square roots."""
    s = 0.0
    share = 1.0
    for j in range(len(child)):
        s += sqrt_of_count(child[j], tables) * node[ROWS.sqrt_class, j]
        share *= child[j] * node[ROWS.inv_class, j] + node[ROWS.absent, j]
    return sqrt_count(n_child * (1.0 / n_parent)) * s, share  # the reciprocal is hoisted


def ihd_node_term(code, params, tables, parent, n_parent, node):
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


def hellinger_distance(code, score):
    """HDDT's `finish`: the distance of the best squared distance."""
    return math.sqrt(score)
