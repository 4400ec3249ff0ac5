"""Model files: JSON round trip and validation of damaged or foreign files."""
import copy
import json
import math

import numpy as np
import pytest

from dtcli import DecisionTreeClassifier
from dtcli.errors import ModelError
from dtcli.model import load_model, model_from_dict, model_to_dict, save_model
from dtcli.model.check import DECISION_VERSION

ROUND_TRIP = ["iris.csv", "crx.csv", "hepatitis.csv", "ecoli2.dat", "vehicle.arff"]


def perturbed(dataset, seed=0):
    """The training rows plus copies with missing values and unseen categories."""
    rng = np.random.default_rng(seed)
    X = np.array(dataset.X)
    holes = X.copy()
    holes[rng.random(X.shape) < 0.3] = np.nan
    unseen = X.copy()
    for j, f in enumerate(dataset.features):
        if f.kind == "nominal":
            unseen[::2, j] = np.nan  # how an unseen label is encoded (see io.encode)
    return np.vstack([X, holes, unseen])


@pytest.mark.parametrize("criterion", ["gini", "gain-ratio"])
@pytest.mark.parametrize("name", ROUND_TRIP)
def test_round_trip_gives_identical_predictions(tmp_path, load_example, name, criterion):
    d = load_example(name)
    model = DecisionTreeClassifier(criterion=criterion, min_samples_leaf=2).fit_dataset(d)
    path = tmp_path / "model.json"
    save_model(model, str(path), target=d.target, source=name)
    loaded, doc = load_model(str(path))
    X = perturbed(d)
    np.testing.assert_array_equal(loaded.proba_from_matrix(X), model.proba_from_matrix(X))
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(loaded.classes_, np.array(d.classes, dtype=object))
    for array in model.tree_.ARRAYS:
        ours, theirs = getattr(model.tree_, array), getattr(loaded.tree_, array)
        assert ours.dtype.kind == theirs.dtype.kind, array
        np.testing.assert_array_equal(ours, theirs, err_msg=array)
    assert loaded.features_ == model.features_
    assert loaded.get_params()["criterion"] == criterion
    assert loaded.min_samples_leaf == 2
    assert doc["target"] == d.target and doc["training"]["source"] == name


def test_file_is_strict_json_with_the_documented_fields(tmp_path, load_example):
    d = load_example("hepatitis.csv")  # missing values: NaN and inf thresholds occur
    model = DecisionTreeClassifier().fit_dataset(d)
    path = tmp_path / "m.json"
    save_model(model, str(path), target=d.target)
    text = path.read_text()
    doc = json.loads(text, parse_constant=lambda c: pytest.fail(f"non-standard JSON {c}"))
    assert set(doc) == {"format", "format_version", "dtree_version", "features", "target",
                        "classes", "criterion", "options", "training", "pruning",
                        "leaf_estimate", "tree"}
    # version 1 still: frequency leaves predict alike in readers that know no leaf estimate
    assert doc["format"] == "dtree-model" and doc["format_version"] == 1
    assert doc["pruning"] is None and doc["leaf_estimate"] == {"name": "frequency", "m": 2.0}
    assert set(doc["tree"]) == {"node_count", "children_left", "children_right", "feature",
                                "threshold", "missing_left", "left_categories", "value",
                                "n_node_samples", "score", "n_node_missing"}
    tree = model.tree_
    leaves = tree.children_left == -1
    assert all(doc["tree"]["threshold"][i] is None for i in np.flatnonzero(leaves))
    assert all(s is None for s, leaf in zip(doc["tree"]["score"], leaves) if leaf)
    assert doc["criterion"] == {"name": "gini", "params": {}}


def test_present_versus_missing_threshold_survives(tmp_path):
    X = np.array([[1.0], [2.0], [1.0], [np.nan], [np.nan]])
    model = DecisionTreeClassifier().fit(X, [0, 0, 0, 1, 1])
    assert model.tree_.threshold[0] == math.inf
    path = tmp_path / "m.json"
    save_model(model, str(path))
    assert json.loads(path.read_text())["tree"]["threshold"][0] == "inf"
    loaded, _ = load_model(str(path))
    assert loaded.tree_.threshold[0] == math.inf
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_nominal_splits_list_the_category_indices_they_saw(tmp_path):
    X = np.array([["a"], ["b"], ["c"], ["a"], ["b"], ["c"]], dtype=object)
    model = DecisionTreeClassifier(nominal_features=[0]).fit(X, [0, 1, 0, 0, 1, 0])
    doc = model_to_dict(model)
    assert doc["features"] == [{"name": "x0", "kind": "nominal", "categories": ["a", "b", "c"]}]
    assert doc["format_version"] == 3 and doc["kind"] == "tree"
    tree = doc["tree"]
    assert "left_categories" not in tree
    assert tree["category_offsets"] == [0, 3, 3, 3] and tree["category_codes"] == [0, 1, 2]
    assert tree["category_goes_left"] in ([True, False, True], [False, True, False])


