"""Grow a tree over presorted features: large nodes level by level, small ones as whole
subtrees.

Every feature is sorted once (presort) into packed words; a node is a range
of rows of every feature's segment, kept in sorted order by partitioning
each split node's rows into its children's order, from one word buffer into
the other. Growth has two phases, running the same jitted steps:

- Nodes with more rows than fit in a core's cache are grown level by level
  here: every (feature, node) pair of a level is searched on all threads
  (splitter), each node's best feature picked, the level recorded and its
  rows routed (level.split_level), and the rows partitioned on all threads.
- A node small enough that both buffers' words of it fit in the cache
  (`SUBTREE_BYTES`) is deferred, and its whole subtree is then grown in one
  jitted call (subtree.py) without leaving the cache; threads take whole
  subtrees, largest first.

Every node is written to its own slot of the node store (nodes.py), so the
tree never depends on the number of threads or on which thread grew what;
`nodes.compact` numbers the nodes breadth-first at the end.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np

from dtcli.criteria.kernels import NO_TABLES, count_tables, param_tuple
from dtcli.engine import splitter
from dtcli.engine.level import can_split, nominal_sets, split_level
from dtcli.engine.nodes import compact, new_store, write_leaf
from dtcli.engine.partition import partition
from dtcli.engine.presort import presort
from dtcli.engine.subtree import GROWERS
from dtcli.engine.threads import run_chunks
from dtcli.tree import Tree

# Words (8 bytes, both buffers) of a node below which its whole subtree is grown
# in one call: half of a core's 1 MB second-level cache here.
SUBTREE_BYTES = 1 << 19
# Subtrees are handed to threads in this many chunks per thread, largest first,
# so that no thread is left with the last big one.
SUBTREE_CHUNKS_PER_THREAD = 16
NO_DEPTH_LIMIT = np.iinfo(np.int64).max


@dataclass(frozen=True)
class StopRules:
    max_depth: int | None = None
    min_samples_split: int = 2
    min_samples_leaf: int = 1
    min_gain: float = 0.0  # a split must score at least this much

    def as_tuple(self) -> tuple[int, int, int]:
        """(max_depth, min_samples_split, min_samples_leaf), as level.can_split takes them."""
        max_depth = NO_DEPTH_LIMIT if self.max_depth is None else self.max_depth
        return (np.int64(max_depth), np.int64(self.min_samples_split),
                np.int64(self.min_samples_leaf))


class _Nodes:
    """Nodes that may split, as parallel arrays (a level, or the deferred subtree roots)."""

    def __init__(self, starts, ends, depth, counts, slots, buffer=None):
        self.starts, self.ends, self.depth, self.counts = starts, ends, depth, counts
        self.slots = slots  # in the node store
        self.buffer = buffer  # which word buffer holds each node's rows (deferred roots)

    def __len__(self):
        return self.starts.shape[0]

    def select(self, mask: np.ndarray, buffer: int | None = None) -> "_Nodes":
        chosen = _Nodes(self.starts[mask], self.ends[mask], self.depth[mask],
                        self.counts[mask], self.slots[mask])
        if buffer is not None:
            chosen.buffer = np.full(len(chosen), buffer, np.int64)
        return chosen

    @staticmethod
    def concat(parts: list["_Nodes"]) -> "_Nodes":
        return _Nodes(*(np.concatenate([getattr(p, name) for p in parts])
                        for name in ("starts", "ends", "depth", "counts", "slots", "buffer")))


def grow(X: np.ndarray, y: np.ndarray, n_classes: int, is_nominal: np.ndarray,
         n_categories: np.ndarray, code: int, params: np.ndarray, rules: StopRules,
         sample_weight: np.ndarray | None = None, n_threads: int | None = None,
         table_kinds: tuple[str, ...] = (), skip_runs: bool = False,
         score_all_two_class: bool = False,
         screen: tuple[int, np.ndarray, tuple[str, ...]] | None = None) -> Tree:
    """Fit one tree. X float64 (n, d) with NaN = missing; y int64 in [0, n_classes).

    From the criterion's registry entry: `table_kinds`, the count tables it
    reads (with unit weights every count is an integer, so they are filled
    once here), `skip_runs`, whether thresholds inside runs of one class
    can be skipped (its `boundary_points`; see splitter.search_numeric) and
    whether two-class fits score every threshold anyway (`score_all_two_class`:
    cheaper than finding the runs for some criteria), and `screen`,
    the (code, parameters, table kinds) of a criterion that screens each
    node's features (C4.5's average-gain rule: splitter.pick_screened).
    """
    n_threads = n_threads or os.cpu_count() or 1
    n_samples, n_features = X.shape
    unit_weight = sample_weight is None
    weights = np.ones(1) if unit_weight else np.ascontiguousarray(sample_weight, np.float64)
    is_nominal = is_nominal.astype(np.uint8)
    n_categories = n_categories.astype(np.int64)
    def tables_for(kinds, vector):
        return count_tables(kinds, n_samples, vector) if unit_weight else NO_TABLES

    criterion = (code, param_tuple(params), tables_for(table_kinds, params))
    if screen is not None:
        screen = (screen[0], param_tuple(screen[1]), tables_for(screen[2], screen[1]))
    growth = _Growth(presort(X, y, n_classes, is_nominal, n_categories, n_threads), n_classes,
                     is_nominal, n_categories, weights, unit_weight, criterion, screen,
                     rules, n_threads, skip_runs and not (score_all_two_class and n_classes == 2))
    root_counts = np.bincount(y, weights=None if unit_weight else weights,
                              minlength=n_classes).astype(np.float64)[None, :]
    root = _Nodes(np.zeros(1, np.int64), np.array([n_samples], np.int64),
                  np.zeros(1, np.int64), root_counts, np.zeros(1, np.int64))
    if can_split(n_samples, 0, root_counts[0], growth.rules):
        growth.grow_levels(root)
    else:
        write_leaf(growth.store, 0, n_samples, root_counts[0], np.zeros(0, np.uint8))
    return compact(growth.store, growth.max_categories)


class _Growth:
    """What both phases need besides the nodes themselves, and the two phases."""

    def __init__(self, sorted_, n_classes, is_nominal, n_categories, weights, unit_weight,
                 criterion, screen, stop_rules: StopRules, n_threads: int, skip_runs: bool):
        self.s = sorted_
        self.buffers = (sorted_.words, np.empty_like(sorted_.words))
        n_features, n_samples = sorted_.words.shape
        self.is_nominal, self.n_categories = is_nominal, n_categories
        self.weights, self.unit_weight = weights, unit_weight
        self.code, self.params, self.tables = criterion
        self.screen = screen  # (code, params, tables) or None
        self.rules, self.min_gain = stop_rules.as_tuple(), float(stop_rules.min_gain)
        self.two_classes = n_classes == 2
        self.skip_runs = bool(skip_runs)
        self.n_threads = n_threads
        self.numeric = np.flatnonzero(is_nominal == 0).astype(np.int64)
        self.nominal = np.flatnonzero(is_nominal == 1).astype(np.int64)
        self.max_categories = int(n_categories[is_nominal == 1].max(initial=0))
        self.shifts = (np.uint64(sorted_.key_shift), np.uint64(sorted_.class_shift),
                       np.uint64(sorted_.class_mask), np.uint64(sorted_.row_mask))
        self.subtree_rows = max(SUBTREE_BYTES // (16 * max(n_features, 1)), 1)
        self.goes_left = np.empty(n_samples, np.uint8)
        self.store = new_store(n_samples, n_classes, self.max_categories)

    def grow_levels(self, level: _Nodes) -> None:
        """Grow `level` (nodes that may split) and all below it."""
        deferred = []
        source = 0
        while len(level):
            small = (level.ends - level.starts) <= self.subtree_rows
            if small.any():
                deferred.append(level.select(small, buffer=source))
                level = level.select(~small)
                if not len(level):
                    break
            level = self._split(level, source)
            source = 1 - source
        if deferred:
            self._grow_subtrees(_Nodes.concat(deferred))

    def _split(self, level: _Nodes, source: int) -> _Nodes:
        """One level of large nodes: search, record, partition; returns the next level."""
        words = self.buffers[source]
        n_features = words.shape[0]
        m = len(level)
        out = (np.full((n_features, m), -math.inf), np.empty((n_features, m), np.int64),
               np.empty((n_features, m), np.int64), np.empty((n_features, m), np.uint8))
        self._search(level, words, (self.code, self.params, self.tables), out)
        if self.screen is None:
            best = splitter.pick_features(out[0])
        else:
            screen_out = (np.full((n_features, m), -math.inf),) + tuple(np.empty_like(a)
                                                                       for a in out[1:])
            self._search(level, words, self.screen, screen_out)
            best = splitter.pick_screened(out[0], screen_out[0])
        sets = np.zeros((m, self.store[5].shape[1]), np.uint8)
        if self.nominal.shape[0]:
            nominal_sets(words, level.starts, level.ends, best, out[1], out[2], self.is_nominal,
                         self.n_categories, self.s.missing_rank, self.shifts, self.weights,
                         self.unit_weight, level.counts.shape[1], sets)
        capacity = 2 * m
        children = (np.empty(capacity, np.int64), np.empty(capacity, np.int64),
                    np.empty(capacity, np.int64), np.empty((capacity, level.counts.shape[1])),
                    np.empty(capacity, np.int64))
        moving = (np.empty(m, np.int64), np.empty(m, np.int64), np.empty(m, np.int64))
        n_children, n_moving = split_level(
            words, level.starts, level.ends, level.depth, level.counts, level.slots, best, *out,
            sets, self.is_nominal, self.n_categories, self.s.missing_rank, self.s.values,
            self.s.offsets, self.shifts, self.weights, self.unit_weight, self.rules,
            self.min_gain, self.goes_left, self.store, children, moving)
        starts, ends, left_sizes = (a[:n_moving] for a in moving)
        run_chunks(partition, n_features * n_moving, self.n_threads,
                   n_features * int((ends - starts).sum()), words, self.buffers[1 - source],
                   starts, ends, left_sizes, self.goes_left, self.shifts[3])
        return _Nodes(*(a[:n_children] for a in children))

    def _search(self, level: _Nodes, words: np.ndarray, criterion, out) -> None:
        """Every feature's best split of every node of `level` under `criterion`
        ((code, params, tables)), on all threads, into `out`."""
        m = len(level)
        work = int((level.ends - level.starts).sum())
        common = (self.s.missing_rank, self.shifts, self.weights, self.unit_weight, *criterion,
                  self.rules[2])
        if self.numeric.shape[0]:
            run_chunks(splitter.NUMERIC_SEARCH[self.two_classes, self.skip_runs],
                       self.numeric.shape[0] * m, self.n_threads, self.numeric.shape[0] * work,
                       words, level.starts, level.ends, level.counts, self.numeric, *common,
                       *out)
        if self.nominal.shape[0]:
            run_chunks(splitter.search_nominal, self.nominal.shape[0] * m, self.n_threads,
                       self.nominal.shape[0] * work, words, level.starts, level.ends,
                       level.counts, self.nominal, self.n_categories, *common, *out)

    def _grow_subtrees(self, roots: _Nodes) -> None:
        """Grow every deferred root's whole subtree, largest first, on all threads."""
        sizes = roots.ends - roots.starts
        order = np.argsort(-sizes, kind="stable")
        table = np.column_stack([roots.starts, roots.ends, roots.depth, roots.slots,
                                 roots.buffer])
        grower = GROWERS[(self.two_classes, self.skip_runs, bool(self.numeric.shape[0]),
                          bool(self.nominal.shape[0]), self.screen is not None)]
        # unscreened forms get the criterion itself as their (unused) screen: no new types
        screen = self.screen or (self.code, self.params, self.tables)
        run_chunks(grower, len(roots), self.n_threads,
                   int(sizes.sum()) * self.buffers[0].shape[0], self.buffers, table,
                   roots.counts, order, self.numeric, self.nominal, self.is_nominal,
                   self.n_categories, self.s.missing_rank, self.s.values, self.s.offsets,
                   self.shifts, self.weights, self.unit_weight, self.code, self.params,
                   self.tables, screen, self.rules, self.min_gain, self.goes_left, self.store,
                   chunks_per_thread=SUBTREE_CHUNKS_PER_THREAD)
