"""Naive Bayes leaves in a random forest: each tree's leaf models against scikit-learn's
GaussianNB fitted on the leaf's rows weighted by the tree's bootstrap counts, and
against a single tree fitted with those counts as sample weights; the forest's
probabilities as the mean of its trees'; the model file (round trip, damaged blocks
refused); the command line."""
from __future__ import annotations

import base64
import copy
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.naive_bayes import GaussianNB

from dtcli import DecisionTreeClassifier, RandomForestClassifier
from dtcli.cli import cli
from dtcli.ensemble.bootstrap import bootstrap_counts
from dtcli.errors import ModelError, ParameterError
from dtcli.model import load_model, model_from_dict, model_to_dict, save_model

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def counts_of(forest, index, n_rows):
    return bootstrap_counts(forest._seed, index, n_rows, n_rows)


@pytest.fixture(scope="module")
def wdbc_forest(load_example):
    data = load_example("balanced/wdbc.csv")
    forest = RandomForestClassifier(n_estimators=2, max_depth=2, random_state=5,
                                    leaf_model="naive-bayes",
                                    leaf_params={"numeric": "gaussian"}).fit_dataset(data)
    return data, forest


@pytest.fixture(scope="module")
def hepatitis_forest(load_example):
    """Nominal and numeric features, missing values, MDL bins (the default)."""
    data = load_example("hepatitis.csv")
    forest = RandomForestClassifier(n_estimators=3, max_features=None, random_state=1,
                                    leaf_model="naive-bayes").fit_dataset(data)
    return data, forest


def test_leaves_are_gaussian_nb_of_the_leaf_rows_weighted_by_the_bootstrap(wdbc_forest):
    data, forest = wdbc_forest
    checked = 0
    for index, estimator in enumerate(forest.estimators_):
        counts = counts_of(forest, index, data.y.shape[0])
        leaves, proba = estimator.apply(data.X), estimator.predict_proba(data.X)
        for node in estimator.leaf_model_.nodes:
            rows = (leaves == node) & (counts > 0)
            y, w = data.y[rows], counts[rows].astype(float)
            if np.unique(y).shape[0] < 2:
                continue  # GaussianNB fitted on one class knows no other
            priors = (np.bincount(y, w, minlength=2) + 1) / (w.sum() + 2)
            reference = GaussianNB(priors=priors).fit(data.X[rows], y, sample_weight=w)
            np.testing.assert_allclose(proba[leaves == node],
                                       reference.predict_proba(data.X[leaves == node]),
                                       rtol=1e-7, atol=1e-12)
            checked += 1
    assert checked >= 3


def test_a_trees_leaves_are_a_single_trees_fitted_with_its_bootstrap_counts(hepatitis_forest,
                                                                             same_tree):
    data, forest = hepatitis_forest
    for index, estimator in enumerate(forest.estimators_):
        counts = counts_of(forest, index, data.y.shape[0])
        single = DecisionTreeClassifier(leaf_model="naive-bayes").fit_dataset(
            data, sample_weight=counts)
        assert same_tree(estimator.tree_, single.tree_)
        ours, theirs = estimator.leaf_model_, single.leaf_model_
        assert ours.cat_features.size > 0 and ours.nodes.size > 0
        for name in ("nodes", "class_counts", "cat_features", "cat_sizes", "cat_counts"):
            np.testing.assert_array_equal(getattr(ours, name), getattr(theirs, name))
        assert ours.cuts.keys() == theirs.cuts.keys()
        # by hand: a leaf's class counts are the bootstrap draws of its rows
        leaves = estimator.apply(data.X)
        for m, node in enumerate(ours.nodes):
            expected = np.bincount(data.y[leaves == node], counts[leaves == node], minlength=2)
            np.testing.assert_array_equal(ours.class_counts[m], expected)


def test_the_forest_predicts_the_mean_of_its_trees_leaf_models(hepatitis_forest):
    data, forest = hepatitis_forest
    trees = [e.predict_proba(data.X) for e in forest.estimators_]
    plain = RandomForestClassifier(n_estimators=3, max_features=None,
                                   random_state=1).fit_dataset(data)
    np.testing.assert_allclose(forest.predict_proba(data.X), np.mean(trees, axis=0),
                               rtol=1e-12)
    assert not np.allclose(forest.predict_proba(data.X), plain.predict_proba(data.X))


@pytest.mark.filterwarnings("ignore:Some inputs do not have OOB scores")
def test_out_of_bag_scores_use_the_leaf_models(load_example):
    data = load_example("hepatitis.csv")
    forest = RandomForestClassifier(n_estimators=3, oob_score=True, random_state=1,
                                    leaf_model="naive-bayes").fit_dataset(data)
    total, votes = np.zeros((data.y.shape[0], 2)), np.zeros(data.y.shape[0])
    for index, estimator in enumerate(forest.estimators_):
        out = counts_of(forest, index, data.y.shape[0]) == 0
        total[out] += estimator.predict_proba(data.X[out])
        votes[out] += 1
    np.testing.assert_allclose(forest.oob_decision_function_,
                               total / np.maximum(votes, 1)[:, None], rtol=1e-12)


