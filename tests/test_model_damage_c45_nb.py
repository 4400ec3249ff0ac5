"""The damaged J48 (c45) and Naive-Bayes-leaf model files of issue 47 (section 3): each
was accepted with exit 0 and predicted wrongly; each is now one line naming the file.
And a J48 tree thousands of levels deep exports (no RecursionError)."""
from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from click.testing import CliRunner

from dtcli import DecisionTreeClassifier
from dtcli.c45.estimator import J48Classifier
from dtcli.cli import cli
from dtcli.errors import ModelError
from dtcli.model import model_from_dict, model_to_dict


@pytest.fixture(scope="module")
def iris(load_example):
    return load_example("iris.csv")


@pytest.fixture(scope="module")
def j48(iris):
    return json.loads(json.dumps(model_to_dict(J48Classifier().fit_dataset(iris))))


@pytest.fixture(scope="module")
def nb_leaves(iris):
    model = DecisionTreeClassifier(max_depth=2, leaf_model="naive-bayes",
                                   leaf_params={"numeric": "mdl"})
    return json.loads(json.dumps(model_to_dict(model.fit(iris.X, iris.y))))


def _rejected(doc: dict, tmp_path, message: str) -> None:
    path = tmp_path / "damaged.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ModelError, match=message) as raised:
        model_from_dict(json.loads(path.read_text()), str(path))
    assert str(raised.value).startswith(f"{path}: damaged model file: ")
    assert "\n" not in str(raised.value)


def _leaves(tree: dict) -> list[int]:
    return [i for i, f in enumerate(tree["feature"]) if f == -1]


def test_the_j48_file_as_written_loads_and_predicts_as_the_model(j48, iris):
    model, _ = model_from_dict(copy.deepcopy(j48))
    assert (model.predict(iris.X) == J48Classifier().fit_dataset(iris).predict(iris.X)).all()


def test_j48_leaf_counts_swapped_under_unchanged_parents(j48, tmp_path):
    doc = copy.deepcopy(j48)
    for leaf in _leaves(doc["tree"]):
        doc["tree"]["value"][leaf] = doc["tree"]["value"][leaf][::-1]
    _rejected(doc, tmp_path, "a child's weights")


def test_j48_leaf_count_of_1_7e308(j48, tmp_path):
    doc = copy.deepcopy(j48)
    doc["tree"]["value"][_leaves(doc["tree"])[0]][0] = 1.7e308
    _rejected(doc, tmp_path, "tree node")


def test_j48_tree_classes_reversed_against_classes(j48, tmp_path):
    doc = copy.deepcopy(j48)
    doc["tree_classes"] = doc["tree_classes"][::-1]  # iris: equal class totals
    _rejected(doc, tmp_path, "class_signatures")


def test_j48_weight_for_a_declared_class_without_rows(j48, tmp_path):
    doc = copy.deepcopy(j48)
    doc["tree_classes"].append("never-seen")
    doc["tree"] = {"feature": [-1], "kind": [-1], "threshold": [None], "child_offsets": [0, 0],
                   "children": [], "branch_value": [], "value": [[50.0, 50.0, 50.0, 0.0]],
                   "empty": [False]}
    doc["training"]["class_totals"] = dict(zip(doc["tree_classes"], [50.0, 50.0, 50.0, 0.0]))
    doc["tree"]["class_signatures"] = dict(doc["training"]["class_totals"])
    model_from_dict(copy.deepcopy(doc))  # a declared class without rows: fine
    doc["tree"]["value"][0][-1] = 3.0
    _rejected(doc, tmp_path, "no training rows")


@pytest.mark.parametrize("field, value", [("feature", True), ("kind", True),
                                          ("feature", 1.0), ("child_offsets", "0")])
def test_j48_integer_fields_must_be_integers(j48, tmp_path, field, value):
    doc = copy.deepcopy(j48)
    doc["tree"][field][0] = value
    _rejected(doc, tmp_path, f"tree.{field}\\[0\\] must be an integer")


@pytest.mark.parametrize("value", ["fast", -1, True, [1], 0])
def test_j48_training_fields_are_typed(j48, tmp_path, value):
    doc = copy.deepcopy(j48)
    doc["training"]["fit_seconds"] = value
    if value == 0:
        model_from_dict(doc)
        return
    _rejected(doc, tmp_path, "training.fit_seconds")


def test_a_j48_tree_thousands_of_levels_deep_loads_predicts_and_exports(j48, tmp_path):
    """A chain of 1,500 numeric splits (node 2i splits; 2i+1 is its left leaf)."""
    depth = 1500
    feature, kind, threshold, offsets, children, bags = [], [], [], [0], [], []
    value = []
    for level in range(depth):
        node = 2 * level
        feature += [0, -1]
        kind += [0, -1]
        threshold += [float(level), None]
        children += [node + 1, node + 2]
        offsets += [len(children), len(children)]
    feature.append(-1)
    kind.append(-1)
    threshold.append(None)
    offsets.append(len(children))
    n = len(feature)
    weights = np.zeros((n, 3))
    weights[n - 1] = [1.0, 1.0, 1.0]
    for level in reversed(range(depth)):
        node = 2 * level
        weights[node + 1] = [0.0, 1.0, 0.0] if level % 2 else [1.0, 0.0, 0.0]
        weights[node] = weights[node + 1] + weights[node + 2]
    value = weights.tolist()
    for level in range(depth):
        bags += [value[2 * level + 1], value[2 * level + 2]]
    doc = copy.deepcopy(j48)
    doc["tree"] = {"feature": feature, "kind": kind, "threshold": threshold,
                   "child_offsets": offsets, "children": children, "branch_value": bags,
                   "value": value, "empty": [False] * n}
    doc["training"]["class_totals"] = dict(zip(doc["tree_classes"], value[0]))
    doc["tree"]["class_signatures"] = dict(zip(
        doc["tree_classes"], (np.arange(1, n + 1) @ weights).tolist()))
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(doc))
    model, _ = model_from_dict(json.loads(path.read_text()))
    assert model.tree_.max_depth == depth
    result = CliRunner().invoke(cli, ["export", str(path), "-f", "text"])
    assert result.exit_code == 0, (result.stderr, result.exception)
    lines = result.stdout.splitlines()
    assert f"Size of the tree : \t{n}" in lines and len(lines) > 2 * depth
    assert lines[-5] == "|   " * (depth - 1) + f"{model.features_[0].name} > {depth - 1}: " \
        f"{model.tree_classes_[0]} (3.0/2.0)"


def test_naive_bayes_leaves_with_swapped_classes(nb_leaves, tmp_path):
    doc = copy.deepcopy(nb_leaves)
    doc["leaf_model"]["class_counts"] = [row[::-1] for row in doc["leaf_model"]["class_counts"]]
    _rejected(doc, tmp_path, "class_counts must be the tree's")


def test_naive_bayes_leaves_with_a_class_count_of_1e308(nb_leaves, tmp_path):
    doc = copy.deepcopy(nb_leaves)
    doc["leaf_model"]["class_counts"][0][0] = 1e308
    _rejected(doc, tmp_path, "class_counts must be the tree's")


def test_naive_bayes_leaves_with_huge_category_counts(nb_leaves, tmp_path):
    doc = copy.deepcopy(nb_leaves)
    counts = doc["leaf_model"]["categorical"]["counts"]
    counts[0][0][0] = 1e300
    _rejected(doc, tmp_path, "categorical.counts must not count more rows")
