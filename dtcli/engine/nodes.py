"""Node records written while a tree grows, and their compaction into a `Tree`.

A node holds the rows [start, end) of the presorted segments. The root
lives at slot 0 of the store and the children of a node split at row p
(left [start, p), right [p, end)) at slots 2p - 1 and 2p: distinct split
nodes split at distinct rows, so slots never collide, and whichever thread
grows a node writes its record without asking anyone for an id; the slots
in use depend only on the splits. `compact` then numbers the nodes breadth-first
(root 0, children after parents, left before right), as scikit-learn's
arrays expect. The store is allocated with np.empty: pages of slots no node
uses are never touched. Jitted: `write_node`, `_bfs_order`.

A nominal split's categories are not stored per slot (that would be slots x
categories): each driver call appends the categories seen at its split nodes,
with their direction, to a buffer of its own (level.nominal_sets), and the slot
records where: `category_span` = (source, offset, count). Source k >= 0 is the
level driver's k-th level (builder), source -1 - lo the subtree call whose first
root is lo (subtree.py). `compact` gathers them into the Tree's sets.

The integer fields are int32 (slots, features, row counts, spans: the engine takes
fewer than 2^30 rows, presort._MAX_ROWS), the counts, thresholds and scores float64:
49 bytes a slot and 8 a class, where int64 fields took 81 (issue 46).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from dtcli.jit.flags import inline_njit, njit
from dtcli.engine.tree import TREE_LEAF, TREE_UNDEFINED, Tree, gather_sets


class Store(NamedTuple):
    """The node records, by slot: a Tree's arrays before compaction, with children as
    slots (or TREE_LEAF) and a nominal split's categories as a span (module docstring)."""

    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    missing_left: np.ndarray  # uint8
    category_span: np.ndarray  # (slots, 3): source, offset, count
    value: np.ndarray  # (slots, classes)
    n_node_samples: np.ndarray
    score: np.ndarray
    n_node_missing: np.ndarray


def n_slots(n_rows: int) -> int:
    """The slots of the store of a tree over n_rows rows."""
    return max(2 * n_rows - 1, 1)


def new_store(n_rows: int, n_classes: int) -> Store:
    """Empty records for every slot of a tree over n_rows rows."""
    slots = n_slots(n_rows)
    return Store(np.empty(slots, np.int32), np.empty(slots, np.int32), np.empty(slots, np.int32),
                 np.empty(slots), np.empty(slots, np.uint8), np.empty((slots, 3), np.int32),
                 np.empty((slots, n_classes)), np.empty(slots, np.int32), np.empty(slots),
                 np.empty(slots, np.int32))


@inline_njit
def child_slots(split_row):
    """Slots of the children of a node split at row `split_row` (see the module docstring)."""
    return 2 * split_row - 1, 2 * split_row


@njit
def write_node(store, slot, n_rows, counts, f, cut_value, goes_missing_left, set_span,
               split_row, split_score, n_missing):
    """Record the node at `slot`: n_rows rows, class counts `counts`, split at row
    `split_row` on feature f (x <= cut_value left, or the nominal categories that
    `set_span` = (source, offset, count) points at; no_span() for numeric features),
    n_missing of its rows missing f, or a leaf when f is TREE_UNDEFINED. One function
    for both: every jitted function adds to the first run's compile time."""
    (children_left, children_right, feature, threshold, missing_left, category_span, value,
     n_node_samples, score, n_node_missing) = store
    leaf = f == TREE_UNDEFINED
    left_child, right_child = child_slots(split_row)
    children_left[slot] = TREE_LEAF if leaf else left_child
    children_right[slot] = TREE_LEAF if leaf else right_child
    feature[slot] = f
    threshold[slot] = math.nan if leaf else cut_value
    missing_left[slot] = 0 if leaf else goes_missing_left
    for k in range(3):
        category_span[slot, k] = set_span[k]
    for k in range(value.shape[1]):
        value[slot, k] = counts[k]
    n_node_samples[slot] = n_rows
    score[slot] = math.nan if leaf else split_score
    n_node_missing[slot] = 0 if leaf else n_missing


