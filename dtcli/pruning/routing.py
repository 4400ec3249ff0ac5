"""Send training rows down a tree in Python: what the passes that re-count a node's
rows need (subtree raising, reduced-error pruning). The same tests as prediction
(docs/model-format.md): x <= threshold goes left, a nominal category as the node's
category set says, missing values and categories the node does not list by
`missing_left`."""
from __future__ import annotations

import numpy as np

from dtcli.engine.tree import Tree


def goes_left(tree: Tree, node: int, X: np.ndarray, rows: np.ndarray,
              is_nominal: np.ndarray) -> np.ndarray:
    """Boolean mask over `rows`: which of them node's test sends left."""
    feature = tree.feature[node]
    x = X[rows, feature]
    missing = np.isnan(x)
    if is_nominal[feature]:
        codes = np.where(missing, -1, x).astype(np.int64)
        listed, goes = tree.categories_at(node)
        at = np.minimum(np.searchsorted(listed, codes), max(listed.shape[0] - 1, 0))
        known = ~missing & (listed[at] == codes) if listed.shape[0] else np.zeros_like(missing)
        left = np.zeros(rows.shape[0], dtype=bool)
        left[known] = goes[at[known]].astype(bool)
        missing = ~known
    else:
        left = x <= tree.threshold[node]
    left[missing] = bool(tree.missing_left[node])
    return left


def split_rows(tree: Tree, node: int, X: np.ndarray, rows: np.ndarray,
               is_nominal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rows going left, rows going right) at `node`."""
    left = goes_left(tree, node, X, rows, is_nominal)
    return rows[left], rows[~left]
