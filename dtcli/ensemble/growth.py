"""Growing a forest's trees from one presorted dataset (builder.prepare once, grow per tree).

Tree t grows from integer bootstrap counts (bootstrap.py) as row weights, with the
features of each node drawn under the key (seed, t): both are functions of the seed
and the tree's index only, so a forest is the same grown on one thread, on several, or
tree by tree on the workers of a Dask cluster (distributed.py).

Trees grow in parallel, one per thread, each on one thread: the engine's kernels
release the GIL (jit.py: nogil), and a tree's own parallelism (a level's features,
its subtrees) leaves threads idle on its small late levels, which whole trees do not
(docs/forests.md has the measurement). A stop (Ctrl-C) ends the threads between
trees (stoppable.py).
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from dtcli.engine.builder import Prepared, StopRules, grow
from dtcli.jit.threads import MIN_PARALLEL_WORK
from dtcli.ensemble.bootstrap import bootstrap_counts
from dtcli.ensemble.stoppable import for_each_tree
from dtcli.engine.tree import Tree


@dataclass(frozen=True)
class ForestPlan:
    """Everything but the data that a forest's trees grow from; picklable (Dask)."""
    engine: tuple  # registry.EngineCriterion
    rules: StopRules
    weights: np.ndarray | None  # per row: sample_weight times class_weight, or None
    bootstrap: bool
    n_draws: int  # rows drawn per bootstrap sample (max_samples)
    balanced_subsample: bool  # class weights from each bootstrap sample's class counts
    seed: int

    def counts(self, index: int, n_rows: int) -> np.ndarray | None:
        """Tree `index`'s bootstrap counts (int64), None without bootstrap."""
        if not self.bootstrap:
            return None
        return bootstrap_counts(self.seed, index, n_rows, self.n_draws)

    def tree_weights(self, index: int, y: np.ndarray, n_classes: int) -> np.ndarray | None:
        """Tree `index`'s row weights: the bootstrap counts times the rows' weights, and
        for balanced_subsample times scikit-learn's n / (n_classes * count) over the
        classes of the sample (its counts with multiplicity; absent classes weigh 0)."""
        counts = self.counts(index, y.shape[0])
        if counts is None:
            return self.weights
        weights = counts.astype(np.float64)
        if self.balanced_subsample:
            per_class = np.bincount(y, weights=weights, minlength=n_classes)
            present = per_class > 0
            balanced = np.zeros(n_classes)
            balanced[present] = weights.sum() / (present.sum() * per_class[present])
            weights *= balanced[y]
        return weights if self.weights is None else weights * self.weights


def grow_tree(prepared: Prepared, plan: ForestPlan, index: int, n_threads: int = 1) -> Tree:
    """Tree `index` of the forest `plan` describes."""
    weights = plan.tree_weights(index, prepared.y, prepared.n_classes)
    return grow(prepared, plan.engine, plan.rules, weights, n_threads, seed=plan.seed,
                stream=index)


def grow_trees(prepared: Prepared, plan: ForestPlan, indices, n_jobs: int | None) -> list[Tree]:
    """The trees `indices` of the forest, one per thread on n_jobs threads."""
    n_jobs = n_jobs or os.cpu_count() or 1
    indices = list(indices)
    trees: list[Tree | None] = [None] * len(indices)

    per_tree = max(1, n_jobs // max(len(indices), 1))  # fewer trees than threads

    def grow_one(k):
        trees[k] = grow_tree(prepared, plan, indices[k], per_tree)

    # a whole tree is always worth a thread
    for_each_tree(grow_one, len(indices), n_jobs, MIN_PARALLEL_WORK,
                  chunks_per_thread=1 if len(indices) <= n_jobs else 4)
    return trees


# Prediction sums the trees in fixed groups, each group's partial sum on one thread: a
# tree's nodes stay in the core's cache while every row passes it, and the groups do
# not depend on the number of threads, so neither do the sums.
TREES_PER_GROUP = 4


def tree_proba(tree: Tree, leaf_model, matrix: np.ndarray, is_nominal: np.ndarray,
               n_threads: int) -> np.ndarray:
    """One tree's class probabilities: its leaves' frequencies, or their Naive Bayes
    models' (`leaf_model`, a NaiveBayesLeaves; None for counts)."""
    leaves = tree.apply(matrix, is_nominal, n_threads)
    if leaf_model is None:
        return tree.node_proba[leaves]
    return leaf_model.proba(matrix, leaves, tree.counts)


def forest_proba(trees: list[Tree], matrix: np.ndarray, is_nominal: np.ndarray,
                 n_jobs: int | None, leaf_models: list | None = None) -> np.ndarray:
    """The mean of the trees' class probabilities for every row of `matrix` (each
    tree's leaf model in `leaf_models`, if given): groups of TREES_PER_GROUP trees on
    n_jobs threads, their sums added in group order."""
    n_jobs = n_jobs or os.cpu_count() or 1
    leaf_models = leaf_models or [None] * len(trees)
    groups = [list(zip(trees, leaf_models))[k:k + TREES_PER_GROUP]
              for k in range(0, len(trees), TREES_PER_GROUP)]
    partial = [None] * len(groups)

    def add_up(g):
        total = np.zeros((matrix.shape[0], trees[0].counts.shape[1]))
        for tree, leaf_model in groups[g]:
            total += tree_proba(tree, leaf_model, matrix, is_nominal, 1)
        partial[g] = total

    for_each_tree(add_up, len(groups), n_jobs, len(trees) * matrix.size)
    total = partial[0]
    for part in partial[1:]:
        total += part
    return total / len(trees)
