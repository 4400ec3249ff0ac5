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
import sys
from statistics import NormalDist

import numpy as np

from dtcli.errors import ParameterError
from dtcli.pruning.compact import compact
from dtcli.pruning.routing import split_rows
from dtcli.engine.tree import TREE_LEAF, TREE_UNDEFINED, Tree

_SLACK = 0.1  # J48's margin in favour of the simpler tree
WEKA_EPS = 1e-6  # Weka's Utils.smOrEq: a <= b + 1e-6


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


class _Pruner:
    """The tree as mutable links over the original node ids (raising relinks them)."""

    def __init__(self, tree, X, y, weights, is_nominal, cf, raising):
        self.tree, self.X, self.y, self.w = tree, X, y, weights
        self.is_nominal, self.cf, self.raising = is_nominal, cf, raising
        self.kids = np.stack([tree.children_left, tree.children_right], axis=1).copy()
        self.leaf = (tree.children_left == TREE_LEAF) | collapse_mask(tree)
        self.value = tree.counts.copy()
        self.n_samples = tree.n_node_samples.copy()
        self.n_missing = tree.n_node_missing.copy()
        self.estimated = np.zeros(tree.node_count)  # a pruned subtree's errors, set by prune

    def counts(self, rows):
        return np.bincount(self.y[rows], weights=self.w[rows], minlength=self.value.shape[1])

    def split(self, node, rows):
        return split_rows(self.tree, node, self.X, rows, self.is_nominal)

    def raised_errors(self, node, extra) -> float:
        """Predicted errors of node's subtree were the rows `extra` sent down it besides
        its own (whose counts it holds): J48's errors of the largest branch given all
        its parent's rows, routing only the other branch's."""
        if extra.shape[0] == 0:
            return self.estimated[node]
        if self.leaf[node]:
            return leaf_errors(self.value[node] + self.counts(extra), self.cf)
        return sum(self.raised_errors(k, part)
                   for k, part in zip(self.kids[node], self.split(node, extra)))

    def recount(self, node, rows) -> None:
        self.value[node], self.n_samples[node] = self.counts(rows), rows.shape[0]
        if not self.leaf[node]:
            self.n_missing[node] = np.isnan(self.X[rows, self.tree.feature[node]]).sum()
            for k, part in zip(self.kids[node], self.split(node, rows)):
                self.recount(k, part)

    def prune(self, node, rows) -> int:
        """Prune the subtree at `node` (reached by `rows`); returns the node now in its
        place (a raised branch, or itself)."""
        if self.leaf[node]:
            self.estimated[node] = leaf_errors(self.value[node], self.cf)
            return node
        parts = self.split(node, rows)
        for side, part in enumerate(parts):
            self.kids[node, side] = self.prune(self.kids[node, side], part)
        side = int(np.argmax(self.value[self.kids[node]].sum(axis=1)))
        largest = self.kids[node, side]
        errors_largest = (self.raised_errors(largest, parts[1 - side]) if self.raising
                          else math.inf)
        errors_leaf = leaf_errors(self.value[node], self.cf)
        errors_tree = sum(self.estimated[k] for k in self.kids[node])
        if (errors_leaf <= errors_tree + _SLACK + WEKA_EPS
                and errors_leaf <= errors_largest + _SLACK + WEKA_EPS):
            self.leaf[node] = True
            self.estimated[node] = errors_leaf
            return node
        if errors_largest <= errors_tree + _SLACK + WEKA_EPS:
            self.recount(largest, rows)
            return self.prune(largest, rows)
        self.estimated[node] = errors_tree
        return node

    def result(self, root: int) -> Tree:
        """The linked tree renumbered breadth first, then compacted at its leaves."""
        order, position = [root], 0
        while position < len(order):
            node = order[position]
            position += 1
            if self.tree.children_left[node] != TREE_LEAF:
                order.extend(self.kids[node])
        order = np.array(order, dtype=np.int64)
        new_id = np.full(self.tree.node_count, TREE_UNDEFINED, dtype=np.int64)
        new_id[order] = np.arange(order.shape[0])
        split = self.tree.children_left[order] != TREE_LEAF
        left = np.full(order.shape[0], TREE_LEAF, dtype=np.int64)
        right = left.copy()
        left[split] = new_id[self.kids[order[split], 0]]
        right[split] = new_id[self.kids[order[split], 1]]
        arrays = {name: getattr(self.tree, name)[order].copy() for name in Tree.ARRAYS}
        arrays.update(self.tree.category_sets_of(order))
        arrays.update(children_left=left, children_right=right, counts=self.value[order],
                      n_node_samples=self.n_samples[order], n_node_missing=self.n_missing[order])
        return compact(Tree(**arrays), self.leaf[order])


def prune_pessimistic(tree: Tree, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None,
                      is_nominal: np.ndarray, confidence: float = 0.25,
                      subtree_raising: bool = True) -> Tree:
    """The tree pruned as J48 prunes it. X, y (class codes) and weights are the rows
    the tree was grown from (raising re-counts them); rows of weight 0 are left out,
    as in growing."""
    cf = check_confidence(confidence)
    weights = np.ones(y.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    rows = np.flatnonzero(weights > 0)
    pruner = _Pruner(tree, X, y, weights, is_nominal, cf, bool(subtree_raising))
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * tree.max_depth + 200))
    try:
        root = pruner.prune(0, rows)
    finally:
        sys.setrecursionlimit(limit)
    return pruner.result(root)
