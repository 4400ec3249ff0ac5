"""Reduced-error pruning, as Weka's J48 -R -N folds does it (Quinlan 1987, "Simplifying
decision trees"; Weka's PruneableClassifierTree).

The tree is grown on all but one of N stratified folds of the training rows; the
held-out fold (the pruning set) is sent down it. Bottom-up, a node becomes a leaf
when the pruning rows it would misclassify as a leaf (predicting its training
majority class) are at most those its subtree misclassifies. A node no pruning
row reaches is pruned (0 <= 0), as in J48 (which, unlike its pessimistic
pruning, collapses nothing first).
"""
from __future__ import annotations

import numpy as np

from dtcli.errors import ParameterError
from dtcli.pruning.compact import compact
from dtcli.engine.tree import TREE_LEAF, Tree


def check_folds(folds, n_rows: float) -> int:
    if isinstance(folds, bool) or not isinstance(folds, (int, np.integer)) or folds < 2:
        raise ParameterError(f"pruning_folds must be an integer >= 2, got {folds!r}")
    if folds > n_rows:
        raise ParameterError(f"pruning_folds ({folds}) is more than the {n_rows} training rows")
    return int(folds)


def pruning_counts(tree: Tree, leaves: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Class weights of the pruning rows reaching every node (nodes x classes), from the
    leaf each row lands in (`Tree.apply`)."""
    counts = np.zeros_like(tree.counts)
    np.add.at(counts, (leaves, y), weights)
    for node in range(tree.node_count - 1, 0, -1):  # children before parents
        counts[tree.parent[node]] += counts[node]
    return counts


def prune_reduced_error(tree: Tree, held_out: np.ndarray) -> Tree:
    """The tree pruned on the pruning set's class counts per node (`pruning_counts`)."""
    from dtcli.pruning.pessimistic import WEKA_EPS  # beside a compiled walk: numba

    majority = tree.node_class
    leaf_errors = held_out.sum(axis=1) - held_out[np.arange(tree.node_count), majority]
    make_leaf = np.zeros(tree.node_count, dtype=bool)
    errors = leaf_errors.copy()
    left, right = tree.children_left, tree.children_right
    for node in range(tree.node_count - 1, -1, -1):
        if left[node] == TREE_LEAF:
            continue
        subtree = errors[left[node]] + errors[right[node]]
        if leaf_errors[node] <= subtree + WEKA_EPS:
            make_leaf[node] = True
        else:
            errors[node] = subtree
    return compact(tree, make_leaf)
