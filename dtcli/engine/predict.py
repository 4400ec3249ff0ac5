"""Route rows to leaves (jitted).

`pack` turns a tree's parallel arrays into one 16-byte record per node
(`NODE`), in depth-first order with siblings side by side, so one step of a
walk reads one cache line, the next node is `first_child + goes_right`, and
a subtree's nodes lie close together. The tree's own node ids are kept
beside the records (`Walk.node_id`). A leaf's record loops to itself: no
value goes right of its +inf threshold.

`apply_rows` walks eight rows at a time, each step a branch-free choice: a
single row's walk is a chain of dependent loads whose left/right branch is a
coin flip, while eight independent walks overlap. A lane whose row has
arrived at a leaf takes the next row at once, so lanes never wait for the
deepest row of a group (with groups of eight, a group's deepest row was 1.6
times as deep as the average one on the benchmark's trees).

Measured on the benchmark's trees (100k rows; 28k and 52k nodes; 1 thread; each
change side by side with the one before): five per-node arrays and groups
that waited, 18.5 and 41 ms; packed records, 11 and 21 ms; with lanes
refilled, 8.4 and 16 ms; with unsigned indices, 6.0 and 13 ms
(scikit-learn's apply: 16-25 and 22 ms).
4, 12 or 16 lanes were not faster overall, breadth-first order 5-10% slower.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dtcli.engine.jit import njit

LANES = 8
# One step's whole view of a node. code = feature << 2 | nominal << 1 | missing goes right.
NODE = np.dtype([("threshold", np.float64), ("first_child", np.int32), ("code", np.int32)])
_FEATURE_SHIFT, _NOMINAL, _MISSING_RIGHT = np.uint64(2), np.uint64(2), np.uint64(1)


@dataclass(frozen=True)
class Walk:
    """A tree packed for `apply_rows`; position i describes the tree's node node_id[i]."""

    nodes: np.ndarray  # NODE records
    node_id: np.ndarray  # int64
    category_left: np.ndarray  # uint8 (n_nodes, max categories), rows in walk order


@njit
def walk_order(children_left, children_right):
    """Position of every node in the walk: depth first, a node's two children side by side."""
    n = children_left.shape[0]
    position = np.zeros(n, np.int64)
    stack = np.zeros(n, np.int64)  # the root's at 0; every other node is pushed once
    top, free = 1, 1
    while top > 0:
        top -= 1
        node = stack[top]
        left = children_left[node]
        if left >= 0:
            position[left] = free
            position[children_right[node]] = free + 1
            free += 2
            stack[top] = children_right[node]
            stack[top + 1] = left  # popped first: the left subtree follows its parent
            top += 2
    return position


def pack(children_left, children_right, feature, threshold, missing_left, category_left,
         is_nominal) -> Walk:
    """The `Walk` of a tree given as scikit-learn-style parallel arrays."""
    n = children_left.shape[0]
    if n >= 2**31 or is_nominal.shape[0] >= 2**29:
        raise ValueError("tree too large for 32-bit node records")
    position = walk_order(children_left, children_right)
    node_id = np.empty(n, np.int64)
    node_id[position] = np.arange(n)
    left = children_left[node_id]
    internal = left >= 0
    split_feature = np.where(internal, feature[node_id], 0)
    nominal = internal & (is_nominal[split_feature] == 1)
    missing_right = internal & (missing_left[node_id] == 0)
    nodes = np.empty(n, NODE)
    nodes["threshold"] = np.where(internal, threshold[node_id], np.inf)
    nodes["first_child"] = np.where(internal, position[np.maximum(left, 0)], np.arange(n))
    nodes["code"] = ((split_feature << int(_FEATURE_SHIFT)) | (nominal * int(_NOMINAL))
                     | (missing_right * int(_MISSING_RIGHT)))
    return Walk(nodes, node_id, np.ascontiguousarray(category_left[node_id]))


@njit
def apply_rows(X, nodes, node_id, category_left, leaves, lo, hi):
    """Leaf (tree node id) of rows lo..hi-1 of X (float64, NaN = missing, nominal = category)."""
    # Unsigned indices: numba then drops its negative-index wraparound, a quarter of the time.
    m = min(LANES, hi - lo)
    lane_row = np.zeros(LANES, np.uint64)
    lane_node = np.zeros(LANES, np.uint64)
    for k in range(m):
        lane_row[k] = lo + k
    next_row, end = np.uint64(lo + m), np.uint64(hi)
    done = 0
    while done < m:
        done = 0
        for k in range(m):
            node = lane_node[k]
            row = lane_row[k]
            record = nodes[node]
            code = np.uint64(record.code)
            v = X[row, code >> _FEATURE_SHIFT]
            if code & _NOMINAL:
                cat = np.int64(v) if v == v else -1
                # a category the tree never saw goes where missing values go
                if 0 <= cat < category_left.shape[1]:
                    right = np.uint64(category_left[node, cat] != 1)
                else:
                    right = code & _MISSING_RIGHT
            else:
                right = np.uint64(v > record.threshold) | (np.uint64(v != v) & code)
            child = np.uint64(record.first_child) + right
            if child == node:  # at a leaf: record it, start the next row in this lane
                leaves[row] = node_id[node]
                if next_row < end:
                    lane_row[k] = next_row
                    next_row += np.uint64(1)
                    child = np.uint64(0)
                else:
                    done += 1
            lane_node[k] = child
