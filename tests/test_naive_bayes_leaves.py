"""Naive Bayes leaves: each leaf's probabilities against scikit-learn's GaussianNB and
CategoricalNB fitted on that leaf's training rows with the same smoothing, the
small-leaf fallback, missing values, the model file and the exports."""
from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.naive_bayes import CategoricalNB, GaussianNB

from dtcli import DecisionTreeClassifier
from dtcli.errors import ModelError, ParameterError
from dtcli.model import load_model, model_from_dict, model_to_dict, save_model


def smoothed_priors(y, n_classes, alpha=1.0):
    counts = np.bincount(y, minlength=n_classes)
    return (counts + alpha) / (counts.sum() + alpha * n_classes)


@pytest.fixture(scope="module")
def wdbc_nb(load_example):
    data = load_example("balanced/wdbc.csv")
    model = DecisionTreeClassifier(max_depth=2, leaf_model="naive-bayes",
                                   leaf_params={"numeric": "gaussian"}).fit_dataset(data)
    return data, model


def test_gaussian_leaves_equal_gaussian_nb_on_the_leaf_rows(wdbc_nb):
    data, model = wdbc_nb
    leaves, proba = model.apply(data.X), model.predict_proba(data.X)
    checked = 0
    for node in model.leaf_model_.nodes:
        rows = leaves == node
        y = data.y[rows]
        if np.unique(y).shape[0] < 2:
            continue  # GaussianNB fitted on one class knows no other
        reference = GaussianNB(priors=smoothed_priors(y, 2), var_smoothing=1e-9)
        reference.fit(data.X[rows], y)
        np.testing.assert_allclose(proba[rows], reference.predict_proba(data.X[rows]),
                                   rtol=1e-9, atol=1e-12)
        checked += 1
    assert checked >= 2


def test_a_missing_value_is_skipped(wdbc_nb):
    data, model = wdbc_nb
    node = model.leaf_model_.nodes[0]
    rows = model.apply(data.X) == node
    reference = GaussianNB(priors=smoothed_priors(data.y[rows], 2)).fit(data.X[rows],
                                                                        data.y[rows])
    x = data.X[rows][:1].copy()
    x[0, 3] = np.nan
    keep = np.arange(x.shape[1]) != 3
    joint = np.log(reference.class_prior_) - 0.5 * (
        np.log(2 * np.pi * reference.var_[:, keep])
        + (x[0, keep] - reference.theta_[:, keep]) ** 2 / reference.var_[:, keep]).sum(axis=1)
    expected = np.exp(joint - joint.max()) / np.exp(joint - joint.max()).sum()
    np.testing.assert_allclose(model.predict_proba(x)[0], expected, rtol=1e-9)


def test_categorical_leaves_equal_categorical_nb_with_laplace_smoothing():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 4, size=(300, 5)).astype(np.float64)
    y = ((X[:, 0] + X[:, 1] + rng.integers(0, 3, 300)) % 3).astype(np.int64)
    model = DecisionTreeClassifier(max_depth=2, leaf_model="naive-bayes",
                                   nominal_features=list(range(5))).fit(X, y)
    leaves, proba = model.apply(X), model.predict_proba(X)
    assert model.leaf_model_.nodes.shape[0] >= 3
    for node in model.leaf_model_.nodes:
        rows = leaves == node
        reference = CategoricalNB(alpha=1.0, min_categories=4,
                                  class_prior=smoothed_priors(y[rows], 3))
        reference.partial_fit(X[rows].astype(int), y[rows], classes=[0, 1, 2])
        np.testing.assert_allclose(proba[rows], reference.predict_proba(X[rows].astype(int)),
                                   rtol=1e-9)


def test_mdl_binned_numeric_features_are_categorical(load_example):
    from dtcli.leaves.discretise import mdl_cut_points, to_bins

    data = load_example("iris.csv")
    model = DecisionTreeClassifier(max_depth=1, leaf_model="naive-bayes",
                                   leaf_params={"numeric": "mdl", "alpha": 0.5}).fit_dataset(data)
    codes = np.column_stack([to_bins(data.X[:, j], mdl_cut_points(data.X[:, j], data.y, 3))
                             for j in range(4)])
    sizes = codes.max(axis=0) + 1
    leaves, proba = model.apply(data.X), model.predict_proba(data.X)
    for node in model.leaf_model_.nodes:
        rows = leaves == node
        reference = CategoricalNB(alpha=0.5, min_categories=sizes,
                                  class_prior=smoothed_priors(data.y[rows], 3, 0.5))
        reference.partial_fit(codes[rows], data.y[rows], classes=[0, 1, 2])
        np.testing.assert_allclose(proba[rows], reference.predict_proba(codes[rows]), rtol=1e-9)


def test_small_leaves_fall_back_to_smoothed_class_frequencies(load_example):
    data = load_example("iris.csv")
    model = DecisionTreeClassifier(leaf_model="naive-bayes",
                                   leaf_params={"min_samples": 30}).fit_dataset(data)
    tree = model.tree_
    leaves = model.apply(data.X)
    small = tree.n_node_samples[leaves] < 30
    assert small.any() and not np.isin(leaves[small], model.leaf_model_.nodes).any()
    counts = tree.counts[leaves[small]]
    np.testing.assert_allclose(model.predict_proba(data.X)[small],
                               (counts + 1) / (counts.sum(axis=1, keepdims=True) + 3))


def test_model_file_round_trip_and_damage(tmp_path, wdbc_nb):
    data, model = wdbc_nb
    path = tmp_path / "nb.json"
    save_model(model, str(path))
    loaded, doc = load_model(str(path))
    assert doc["format_version"] == 2 and doc["leaf_model"]["options"]["numeric"] == "gaussian"
    np.testing.assert_array_equal(loaded.predict_proba(data.X), model.predict_proba(data.X))
    damaged = json.loads(json.dumps(model_to_dict(model)))
    damaged["leaf_model"]["gaussian"]["var"][0][0][0] = -1.0
    with pytest.raises(ModelError, match="gaussian.var positive"):
        model_from_dict(damaged, "m.json")
    damaged = json.loads(json.dumps(model_to_dict(model)))
    damaged["leaf_model"]["nodes"] = [0]
    with pytest.raises(ModelError, match="leaf_model: nodes"):
        model_from_dict(damaged, "m.json")


def test_unknown_leaf_options_are_refused(load_example):
    data = load_example("iris.csv")
    for params in ({"numeric": "kde"}, {"smoothing": 1}, {"min_samples": 0}):
        with pytest.raises(ParameterError):
            DecisionTreeClassifier(leaf_model="naive-bayes", leaf_params=params).fit_dataset(data)
    with pytest.raises(ParameterError, match="leaf_model"):
        DecisionTreeClassifier(leaf_model="knn").fit_dataset(data)


def test_exports_show_priors_and_influential_features(wdbc_nb):
    from rich.console import Console

    from dtcli.export import rules, text

    _, model = wdbc_nb
    lines = rules.render(model).splitlines()
    assert all("naive bayes: priors" in line for line in lines)
    console = Console(color_system=None, width=400, record=True)
    console.print(text.render(model))
    assert console.export_text().count("most influential:") == len(lines)
