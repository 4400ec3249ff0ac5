"""Jitted split criteria.

A criterion scores one candidate binary split from the class-count vectors of
the parent node and its two children plus a small parameter vector; larger is
better. It is split in two so that the engine pays once per node for what
depends only on the parent:

    term = node_term(code, params, parent, n_parent)
    score = split_score(code, params, parent, left, right,
                        n_parent, n_left, n_right, term)

`n_*` are the totals of the count vectors (passed because the engine tracks
them anyway). Counts are float64 so that sample weights fit the same code.

Each criterion is one function below plus one branch in each dispatcher;
`dtcli.criteria.registry` gives it a name, parameters and documentation.
The codes are plain ints (an IntEnum member would trigger a second
compilation of every kernel).
"""
import math

from dtcli.engine.jit import inline_njit, njit

GINI = 0
ENTROPY = 1
GAIN_RATIO = 2


@inline_njit
def gini_impurity(counts, total):
    """Gini index 1 - sum p_i^2 (gini-entropy-splitting.txt, section 1.1)."""
    if total <= 0.0:
        return 0.0
    sum_sq = 0.0
    for c in counts:
        sum_sq += c * c
    return 1.0 - sum_sq / (total * total)


@inline_njit
def shannon_entropy(counts, total):
    """Shannon entropy -sum p_i ln p_i in nats (gini-entropy-splitting.txt, eq. 1.1).

    Computed as ln(total) - sum c ln c / total, one log per non-empty class.
    """
    if total <= 0.0:
        return 0.0
    sum_clogc = 0.0
    for c in counts:
        if c > 0.0:
            sum_clogc += c * math.log(c)
    return max(math.log(total) - sum_clogc / total, 0.0)


@inline_njit
def _binary_entropy(n_left, n_right, n_parent):
    """Entropy of the split proportions, C4.5's split information."""
    h = 0.0
    for part in (n_left, n_right):
        if part > 0.0:
            p = part / n_parent
            h -= p * math.log(p)
    return h


@inline_njit
def _weighted_children(impurity_left, impurity_right, n_left, n_right, n_parent):
    return (n_left * impurity_left + n_right * impurity_right) / n_parent


@inline_njit
def node_term(code, params, parent, n_parent):
    """The part of a criterion that depends on the parent only (its impurity)."""
    if code == GINI:
        return gini_impurity(parent, n_parent)
    if code == ENTROPY or code == GAIN_RATIO:
        return shannon_entropy(parent, n_parent)
    return 0.0


@inline_njit
def split_score(code, params, parent, left, right, n_parent, n_left, n_right, term):
    """Score of one candidate split; `term` is `node_term` of the parent."""
    if code == GINI:
        return term - _weighted_children(
            gini_impurity(left, n_left), gini_impurity(right, n_right),
            n_left, n_right, n_parent)
    if code == ENTROPY:
        return term - _weighted_children(
            shannon_entropy(left, n_left), shannon_entropy(right, n_right),
            n_left, n_right, n_parent)
    if code == GAIN_RATIO:
        # Tsallis paper eq. (4) at q -> 1: information gain / split information.
        gain = term - _weighted_children(
            shannon_entropy(left, n_left), shannon_entropy(right, n_right),
            n_left, n_right, n_parent)
        split_info = _binary_entropy(n_left, n_right, n_parent)
        return gain / split_info if split_info > 0.0 else 0.0
    return -math.inf
