"""Copy the nodes of a tree that survive pruning into a new tree."""
from __future__ import annotations

import numpy as np

from dtcli.engine.tree import TREE_LEAF, TREE_UNDEFINED, Tree


def compact(tree: Tree, make_leaf: np.ndarray) -> Tree:
    """The tree in which every node with `make_leaf[node]` set is a leaf and the
    nodes below it are gone. Kept nodes keep their order (a child's id stays
    greater than its parent's) and their class counts; a node made a leaf
    loses its split (feature TREE_UNDEFINED, threshold and score NaN).
    `make_leaf` on a leaf changes nothing."""
    make_leaf = np.asarray(make_leaf, dtype=bool) & (tree.children_left != TREE_LEAF)
    keep = np.ones(tree.node_count, dtype=bool)
    cut = make_leaf.copy()
    for node in range(tree.node_count):  # parents come before children
        if cut[node] and tree.children_left[node] != TREE_LEAF:
            for child in (tree.children_left[node], tree.children_right[node]):
                keep[child] = False
                cut[child] = True
    new_id = np.cumsum(keep) - 1
    left, right = tree.children_left[keep].copy(), tree.children_right[keep].copy()
    now_leaf = make_leaf[keep]
    split = (left != TREE_LEAF) & ~now_leaf
    left[split], right[split] = new_id[left[split]], new_id[right[split]]
    left[now_leaf] = right[now_leaf] = TREE_LEAF
    arrays = {name: getattr(tree, name)[keep].copy() for name in Tree.ARRAYS
              if name not in ("children_left", "children_right")}
    arrays["feature"][now_leaf] = TREE_UNDEFINED
    arrays["threshold"][now_leaf] = np.nan
    arrays["score"][now_leaf] = np.nan
    arrays["missing_left"][now_leaf] = 0
    arrays["n_node_missing"][now_leaf] = 0
    sets = tree.category_sets_of(np.flatnonzero(keep), emptied=now_leaf)
    return Tree(children_left=left, children_right=right, **arrays, **sets)