def test_an_invalid_leaf_option_is_refused_before_growing(load_example):
    data = load_example("iris.csv")
    with pytest.raises(ParameterError, match="leaf_model must be one of"):
        RandomForestClassifier(n_estimators=2, leaf_model="bayes").fit_dataset(data)
    with pytest.raises(ParameterError, match="min_samples"):
        RandomForestClassifier(n_estimators=2, leaf_model="naive-bayes",
                               leaf_params={"min_samples": 0}).fit_dataset(data)


def test_the_leaves_round_trip_through_the_model_file(tmp_path, hepatitis_forest, wdbc_forest):
    for data, forest in (hepatitis_forest, wdbc_forest):
        path = tmp_path / "forest.json"
        save_model(forest, str(path), target=data.target)
        loaded, doc = load_model(str(path))
        assert doc["format_version"] == 2 and doc["forest"]["leaf_model"] == "naive-bayes"
        assert doc["trees"][0]["leaf_model"]["class_counts"]["dtype"] == "float64"  # compact
        np.testing.assert_array_equal(loaded.proba_from_matrix(data.X),
                                      forest.proba_from_matrix(data.X))
        assert loaded.get_params()["leaf_params"] == forest.estimators_[0].leaf_model_.options
        assert model_to_dict(loaded, target=data.target)["trees"] == doc["trees"]


def _encoded(array, dtype):
    return {"dtype": dtype, "shape": list(array.shape),
            "data": base64.b64encode(np.ascontiguousarray(array).tobytes()).decode()}


def _leaf_array(doc, name, dtype):
    item = doc["trees"][0]["leaf_model"][name]
    return np.frombuffer(base64.b64decode(item["data"]), dtype).reshape(item["shape"]).copy()


def _damaged(doc, change):
    doc = copy.deepcopy(doc)
    change(doc)
    return doc


def _bump(name, dtype, value):
    def change(doc):
        array = _leaf_array(doc, name, np.dtype(dtype).newbyteorder("<"))
        array.flat[0] = value
        doc["trees"][0]["leaf_model"][name] = _encoded(array, dtype)
    return change


def _gaussian_used(doc):
    used = doc["trees"][0]["leaf_model"]["gaussian"]["used"]
    array = np.frombuffer(base64.b64decode(used["data"]), "u1").copy()
    array[0] = 2
    used["data"] = base64.b64encode(array.tobytes()).decode()


DAMAGE = {
    "not-a-leaf": (_bump("nodes", "int64", 0), "trees[0].leaf_model: nodes must be increasing"),
    "negative": (_bump("class_counts", "float64", -1.0), "class_counts must hold non-negative"),
    "base64": (lambda d: d["trees"][0]["leaf_model"]["class_counts"].update(data="!!"),
               "class_counts.data is not base64"),
    "a-list": (lambda d: d["trees"][0]["leaf_model"].update(nodes=[1, 2]),
               "nodes must be a compact int64 array"),
    "used": (_gaussian_used, "gaussian.used must hold 0 or 1"),
    "missing": (lambda d: d["trees"][1].pop("leaf_model"), "trees[1]: a tree has a leaf_model"),
    "name": (lambda d: d["forest"].update(leaf_model="bayes"), "forest.leaf_model must be"),
    "options": (lambda d: d["trees"][1]["leaf_model"]["options"].update(alpha=2.0),
                "options differ from trees[0]'s"),
}


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_a_damaged_leaf_block_is_refused(wdbc_forest, case):
    _, forest = wdbc_forest
    doc = json.loads(json.dumps(model_to_dict(forest)))
    change, message = DAMAGE[case]
    with pytest.raises(ModelError, match=message.replace("[", r"\[").replace("]", r"\]")):
        model_from_dict(_damaged(doc, change))


def dtree(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def test_train_export_predict_and_compare_a_forest_with_naive_bayes_leaves(tmp_path):
    data = EXAMPLES / "ecoli2.dat"
    path = tmp_path / "nb-forest.json"
    trained = dtree("train", data, "--model", "forest", "--trees", 3, "--leaf-model",
                    "naive-bayes", "--nb-numeric", "gaussian", "-o", path)
    assert trained.exit_code == 0, trained.output
    assert "naive bayes leaves" in trained.stderr
    doc = json.loads(path.read_text())
    assert doc["trees"][2]["leaf_model"]["options"]["numeric"] == "gaussian"
    assert "leaves: naive bayes" in dtree("export", path).stdout
    assert "naive bayes: priors" in dtree("export", path, "--tree", 1).stdout
    predicted = dtree("predict", path, data, "--proba").stdout.splitlines()
    loaded, _ = load_model(str(path))
    assert len(predicted) == 337 and loaded.estimators_[0].leaf_model_ is not None
    refused = dtree("train", data, "--model", "forest", "--leaf-estimate", "laplace")
    assert refused.exit_code == 2 and "--leaf-estimate applies to --model tree" in refused.stderr
    spec = tmp_path / "spec.toml"
    spec.write_text(f'[datasets.ecoli2]\npath = "{data.as_posix()}"\n')
    compared = dtree("compare", "--spec", spec, "--criteria", "gini*3,gini+nb*3", "--cv", 3,
                     "-m", "log_loss", "-j", 1, "-q")
    assert compared.exit_code == 0, compared.output
    assert "gini+nb*3" in compared.stdout
    fdf = dtree("compare", "--spec", spec, "--criteria", "gini,fdf*3", "--cv", 3)
    assert fdf.exit_code == 2 and "takes no *TREES" in fdf.stderr
