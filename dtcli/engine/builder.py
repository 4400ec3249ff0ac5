"""Grow a tree over presorted features: large nodes level by level, small ones as whole
subtrees.

Every feature is sorted once (presort) into packed words; a node is a range
of rows of every feature's segment, kept in sorted order by partitioning
each split node's rows into its children's order, in place (partition.py). Growth has two phases, running the same jitted steps:

- Nodes with more rows than fit in a core's cache are grown level by level
  here: every (feature, node) pair of a level is searched on all threads
  (splitter), then the growth step (level.grow_step) picks each node's
  feature, accepts or rejects the split, records the level and routes its
  rows, and the rows are partitioned on all threads.
- A node small enough that its words fit in the cache (`SUBTREE_BYTES`) is
  deferred, and its whole subtree is then grown in one
  jitted call (subtree.py) without leaving the cache; threads take whole
  subtrees, largest first.

Every node is written to its own slot of the node store (nodes.py), so the
tree never depends on the number of threads or on which thread grew what;
`nodes.compact` numbers the nodes breadth-first at the end.

Fitting is two calls: `prepare` encodes and presorts a dataset once, and
`grow` grows a tree from the prepared data with per-row weights, as often as
needed: a cross-validation fold is weights of 0 and 1, a bootstrap sample the
number of times each row was drawn (rows of weight 0 are left out of the
segments, so such a tree is the tree of the subset).
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from functools import partial

import numpy as np

from dtcli.engine.warm import before_compiling
from dtcli.engine.level import (NO_TEST, Columns, Level, Rows, Rules, SplitTest, Step,
                               can_split, grow_step, grow_step_calls)
from dtcli.engine.nodes import compact, new_store, node_slots, write_leaf
from dtcli.engine.partition import partition
from dtcli.engine.presort import Presorted, keep_rows
from dtcli.engine.rng import draw_features
from dtcli.engine.searches import NO_SEARCHES, Searches, searches_for
from dtcli.engine.small_presort import presort_small
from dtcli.engine.splitter import new_found
from dtcli.engine.subtree import grow_subtrees
from dtcli.jit.dispatch import remember_types
from dtcli.jit.threads import run_chunks, run_stoppable
from dtcli.engine.tree import Tree

# Words (8 bytes, and as many of the partition's scratch) of a node below which its whole subtree is grown
# in one call: half of a core's 1 MB second-level cache here.
SUBTREE_BYTES = 1 << 19
# Subtrees are handed to threads in this many chunks per thread, largest first,
# so that no thread is left with the last big one.
SUBTREE_CHUNKS_PER_THREAD = 16
NO_LIMIT = np.iinfo(np.int64).max
# Integer weights keep the count tables while their sum is at most this many per row.
MAX_TABLE_COUNT_PER_ROW = 16

for _kernel in (grow_subtrees, grow_step):
    remember_types(_kernel)


@dataclass(frozen=True)
class StopRules:
    max_depth: int | None = None
    min_samples_split: int = 2
    min_samples_leaf: int = 1
    min_gain: float = 0.0  # a split must score at least this much
    # features searched per node, drawn at random (rng.draw_features); None: all
    max_features: int | None = None
    # a child must weigh at least this share of the fit's total weight (scikit-learn's)
    min_weight_fraction_leaf: float = 0.0

    def for_fit(self, total_weight: float) -> Rules:
        """The rules as the kernels take them (level.Rules), for a fit whose rows weigh
        `total_weight` in all."""
        max_depth = NO_LIMIT if self.max_depth is None else self.max_depth
        max_features = NO_LIMIT if self.max_features is None else self.max_features
        return Rules(np.int64(max_depth), np.int64(self.min_samples_split),
                     np.int64(self.min_samples_leaf), np.int64(max_features),
                     np.float64(self.min_weight_fraction_leaf * total_weight))


class Nodes:
    """Nodes that may split, as parallel arrays (a level, or the deferred subtree roots)."""

    def __init__(self, starts, ends, depth, counts, slots):
        self.starts, self.ends, self.depth, self.counts = starts, ends, depth, counts
        self.slots = slots  # in the node store

    def __len__(self):
        return self.starts.shape[0]

    def select(self, mask: np.ndarray) -> "Nodes":
        return Nodes(self.starts[mask], self.ends[mask], self.depth[mask], self.counts[mask],
                     self.slots[mask])

    @staticmethod
    def concat(parts: list["Nodes"]) -> "Nodes":
        return Nodes(*(np.concatenate([getattr(p, name) for p in parts])
                        for name in ("starts", "ends", "depth", "counts", "slots")))


@dataclass(frozen=True)
class Prepared:
    """Data encoded and presorted once, for any number of trees: the folds of a
    cross-validation, the points of a grid, the trees of a forest (`grow`)."""
    sorted: Presorted
    X: np.ndarray  # float64 (n, d), C order, read-only: the thresholds' values, by row
    y: np.ndarray  # int64 class codes in [0, n_classes)
    n_classes: int
    is_nominal: np.ndarray  # uint8 per feature
    n_categories: np.ndarray  # int64 per feature

    @property
    def n_samples(self) -> int:
        return self.y.shape[0]


def prepare(X: np.ndarray, y: np.ndarray, n_classes: int, is_nominal: np.ndarray,
            n_categories: np.ndarray, n_threads: int | None = None) -> Prepared:
    """Presort X (float64 (n, d), NaN = missing) with its classes y (int64)."""
    n_threads = n_threads or os.cpu_count() or 1
    is_nominal = is_nominal.astype(np.uint8)
    n_categories = n_categories.astype(np.int64)
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.int64)
    sorted_ = presort_small(X, y, n_classes, is_nominal, n_categories, n_threads)
    return Prepared(sorted_, read_only(X), y, int(n_classes), is_nominal, n_categories)


def read_only(X: np.ndarray) -> np.ndarray:
    """A read-only view of X: the kernels take the data read-only whatever the caller's
    array (numba types a read-only array apart, and a second type would be a second
    compiled form)."""
    view = X.view()
    view.flags.writeable = False
    return view


def count_weights(weights: np.ndarray | None):
    """(weights or None for unit weights, rows to keep or None for all, whether the
    count tables apply). A row of weight 0 is left out, as if it were not in the data
    (scikit-learn's convention), so a cross-validation fold is weights of 0 and 1 and a
    bootstrap sample the number of times each row was drawn. With integer weights
    every class count is an integer, so the count tables apply (no other compiled
    form than an unweighted fit's) while they stay small."""
    if weights is None:
        return None, None, True
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    keep = weights > 0
    integral = bool(np.all(weights == np.floor(weights)))
    total = float(weights.sum())
    # per kept row, as for a fit on the kept rows alone
    tables = integral and total <= MAX_TABLE_COUNT_PER_ROW * max(int(keep.sum()), 1)
    unit = integral and bool(np.all(weights <= 1.0))  # 0/1: a subset, unweighted
    return (None if unit else weights), (None if keep.all() else keep.view(np.uint8)), tables


def fit_searches(prepared: Prepared, criterion, use_tables: bool,
                 table_size: int) -> tuple[Searches, Searches | None]:
    """The searches of a registry.EngineCriterion and of its screening criterion (None
    without one) for a fit of `prepared` (searches.searches_for); on a cold cache,
    warm.before_compiling compiles them and the drivers side by side first."""
    numeric, nominal = (bool(np.any(prepared.is_nominal == kind)) for kind in (0, 1))
    before_compiling(criterion, prepared.n_classes, nominal)

    def of(form):
        return searches_for(form, prepared.n_classes, use_tables, table_size, numeric, nominal)

    return of(criterion), None if criterion.screen is None else of(criterion.screen)


def grow(prepared: Prepared, criterion, rules: StopRules, weights: np.ndarray | None = None,
         n_threads: int | None = None, seed: int = 0, stream: int = 0,
         reuse: bool = True, test=None) -> Tree:
    """Grow one tree from prepared data.

    `criterion` is a registry.EngineCriterion: its `tables` are the count tables its
    kernels read (with integer weights every count is an integer, so they are filled
    once here); `skip_runs`, whether thresholds inside runs of one class can be
    skipped (its boundary points; see splitter.search_numeric), unless two-class fits
    score every threshold anyway (`score_all_two_class`: cheaper than finding the runs
    for some criteria); `screen`, a criterion that screens each node's features
    (C4.5's average-gain rule: splitter.pick_screened).

    `weights` (one per row, >= 0) weigh the rows; a row of weight 0 is left out.
    `seed` and `stream` (a forest's tree, say) key the random numbers the tree
    draws (rng.py): the features searched at a node when `rules.max_features` is set;
    `stream` is also the root's key of a test (level.give_keys).
    With `reuse=False` the tree may grow in the prepared data's own buffer (one
    fit, no copy); it cannot be grown from again.

    `test` (None: none) tests each chosen split in the growth step (level.SplitTest):
    `test.record(criterion, searches, n_rows, n_classes, unit_weight, stream)` makes its
    SplitTest for the fit's searches.Searches on n_rows rows (its node store has
    nodes.n_slots(n_rows) slots), and `test.collect(slots)` is given, after growth, the
    slot of each node of the tree (pruning/significance.PermutationTest).
    """
    n_threads = n_threads or os.cpu_count() or 1
    weights, keep, use_tables = count_weights(weights)
    sorted_ = prepared.sorted if keep is None else keep_rows(prepared.sorted, keep, n_threads)
    n_rows = sorted_.words.shape[1]
    rows = slice(None) if keep is None else keep.view(bool)
    root_counts = np.bincount(prepared.y[rows], weights=None if weights is None else weights[rows],
                              minlength=prepared.n_classes).astype(np.float64)[None, :]
    searches, screen = fit_searches(prepared, criterion, use_tables, int(root_counts.sum()))
    if sorted_ is prepared.sorted and reuse:  # the partition writes into the words
        sorted_ = dataclasses.replace(sorted_, words=sorted_.words.copy())
    record = (NO_TEST if test is None
              else test.record(criterion, searches, n_rows, prepared.n_classes, weights is None,
                               stream))
    growth = Growth(sorted_, prepared, weights, searches, screen, rules,
                    float(root_counts.sum()), n_threads, (np.int64(seed), np.int64(stream)),
                    record)
    root = Nodes(np.zeros(1, np.int64), np.array([n_rows], np.int64),
                  np.zeros(1, np.int64), root_counts, np.zeros(1, np.int64))
    if can_split(n_rows, 0, root_counts[0], growth.rules):
        growth.grow_levels(root)
    else:
        write_leaf(growth.store, 0, n_rows, root_counts[0])
    if test is not None:
        test.collect(node_slots(growth.store))
    return compact(growth.store, growth.category_buffers)


class Growth:
    """What both phases need besides the nodes themselves, and the two phases."""

    def __init__(self, sorted_: Presorted, prepared: Prepared, weights, criterion: Searches,
                 screen: Searches | None, stop_rules: StopRules, total_weight: float,
                 n_threads: int, random_key: tuple, test: SplitTest = NO_TEST):
        self.random_key = random_key  # (seed, stream): rng.py
        self.test = test  # the growth step's test of each chosen split
        words = self.words = sorted_.words
        n_features, n_rows = words.shape
        n_samples, n_classes = prepared.n_samples, prepared.n_classes
        is_nominal, n_categories = prepared.is_nominal, prepared.n_categories
        self.criterion = criterion  # the criterion's Searches
        self.screen = screen  # the screening criterion's Searches, or None
        self.rules = stop_rules.for_fit(total_weight)
        self.min_gain = float(stop_rules.min_gain)
        self.leaf_rule = (self.rules.min_samples_leaf, self.rules.min_weight)  # the search's
        self.n_threads = n_threads
        self.numeric = np.flatnonzero(is_nominal == 0).astype(np.int64)
        self.nominal = np.flatnonzero(is_nominal == 1).astype(np.int64)
        self.shifts = sorted_.layout()
        self.columns = Columns(is_nominal, n_categories, sorted_.missing_rank, prepared.X)
        self.rows = Rows(self.shifts, np.ones(1) if weights is None else weights,
                         weights is None)
        self.subtree_rows = self.subtree_rows_of(n_features)
        self.goes_left = np.empty(n_samples, np.uint8)  # by row of the prepared data
        self.calls = grow_step_calls(bool(self.nominal.shape[0]))
        self.store = new_store(n_rows, n_classes)
        # source -> (codes, sides) of the nominal splits' categories (nodes.py)
        self.category_buffers: dict[int, tuple] = {}
        self.n_levels = 0

    @staticmethod
    def subtree_rows_of(n_features: int) -> int:
        """Rows of a node below which its whole subtree is grown in one call."""
        return max(SUBTREE_BYTES // (16 * max(n_features, 1)), 1)

    def grow_levels(self, level: Nodes) -> None:
        """Grow `level` (nodes that may split) and all below it."""
        deferred = []
        while len(level):
            small = (level.ends - level.starts) <= self.subtree_rows
            if small.any():
                deferred.append(level.select(small))
                level = level.select(~small)
                if not len(level):
                    break
            level = self._split(level)
        if deferred:
            self.grow_subtrees(Nodes.concat(deferred))

    def _split(self, level: Nodes) -> Nodes:
        """One level of large nodes: search, the growth step, partition; returns the next
        level."""
        words = self.words
        n_features = words.shape[0]
        m = len(level)
        nodes = Level(level.starts, level.ends, level.depth, level.counts, level.slots)
        mask = np.empty((n_features, m), np.uint8)
        draw_features(self.random_key, level.slots, self.rules.max_features, mask)
        found = new_found(n_features, m)
        self._search(nodes, words, mask, self.criterion, found)
        screen_found = found
        if self.screen is not None:
            screen_found = new_found(n_features, m)
            self._search(nodes, words, mask, self.screen, screen_found)
        room = int((level.ends - level.starts).sum()) if self.nominal.shape[0] else 0
        sets = (np.empty((m, 2), np.int64), np.empty(room, np.int64), np.empty(room, np.uint8),
                np.array([0, self.n_levels], np.int64))
        capacity = 2 * m
        children = (np.empty(capacity, np.int64), np.empty(capacity, np.int64),
                    np.empty(capacity, np.int64), np.empty((capacity, level.counts.shape[1])),
                    np.empty(capacity, np.int64))
        moving = (np.empty(m, np.int64), np.empty(m, np.int64), np.empty(m, np.int64))
        step = Step(sets, self.goes_left, self.store, children, moving, np.zeros(2, np.int64))
        step_args = (words, nodes, found, self.screen is not None, screen_found.score,
                     self.columns, self.rows, self.rules, self.min_gain, self.test, step,
                     self.calls.nominal_sets)
        if self.test.address:  # S-pruning: a stop must reach its long test (run_stoppable)
            run_stoppable(self.test.stop, lambda lo, hi: grow_step(*step_args), 1, 1, 0)
        else:
            grow_step(*step_args)
        n_children, n_moving = (int(size) for size in step.sizes)
        if self.nominal.shape[0]:
            used = int(sets[3][0])
            self.category_buffers[self.n_levels] = (sets[1][:used].copy(), sets[2][:used].copy())
        self.n_levels += 1
        starts, ends, left_sizes = (a[:n_moving] for a in moving)
        run_chunks(partition, n_features * n_moving, self.n_threads,
                   n_features * int((ends - starts).sum()), words, starts, ends, left_sizes,
                   self.goes_left, self.shifts.row_mask)
        return Nodes(*(a[:n_children] for a in children))

    def _search(self, nodes: Level, words: np.ndarray, mask: np.ndarray, criterion,
                found) -> None:
        """Every feature's best split of every node of `nodes` under `criterion` (its
        Searches), among the features `mask` marks, on all threads, into `found`."""
        m = nodes.starts.shape[0]
        work = int((nodes.ends - nodes.starts).sum())
        common = (self.columns, self.rows, criterion.scorer.params, criterion.scorer.tables,
                  self.leaf_rule, found)
        for search, features in ((criterion.numeric, self.numeric),
                                 (criterion.nominal, self.nominal)):
            if features.shape[0]:
                run_chunks(search, features.shape[0] * m, self.n_threads,
                           features.shape[0] * work, words, nodes, features, mask, *common)

    def grow_subtrees(self, roots: Nodes) -> None:
        """Grow every deferred root's whole subtree, largest first, on all threads."""
        sizes = roots.ends - roots.starts
        order = np.argsort(-sizes, kind="stable")
        table = np.column_stack([roots.starts, roots.ends, roots.depth, roots.slots])
        screen = (self.screen or NO_SEARCHES).scorer
        run = (partial(run_stoppable, self.test.stop) if self.test.address else run_chunks)
        found = run(grow_subtrees, len(roots), self.n_threads,
                    int(sizes.sum()) * self.words.shape[0], self.words, table,
                    roots.counts, order, self.numeric, self.nominal, self.columns,
                    self.rows, self.criterion.scorer, screen, self.rules,
                    self.min_gain, self.test, self.random_key, self.goes_left, self.store,
                    self.calls, chunks_per_thread=SUBTREE_CHUNKS_PER_THREAD)
        for source, codes, sides in found:
            self.category_buffers[int(source)] = (codes, sides)
