"""Route rows to leaves (jitted)."""
import math

import numpy as np

from dtcli.engine.jit import njit


@njit
def apply_rows(X, children_left, children_right, feature, threshold, missing_left,
               category_left, is_nominal, leaves, lo, hi):
    """Leaf index of rows lo..hi-1 of X (float64, NaN = missing; nominal = category index)."""
    for i in range(lo, hi):
        node = 0
        while children_left[node] >= 0:
            f = feature[node]
            v = X[i, f]
            if math.isnan(v):
                left = missing_left[node] == 1
            elif is_nominal[f]:
                cat = np.int64(v)
                # a category the tree never saw is treated like a missing value
                if 0 <= cat < category_left.shape[1]:
                    left = category_left[node, cat] == 1
                else:
                    left = missing_left[node] == 1
            else:
                left = v <= threshold[node]
            node = children_left[node] if left else children_right[node]
        leaves[i] = node
