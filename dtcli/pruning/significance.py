"""S-pruning: keep a split only if a permutation test finds its score significant.

PIDT's S-condition (parameterised-impurities-s-pruning.txt, section 3): at a
node N with data D whose best split is on attribute Xc with gain G, shuffle
the labels of D t times and measure the best gain of Xc again each time,
giving a vector V of t gains. The p-value is "the fraction of cases in which
the gain obtained with the random labels was higher than or equal to the gain
obtained with the original labels": p = #{v in V: v >= G} / t (the observed
labels are not counted, in the numerator or the denominator). If p > s, the
significance level, the S-condition holds and N becomes a leaf.

Here the gain is the criterion's own score of the split (an impurity
decrease for the impurities; a gain ratio, a Hellinger distance, DCSM's or
CCPDT's score for the others: the statistic of the test is whatever the
search maximises), and "measure the best gain of Xc again" is the engine's
own search of that one feature, with the same candidate thresholds,
`min_samples_leaf`, missing-value passes, nominal subset search and tie rule
(permutation.py).

The paper prunes while growing. A node's test depends only on its own rows
and its own split, both the same in the grown tree as in a tree grown with
the test, so testing the grown tree top-down, and cutting below each node
that fails, gives exactly the tree in-growth pruning would; it costs growing
the subtrees that are then cut (the engine has no accept-split step to test
in). A node below a cut is never tested.

Two modes:

- `exact`: all t shuffles at every tested node, the paper's procedure.
- `default`: the same decisions, for a fraction of the cost, at a stated risk.
  For a two-class score convex in a threshold's class counts (Gini, Shannon
  entropy, HDDT: BOUNDED_CODES) on a numeric feature with unit weights, no
  shuffles: a node whose
  hypergeometric bound on p (`permutation._hypergeometric_bound`) is at most
  s splits, and a node without missing values of the feature gets its exact
  p over all shuffles (`permutation._lattice_p_value`). Elsewhere shuffles
  are drawn one at a time (the same shuffles as `exact`, in the same order)
  and the node is decided as soon as one of these holds: more than s t
  shuffles reached G (exact mode would prune it too); too few shuffles are
  left for exact mode to prune; or the Clopper-Pearson interval of p after L
  shuffles, at level RISK / t per look, lies wholly below or above s
  (`permutation.sequential_bounds`). Risk: a node decided by the interval is
  decided as its true p-value (over all shuffles) would be, except with
  probability at most RISK (10^-3); the bound and the exact count are never
  wrong about the true p-value; the other stops agree with exact mode given
  the same shuffles. docs/pruning-significance.md has the details.

`p_values` hold p for every tested node (NaN elsewhere): exact, #{v >= G}/t;
default, #{v >= G}/L after the L shuffles drawn, or where none were
(`n_shuffles` 0) the bound (at most s) or the exact p.
"""
from __future__ import annotations

import functools
import numbers
import os
from dataclasses import dataclass

import numpy as np

from dtcli.criteria.registry import CRITERIA
from dtcli.engine.builder import Prepared, StopRules, count_weights, fit_searches
from dtcli.engine.searches import compiled
from dtcli.jit.threads import run_chunks
from dtcli.errors import ParameterError
from dtcli.params import MAX_PERMUTATIONS
from dtcli.pruning.compact import compact
from dtcli.tree import TREE_LEAF, Tree

MODES = ("default", "exact")
# Per node, the chance that the default mode's Clopper-Pearson stop decides otherwise
# than the true p-value would.
RISK = 1e-3
# Two-class scores convex in a threshold's class-1 count, with their minimum 0 at its
# mean: decreases of a concave impurity, and HDDT's squared distance (2 - 2 x a sum of
# geometric means of counts, each concave). The hypergeometric bound and the exact
# lattice count hold for them. Whether the scan compares squares (HDDT's finish is
# the square root).
BOUNDED_CODES = {CRITERIA[name].code: bounded
                 for name, bounded in (("gini", False), ("entropy", False), ("hddt", True))}
# Units of parallel work (threads.run_chunks: about a row scanned) per row of a
# tested node without shuffles (the bound and the lattice count); with shuffles,
# one per shuffle.
WORK_PER_ROW = 32


@dataclass(frozen=True)
class SPruning:
    tree: Tree  # the pruned tree
    p_values: np.ndarray  # per node of the grown tree, NaN where not tested
    n_shuffles: np.ndarray  # shuffles scored per node of the grown tree, -1 where not tested
    kept: np.ndarray  # the grown tree's node of every node of the pruned tree

    @property
    def tree_p_values(self) -> np.ndarray:
        """p_values per node of the pruned tree."""
        return self.p_values[self.kept]


def check_parameters(significance, permutations, mode) -> None:
    if (not isinstance(significance, numbers.Real) or isinstance(significance, bool)
            or not 0.0 <= significance <= 1.0):
        raise ParameterError(f"significance must be a number in [0, 1], got {significance!r}")
    if (not isinstance(permutations, numbers.Integral) or isinstance(permutations, bool)
            or permutations < 1):
        raise ParameterError(f"permutations must be an integer >= 1, got {permutations!r}")
    if permutations > MAX_PERMUTATIONS:  # the sequential test keeps a bound per shuffle
        raise ParameterError(f"permutations must be at most {MAX_PERMUTATIONS}, got "
                             f"{permutations}")
    if mode not in MODES:
        raise ParameterError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")


