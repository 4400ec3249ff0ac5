"""min_weight_fraction_leaf: a child must weigh at least that share of the fit's weight.

Checked both ways, as tests/test_stopping.py checks the other rules: no node breaks
the rule, and no leaf could have been split within it (exhaustive search). With
integer sample weights a row of weight w is w copies of the row, so the reference
searches the copies with a least leaf of ceil(fraction x total weight) rows.
"""
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dtcli import DecisionTreeClassifier, RandomForestClassifier
from dtcli.errors import ParameterError
from dtcli.engine.tree import TREE_LEAF
from test_stopping import node_rows

VALUES = st.sampled_from([0.0, 1.0, 2.0, 2.5, 3.0, 7.0, -1.0, math.nan])


@st.composite
def weighted_data(draw):
    n = draw(st.integers(2, 40))
    d = draw(st.integers(1, 3))
    k = draw(st.integers(2, 3))
    X = np.array(draw(st.lists(st.lists(VALUES, min_size=d, max_size=d), min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    assume(len(set(y.tolist())) >= 2)
    weights = np.array(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)))
    return X, np.unique(y, return_inverse=True)[1], weights


def least_rows(fraction, weights):
    """The rule as a least number of copied rows (the weights are integers)."""
    return max(1, math.ceil(fraction * weights.sum() - 1e-9))


@settings(max_examples=150, deadline=None)
@given(data=weighted_data(), criterion=st.sampled_from(["gini", "entropy"]),
       fraction=st.floats(0.0, 0.5))
def test_rule_holds_and_is_not_overly_strict(reference, data, criterion, fraction):
    X, y, weights = data
    tree = DecisionTreeClassifier(criterion=criterion, min_weight_fraction_leaf=fraction).fit(
        X, y, sample_weight=weights).tree_
    node_weight = tree.counts.sum(axis=1)
    assert (node_weight[1:] >= fraction * weights.sum() - 1e-9).all()
    copies = np.repeat(np.arange(len(y)), weights)
    rows = node_rows(tree, X)
    n_classes = int(y.max()) + 1
    for leaf in np.flatnonzero(tree.children_left == TREE_LEAF):
        r = np.concatenate([copies[copies == i] for i in rows[leaf]])
        candidates = reference.best_numeric(X[r], y[r], n_classes,
                                            min_leaf=least_rows(fraction, weights),
                                            criterion=criterion)
        # candidates on copies of one row cannot separate them: their rows are whole rows
        assert all(c[0] < 1e-9 for c in candidates), (leaf, max(candidates))


@settings(max_examples=100, deadline=None)
@given(data=weighted_data(), criterion=st.sampled_from(["gini", "entropy"]),
       fraction=st.floats(0.05, 0.5))
def test_root_split_is_the_best_the_rule_allows(reference, data, criterion, fraction):
    X, y, weights = data
    tree = DecisionTreeClassifier(criterion=criterion, min_weight_fraction_leaf=fraction).fit(
        X, y, sample_weight=weights).tree_
    copies = np.repeat(np.arange(len(y)), weights)
    candidates = reference.best_numeric(X[copies], y[copies], int(y.max()) + 1,
                                        min_leaf=least_rows(fraction, weights),
                                        criterion=criterion)
    if tree.children_left[0] == TREE_LEAF:
        assert len(set(y.tolist())) == 1 or all(c[0] < 1e-9 for c in candidates)
    else:
        assert tree.score[0] == pytest.approx(max(c[0] for c in candidates), abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(codes=st.lists(st.sampled_from([0.0, 1.0, 2.0, 3.0, math.nan]), min_size=4, max_size=24),
       labels=st.lists(st.integers(0, 1), min_size=24, max_size=24),
       weights=st.lists(st.integers(1, 3), min_size=24, max_size=24),
       fraction=st.floats(0.05, 0.5))
def test_nominal_split_is_the_best_cut_the_rule_allows(reference, codes, labels, weights,
                                                       fraction):
    X = np.array(codes)[:, None]
    y = np.array(labels[:len(codes)])
    w = np.array(weights[:len(codes)])
    assume(len(set(y.tolist())) == 2)
    tree = DecisionTreeClassifier(nominal_features=[0], min_weight_fraction_leaf=fraction).fit(
        X, y, sample_weight=w).tree_
    copies = np.repeat(np.arange(len(y)), w)
    # the engine cuts the categories' ordering by p(class 1) (splitter.py): optimal for two
    # classes without a leaf rule (Breiman et al. 1984), so the reference is every subset
    # split the rule allows that is a prefix of that ordering
    present = sorted({int(c) for c in X[copies, 0] if not math.isnan(c)},
                     key=lambda c: y[copies][X[copies, 0] == c].mean())
    prefixes = {frozenset(present[:j]) for j in range(len(present) + 1)}
    candidates = [c for c in reference.nominal_candidates(X[copies, 0], list(y[copies]), 2,
                                                          min_leaf=least_rows(fraction, w))
                  if c[1] in prefixes]
    if tree.children_left[0] == TREE_LEAF:
        assert all(c[0] < 1e-9 for c in candidates)
    else:
        assert tree.score[0] == pytest.approx(max(c[0] for c in candidates), abs=1e-9)


def test_fraction_of_each_fit_weight(load_example):
    """A fraction of the weight the fit sees: class weights count, and the rule is
    scikit-learn's (its leaves obey the same bound on the same data)."""
    sklearn_tree = pytest.importorskip("sklearn.tree")
    dataset = load_example("ecoli2.dat")
    X, y = dataset.X, dataset.y
    for fraction in (0.02, 0.1):
        ours = DecisionTreeClassifier(min_weight_fraction_leaf=fraction,
                                      class_weight="balanced").fit(X, y)
        theirs = sklearn_tree.DecisionTreeClassifier(min_weight_fraction_leaf=fraction,
                                                     class_weight="balanced").fit(X, y)
        leaves = ours.tree_.children_left == TREE_LEAF
        least = ours.tree_.counts[leaves].sum(axis=1).min()
        total = ours.tree_.counts[0].sum()
        assert least >= fraction * total - 1e-9
        assert theirs.tree_.weighted_n_node_samples[theirs.tree_.children_left == -1].min() \
            >= fraction * theirs.tree_.weighted_n_node_samples[0] - 1e-9
        # the same root split: the rule does not bind at the root on this data
        assert ours.tree_.feature[0] == theirs.tree_.feature[0]
        assert ours.tree_.threshold[0] == pytest.approx(theirs.tree_.threshold[0])


@pytest.mark.parametrize("value", [-0.1, 0.6, "0.2", True, math.nan])
def test_out_of_range_is_refused(value):
    with pytest.raises(ParameterError, match="min_weight_fraction_leaf"):
        DecisionTreeClassifier(min_weight_fraction_leaf=value).fit([[0.0], [1.0]], [0, 1])


def test_s_pruning_refuses_it():
    with pytest.raises(ParameterError, match="s-pruning"):
        DecisionTreeClassifier(pruning="s-pruning", min_weight_fraction_leaf=0.1).fit(
            [[0.0], [1.0]], [0, 1])


def test_forest_trees_obey_it_on_their_bootstrap_weight():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    forest = RandomForestClassifier(n_estimators=3, min_weight_fraction_leaf=0.1,
                                    random_state=0).fit(X, y)
    for tree in forest.estimators_:
        value = tree.tree_.counts
        leaves = tree.tree_.children_left == TREE_LEAF
        assert value[leaves].sum(axis=1).min() >= 0.1 * value[0].sum() - 1e-9


def test_command_line_option_is_kept_in_the_model_file(tmp_path, examples):
    from click.testing import CliRunner

    from dtcli.cli import cli
    from dtcli.model import load_model

    model_path = tmp_path / "m.json"
    result = CliRunner().invoke(cli, ["train", str(examples / "ecoli2.dat"), "-q",
                                      "--min-weight-fraction-leaf", "0.05", "-o", str(model_path)])
    assert result.exit_code == 0, result.stderr
    model, _ = load_model(str(model_path))
    assert model.min_weight_fraction_leaf == 0.05
    leaves = model.tree_.children_left == TREE_LEAF
    assert model.tree_.counts[leaves].sum(axis=1).min() >= 0.05 * model.tree_.counts[0].sum()
    refused = CliRunner().invoke(cli, ["train", str(examples / "ecoli2.dat"),
                                       "--min-weight-fraction-leaf", "0.7"])
    assert refused.exit_code == 2 and "--min-weight-fraction-leaf" in refused.stderr
