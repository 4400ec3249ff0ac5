"""Model file formats 2 and 3: the kind, forests in compact arrays, format 1 still loading, and
damaged forest files rejected with one line naming the problem."""
from __future__ import annotations

import base64
import copy
import json

import numpy as np
import pytest

from dtcli import DecisionTreeClassifier, RandomForestClassifier
from dtcli.errors import ModelError
from dtcli.model import load_model, model_from_dict, model_to_dict, save_model


@pytest.fixture(scope="module")
def forest_doc():
    """A small forest with numeric and nominal splits."""
    rng = np.random.default_rng(0)
    X = np.empty((120, 3), dtype=object)
    X[:, 0] = rng.normal(size=120).round(1)
    X[:, 1] = rng.choice(["a", "b", "c", "d"], 120)
    X[:, 2] = rng.normal(size=120).round(1)
    y = ((X[:, 0] > 0) ^ np.isin(X[:, 1], ["a", "c"])).astype(int)
    forest = RandomForestClassifier(n_estimators=4, max_features=2, nominal_features=[1],
                                    random_state=3).fit(X, y)
    return json.loads(json.dumps(model_to_dict(forest, target="y")))


@pytest.mark.filterwarnings("ignore:Some inputs do not have OOB scores")
def test_a_forest_round_trips(tmp_path, load_example):
    data = load_example("hepatitis.csv")  # missing values: NaN and inf thresholds
    forest = RandomForestClassifier(n_estimators=3, oob_score=True,
                                    random_state=2).fit_dataset(data)
    path = tmp_path / "forest.json"
    save_model(forest, str(path), target=data.target, source="hepatitis.csv")
    loaded, doc = load_model(str(path))
    assert doc["kind"] == "forest" and doc["format_version"] == 2
    np.testing.assert_array_equal(loaded.proba_from_matrix(data.X), forest.proba_from_matrix(data.X))
    for ours, theirs in zip(loaded.estimators_, forest.estimators_):
        np.testing.assert_array_equal(ours.tree_.threshold, theirs.tree_.threshold)
        np.testing.assert_array_equal(ours.tree_.score, theirs.tree_.score)
    assert loaded.oob_score_ == forest.oob_score_ and loaded.random_state == 2
    assert model_to_dict(loaded, target=data.target, source="hepatitis.csv")["trees"] == doc["trees"]


def test_a_tree_file_needs_no_kind_and_an_unknown_kind_is_refused(load_example):
    data = load_example("iris.csv")
    laplace = DecisionTreeClassifier(leaf_estimate="laplace").fit_dataset(data)
    plain = DecisionTreeClassifier().fit_dataset(data)
    doc = model_to_dict(laplace)
    assert doc["format_version"] == 2 and doc["kind"] == "tree"
    version_1 = model_to_dict(plain)
    assert version_1["format_version"] == 1 and "kind" not in version_1
    for old, fitted in (({k: v for k, v in doc.items() if k != "kind"}, laplace),
                        (version_1, plain)):
        model, _ = model_from_dict(old)
        np.testing.assert_array_equal(model.predict_proba(data.X), fitted.predict_proba(data.X))
    with pytest.raises(ModelError, match="kind must be one of tree, forest, fdf"):
        model_from_dict(doc | {"kind": "bush"})


def _array(doc, tree, name):
    item = doc["trees"][tree][name]
    return np.frombuffer(base64.b64decode(item["data"]),
                         {"int64": "<i8", "float64": "<f8", "uint8": "u1"}[item["dtype"]]
                         ).reshape(item["shape"]).copy()


def _with(doc, tree, name, array):
    doc = copy.deepcopy(doc)
    doc["trees"][tree][name]["data"] = base64.b64encode(array.tobytes()).decode()
    return doc


def _split(doc, tree=0):
    return int(np.flatnonzero(_array(doc, tree, "children_left") >= 0)[0])


def _damage(name):
    def change(doc):
        a = _array(doc, 0, name)
        node = _split(doc)
        if name == "children_left":
            a[node] = node
        elif name == "value":
            a[node, 0] += 1
        elif name == "feature":
            a[node] = 9
        elif name == "threshold":
            a[node] = np.nan
        elif name == "n_node_samples":
            a[node] += 1
        return _with(doc, 0, name, a)
    return change


def _damage_sets(how):
    """Damage tree 0's category sets (format 3): the first node listing two categories."""
    def change(doc):
        offsets = _array(doc, 0, "category_offsets")
        codes = _array(doc, 0, "category_codes")
        node = int(np.flatnonzero(np.diff(offsets) >= 2)[0])
        at = offsets[node]
        if how == "unsorted":
            codes[at], codes[at + 1] = codes[at + 1], codes[at]
        elif how == "out-of-range":
            codes[at + 1] = 99
        else:  # offsets that decrease
            offsets[node + 1] = offsets[node] - 1
            return _with(doc, 0, "category_offsets", offsets)
        return _with(doc, 0, "category_codes", codes)
    return change