def test_save_is_atomic_and_leaves_no_temporary_file(tmp_path, load_example):
    model = DecisionTreeClassifier().fit_dataset(load_example("iris.csv"))
    path = tmp_path / "m.json"
    path.write_text("old")
    save_model(model, str(path))
    assert list(tmp_path.iterdir()) == [path]
    assert json.loads(path.read_text())["format"] == "dtree-model"


# --- validation -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def good_doc():
    """A small valid model with a numeric and a nominal split."""
    X = np.array([[1.0, "a"], [2.0, "b"], [3.0, "a"], [4.0, "b"], [5.0, "c"], [6.0, "c"],
                  [7.0, "a"], [8.0, "b"]], dtype=object)
    y = [0, 1, 0, 1, 0, 0, 1, 1]
    model = DecisionTreeClassifier(nominal_features=[1]).fit(X, y)
    doc = json.loads(json.dumps(model_to_dict(model, target="y")))
    kinds = [doc["features"][f]["kind"] for f in doc["tree"]["feature"] if f >= 0]
    assert "numeric" in kinds and "nominal" in kinds  # both kinds of split are validated
    return doc


def first_split(doc, kind="numeric"):
    tree = doc["tree"]
    return next(i for i, f in enumerate(tree["feature"])
                if f >= 0 and doc["features"][f]["kind"] == kind)


def load_error(tmp_path, content) -> str:
    path = tmp_path / "bad model.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content if isinstance(content, str) else json.dumps(content))
    with pytest.raises(ModelError) as caught:
        load_model(str(path))
    message = str(caught.value)
    assert str(path) in message and "\n" not in message
    return message


def test_good_doc_loads(tmp_path, good_doc):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(good_doc))
    model, _ = load_model(str(path))
    assert model.predict(np.array([[1.0, "a"], [8.0, "b"]], dtype=object)).tolist() == ["0", "1"]


def mutate(doc, change):
    doc = copy.deepcopy(doc)
    change(doc)
    return doc


def _set(path, value):
    def change(doc):
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


def _nested(tree_key, index, value, inner=None):
    def change(doc):
        if inner is None:
            doc["tree"][tree_key][index] = value
        else:
            doc["tree"][tree_key][index][inner] = value
    return change


@pytest.mark.parametrize("content, words", [
    ("this is not json {", "not JSON"),
    (b"\xff\xfe\x00garbage", "not JSON"),
    ("", "not JSON"),
    ([1, 2, 3], "not a dtree model"),
    ({"format": "xgboost"}, "not a dtree model"),
    ('{"learner": {}}', "not a dtree model"),
], ids=["text", "binary", "empty", "list", "other-format", "foreign-json"])
def test_foreign_files_are_rejected(tmp_path, content, words):
    assert words in load_error(tmp_path, content)


