"""Grow a tree level by level over presorted features.

Each level runs four jitted steps: score every (feature, node) pair
(`splitter.search_numeric` / `search_nominal`, on all threads), pick each node's best feature,
route the rows of the nodes that split (`partition.route_rows`) and move
every feature's segment into the children's order (`partition.partition`,
on all threads), from one word buffer into the other. The loop itself is plain Python over whole levels, so
its overhead is a few calls per level, and stopping rules sit in one place
(`_splittable`).
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np

from dtcli.criteria.kernels import NO_TABLES, count_tables
from dtcli.engine import partition as part
from dtcli.engine import splitter
from dtcli.engine.presort import Presorted, presort
from dtcli.engine.threads import run_chunks
from dtcli.tree import TREE_LEAF, TREE_UNDEFINED, Tree

# Bound the per-level result arrays: a level is searched in batches of nodes.
MAX_PAIRS = 1 << 22


@dataclass(frozen=True)
class StopRules:
    max_depth: int | None = None
    min_samples_split: int = 2
    min_samples_leaf: int = 1
    min_gain: float = 0.0  # a split must score at least this much


def _midpoint(a: float, b: float) -> float:
    """Overflow-safe midpoint that never rounds up to b (x <= t must keep a left)."""
    mid = a / 2.0 + b / 2.0
    return a if mid >= b else mid


class _Level:
    """The nodes of one tree level awaiting a decision, in node-id order."""

    def __init__(self, ids, starts, ends, depth, counts):
        self.ids, self.starts, self.ends = ids, starts, ends
        self.depth, self.counts = depth, counts

    def __len__(self):
        return self.ids.shape[0]


class _Growth:
    """Node arrays accumulated level by level (ids arrive in increasing order)."""

    def __init__(self, n_classes: int, max_categories: int):
        self.parts: dict[str, list[np.ndarray]] = {name: [] for name in Tree.ARRAYS}
        self.n_classes = n_classes
        self.max_categories = max_categories

    def add_level(self, level: _Level, split: np.ndarray, fields: dict[str, np.ndarray]):
        m = len(level)
        arrays = {
            "children_left": np.full(m, TREE_LEAF, np.int64),
            "children_right": np.full(m, TREE_LEAF, np.int64),
            "feature": np.full(m, TREE_UNDEFINED, np.int64),
            "threshold": np.full(m, np.nan),
            "missing_left": np.zeros(m, np.uint8),
            "category_left": np.zeros((m, self.max_categories), np.uint8),
            "score": np.full(m, np.nan),
        }
        for name, values in fields.items():
            arrays[name][split] = values
        arrays["value"] = level.counts
        arrays["n_node_samples"] = level.ends - level.starts
        for name, values in arrays.items():
            self.parts[name].append(values)

    def tree(self) -> Tree:
        return Tree(**{name: np.concatenate(chunks) for name, chunks in self.parts.items()})


def _splittable(level: _Level, rules: StopRules) -> np.ndarray:
    """Nodes that may be split at all: every pre-search stopping rule."""
    n = level.ends - level.starts
    max_depth = math.inf if rules.max_depth is None else rules.max_depth
    impure = np.count_nonzero(level.counts > 0, axis=1) > 1
    return ((level.depth < max_depth) & (n >= rules.min_samples_split)
            & (n >= 2 * rules.min_samples_leaf) & impure)


def grow(X: np.ndarray, y: np.ndarray, n_classes: int, is_nominal: np.ndarray,
         n_categories: np.ndarray, code: int, params: np.ndarray, boundary_only: bool,
         rules: StopRules, sample_weight: np.ndarray | None = None, n_threads: int | None = None,
         table_kinds: tuple[str, ...] = ()) -> Tree:
    """Fit one tree. X float64 (n, d) with NaN = missing; y int64 in [0, n_classes).

    `table_kinds`: the count tables the criterion reads (its registry entry);
    with unit weights every count is an integer, so they are filled once here.
    """
    n_threads = n_threads or os.cpu_count() or 1
    n_samples, n_features = X.shape
    unit_weight = sample_weight is None
    weights = np.ones(1) if unit_weight else np.ascontiguousarray(sample_weight, np.float64)
    is_nominal = is_nominal.astype(np.uint8)
    n_categories = n_categories.astype(np.int64)
    sorted_ = presort(X, y, n_classes, is_nominal, n_categories, n_threads)
    src, dst = sorted_.words, np.empty_like(sorted_.words)

    root_counts = np.bincount(y, weights=None if unit_weight else weights,
                              minlength=n_classes).astype(np.float64)[None, :]
    level = _Level(np.zeros(1, np.int64), np.zeros(1, np.int64),
                   np.array([n_samples], np.int64), np.zeros(1, np.int64), root_counts)
    goes_left = np.zeros(n_samples, np.uint8)
    tables = count_tables(table_kinds, n_samples, params) if unit_weight else NO_TABLES
    context = _Context(sorted_, is_nominal, n_categories, weights, unit_weight, code,
                       params, tables, boundary_only, rules, n_threads)
    growth = _Growth(n_classes, context.max_categories)
    next_id = 1
    while len(level):
        candidates = np.flatnonzero(_splittable(level, rules))
        split, fields = context.best_splits(src, level, candidates)
        growth_fields, children = context.split_nodes(src, dst, level, split, fields,
                                                      goes_left, next_id)
        growth.add_level(level, split, growth_fields)
        next_id += 2 * split.shape[0]
        level = children
        src, dst = dst, src
    return growth.tree()


class _Context:
    """What every level's kernels need besides the level itself."""

    def __init__(self, sorted_: Presorted, is_nominal, n_categories, weights, unit_weight,
                 code, params, tables, boundary_only, rules: StopRules, n_threads: int):
        self.s = sorted_
        self.is_nominal, self.n_categories = is_nominal, n_categories
        self.weights, self.unit_weight = weights, unit_weight
        self.code, self.params, self.tables, self.rules = code, params, tables, rules
        self.boundary_only = bool(boundary_only)
        self.n_features = sorted_.words.shape[0]
        self.numeric = np.flatnonzero(is_nominal == 0).astype(np.int64)
        self.nominal = np.flatnonzero(is_nominal == 1).astype(np.int64)
        self.max_categories = int(n_categories[is_nominal == 1].max(initial=0))
        self.n_threads = n_threads
        self.shifts = (np.uint64(sorted_.key_shift), np.uint64(sorted_.class_shift),
                       np.uint64(sorted_.class_mask), np.uint64(sorted_.row_mask))

    def best_splits(self, words, level: _Level, candidates: np.ndarray):
        """Search the candidate nodes; return the ones that split and their split."""
        n_features = self.n_features
        score = np.full(candidates.shape[0], -math.inf)
        feature = np.full(candidates.shape[0], -1, np.int64)
        cut = np.zeros(candidates.shape[0], np.int64)
        aux = np.zeros(candidates.shape[0], np.int64)
        missing_left = np.zeros(candidates.shape[0], np.uint8)
        batch = max(MAX_PAIRS // max(n_features, 1), 1)
        for lo in range(0, candidates.shape[0], batch):
            nodes = candidates[lo:lo + batch]
            parents = np.ascontiguousarray(level.counts[nodes])
            starts, ends = level.starts[nodes], level.ends[nodes]
            shape = (n_features, nodes.shape[0])
            out = (np.full(shape, -math.inf), np.empty(shape, np.int64),
                   np.empty(shape, np.int64), np.empty(shape, np.uint8))
            rows = int((ends - starts).sum())
            common = (self.shifts, self.weights, self.unit_weight, self.code, self.params,
                      self.tables, self.rules.min_samples_leaf)
            if self.numeric.shape[0]:
                search = (splitter.search_numeric_two if parents.shape[1] == 2
                          else splitter.search_numeric)
                run_chunks(search, self.numeric.shape[0] * nodes.shape[0],
                           self.n_threads, self.numeric.shape[0] * rows, words, starts, ends,
                           parents, self.numeric, self.s.missing_rank, *common,
                           self.boundary_only, *out)
            if self.nominal.shape[0]:
                run_chunks(splitter.search_nominal, self.nominal.shape[0] * nodes.shape[0],
                           self.n_threads, self.nominal.shape[0] * rows, words, starts, ends,
                           parents, self.nominal, self.n_categories, self.s.missing_rank,
                           *common, *out)
            best = splitter.pick_features(out[0])
            found = best >= 0
            cols = np.flatnonzero(found)
            best_rows = best[found]
            sl = slice(lo, lo + nodes.shape[0])
            feature[sl][found] = best_rows
            for target, source in zip((score, cut, aux, missing_left), out):
                target[sl][found] = source[best_rows, cols]
        keep = np.isfinite(score) & (score >= self.rules.min_gain - splitter.TIE_EPS)
        return candidates[keep], dict(feature=feature[keep], score=score[keep], cut=cut[keep],
                                      aux=aux[keep], missing_left=missing_left[keep])

    def _thresholds_and_sets(self, words, level: _Level, split, fields, max_categories):
        m = split.shape[0]
        threshold = np.full(m, np.nan)
        category_left = np.zeros((m, max_categories), np.uint8)
        values, offsets = self.s.values, self.s.offsets
        for j in range(m):
            f = fields["feature"][j]
            if self.is_nominal[f]:
                node = split[j]
                splitter.nominal_left_set(
                    words, f, level.starts[node], level.ends[node], self.n_categories[f],
                    self.s.missing_rank[f], self.shifts, self.weights, self.unit_weight,
                    level.counts.shape[1], fields["aux"][j], fields["cut"][j],
                    category_left[j])
            elif fields["aux"][j] == self.s.missing_rank[f]:
                threshold[j] = math.inf  # present values left, missing right
            else:
                base = offsets[f]
                threshold[j] = _midpoint(values[base + fields["cut"][j]],
                                         values[base + fields["aux"][j]])
        return threshold, category_left

    def split_nodes(self, src, dst, level: _Level, split, fields, goes_left, next_id):
        """Partition the split nodes' rows; return their tree fields and the next level."""
        m = split.shape[0]
        max_categories = self.max_categories
        threshold, category_left = self._thresholds_and_sets(src, level, split, fields,
                                                             max_categories)
        starts, ends = level.starts[split], level.ends[split]
        n_classes = level.counts.shape[1]
        left_counts = np.zeros((m, n_classes))
        left_sizes = np.zeros(m, np.int64)
        missing_sizes = np.zeros(m, np.int64)
        cat_arg = category_left if max_categories else np.zeros((m, 1), np.uint8)
        part.route_rows(src, starts, ends, fields["feature"], fields["cut"],
                        fields["missing_left"], self.is_nominal, cat_arg,
                        self.s.missing_rank, *self.shifts, self.weights, self.unit_weight,
                        goes_left, left_counts, left_sizes, missing_sizes)
        if ((left_sizes == 0) | (left_sizes == ends - starts)).any():
            # The search promised two non-empty children; growing on would loop forever.
            raise RuntimeError("internal error: a split sent every row to one side")
        # Where training had no missing value, send future ones to the larger
        # child (as scikit-learn does); categories absent from the node follow.
        unseen = missing_sizes == 0
        left_weight = left_counts.sum(axis=1)
        right_weight = level.counts[split].sum(axis=1) - left_weight
        fields["missing_left"][unseen] = (left_weight >= right_weight)[unseen]
        absent = category_left == 2
        category_left[absent] = np.broadcast_to(fields["missing_left"][:, None],
                                                category_left.shape)[absent]
        left_ids = next_id + 2 * np.arange(m, dtype=np.int64)
        tree_fields = dict(children_left=left_ids, children_right=left_ids + 1,
                           feature=fields["feature"], threshold=threshold,
                           missing_left=fields["missing_left"], category_left=category_left,
                           score=fields["score"])
        child_ids = np.empty(2 * m, np.int64)
        child_ids[0::2], child_ids[1::2] = left_ids, left_ids + 1
        child_starts = np.empty(2 * m, np.int64)
        child_starts[0::2], child_starts[1::2] = starts, starts + left_sizes
        child_ends = np.empty(2 * m, np.int64)
        child_ends[0::2], child_ends[1::2] = starts + left_sizes, ends
        child_counts = np.empty((2 * m, n_classes))
        child_counts[0::2], child_counts[1::2] = left_counts, level.counts[split] - left_counts
        depth = np.repeat(level.depth[split] + 1, 2)
        children = _Level(child_ids, child_starts, child_ends, depth, child_counts)
        # Only nodes with a child that will be searched need their rows reordered.
        moving = _splittable(children, self.rules).reshape(m, 2).any(axis=1)
        n_moving = int(moving.sum())
        work = src.shape[0] * int((ends[moving] - starts[moving]).sum())
        run_chunks(part.partition, src.shape[0] * n_moving, self.n_threads, work, src, dst,
                   starts[moving], ends[moving], left_sizes[moving], goes_left, self.shifts[3])
        return tree_fields, children