def s_prune(tree: Tree, prepared: Prepared, criterion, rules: StopRules,
            weights: np.ndarray | None = None, *, significance: float = 0.05,
            permutations: int = 1000, mode: str = "default", seed: int = 0, stream: int = 0,
            n_threads: int | None = None) -> SPruning:
    """S-prune `tree`, grown by builder.grow(prepared, criterion, rules, weights) (any
    seed), at significance level s with t = `permutations` shuffles per node.

    `criterion` is the registry.EngineCriterion the tree was grown with; `rules`
    its stop rules (min_samples_leaf is the search's); `weights` its row
    weights. The shuffles are keyed by `seed` (rng.seed_of(random_state)),
    `stream` and each node's path from the root (permutation.node_keys): the
    result depends on nothing else, not on `n_threads`. `prepared` must be as
    `prepare` made it: grown from with reuse=True (the default), which copies its
    words; a growth with reuse=False writes over them (ValueError here).
    """
    check_parameters(significance, permutations, mode)
    from dtcli.pruning.permutation import (BOUND, kept_nodes, log_factorials, node_keys,
                                           p_value_bound, ranks_by_row, test_level)

    n_threads = n_threads or os.cpu_count() or 1
    exact = mode == "exact"
    n_samples = prepared.n_samples
    weights, keep, use_tables = count_weights(weights)
    rows = np.arange(n_samples, dtype=np.int64) if keep is None else np.flatnonzero(keep)
    table_size = int(tree.counts[0].sum())
    two_classes = prepared.n_classes == 2
    unit_weight = weights is None
    s = prepared.sorted
    shifts = s.layout()
    ranks = ranks_by_row(s.words, shifts.key_shift, shifts.row_mask)
    if ranks is None:
        raise ValueError("the prepared data was overwritten by a growth with reuse=False: "
                         "grow with reuse=True (the default) before S-pruning")
    data = (ranks, prepared.y, np.ones(1) if unit_weight else weights,
            unit_weight, prepared.is_nominal, s.missing_rank, prepared.n_categories, s.values,
            s.offsets, shifts, np.int64(rules.min_samples_leaf))
    split_at_most, leaf_from = _sequential_bounds(int(permutations), float(significance))
    test = (np.int64(seed), np.int64(permutations), float(significance), exact, split_at_most,
            leaf_from, log_factorials(np.int64(rows.shape[0])),
            BOUNDED_CODES.get(criterion.code, False))
    searches, _ = fit_searches(prepared, criterion, use_tables, table_size)
    bound = np.int64(0)
    if not exact and two_classes and unit_weight and criterion.code in BOUNDED_CODES:
        bound = compiled(p_value_bound, (criterion.code, searches.present), BOUND)[1]
    keys = node_keys(tree.children_left, tree.children_right, np.uint64(stream))

    n_nodes = tree.node_count
    p_values = np.full(n_nodes, np.nan)
    n_shuffles = np.full(n_nodes, -1, np.int64)
    make_leaf = np.zeros(n_nodes, bool)
    buffers = (rows, np.empty_like(rows))
    ids = np.zeros(1, np.int64) if tree.children_left[0] != TREE_LEAF else np.zeros(0, np.int64)
    starts, ends = np.zeros(1, np.int64), np.array([rows.shape[0]], np.int64)
    source = 0
    while ids.shape[0]:
        m = ids.shape[0]
        features = tree.feature[ids]
        level = (buffers[source], buffers[1 - source], starts, ends, features,
                 tree.threshold[ids], tree.missing_left[ids],
                 tuple(tree.category_sets_of(ids).values()),
                 np.ascontiguousarray(tree.counts[ids]), keys[ids])
        out = (np.empty(m), np.empty(m, np.int64), np.empty(m, np.int64), np.empty(m),
               np.empty(m, np.int64), np.empty(m, np.uint8))
        run_chunks(test_level, m, n_threads,
                   (permutations if exact else WORK_PER_ROW) * int((ends - starts).sum()), data,
                   searches.scorer, bound, test, level, out)
        _, shuffled, at_least, computed, n_left, split = out
        n_shuffles[ids] = shuffled
        with np.errstate(invalid="ignore", divide="ignore"):
            p_values[ids] = np.where(shuffled > 0, at_least / np.maximum(shuffled, 1),
                                     np.where(np.isfinite(computed), computed, np.nan))
        make_leaf[ids] = split == 0
        left, right = tree.children_left[ids], tree.children_right[ids]
        if not np.array_equal(n_left, tree.n_node_samples[left]):
            raise RuntimeError("S-pruning routed the rows of a node otherwise than its tree")
        go = split == 1
        child_ids = np.concatenate([left[go], right[go]])
        child_starts = np.concatenate([starts[go], starts[go] + n_left[go]])
        child_ends = np.concatenate([starts[go] + n_left[go], ends[go]])
        inner = tree.children_left[child_ids] != TREE_LEAF
        ids, starts, ends = child_ids[inner], child_starts[inner], child_ends[inner]
        source = 1 - source
    return SPruning(compact(tree, make_leaf), p_values, n_shuffles,
                    kept_nodes(tree.children_left, tree.children_right, make_leaf))


@functools.lru_cache(maxsize=8)
def _sequential_bounds(permutations: int, significance: float):
    """permutation.sequential_bounds at RISK, once per (t, s) (every fold of a
    cross-validation asks again)."""
    from dtcli.pruning.permutation import sequential_bounds

    bounds = sequential_bounds(np.int64(permutations), significance, RISK)
    for array in bounds:
        array.flags.writeable = False
    return bounds