def test_truncated_file_is_rejected(tmp_path, good_doc):
    text = json.dumps(good_doc)
    assert "not JSON" in load_error(tmp_path, text[: len(text) // 2])


def test_newer_format_version_asks_for_an_upgrade(tmp_path, good_doc):
    message = load_error(tmp_path, mutate(good_doc, _set(["format_version"], DECISION_VERSION + 1)))
    assert "newer" in message and "upgrade" in message and "damaged" not in message


def _drop(key):
    def change(doc):
        del doc[key]
    return change


def _truncate(key):
    def change(doc):
        doc["tree"][key] = doc["tree"][key][:-1]
    return change


def _drop_tree(key):
    def change(doc):
        del doc["tree"][key]
    return change


def _numeric_split(doc):
    return first_split(doc, "numeric")


DAMAGE = {
    "version-not-int": (_set(["format_version"], "1"), "format_version"),
    "version-zero": (_set(["format_version"], 0), "format_version"),
    "no-features": (_drop("features"), "features"),
    "bad-feature-kind": (lambda d: d["features"][0].update(kind="text"), "features[0]"),
    "one-class": (_set(["classes"], ["0"]), "classes"),
    "classes-not-strings": (_set(["classes"], [0, 1]), "classes"),
    "unknown-criterion": (_set(["criterion", "name"], "nope"), "criterion"),
    "bad-criterion-param": (_set(["criterion", "params"], {"q": 1.0}), "criterion"),
    "options-missing": (_drop("options"), "options"),
    "bad-option": (_set(["options", "max_depth"], -3), "max_depth"),
    "no-tree": (_drop("tree"), "tree"),
    "node-count": (_set(["tree", "node_count"], "five"), "node_count"),
    **{f"truncated-{key}": (_truncate(key), key) for key in
       ("children_left", "children_right", "feature", "threshold", "missing_left",
        "category_offsets", "category_codes", "category_goes_left", "value",
        "n_node_samples", "score")},
    **{f"missing-{key}": (_drop_tree(key), key) for key in
       ("children_left", "feature", "threshold", "value", "n_node_samples", "score")},
    "value-row-short": (lambda d: d["tree"]["value"][0].pop(), "value"),
    "child-equals-parent": (_nested("children_left", 0, 0), "child ids"),
    "child-before-parent": (_nested("children_right", 1, 0), "child ids"),
    "child-out-of-range": (_nested("children_right", 0, 99), "child ids"),
    "feature-out-of-range": (_nested("feature", 0, 7), "feature 7"),
    "feature-negative": (_nested("feature", 0, -1), "feature -1"),
    "leaf-with-feature": (lambda d: d["tree"]["feature"].__setitem__(
        d["tree"]["children_left"].index(-1), 0), "leaf"),
    "negative-count": (_nested("value", 1, -1.0, 0), "non-negative"),
    "nan-count": (_nested("value", 1, None, 0), "value"),
    "negative-samples": (_nested("n_node_samples", 1, -4), "n_node_samples"),
    "text-in-ids": (_nested("children_left", 0, "one"), "children_left"),
    "fractional-id": (_nested("children_left", 0, 1.5), "children_left"),
    "huge-id": (_nested("children_left", 0, 2**70), "children_left"),
    "score-text": (_nested("score", 0, "high"), "score"),
    "score-object": (_set(["tree", "score"], {"a": 1}), "score"),
    "threshold-text": (lambda d: d["tree"]["threshold"].__setitem__(_numeric_split(d), "x"),
                       "threshold"),
    "threshold-null-on-numeric-split": (
        lambda d: d["tree"]["threshold"].__setitem__(_numeric_split(d), None), "threshold"),
    "missing-left-text": (_nested("missing_left", 0, "yes"), "missing_left"),
    "samples-do-not-add-up": (_nested("n_node_samples", 3, 3), "add up"),
    "shared-child": (_nested("children_right", 0, 1), "node "),
    "duplicate-feature-name": (lambda d: d["features"][1].update(name=d["features"][0]["name"]),
                               "features"),
    "duplicate-category": (lambda d: d["features"][1].update(categories=["a", "a", "c"]),
                           "categories"),
    "duplicate-class": (_set(["classes"], ["0", "0"]), "classes"),
    "count-beyond-float": (_nested("value", 1, 10**400, 0), "value"),
    "threshold-beyond-float": (lambda d: d["tree"]["threshold"].__setitem__(
        _numeric_split(d), -(10**400)), "threshold"),
    "min-gain-beyond-float": (_set(["options", "min_gain"], 10**400), "options"),
    "no-criterion-params": (lambda d: d["criterion"].pop("params"), "criterion.params"),
    "param-as-text": (_set(["criterion", "params"], {"q": "2.5"}), "criterion.params.q"),
    "param-beyond-float": (_set(["criterion", "params"], {"q": 10**400}), "criterion.params.q"),
    "training-not-object": (_set(["training"], [1, 2]), "training"),
    "fit-seconds-text": (_set(["training", "fit_seconds"], "slow"), "training.fit_seconds"),
    "class-weight-number": (_set(["training", "class_weight"], 2.0), "training.class_weight"),
    "class-weight-other-text": (_set(["training", "class_weight"], "even"),
                                "training.class_weight"),
    "class-weight-unknown-class": (_set(["training", "class_weight"], {"2": 1.0}),
                                   "training.class_weight names '2'"),
    "class-weight-negative": (_set(["training", "class_weight"], {"1": -1.0}),
                              "training.class_weight.1"),
    "class-weight-text": (_set(["training", "class_weight"], {"1": "2"}),
                          "training.class_weight.1"),
    "class-weight-beyond-float": (_set(["training", "class_weight"], {"1": 10**400}),
                                  "training.class_weight.1"),
    "target-not-text": (_set(["target"], {"a": 1}), "target"),
    "leaf-counts-do-not-add-up": (lambda d: d["tree"]["value"][-1].__setitem__(
        0, d["tree"]["value"][-1][0] + 2.0), "class counts"),
    "numeric-split-on-nominal-feature": (lambda d: (
        d["tree"]["threshold"].__setitem__(first_split(d, "nominal"), 1.5),
        _set_listed(d, first_split(d, "nominal"), [], [])), "nominal"),
    "categories-on-numeric-split": (lambda d: _set_listed(d, _numeric_split(d), [0], [True]),
                                    "only a nominal split lists categories"),
    "leaf-with-categories": (lambda d: _set_listed(d, d["tree"]["children_left"].index(-1),
                                                   [0], [True]), "leaf"),
    "nominal-split-lists-nothing": (lambda d: _set_listed(d, first_split(d, "nominal"), [], []),
                                    "lists no category"),
    "category-out-of-range": (lambda d: _set_listed(d, first_split(d, "nominal"), [0, 9],
                                                    [True, False]), "category_codes"),
    "category-negative": (lambda d: _set_listed(d, first_split(d, "nominal"), [-1, 0],
                                                [True, False]), "category_codes"),
    "categories-unsorted": (lambda d: _set_listed(d, first_split(d, "nominal"), [1, 0],
                                                  [True, False]), "increasing order"),
    "category-twice": (lambda d: _set_listed(d, first_split(d, "nominal"), [0, 0],
                                             [True, False]), "each once"),
    "category-not-int": (_nested("category_codes", 0, "a"), "category_codes"),
    "offsets-decrease": (_nested("category_offsets", 1, -1), "category_offsets"),
    "offsets-not-at-zero": (_nested("category_offsets", 0, 1), "category_offsets"),
    "offsets-past-the-codes": (lambda d: d["tree"]["category_offsets"].__setitem__(
        -1, d["tree"]["category_offsets"][-1] + 1), "category_codes"),
    "side-not-bool": (_nested("category_goes_left", 0, 2), "category_goes_left"),
    "sides-short": (_truncate("category_goes_left"), "category_goes_left"),
    "old-and-new-layout": (_set(["tree", "left_categories"], []), "left_categories"),
}


def _set_listed(doc, node, codes, sides):
    """Make `node` list `codes` with `sides` (format 3), keeping the other nodes' lists."""
    tree = doc["tree"]
    offsets = tree["category_offsets"]
    lo, hi = offsets[node], offsets[node + 1]
    tree["category_codes"][lo:hi] = codes
    tree["category_goes_left"][lo:hi] = sides
    shift = len(codes) - (hi - lo)
    tree["category_offsets"] = offsets[:node + 1] + [o + shift for o in offsets[node + 1:]]


@pytest.fixture(scope="module")
def old_doc(good_doc):
    """good_doc in format 2's layout: per node, the categories sent left, unseen ones
    (which go where missing values go) included."""
    doc = copy.deepcopy(good_doc)
    doc["format_version"] = 2
    tree = doc["tree"]
    offsets, codes, sides = (tree.pop(k) for k in
                             ("category_offsets", "category_codes", "category_goes_left"))
    lists = []
    for node, f in enumerate(tree["feature"]):
        listed = dict(zip(codes[offsets[node]:offsets[node + 1]],
                          sides[offsets[node]:offsets[node + 1]]))
        nominal = f >= 0 and doc["features"][f]["kind"] == "nominal"
        width = len(doc["features"][f]["categories"]) if nominal else 0
        lists.append([c for c in range(width) if listed.get(c, tree["missing_left"][node])])
    tree["left_categories"] = lists
    return doc


OLD_DAMAGE = {
    "truncated-left_categories": (_truncate("left_categories"), "left_categories"),
    "category-out-of-range": (lambda d: d["tree"]["left_categories"].__setitem__(
        first_split(d, "nominal"), [0, 9]), "left_categories"),
    "category-not-int": (lambda d: d["tree"]["left_categories"].__setitem__(
        first_split(d, "nominal"), ["a"]), "left_categories"),
    "numeric-split-on-nominal-feature": (lambda d: (
        d["tree"]["threshold"].__setitem__(first_split(d, "nominal"), 1.5),
        d["tree"]["left_categories"].__setitem__(first_split(d, "nominal"), [])),
        "nominal feature"),
    "categories-on-numeric-split": (lambda d: d["tree"]["left_categories"].__setitem__(
        _numeric_split(d), [0]), "numeric feature"),
    "leaf-with-categories": (lambda d: d["tree"]["left_categories"].__setitem__(
        d["tree"]["children_left"].index(-1), [0]), "leaf"),
}


def test_a_format_2_file_loads_and_predicts_as_format_3(tmp_path, old_doc, good_doc):
    X = np.array([[x, c] for x in (0.5, 3.0, 7.5, None) for c in ("a", "b", "c", None)],
                 dtype=object)
    old, _ = model_from_dict(copy.deepcopy(old_doc))
    new, _ = model_from_dict(copy.deepcopy(good_doc))
    np.testing.assert_array_equal(old.predict_proba(X), new.predict_proba(X))


@pytest.mark.parametrize("doc, damage", [("good_doc", d) for d in DAMAGE]
                         + [("old_doc", d) for d in OLD_DAMAGE],
                         ids=list(DAMAGE) + [f"format-2-{d}" for d in OLD_DAMAGE])
def test_damaged_files_are_rejected_with_a_message(tmp_path, request, doc, damage):
    change, words = (DAMAGE if doc == "good_doc" else OLD_DAMAGE)[damage]
    message = load_error(tmp_path, mutate(request.getfixturevalue(doc), change))
    assert "damaged model file" in message
    assert words in message


def test_a_number_of_thousands_of_digits_is_damage(tmp_path, good_doc):
    text = json.dumps(good_doc).replace('"min_gain": 0.0', '"min_gain": ' + "9" * 5000)
    assert "9" * 5000 in text
    assert "damaged model file" in load_error(tmp_path, text)


def test_weighted_counts_add_up_within_rounding(good_doc):
    # counts that are sums of float weights: the parent may differ in the last bits
    doc = mutate(good_doc, lambda d: d["tree"]["value"][0].__setitem__(
        0, d["tree"]["value"][0][0] * (1 + 1e-13)))
    model_from_dict(doc)


def test_missing_file(tmp_path):
    path = tmp_path / "none.json"
    with pytest.raises(ModelError, match="no such model file") as caught:
        load_model(str(path))
    assert str(path) in str(caught.value)


def test_model_from_dict_names_its_source(good_doc):
    with pytest.raises(ModelError, match="^somewhere.json: "):
        model_from_dict(mutate(good_doc, _set(["classes"], ["0"])), "somewhere.json")


def test_the_example_in_the_format_document_loads_and_predicts(tmp_path):
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "model-format.md").read_text()
    example = text.split("```json\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "example.json"
    path.write_text(example)
    model, _ = load_model(str(path))
    X = np.array([[1.0, "red"], [1.0, "green"], [2.0, None], [3.0, "purple"]], dtype=object)
    # blue (0) and red (2) go left (counts 4:1 -> "no"); green right (0:3 -> "yes");
    # missing and unseen values follow missing_left = true
    assert model.predict(X).tolist() == ["no", "yes", "no", "no"]
    np.testing.assert_allclose(model.predict_proba(X)[0], [0.8, 0.2])


@pytest.mark.parametrize("class_weight, recorded", [
    (None, None), ("balanced", "balanced"), ({1: 3, 0: 0.5}, {"1": 3.0, "0": 0.5})])
def test_class_weight_is_recorded_and_loaded(tmp_path, class_weight, recorded):
    X = np.arange(12, dtype=float).reshape(6, 2)
    model = DecisionTreeClassifier(class_weight=class_weight).fit(X, [0, 0, 1, 0, 1, 1])
    path = tmp_path / "m.json"
    save_model(model, str(path))
    doc = json.loads(path.read_text())
    assert doc["training"]["class_weight"] == recorded
    loaded, _ = load_model(str(path))
    assert loaded.class_weight == recorded


def test_a_file_without_class_weight_loads(good_doc):
    doc = mutate(good_doc, lambda d: d["training"].pop("class_weight"))
    model, _ = model_from_dict(doc)
    assert model.class_weight is None


def test_a_tree_fitted_with_real_weights_loads_from_its_own_file(load_example, tmp_path):
    """The engine subtracts weighted counts, so a child's zero count may be -1e-14; the
    loader allows that rounding (and no more)."""
    d = load_example("hepatitis.csv")
    weights = np.random.default_rng(0).uniform(0.1, 3.0, d.y.shape[0])
    model = DecisionTreeClassifier().fit_dataset(d, sample_weight=weights)
    path = tmp_path / "weighted.json"
    save_model(model, str(path), target=d.target)
    loaded, _ = load_model(str(path))
    np.testing.assert_array_equal(loaded.predict_proba(d.X), model.predict_proba(d.X))
    doc = json.loads(path.read_text())
    doc["tree"]["value"][1][0] = -1e-3 * sum(doc["tree"]["value"][0])
    path.write_text(json.dumps(doc))
    with pytest.raises(ModelError, match="non-negative class counts"):
        load_model(str(path))
