"""Presort once, grow many: trees grown from one `prepare`d dataset with per-row
weights equal the trees fitted on the subsets those weights select, and integer
weights run the compiled forms of an unweighted fit."""
from __future__ import annotations

import numpy as np
import pytest

from dtcli import criteria
from dtcli.engine import searches
from dtcli.engine.subtree import grow_subtrees
from dtcli.engine.builder import StopRules, grow, prepare
from dtcli.io.dataset import NOMINAL
from dtcli.engine.tree import Tree

TREE_ARRAYS = Tree.ARRAYS + Tree.CATEGORY_ARRAYS


def prepared_of(data, rows=slice(None)):
    is_nominal = np.array([f.kind == NOMINAL for f in data.features], np.uint8)
    n_categories = np.array([len(f.categories) for f in data.features], np.int64)
    return prepare(np.ascontiguousarray(data.X[rows]), data.y[rows], len(data.classes),
                   is_nominal, n_categories)


def assert_same_tree(ours, theirs):
    for name in TREE_ARRAYS:
        np.testing.assert_array_equal(getattr(ours, name), getattr(theirs, name), err_msg=name)


@pytest.mark.parametrize("name", ["gini", "entropy", "gain-ratio", "hddt", "ihdw"])
@pytest.mark.parametrize("example", ["crx.csv", "iris.csv"])
def test_a_fold_of_weights_0_and_1_grows_the_tree_of_its_rows(name, example, load_example):
    data = load_example(example)
    engine = criteria.get(name).engine()
    rules = StopRules(min_samples_leaf=2)
    whole = prepared_of(data)
    fold = np.random.default_rng(3).integers(0, 5, data.y.shape[0])
    for k in range(3):
        train = fold != k
        subset = grow(prepared_of(data, train), engine, rules)
        assert_same_tree(grow(whole, engine, rules, weights=train.astype(float)), subset)


def test_growing_leaves_the_prepared_data_as_it_was(load_example):
    data = load_example("hepatitis.csv")
    prepared = prepared_of(data)
    words = prepared.sorted.words.copy()
    engine = criteria.get("entropy").engine()
    first = grow(prepared, engine, StopRules())
    np.testing.assert_array_equal(prepared.sorted.words, words)
    assert_same_tree(grow(prepared, engine, StopRules()), first)


def test_a_row_of_weight_zero_is_left_out(load_example):
    data = load_example("ecoli2.dat")
    weights = np.random.default_rng(5).integers(0, 3, data.y.shape[0]).astype(float)
    engine = criteria.get("gini").engine()
    kept = weights > 0
    weighted = grow(prepared_of(data), engine, StopRules(), weights=weights)
    subset = grow(prepared_of(data, kept), engine, StopRules(), weights=weights[kept])
    assert_same_tree(weighted, subset)
    assert weighted.n_node_samples[0] == kept.sum()
    assert weighted.counts[0].sum() == weights.sum()


def test_integer_weights_compile_no_form_an_unweighted_fit_lacks(load_example):
    data = load_example("ecoli2.dat")
    prepared = prepared_of(data)
    engine = criteria.get("entropy").engine()
    grow(prepared, engine, StopRules())
    forms = (searches.made_forms(), len(grow_subtrees.signatures))
    bootstrap = np.bincount(np.random.default_rng(9).integers(0, data.y.shape[0],
                                                              data.y.shape[0]),
                            minlength=data.y.shape[0]).astype(float)
    tree = grow(prepared, engine, StopRules(), weights=bootstrap)
    assert (searches.made_forms(), len(grow_subtrees.signatures)) == forms
    assert tree.counts[0].sum() == data.y.shape[0]


@pytest.mark.parametrize("name", sorted(criteria.CRITERIA))
def test_the_level_driver_and_the_subtree_driver_grow_the_same_tree(name, load_example,
                                                                    monkeypatch):
    """Every node grown level by level (threshold 0), then every node inside one
    subtree call (no threshold): the drivers share their steps, so the trees agree.
    crx has two classes, nominal and numeric features and missing values."""
    from dtcli.engine import builder

    prepared = prepared_of(load_example("crx.csv"))
    engine = criteria.get(name).engine()
    monkeypatch.setattr(builder, "SUBTREE_BYTES", 0)
    by_levels = grow(prepared, engine, StopRules())
    monkeypatch.setattr(builder, "SUBTREE_BYTES", 1 << 62)
    assert_same_tree(grow(prepared, engine, StopRules()), by_levels)
    assert by_levels.node_count > 15