@inline_njit
def no_span():
    """The category span of a node that is not a nominal split."""
    return (np.int64(-1), np.int64(0), np.int64(0))


@njit
def write_leaf(store, slot, n_rows, counts):
    """write_node for a leaf (called from Python too). (The arguments are typed as at a
    split's call, n_rows < 0 for False: a literal would compile write_node once more.)"""
    write_node(store, slot, n_rows, counts, np.int64(TREE_UNDEFINED), math.nan, n_rows < 0,
               no_span(), n_rows, math.nan, n_rows)


def node_slots(store: Store) -> np.ndarray:
    """The slot of each node of `compact(store, ...)`'s tree."""
    return _bfs_order(store.children_left, store.children_right, np.int64(0))[0]


@njit
def _bfs_order(children_left, children_right, root):
    """Slots in breadth-first order from `root`, and each slot's position in it."""
    order = np.empty(children_left.shape[0], np.int64)
    position = np.empty(children_left.shape[0], np.int64)
    order[0] = root
    n = 1
    head = 0
    while head < n:
        slot = order[head]
        position[slot] = head
        head += 1
        if children_left[slot] != TREE_LEAF:
            order[n] = children_left[slot]
            order[n + 1] = children_right[slot]
            n += 2
    return order[:n], position


@njit
def subtree_sizes(children_left, children_right, roots, out):
    """out[k] = (nodes, leaves, depth) of the tree rooted at slot roots[k] of a store."""
    stack = np.empty(children_left.shape[0], np.int64)
    depth = np.empty(children_left.shape[0], np.int64)
    for k in range(roots.shape[0]):
        stack[0], depth[0] = roots[k], 0
        top, n_nodes, n_leaves, deepest = 1, 0, 0, 0
        while top > 0:
            top -= 1
            slot, level = stack[top], depth[top]
            n_nodes += 1
            deepest = max(deepest, level)
            if children_left[slot] == TREE_LEAF:
                n_leaves += 1
            else:
                stack[top], depth[top] = children_left[slot], level + 1
                stack[top + 1], depth[top + 1] = children_right[slot], level + 1
                top += 2
        out[k, 0], out[k, 1], out[k, 2] = n_nodes, n_leaves, deepest


def compact(store: Store, category_buffers: dict, root: int = 0) -> Tree:
    """The nodes grown from slot `root` as a Tree, numbered breadth-first.
    `category_buffers` maps each source of category spans to its (codes, goes_left)
    (module docstring)."""
    (children_left, children_right, feature, threshold, missing_left, category_span, value,
     n_node_samples, score, n_node_missing) = store
    order, position = _bfs_order(children_left, children_right, np.int64(root))
    kids_left, kids_right = (children[order].astype(np.int64)
                             for children in (children_left, children_right))
    split = kids_left != TREE_LEAF
    kids_left[split] = position[kids_left[split]]
    kids_right[split] = position[kids_right[split]]
    spans = category_span[order].astype(np.int64)
    spans[~(split & np.isnan(threshold[order]))] = 0  # only nominal splits have no threshold
    sources = np.array(sorted(category_buffers), np.int64)
    parts = [category_buffers[k] for k in sources.tolist()]
    base = np.cumsum([0] + [codes.shape[0] for codes, _ in parts])[:-1].astype(np.int64)
    source = np.minimum(np.searchsorted(sources, spans[:, 0]), max(sources.shape[0] - 1, 0))
    starts = spans[:, 1] + (base[source] if parts else 0)
    categories = gather_sets(starts, spans[:, 2],
                             np.concatenate([c for c, _ in parts] or [np.zeros(0, np.int64)]),
                             np.concatenate([g for _, g in parts] or [np.zeros(0, np.uint8)]))
    return Tree(children_left=kids_left, children_right=kids_right,
                feature=feature[order].astype(np.int64), threshold=threshold[order],
                missing_left=missing_left[order], counts=value[order],
                n_node_samples=n_node_samples[order].astype(np.int64), score=score[order],
                n_node_missing=n_node_missing[order].astype(np.int64), **categories)
