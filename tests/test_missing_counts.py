"""n_node_missing: how many of a split's training rows lacked its feature, and the
"(or missing)" that exports print only where training had missing values (issue 25).

Checked against rows routed down the tree in plain Python.
"""
import json
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dtcli import DecisionTreeClassifier
from dtcli.errors import ModelError
from dtcli.export import rules
from dtcli.model import load_model, model_to_dict
from dtcli.engine.tree import TREE_LEAF
from test_stopping import node_rows

VALUES = st.sampled_from([0.0, 1.0, 2.0, 3.0, 7.0, math.nan])


@st.composite
def data_with_missing(draw):
    n = draw(st.integers(4, 40))
    d = draw(st.integers(1, 3))
    X = np.array(draw(st.lists(st.lists(VALUES, min_size=d, max_size=d), min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    assume(len(set(y.tolist())) == 2)
    return X, y


@settings(max_examples=100, deadline=None)
@given(data=data_with_missing(), criterion=st.sampled_from(["gini", "entropy"]))
def test_counts_are_the_rows_lacking_the_split_feature(data, criterion):
    X, y = data
    tree = DecisionTreeClassifier(criterion=criterion).fit(X, y).tree_
    rows = node_rows(tree, X)
    for node in range(tree.node_count):
        expected = (0 if tree.children_left[node] == TREE_LEAF
                    else int(np.isnan(X[rows[node], tree.feature[node]]).sum()))
        assert tree.n_node_missing[node] == expected, node


def _rule_paths(tree):
    """Per leaf, depth first: [(feature, the child the path takes at the feature's last
    test)], in the order of each feature's first test (as the rules list them)."""
    out = []
    stack = [(0, {})]
    while stack:
        node, last = stack.pop()
        if tree.children_left[node] == TREE_LEAF:
            out.append(last)
            continue
        f = int(tree.feature[node])
        for child in (tree.children_right[node], tree.children_left[node]):
            stack.append((child, {**last, f: int(child)}))
    return out


@settings(max_examples=60, deadline=None)
@given(data=data_with_missing())
def test_rules_say_or_missing_where_training_rows_missing_the_feature_went(data):
    X, y = data
    model = DecisionTreeClassifier().fit(X, y)
    tree = model.tree_
    rows = node_rows(tree, X)
    rendered = rules.render(model).splitlines()
    paths = _rule_paths(tree)
    assert len(rendered) == len(paths)
    for line, path in zip(rendered, paths):
        condition = line.split(" then ")[0]
        for f, child in path.items():
            went = bool(np.isnan(X[rows[child], f]).any())
            name = model.features_[f].name
            says = any(part == f"{name} is missing"
                       or part.startswith(name + " ") and part.endswith("(or missing)")
                       for part in condition.removeprefix("if ").split(" and "))
            assert says == went, (line, f)


def test_model_files_keep_the_counts_and_refuse_wrong_ones(tmp_path):
    X = np.array([[0.0], [1.0], [math.nan], [3.0], [math.nan], [5.0]])
    y = np.array([0, 0, 0, 1, 1, 1])
    model = DecisionTreeClassifier().fit(X, y)
    doc = model_to_dict(model)
    assert doc["tree"]["n_node_missing"] == model.tree_.n_node_missing.tolist()
    assert doc["tree"]["n_node_missing"][0] == 2
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc))
    loaded, _ = load_model(str(path))
    np.testing.assert_array_equal(loaded.tree_.n_node_missing, model.tree_.n_node_missing)
    # a file from before the counts: unknown, so exports say where missing values go
    del doc["tree"]["n_node_missing"]
    path.write_text(json.dumps(doc))
    old, _ = load_model(str(path))
    assert (old.tree_.n_node_missing == -1).all() and old.tree_.saw_missing(0)
    for wrong in ([7] + [0] * (model.tree_.node_count - 1), [-1] * model.tree_.node_count,
                  [2] + [1] * (model.tree_.node_count - 1)):
        doc["tree"]["n_node_missing"] = wrong
        path.write_text(json.dumps(doc))
        with pytest.raises(ModelError, match="n_node_missing"):
            load_model(str(path))
