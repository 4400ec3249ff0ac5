"""C4.5's error-based (pessimistic) pruning, as Weka's J48 does it by default
(Quinlan, C4.5: Programs for Machine Learning, 1993, ch. 4; Weka's
C45PruneableClassifierTree and Stats.addErrs).

A node with N training rows (weights), E of them misclassified as a leaf,
predicts N U_CF(E, N) errors, U_CF the upper limit of a binomial confidence
interval at confidence CF: `added_errors` gives N U_CF - E. Bottom-up, after
its branches are pruned, a node becomes a leaf when its predicted errors as a
leaf are at most (+ 0.1) those of its subtree and of its largest branch; else
with subtree raising, its largest branch replaces it when that branch,
re-counted with all the node's rows, predicts at most (+ 0.1) the subtree's
errors: the raised branch is then counted and pruned again with those rows.

Before pruning, as J48 does, a split that does not lower the training errors
(by 1e-3) is collapsed (`collapse_mask`).
"""
from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from dtcli.errors import ParameterError
from dtcli.pruning.compact import compact
from dtcli.pruning.raising import WEKA_EPS, prune_nodes  # noqa: F401  (WEKA_EPS re-exported)
from dtcli.engine.tree import TREE_LEAF, TREE_UNDEFINED, Tree


def added_errors(n: float, e: float, cf: float) -> float:
    """N U_CF(E, N) - E as Weka's Stats.addErrs: the exact binomial limit
    N (1 - CF^(1/N)) at E = 0, linear between E = 0 and E = 1, the normal
    approximation with continuity correction above, and N - E once E + 0.5 >= N."""
    if e < 1:
        base = n * (1.0 - cf ** (1.0 / n))
        return base if e == 0 else base + e * (added_errors(n, 1.0, cf) - base)
    if e + 0.5 >= n:
        return max(n - e, 0.0)
    z = NormalDist().inv_cdf(1.0 - cf)
    f = (e + 0.5) / n
    r = (f + z * z / (2 * n) + z * math.sqrt(f / n - f * f / n + z * z / (4 * n * n))) \
        / (1 + z * z / n)
    return r * n - e


def leaf_errors(counts: np.ndarray, cf: float) -> float:
    """Predicted errors of a leaf with these class counts: E + added_errors."""
    total = float(counts.sum())
    if total <= 0:
        return 0.0
    wrong = total - float(counts.max())
    return wrong + added_errors(total, wrong, cf)


def check_confidence(confidence) -> float:
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) \
            or not 0.0 < confidence <= 0.5:
        raise ParameterError(f"confidence must be a number in (0, 0.5], got {confidence!r}")
    return float(confidence)


def collapse_mask(tree: Tree) -> np.ndarray:
    """Split nodes whose subtree's training errors are not below the node's own as a
    leaf (less 1e-3): J48's collapse(), which turns them into leaves before pruning."""
    value = tree.counts
    own = value.sum(axis=1) - value.max(axis=1)
    subtree = own.copy()
    left, right = tree.children_left, tree.children_right
    for node in range(tree.node_count - 1, -1, -1):
        if left[node] != TREE_LEAF:
            subtree[node] = subtree[left[node]] + subtree[right[node]]
    return (left != TREE_LEAF) & (subtree >= own - 1e-3)


def _relinked(tree: Tree, root: int, kids: np.ndarray, leaf: np.ndarray, value: np.ndarray,
              n_samples: np.ndarray, n_missing: np.ndarray) -> Tree:
    """The pruned links (`kids`, from `root`) renumbered breadth first, then compacted at
    the leaves."""
    order, position = [root], 0
    while position < len(order):
        node = order[position]
        position += 1
        if tree.children_left[node] != TREE_LEAF:
            order.extend(kids[node])
    order = np.array(order, dtype=np.int64)
    new_id = np.full(tree.node_count, TREE_UNDEFINED, dtype=np.int64)
    new_id[order] = np.arange(order.shape[0])
    split = tree.children_left[order] != TREE_LEAF
    left = np.full(order.shape[0], TREE_LEAF, dtype=np.int64)
    right = left.copy()
    left[split] = new_id[kids[order[split], 0]]
    right[split] = new_id[kids[order[split], 1]]
    arrays = {name: getattr(tree, name)[order].copy() for name in Tree.ARRAYS}
    arrays.update(tree.category_sets_of(order))
    arrays.update(children_left=left, children_right=right, counts=value[order],
                  n_node_samples=n_samples[order], n_node_missing=n_missing[order])
    return compact(Tree(**arrays), leaf[order])


def prune_pessimistic(tree: Tree, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None,
                      is_nominal: np.ndarray, confidence: float = 0.25,
                      subtree_raising: bool = True) -> Tree:
    """The tree pruned as J48 prunes it. X, y (class codes) and weights are the rows
    the tree was grown from, so that its counts are theirs (raising adds a branch's
    rows to them); rows of weight 0 are left out, as in growing. The walk is compiled
    (raising.py)."""
    cf = check_confidence(confidence)
    weights = np.ones(y.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    rows = np.flatnonzero(weights > 0)
    kids = np.ascontiguousarray(np.stack([tree.children_left, tree.children_right], axis=1))
    leaf = (tree.children_left == TREE_LEAF) | collapse_mask(tree)
    value = np.ascontiguousarray(tree.counts, dtype=np.float64).copy()
    n_samples = tree.n_node_samples.astype(np.int64)
    n_missing = tree.n_node_missing.astype(np.int64)
    tests = (tree.feature.astype(np.int64), tree.threshold.astype(np.float64),
             tree.missing_left.astype(np.uint8), np.asarray(is_nominal).astype(np.uint8),
             tree.category_offsets.astype(np.int64), tree.category_codes.astype(np.int64),
             tree.category_goes_left.astype(np.uint8))
    data = (np.ascontiguousarray(X, dtype=np.float64), np.asarray(y, dtype=np.int64), weights)
    # sums of whole weights (below 2^53) are exact in any order: the rows need no sorting
    whole = bool((weights == np.round(weights)).all() and weights.sum() < 2.0 ** 53)
    params = (cf, NormalDist().inv_cdf(1.0 - cf), bool(subtree_raising), whole)
    root = prune_nodes((kids, leaf), (value, np.zeros(tree.node_count), n_samples, n_missing),
                       tests, data, rows.astype(np.int64), params)
    return _relinked(tree, int(root), kids, leaf, value, n_samples, n_missing)
