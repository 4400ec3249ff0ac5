"""Route rows to leaves (jitted).

Rows go down the tree eight at a time, each step a branch-free choice
(`kids[node, goes_right]`): a single row's walk is a chain of dependent
loads whose left/right branch is a coin flip, while eight independent walks
overlap. A leaf's two kids are the leaf itself, so a row that has arrived
waits in place until the slowest row of its lane group arrives. Measured on
a 28k-node tree, 100k rows: 24.5 ms row by row (like scikit-learn's 22.5),
17.3 ms with eight lanes (4 and 16 are slower).
"""
import numpy as np

from dtcli.engine.jit import njit

LANES = 8


def walk_arrays(children_left, children_right, feature, missing_left):
    """(kids, feature, missing_right, is_leaf) in the form `apply_rows` walks."""
    is_leaf = children_left < 0
    leaves = np.flatnonzero(is_leaf)
    kids = np.stack([children_left, children_right], axis=1).astype(np.int64)
    kids[leaves, 0] = leaves
    kids[leaves, 1] = leaves
    walk_feature = np.where(is_leaf, 0, feature).astype(np.int64)
    missing_right = 1 - missing_left.astype(np.int64)
    return kids, walk_feature, missing_right, is_leaf.astype(np.int64)


@njit
def apply_rows(X, kids, feature, threshold, missing_right, is_leaf, category_left, is_nominal,
               leaves, lo, hi):
    """Leaf index of rows lo..hi-1 of X (float64, NaN = missing; nominal = category index)."""
    current = np.zeros(LANES, np.int64)
    any_nominal = False
    for f in range(is_nominal.shape[0]):
        any_nominal |= is_nominal[f] == 1
    for start in range(lo, hi, LANES):
        m = min(LANES, hi - start)
        for k in range(m):
            current[k] = 0
        arrived = 0
        while arrived < m:
            arrived = 0
            for k in range(m):
                node = current[k]
                f = feature[node]
                v = X[start + k, f]
                missing = np.int64(v != v) & missing_right[node]
                if any_nominal and is_nominal[f]:  # numeric-only data: hoisted, 15% faster
                    cat = np.int64(v) if v == v else -1
                    # a category the tree never saw goes where missing values go
                    if 0 <= cat < category_left.shape[1]:
                        right = np.int64(category_left[node, cat] != 1)
                    else:
                        right = missing_right[node]
                else:
                    right = np.int64(v > threshold[node]) | missing
                current[k] = kids[node, right]
                arrived += is_leaf[node]
        for k in range(m):
            leaves[start + k] = current[k]
