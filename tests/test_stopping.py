"""Stopping parameters (property tests) and determinism across thread counts.

Each stopping rule is checked both ways: no node breaks it, and no leaf
could have been split without breaking one (checked by exhaustive search),
so a tree that stops too early fails as surely as one that grows too far.
"""
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dtcli import DecisionTreeClassifier
from dtcli.engine.tree import TREE_LEAF

VALUES = st.sampled_from([0.0, 1.0, 2.0, 2.5, 3.0, 7.0, -1.0, math.nan])


@st.composite
def numeric_data(draw):
    n = draw(st.integers(2, 60))
    d = draw(st.integers(1, 3))
    k = draw(st.integers(2, 3))
    X = np.array(draw(st.lists(st.lists(VALUES, min_size=d, max_size=d), min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    assume(len(set(y.tolist())) >= 2)
    return X, np.unique(y, return_inverse=True)[1]


RULES = dict(
    max_depth=st.one_of(st.none(), st.integers(0, 5)),
    min_samples_split=st.integers(2, 15),
    min_samples_leaf=st.integers(1, 8),
    min_gain=st.one_of(st.just(0.0), st.floats(0.0, 0.2)),
)


def node_rows(tree, X):
    """Training rows of every node, routed in plain Python (numeric features)."""
    rows = [[] for _ in range(tree.node_count)]
    for i, row in enumerate(X):
        node = 0
        rows[0].append(i)
        while tree.children_left[node] != TREE_LEAF:
            v = row[tree.feature[node]]
            left = bool(tree.missing_left[node]) if math.isnan(v) else v <= tree.threshold[node]
            node = tree.children_left[node] if left else tree.children_right[node]
            rows[node].append(i)
    return rows


@settings(max_examples=200, deadline=None)
@given(data=numeric_data(), criterion=st.sampled_from(["gini", "entropy"]), **RULES)
def test_stopping_rules_hold_and_are_not_overly_strict(reference, data, criterion, max_depth,
                                                       min_samples_split, min_samples_leaf,
                                                       min_gain):
    X, y = data
    model = DecisionTreeClassifier(criterion=criterion, max_depth=max_depth,
                                   min_samples_split=min_samples_split,
                                   min_samples_leaf=min_samples_leaf, min_gain=min_gain).fit(X, y)
    tree = model.tree_
    depth = tree.depth
    internal = tree.children_left != TREE_LEAF
    n = tree.n_node_samples
    # no node breaks a rule
    assert (n[1:] >= min_samples_leaf).all()  # the root may be smaller
    if max_depth is not None:
        assert depth.max() <= max_depth
    assert (n[internal] >= min_samples_split).all()
    assert (tree.score[internal] >= min_gain - 1e-12).all()
    # and no leaf could have been split within the rules
    rows = node_rows(tree, X)
    for leaf in np.flatnonzero(~internal):
        if (max_depth is not None and depth[leaf] >= max_depth) or n[leaf] < min_samples_split:
            continue
        r = rows[leaf]
        candidates = reference.best_numeric(X[r], y[r], int(y.max()) + 1,
                                            min_leaf=min_samples_leaf, criterion=criterion)
        assert all(c[0] < min_gain + 1e-9 for c in candidates), (leaf, max(candidates))


@pytest.mark.parametrize("max_depth", [0, 1, 2, 3, 5])
def test_max_depth_on_real_data(load_example, max_depth):
    d = load_example("balanced/wine.csv")
    tree = DecisionTreeClassifier(max_depth=max_depth).fit_dataset(d).tree_
    unlimited = DecisionTreeClassifier().fit_dataset(d).tree_
    # growth is level by level with ids in level order, so the limited tree is the
    # unlimited one cut at that depth: its first nodes, with the deepest made leaves
    assert tree.max_depth == min(max_depth, unlimited.max_depth)
    kept = unlimited.depth <= max_depth
    assert tree.node_count == kept.sum() and kept[:tree.node_count].all()
    above = unlimited.depth[:tree.node_count] < max_depth
    for name in ("feature", "threshold", "children_left"):
        np.testing.assert_array_equal(getattr(tree, name)[above],
                                      getattr(unlimited, name)[:tree.node_count][above])
    np.testing.assert_array_equal(tree.counts, unlimited.counts[:tree.node_count])
    assert (tree.children_left[~above] == TREE_LEAF).all()


@pytest.mark.parametrize("min_leaf", [1, 5, 20])
def test_min_samples_leaf_on_data_with_missing_values(load_example, min_leaf):
    d = load_example("hepatitis.csv")
    tree = DecisionTreeClassifier(min_samples_leaf=min_leaf).fit_dataset(d).tree_
    leaves = tree.children_left == TREE_LEAF
    assert tree.n_node_samples[leaves].min() >= min_leaf
    # the row counts add up: children partition their parent
    internal = np.flatnonzero(~leaves)
    np.testing.assert_array_equal(tree.n_node_samples[internal],
                                  tree.n_node_samples[tree.children_left[internal]]
                                  + tree.n_node_samples[tree.children_right[internal]])
    np.testing.assert_allclose(tree.counts[internal], tree.counts[tree.children_left[internal]]
                               + tree.counts[tree.children_right[internal]])


def test_min_samples_leaf_on_nominal_data(load_example):
    d = load_example("crx.csv")
    tree = DecisionTreeClassifier(min_samples_leaf=15).fit_dataset(d).tree_
    assert tree.n_node_samples[tree.children_left == TREE_LEAF].min() >= 15
    assert tree.node_count > 1


@pytest.mark.parametrize("min_gain, splits", [(0.34, False), (0.3333, True), (1 / 3, True)])
def test_min_gain_at_the_iris_root(load_example, min_gain, splits):
    d = load_example("iris.csv")
    # three balanced classes: no binary split lowers gini 2/3 by more than isolating
    # one class, 2/3 - (100/150) * 1/2 = 1/3, which setosa allows
    tree = DecisionTreeClassifier(min_gain=min_gain).fit_dataset(d).tree_
    assert (tree.node_count > 1) == splits


# --- determinism across threads -------------------------------------------------------------

def big_mixed_data():
    """20000 x 12 = 240,000 cells, above the engine's threading threshold."""
    rng = np.random.default_rng(7)
    n = 20_000
    X = rng.normal(size=(n, 12)).round(2)  # rounded: many tied values
    X[:, 3] = rng.integers(0, 6, n)  # used as a nominal feature
    X[:, 7] = rng.integers(0, 3, n)  # nominal too
    X[rng.random((n, 12)) < 0.05] = np.nan
    y = (X[:, 0] + np.nan_to_num(X[:, 3]) % 2 + rng.normal(size=n) > 0.5).astype(int)
    y[X[:, 7] == 2] += 1
    return X, y


def test_same_tree_for_one_and_two_threads(monkeypatch, same_tree):
    from dtcli.jit import threads

    assert 20_000 * 12 >= threads.MIN_PARALLEL_WORK
    pools = []
    original = threads._pool
    monkeypatch.setattr(threads, "_pool", lambda n: (pools.append(n), original(n))[1])
    X, y = big_mixed_data()
    one = DecisionTreeClassifier(n_jobs=1, nominal_features=[3, 7]).fit(X, y)
    assert pools == []  # one thread: never a pool
    two = DecisionTreeClassifier(n_jobs=2, nominal_features=[3, 7]).fit(X, y)
    assert pools and set(pools) == {2}  # two threads were really used
    assert one.tree_.node_count > 100
    assert same_tree(one.tree_, two.tree_)
    np.testing.assert_array_equal(one.predict_proba(X), two.predict_proba(X))


def test_refitting_gives_the_same_tree(load_example, same_tree):
    d = load_example("crx.csv")
    first = DecisionTreeClassifier().fit_dataset(d).tree_
    assert same_tree(first, DecisionTreeClassifier().fit_dataset(d).tree_)
    assert same_tree(first, DecisionTreeClassifier(n_jobs=2).fit_dataset(d).tree_)
