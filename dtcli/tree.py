"""A fitted tree as parallel arrays, in scikit-learn's layout.

Node 0 is the root and a child's id is always greater than its parent's.
`value[i]` holds the (weighted) class counts of node i, for every node, not
only leaves. Leaves have children_left == children_right == TREE_LEAF and
feature == TREE_UNDEFINED.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TREE_LEAF = -1
TREE_UNDEFINED = -2


@dataclass
class Tree:
    children_left: np.ndarray  # int64
    children_right: np.ndarray  # int64
    feature: np.ndarray  # int64
    threshold: np.ndarray  # float64: x <= threshold goes left; NaN for nominal splits
    missing_left: np.ndarray  # uint8: where missing (and unseen) values go
    category_left: np.ndarray  # uint8 (node_count, max categories): nominal left sets
    value: np.ndarray  # float64 (node_count, n_classes)
    n_node_samples: np.ndarray  # int64
    score: np.ndarray  # float64: criterion score of the node's split, NaN on leaves

    ARRAYS = ("children_left", "children_right", "feature", "threshold", "missing_left",
              "category_left", "value", "n_node_samples", "score")

    @property
    def node_count(self) -> int:
        return int(self.children_left.shape[0])

    @property
    def n_leaves(self) -> int:
        return int(np.count_nonzero(self.children_left == TREE_LEAF))

    @property
    def weighted_n_node_samples(self) -> np.ndarray:
        return self.value.sum(axis=1)

    @property
    def depth(self) -> np.ndarray:
        """Depth of every node (root = 0)."""
        depth = np.zeros(self.node_count, dtype=np.int64)
        for node in range(self.node_count):  # parents come before children
            if self.children_left[node] != TREE_LEAF:
                depth[self.children_left[node]] = depth[node] + 1
                depth[self.children_right[node]] = depth[node] + 1
        return depth

    @property
    def max_depth(self) -> int:
        return int(self.depth.max())

    def is_leaf(self, node: int) -> bool:
        return self.children_left[node] == TREE_LEAF

    def apply(self, X: np.ndarray, is_nominal: np.ndarray, n_threads: int = 1) -> np.ndarray:
        """Leaf index of every row of X (float64, NaN = missing)."""
        from dtcli.engine.predict import apply_rows, walk_arrays
        from dtcli.engine.threads import run_chunks

        X = np.ascontiguousarray(X, dtype=np.float64)
        leaves = np.empty(X.shape[0], dtype=np.int64)
        kids, feature, missing_right, is_leaf = walk_arrays(
            self.children_left, self.children_right, self.feature, self.missing_left)
        run_chunks(apply_rows, X.shape[0], n_threads, X.size, X, kids, feature, self.threshold,
                   missing_right, is_leaf, self.category_left, is_nominal.astype(np.uint8),
                   leaves)
        return leaves

    def leaf_proba(self) -> np.ndarray:
        """Class probabilities of every node: its counts normalised."""
        totals = self.value.sum(axis=1, keepdims=True)
        n_classes = self.value.shape[1]
        with np.errstate(invalid="ignore", divide="ignore"):
            proba = np.where(totals > 0, self.value / totals, 1.0 / n_classes)
        return proba