DAMAGE = {
    "categories-unsorted": (_damage_sets("unsorted"), "in increasing order, each once"),
    "category-out-of-range": (_damage_sets("out-of-range"), "categories of its feature"),
    "category-offsets": (_damage_sets("offsets"), "never decrease"),
    "child-id": (_damage("children_left"), "child ids must be greater"),
    "counts": (_damage("value"), "class counts (value) do not add up"),
    "feature": (_damage("feature"), "feature does not exist"),
    "n-samples": (_damage("n_node_samples"), "n_node_samples do not add up"),
    "dtype": (lambda d: _set(d, ["trees", 0, "feature", "dtype"], "float64"), "compact int64"),
    "shape": (lambda d: _set(d, ["trees", 0, "value", "shape"], [1, 2]), "of shape"),
    "base64": (lambda d: _set(d, ["trees", 0, "score", "data"], "!!"), "not base64"),
    "bytes": (lambda d: _set(d, ["trees", 0, "score", "data"], "AAAA"), "holds 3 bytes"),
    "list": (lambda d: _set(d, ["trees", 0, "feature"], [0, -2, -2]), "compact int64"),
    "tree-count": (lambda d: _set(d, ["forest", "n_estimators"], 5), "trees must be a list"),
    "bootstrap": (lambda d: _set(d, ["forest", "bootstrap"], "yes"), "invalid forest options"),
    "max-features": (lambda d: _set(d, ["forest", "max_features"], 9), "invalid forest options"),
    "oob": (lambda d: _set(d, ["forest", "oob_score"], 2), "oob_score"),
    "class-weight": (lambda d: _set(d, ["training", "class_weight"], "balanced_sub"),
                     "class_weight"),
}


def _set(doc, keys, value):
    doc = copy.deepcopy(doc)
    target = doc
    for key in keys[:-1]:
        target = target[key]
    target[keys[-1]] = value
    return doc


def test_a_format_2_forest_loads_and_predicts_as_format_3(forest_doc):
    """Format 2 stored each tree's sets dense: every category's side, unseen ones
    sent where missing values go."""
    from category_sets import dense_category_left

    forest, _ = model_from_dict(copy.deepcopy(forest_doc))
    old = copy.deepcopy(forest_doc)
    old["format_version"] = 2
    n_categories = [len(f["categories"]) for f in old["features"]]
    is_nominal = [f["kind"] == "nominal" for f in old["features"]]
    for tree, estimator in zip(old["trees"], forest.estimators_):
        for name in ("category_offsets", "category_codes", "category_goes_left"):
            del tree[name]
        dense = dense_category_left(estimator.tree_, n_categories, is_nominal)
        tree["category_left"] = {"dtype": "uint8", "shape": list(dense.shape),
                                 "data": base64.b64encode(dense.tobytes()).decode()}
    loaded, _ = model_from_dict(old)
    X = np.array([[x, c, -x] for x in np.linspace(-2, 2, 9) for c in ("a", "b", "c", "zz", None)],
                 dtype=object)
    np.testing.assert_array_equal(loaded.predict_proba(X), forest.predict_proba(X))


def test_the_forest_fixture_loads(forest_doc):
    forest, _ = model_from_dict(forest_doc)
    assert len(forest.estimators_) == 4
    nominal = [t.feature_importances_[1] for t in forest.estimators_]
    assert max(nominal) > 0  # nominal splits are validated too


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_damaged_forest_files_are_rejected(tmp_path, forest_doc, damage):
    change, words = DAMAGE[damage]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(change(forest_doc)))
    with pytest.raises(ModelError) as caught:
        load_model(str(path))
    message = str(caught.value)
    assert str(path) in message and "damaged model file" in message and words in message
    assert "\n" not in message


def test_a_tree_file_may_not_be_balanced_subsample(load_example):
    doc = model_to_dict(DecisionTreeClassifier().fit_dataset(load_example("iris.csv")))
    with pytest.raises(ModelError, match="class_weight"):
        model_from_dict(_set(doc, ["training", "class_weight"], "balanced_subsample"))


def test_balanced_subsample_is_recorded(load_example):
    forest = RandomForestClassifier(n_estimators=2, class_weight="balanced_subsample",
                                    random_state=0).fit_dataset(load_example("ecoli2.dat"))
    loaded, doc = model_from_dict(json.loads(json.dumps(model_to_dict(forest))))
    assert doc["training"]["class_weight"] == loaded.class_weight == "balanced_subsample"
