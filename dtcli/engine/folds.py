"""Many folds' trees of one presort, grown in one call of the subtree grower and read
off its node store.

A cross-validation grows one small tree per fold from the same presort
(`builder.grow` with weights of 0 and 1). Each such fit pays a fixed cost in Python
and in numba's dispatch that is larger than the growth of a tree of a few hundred
rows, and then more to compact the tree, pack it for prediction and measure it.
`predict_folds` lays the folds' words side by side in one buffer, fold k in
columns [a_k, b_k), grows every fold's tree with one call of the subtree grower
(subtree.py), whose roots are the folds, and routes every fold's test rows with one
call (`predict.store_leaves`) and measures every tree with another
(`nodes.subtree_sizes`), on the node store itself:

- the store is shared without collisions: the children of a node split at row p
  live at slots 2p - 1 and 2p (nodes.py), so fold k's nodes below its root use
  slots 2a_k + 1 .. 2b_k - 2, and its root takes slot 2a_k;
- `goes_left` (by row of the prepared data) is shared by folds that hold the same
  row, so the folds are grown one after the other, in one thread.

The tree grown for a fold is the one `builder.grow` grows from the fold's weights,
array for array (tests/test_predict_folds.py compacts it from its root to check): the
same steps, on the same words, with the same stopping rules and count tables. Folds
that cannot share a call (a fold too large for one subtree call; features drawn at
random, whose draws are keyed by slot; a weight rule, which depends on each fold's
total) are left to `builder.grow`, one by one.
"""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dtcli.criteria.counts import count_tables
from dtcli.engine.builder import Growth, Nodes, Prepared, StopRules, fit_searches, grow, prepare
from dtcli.engine.level import can_split
from dtcli.engine.nodes import subtree_sizes, write_leaf
from dtcli.engine.presort import keep_rows
from dtcli.engine.predict import store_leaves
from dtcli.engine.searches import NO_SPLIT


def _one_call(prepared: Prepared, criterion, rules: StopRules, sizes: np.ndarray) -> bool:
    """Whether folds of these sizes can share one grower call (module docstring)."""
    n_features = prepared.sorted.words.shape[0]
    one_subtree = Growth.subtree_rows_of(n_features)
    if (rules.max_features is not None or rules.min_weight_fraction_leaf > 0.0
            or sizes.max() > one_subtree or sizes.min() == 0):
        return False
    # a table whose largest entries leave the float range is not made (count_tables):
    # one table for every fold only when each fold would have had one too
    smallest, largest = int(sizes.min()), int(sizes.max())
    return all((a is None) == (b is None)
               for form in (criterion, criterion.screen) if form is not None
               for a, b in zip(count_tables(form.tables, smallest, form.params),
                               count_tables(form.tables, largest, form.params)))


def _side_by_side(prepared: Prepared, criterion, rules: StopRules, keeps: Sequence[np.ndarray],
                  sizes: np.ndarray) -> tuple[Growth, np.ndarray]:
    """Every fold's tree grown in one node store (module docstring): the growth, and each
    fold's root slot."""
    side_by_side = np.concatenate([keep_rows(prepared.sorted, keep.view(np.uint8), 1).words
                                   for keep in keeps], axis=1)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    counts = np.stack([np.bincount(prepared.y[keep], minlength=prepared.n_classes)
                       for keep in keeps]).astype(np.float64)
    # every fold's counts are within the largest fold's tables
    searches, screen = fit_searches(prepared, criterion, True, int(sizes.max()))
    growth = Growth(dataclasses.replace(prepared.sorted, words=side_by_side), prepared, None,
                    searches, screen, rules, 0.0, 1, (np.int64(0), np.int64(0)))
    roots = Nodes(starts, starts + sizes, np.zeros(len(keeps), np.int64), counts, 2 * starts)
    splits = np.array([can_split(int(n), 0, c, growth.rules) for n, c in zip(sizes, counts)])
    for k in np.flatnonzero(~splits):
        write_leaf(growth.store, 2 * starts[k], sizes[k], counts[k])
    if splits.any():
        growth.grow_subtrees(roots.select(splits))
    return growth, 2 * starts


@dataclass(frozen=True)
class FoldPredictions:
    """What a cross-validation reads of each fold's tree, read off the node store
    without making Trees (`predict_folds`)."""

    root_values: np.ndarray  # (folds, classes): each tree's root class counts
    leaf_values: list  # per fold, (test rows, classes): the counts of each row's leaf
    sizes: np.ndarray  # (folds, 3): each tree's nodes, leaves and depth
    grow_seconds: float
    predict_seconds: float


def predict_folds(prepared: Prepared, criterion, rules: StopRules, keeps: Sequence[np.ndarray],
                  X: np.ndarray, tests: Sequence[np.ndarray]) -> FoldPredictions | None:
    """Grow each fold's tree (keeps[k]: a bool array, True on the fold's training rows)
    and route its test rows (tests[k], rows of X, float64 with NaN for missing values)
    down it, every fold in one call each; None when the folds cannot share a grower
    call (module docstring)."""
    sizes = np.array([int(np.count_nonzero(keep)) for keep in keeps], np.int64)
    if not len(keeps) or not _one_call(prepared, criterion, rules, sizes):
        return None
    start = time.perf_counter()
    growth, roots = _side_by_side(prepared, criterion, rules, keeps, sizes)
    grown = time.perf_counter()
    store = growth.store
    (categories,) = growth.category_buffers.values() or [(np.zeros(0, np.int64),
                                                         np.zeros(0, np.uint8))]
    rows = np.concatenate(tests).astype(np.int64)
    bounds = np.concatenate([[0], np.cumsum([len(test) for test in tests])]).astype(np.int64)
    leaves = np.empty(rows.shape[0], np.int64)
    store_leaves(store, roots, np.ascontiguousarray(X, dtype=np.float64), rows, bounds,
                 prepared.is_nominal, categories, leaves)
    tree_sizes = np.empty((len(keeps), 3), np.int64)
    subtree_sizes(store.children_left, store.children_right, roots, tree_sizes)
    values = store.value[leaves]
    return FoldPredictions(store.value[roots], np.split(values, bounds[1:-1]), tree_sizes,
                           grown - start, time.perf_counter() - grown)


def compile_drivers(nominal: bool) -> None:
    """Compile (or load) the drivers a fit runs, with no criterion's search: a fit, its
    prediction and two cross-validation folds on small data whose every node stays a
    leaf (forms.py's drivers unit)."""
    n = 16
    X = np.column_stack([np.arange(n, dtype=float), np.arange(n, dtype=float) % 3])
    y = np.arange(n) % 2
    is_nominal = np.array([0, 1 if nominal else 0], np.uint8)
    prepared = prepare(X, y, 2, is_nominal, np.array([0, 3 if nominal else 0]), 1)
    rules = StopRules()
    grow(prepared, NO_SPLIT, rules, n_threads=1).apply(X, is_nominal, 1)
    even = np.arange(n) % 2 == 0
    predict_folds(prepared, NO_SPLIT, rules, [even, ~even], X,
                  [np.flatnonzero(~even), np.flatnonzero(even)])
