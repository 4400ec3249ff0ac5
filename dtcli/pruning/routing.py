"""Send training rows down a tree in Python: what the passes that re-count a node's
rows need (subtree raising, reduced-error pruning). The same tests as prediction
(docs/model-format.md): x <= threshold goes left, a nominal category by
`category_left`, missing values and unseen categories by `missing_left`."""
from __future__ import annotations

import numpy as np

from dtcli.tree import Tree


def goes_left(tree: Tree, node: int, X: np.ndarray, rows: np.ndarray,
              is_nominal: np.ndarray) -> np.ndarray:
    """Boolean mask over `rows`: which of them node's test sends left."""
    feature = tree.feature[node]
    x = X[rows, feature]
    missing = np.isnan(x)
    if is_nominal[feature]:
        codes = np.where(missing, 0, x).astype(np.int64)
        known = ~missing & (codes < tree.category_left.shape[1])
        left = np.zeros(rows.shape[0], dtype=bool)
        left[known] = tree.category_left[node, codes[known]].astype(bool)
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
