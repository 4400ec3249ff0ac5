"""Naive Bayes leaves for a forest's trees (RandomForestClassifier(leaf_model=...)).

Tree t's leaves are fitted as a single tree's (dtcli.leaves.naive_bayes.fit_leaves),
on the rows tree t grew from with the weights it grew with: its bootstrap counts
times the rows' sample and class weights (growth.ForestPlan.tree_weights). A row
drawn c times counts c times in the leaf's class and category counts, means and
variances; a row not drawn (count 0) is left out, as the tree left it out. Under
numeric="mdl" the MDL cut points are each tree's own, found on the distinct rows of
its sample (the cuts ignore weights, as a single tree's do).
"""
from __future__ import annotations

import os

import numpy as np

from dtcli.jit.threads import MIN_PARALLEL_WORK
from dtcli.ensemble.stoppable import for_each_tree
from dtcli.errors import ParameterError
from dtcli.leaves.naive_bayes import LEAF_MODELS, fit_leaves, leaf_options
from dtcli.model.arrays import decode_compact, encode_array


def checked_leaf_options(forest) -> dict | None:
    """The forest's leaf options (None for counts); ParameterError when invalid."""
    if forest.leaf_model == "counts":
        return None
    if forest.leaf_model not in LEAF_MODELS:
        raise ParameterError(f"leaf_model must be one of {', '.join(LEAF_MODELS)}, got "
                             f"{forest.leaf_model!r}")
    return leaf_options(forest.leaf_params)


def fit_forest_leaves(forest, X: np.ndarray, y: np.ndarray, features, plan) -> None:
    """Set `leaf_model_` of every tree of the fitted `forest` grown by `plan`, one tree
    per thread on the forest's n_jobs threads."""
    options = checked_leaf_options(forest)
    X = np.ascontiguousarray(X, dtype=np.float64)
    n_classes = forest.n_classes_
    estimators = forest.estimators_

    def fit_one(index):
        estimator = estimators[index]
        estimator.leaf_model_ = fit_leaves(
            estimator.tree_, X, y, plan.tree_weights(index, y, n_classes), features,
            n_classes, options, 1)

    for_each_tree(fit_one, len(estimators), forest.n_jobs or os.cpu_count() or 1,
                  MIN_PARALLEL_WORK, chunks_per_thread=4)


# In the model file (format 2; docs/model-format.md): the forest block's `leaf_model`
# ("counts" or "naive-bayes"; absent in files older than forest leaves: counts), and
# each tree's `leaf_model` block, a tree file's (dtcli/leaves/files.py) with compact
# arrays.

def leaves_block(estimator) -> dict:
    """A forest tree's `leaf_model` entry ({} without Naive Bayes leaves)."""
    from dtcli.leaves.files import leaves_to_dict

    leaves = getattr(estimator, "leaf_model_", None)
    return {} if leaves is None else {"leaf_model": leaves_to_dict(leaves, encode_array)}


def load_leaves(forest, name, trees: list, check) -> None:
    """Set the leaf models of a forest read from a file (`trees`: the file's trees,
    `check`: a model.check.Checker); a damaged or inconsistent block fails."""
    from dtcli.leaves.files import leaves_from_dict

    if name not in LEAF_MODELS:
        check.fail(f"forest.leaf_model must be one of {', '.join(LEAF_MODELS)}")
    for i, (doc, estimator) in enumerate(zip(trees, forest.estimators_)):
        if (name == "counts") != ("leaf_model" not in doc):
            check.fail(f"trees[{i}]: a tree has a leaf_model block exactly when "
                       "forest.leaf_model is naive-bayes")
        if name == "counts":
            continue

        def fail(message, i=i):
            check.fail(f"trees[{i}].{message}")

        estimator.leaf_model_ = leaves_from_dict(doc["leaf_model"], estimator.tree_,
                                                 forest.features_, forest.n_classes_, fail,
                                                 _read_compact)
        if estimator.leaf_model_.options != forest.estimators_[0].leaf_model_.options:
            fail("leaf_model: options differ from trees[0]'s")
    if name != "counts":
        options = dict(forest.estimators_[0].leaf_model_.options)
        forest.set_params(leaf_model=name, leaf_params=options)
        for estimator in forest.estimators_:
            estimator.set_params(leaf_model=name, leaf_params=options)


def _read_compact(value, dtype, ndim: int, where, name: str, shape=None) -> np.ndarray:
    """files.leaves_from_dict's `read` for compact arrays (booleans stored as uint8)."""
    code = {np.int64: "int64", np.float64: "float64", bool: "uint8"}[dtype]
    array = decode_compact(value, code, ndim if shape is None else shape,
                           lambda message: where(f"{name}{message}"))
    if dtype is bool:
        if (array > 1).any():
            where(f"{name} must hold 0 or 1")
        array = array.astype(bool)
    return array
