"""Properties of dtree's J48 that hold on any data (Hypothesis): the rules J48's trees
obey, independent of Weka's outputs (test_c45_weka.py compares with those)."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dtcli.c45 import J48Classifier
from dtcli.c45.split import NUMERIC
from dtcli.c45.tree import LEAF

N_CLASSES = 3


@st.composite
def numeric_data(draw):
    """Small integer-valued data (ties between values), 3 classes."""
    n = draw(st.integers(10, 60))
    d = draw(st.integers(1, 3))
    values = draw(st.lists(st.integers(0, 6), min_size=n * d, max_size=n * d))
    labels = draw(st.lists(st.integers(0, N_CLASSES - 1), min_size=n, max_size=n))
    return np.array(values, dtype=np.float64).reshape(n, d), np.array(labels)


def fit(X, y, **options) -> J48Classifier:
    return J48Classifier(**options)._fit_encoded(
        X, y, [_numeric(j) for j in range(X.shape[1])], np.array(["a", "b", "c"], dtype=object))


def _numeric(j):
    from dtcli.io.dataset import NUMERIC as KIND, Feature

    return Feature(f"x{j}", KIND)


def _errors(counts: np.ndarray) -> float:
    return float(counts.sum() - counts.max())


@settings(max_examples=25, deadline=None)
@given(numeric_data(), st.integers(1, 4))
def test_unpruned_splits_obey_j48s_rules(data, min_leaf):
    """In the unpruned (collapsed) tree every numeric split leaves each side at least
    clamp(0.1 W / K, M, 25) of weight, cuts at a training value, and lowers the training
    errors by more than 1e-3 (else collapse would have made it a leaf)."""
    X, y = data
    tree = fit(X, y, pruning=None, min_samples_leaf=min_leaf).tree_
    subtree_errors = np.zeros(tree.node_count)
    for node in range(tree.node_count - 1, -1, -1):
        kids = tree.branches(node)
        if tree.feature[node] == LEAF:
            subtree_errors[node] = _errors(tree.counts[node])
            continue
        subtree_errors[node] = subtree_errors[kids].sum()
        assert subtree_errors[node] < _errors(tree.counts[node]) - 1e-3
        assert tree.kind[node] == NUMERIC
        assert tree.threshold[node] in X[:, tree.feature[node]]
        weights = tree.counts[kids].sum(axis=1)
        least = min(max(0.1 * weights.sum() / N_CLASSES, min_leaf), 25)
        assert (weights >= least - 1e-6).all()


@settings(max_examples=20, deadline=None)
@given(numeric_data(), st.randoms(use_true_random=False))
def test_row_order_does_not_change_the_tree(data, random):
    X, y = data
    order = list(range(X.shape[0]))
    random.shuffle(order)
    assert fit(X[order], y[order]).text() == fit(X, y).text()


@settings(max_examples=20, deadline=None)
@given(numeric_data())
def test_probabilities_sum_to_one_without_missing_values(data):
    X, y = data
    for options in ({}, {"leaf_estimate": "laplace"}):
        proba = fit(X, y, **options).proba_from_matrix(X)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)


@settings(max_examples=20, deadline=None)
@given(numeric_data())
def test_pruning_keeps_no_more_leaves_than_the_unpruned_tree(data):
    X, y = data
    assert fit(X, y).tree_.n_leaves <= fit(X, y, pruning=None).tree_.n_leaves
