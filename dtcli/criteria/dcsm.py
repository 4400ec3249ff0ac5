"""The distinct class based split measure, DCSM (jitted, inlined into the engine's scans).

Eq. (6) of ihd-inter-node-hellinger-distance.txt: M = sum over partitions v of
N_v / N x D(v) e^D(v) sum_k a_k exp(delta_v (1 - a_k^2)), a_k = N_vk / N_v,
D(v) the classes present in v and delta_v = D(v) / D(parent). The paper
minimises M; the kernel maximises M(unsplit node) - M(split). Its split score
is given per form of the counts (a kernels.ByForm in the registry): a branch on
the form with the stores of the many-class form behind it kept the two-class
scan from vectorising. docs/criteria.md has our reading and the measurements.
"""
import math

from dtcli.criteria.counts import TINY, distinct_classes
from dtcli.criteria.elementary import exp_unit
from dtcli.criteria.kernels import scratch_rows
from dtcli.jit.flags import inline_njit

# e^(k + 1) for k + 1 classes present (node_term); each class's term of the left and
# the right child (the score, per threshold: summed after the loop that computes them,
# which then has no sum and vectorises).
ROWS = scratch_rows("exp_distinct", "class_terms", "class_terms_right")


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
    any number of classes, both children in one pass. The terms go to the class_terms
    rows and are summed after (a sum in the loop would keep it scalar); e^D comes from
    the exp_distinct row."""
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
        node[ROWS.class_terms, k] = a * exp_unit(delta_left * (1.0 - a * a))
        node[ROWS.class_terms_right, k] = b * exp_unit(delta_right * (1.0 - b * b))
    s_left = 0.0
    s_right = 0.0
    for k in range(len(left)):
        s_left += node[ROWS.class_terms, k]
        s_right += node[ROWS.class_terms_right, k]
    return (n_left * present_left * node[ROWS.exp_distinct, max(present_left, 1) - 1] * s_left
            + n_right * present_right * node[ROWS.exp_distinct, max(present_right, 1) - 1]
            * s_right)


def dcsm_node_term(code, params, tables, parent, n_parent, node):
    """M of the unsplit node: eq. (6) with the node as its only partition (delta = 1),
    computed as the node split into two copies of itself. Row exp_distinct: e^(k + 1),
    as the two-class form's product of e's."""
    power = 1.0
    for k in range(len(parent)):
        power *= math.e
        node[ROWS.exp_distinct, k] = power
    return dcsm_children_many(parent, parent, n_parent, n_parent, inv_distinct_classes(parent),
                              node) / (2.0 * n_parent)


def dcsm_split_score_pair(code, params, tables, parent, left, right, n_parent, n_left,
                          n_right, node, term):
    """The paper minimises M; we maximise M(unsplit node) - M(split), which is >= 0
    and 0 when both children have the parent's class distribution."""
    inv_parent_distinct = inv_distinct_classes(parent)
    return term - (n_left * dcsm_partition_pair(left, n_left, inv_parent_distinct)
                   + n_right * dcsm_partition_pair(right, n_right, inv_parent_distinct)
                   ) / n_parent


def dcsm_split_score_many(code, params, tables, parent, left, right, n_parent, n_left,
                          n_right, node, term):
    """dcsm_split_score_pair for any number of classes."""
    return term - dcsm_children_many(left, right, n_left, n_right,
                                     inv_distinct_classes(parent), node) / n_parent

