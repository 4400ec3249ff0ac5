"""engine.folds: many folds' trees grown in one grower call and read off its node store,
each the tree `builder.grow` grows from the fold's 0/1 weights."""
from __future__ import annotations

import numpy as np
import pytest
from test_grow_many import assert_same_tree, prepared_of

from dtcli import criteria
from dtcli.engine import builder, folds
from dtcli.engine.builder import StopRules, grow
from dtcli.engine.nodes import compact
from dtcli.sampling.folds import repeat_folds


def fold_rows(y: np.ndarray, cv: int = 10) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(a bool training mask per fold, the test rows per fold) of stratified cv-fold."""
    keeps, tests = [], []
    for train, test in repeat_folds(y, cv, 0, 0):
        keep = np.zeros(y.shape[0], bool)
        keep[train] = True
        keeps.append(keep)
        tests.append(test)
    return keeps, tests


def side_by_side_trees(prepared, engine, rules, keeps):
    sizes = np.array([keep.sum() for keep in keeps], np.int64)
    assert folds._one_call(prepared, engine, rules, sizes)
    growth, roots = folds._side_by_side(prepared, engine, rules, keeps, sizes)
    return [compact(growth.store, growth.category_buffers, root=root) for root in roots]


@pytest.mark.parametrize("name", ["gini", "entropy", "gain-ratio", "hddt"])
@pytest.mark.parametrize("example", ["crx.csv", "iris.csv"])
def test_folds_grown_side_by_side_are_the_trees_of_their_rows(name, example, load_example):
    """crx: two classes, nominal and numeric features, missing values; iris: three
    classes. gain-ratio screens its features (a second search per level)."""
    data = load_example(example)
    prepared = prepared_of(data)
    engine = criteria.get(name).engine()
    rules = StopRules(min_samples_leaf=2)
    keeps, _ = fold_rows(data.y)
    trees = side_by_side_trees(prepared, engine, rules, keeps)
    for tree, keep in zip(trees, keeps):
        assert_same_tree(tree, grow(prepared, engine, rules, keep.astype(float), 1))
    assert min(tree.node_count for tree in trees) > 3


@pytest.mark.parametrize("example", ["crx.csv", "iris.csv"])
def test_predict_folds_reads_the_trees_of_the_folds(example, load_example):
    """Each test row's leaf counts, each tree's size, each root's counts: what the tree
    grown on the fold says (tree.apply routes crx's categories and missing values)."""
    data = load_example(example)
    prepared = prepared_of(data)
    engine = criteria.get("gini").engine()
    keeps, tests = fold_rows(data.y)
    got = folds.predict_folds(prepared, engine, StopRules(), keeps, data.X, tests)
    for k, (keep, test) in enumerate(zip(keeps, tests)):
        tree = grow(prepared, engine, StopRules(), keep.astype(float), 1)
        leaves = tree.apply(data.X[test], prepared.is_nominal)
        np.testing.assert_array_equal(got.leaf_values[k], tree.counts[leaves])
        np.testing.assert_array_equal(got.root_values[k], tree.counts[0])
        assert tuple(got.sizes[k]) == (tree.node_count, tree.n_leaves, tree.max_depth)


def test_a_fold_that_cannot_split_is_a_leaf_beside_the_others(load_example):
    data = load_example("iris.csv")
    prepared = prepared_of(data)
    engine = criteria.get("gini").engine()
    pure = data.y == 0  # one class only: a root leaf
    keeps = [pure, ~pure, np.ones_like(pure)]
    trees = side_by_side_trees(prepared, engine, StopRules(), keeps)
    assert trees[0].node_count == 1 and trees[0].counts[0, 0] == pure.sum()
    for tree, keep in zip(trees, keeps):
        assert_same_tree(tree, grow(prepared, engine, StopRules(), keep.astype(float), 1))
    got = folds.predict_folds(prepared, engine, StopRules(), keeps, data.X,
                              [np.arange(5)] * 3)
    assert tuple(got.sizes[0]) == (1, 1, 0)
    np.testing.assert_array_equal(got.leaf_values[0], np.repeat(trees[0].counts, 5, axis=0))


@pytest.mark.parametrize("case", ["max_features", "min_weight_fraction_leaf", "large"])
def test_folds_that_cannot_share_a_call_are_left_to_grow(case, load_example, monkeypatch):
    """Random features are keyed by slot, a weight rule by each fold's total, and a fold
    beyond one subtree call grows level by level."""
    data = load_example("crx.csv")
    rules = {"max_features": StopRules(max_features=3),
             "min_weight_fraction_leaf": StopRules(min_weight_fraction_leaf=0.05),
             "large": StopRules()}[case]
    if case == "large":
        monkeypatch.setattr(builder, "SUBTREE_BYTES", 0)
    keeps, tests = fold_rows(data.y, cv=3)
    assert folds.predict_folds(prepared_of(data), criteria.get("gini").engine(), rules, keeps,
                               data.X, tests) is None
