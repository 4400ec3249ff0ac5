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

A nominal split finds a row's category by binary search in the node's sorted
list (tree.py's sets, `listed_side`); a category not listed goes where missing
values go.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dtcli.jit.flags import inline_njit, njit
from dtcli.sentinels import TREE_LEAF

LANES = 8
# One step's whole view of a node. code = feature << 2 | nominal << 1 | missing goes right.
NODE = np.dtype([("threshold", np.float64), ("first_child", np.int32), ("code", np.int32)])
_FEATURE_SHIFT, _NOMINAL, _MISSING_RIGHT = np.uint64(2), np.uint64(2), np.uint64(1)


@dataclass(frozen=True)
class Walk:
    """A tree packed for `apply_rows`; position i describes the tree's node node_id[i]."""

    nodes: np.ndarray  # NODE records
    node_id: np.ndarray  # int64
    # the nominal splits' (category_offsets, category_codes, category_goes_left), in
    # walk order (tree.py)
    categories: tuple


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


def pack(tree, is_nominal) -> Walk:
    """The `Walk` of a `Tree`."""
    children_left = tree.children_left
    n = children_left.shape[0]
    if n >= 2**31 or is_nominal.shape[0] >= 2**29:
        raise ValueError("tree too large for 32-bit node records")
    position = walk_order(children_left, tree.children_right)
    node_id = np.empty(n, np.int64)
    node_id[position] = np.arange(n)
    left = children_left[node_id]
    internal = left >= 0
    split_feature = np.where(internal, tree.feature[node_id], 0)
    nominal = internal & (is_nominal[split_feature] == 1)
    missing_right = internal & (tree.missing_left[node_id] == 0)
    nodes = np.empty(n, NODE)
    nodes["threshold"] = np.where(internal, tree.threshold[node_id], np.inf)
    nodes["first_child"] = np.where(internal, position[np.maximum(left, 0)], np.arange(n))
    nodes["code"] = ((split_feature << int(_FEATURE_SHIFT)) | (nominal * int(_NOMINAL))
                     | (missing_right * int(_MISSING_RIGHT)))
    sets = tree.category_sets_of(node_id)
    return Walk(nodes, node_id, tuple(sets[name] for name in type(tree).CATEGORY_ARRAYS))


@inline_njit
def listed_side(codes, goes_left, lo, hi, category):
    """1 if codes[lo:hi] (sorted) lists `category` as going left, 0 as going right, -1
    if it does not list it."""
    end = hi
    while lo < hi:
        mid = (lo + hi) >> 1
        if codes[mid] < category:
            lo = mid + 1
        else:
            hi = mid
    if lo < end and codes[lo] == category:
        return np.int64(goes_left[lo])
    return np.int64(-1)


@njit
def apply_rows(X, nodes, node_id, categories, leaves, lo, hi):
    """Leaf (tree node id) of rows lo..hi-1 of X (float64, NaN = missing, nominal = category)."""
    # Unsigned indices: numba then drops its negative-index wraparound, a quarter of the time.
    offsets, codes, goes_left = categories
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
                side = listed_side(codes, goes_left, offsets[node],
                                   offsets[node + np.uint64(1)], cat)
                # a category the node never saw goes where missing values go
                right = code & _MISSING_RIGHT if side < 0 else np.uint64(side == 0)
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


@njit
def store_leaves(store, roots, X, rows, bounds, is_nominal, categories, leaves):
    """Slot of the leaf that each of some rows of X reaches in trees still in a node
    store (nodes.py; engine/folds.py), one row at a time: rows[bounds[k]:bounds[k + 1]]
    walk the tree rooted at slot roots[k]. `categories` = (codes, goes_left), the one
    buffer the store's category spans point into. The same routing as `apply_rows`:
    x <= threshold goes left, a missing value where missing_left says, and a category
    the node does not list where missing values go."""
    children_left, children_right = store.children_left, store.children_right
    codes, goes_left = categories
    for k in range(roots.shape[0]):
        for i in range(bounds[k], bounds[k + 1]):
            row = rows[i]
            node = roots[k]
            while children_left[node] != TREE_LEAF:
                f = store.feature[node]
                v = X[row, f]
                if v != v:
                    left = store.missing_left[node] == 1
                elif is_nominal[f] == 1:
                    lo = store.category_span[node, 1]
                    side = listed_side(codes, goes_left, lo, lo + store.category_span[node, 2],
                                       np.int64(v))
                    left = store.missing_left[node] == 1 if side < 0 else side == 1
                else:
                    left = v <= store.threshold[node]
                node = children_left[node] if left else children_right[node]
            leaves[i] = node
