"""Damaged model files of every kind (tree formats 1-3, pruned, tuned, Naive Bayes leaves,
forests of formats 2-3 and with Naive Bayes leaves, FDF, J48 with and without binary
splits) give one error line naming the
file, or load and predict as before, never a traceback (issue 36, item 3). Hypothesis
swaps types, puts huge, negative, NaN and infinite numbers, truncates and lengthens
arrays, wraps values in lists and deletes keys, anywhere in the file; the CLI then
predicts, exports and evaluates with it."""
from __future__ import annotations

import copy
import csv
import json
import math

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dtcli import DecisionTreeClassifier, RandomForestClassifier
from dtcli.c45.estimator import J48Classifier
from dtcli.cli import cli
from dtcli.errors import ModelError
from dtcli.fdf.estimator import FDFClassifier
from dtcli.model import model_from_dict, model_to_dict

# Fields a prediction does not read: damage there that loads must predict as before.
INFORMATION = ("training", "dtree_version", "target", "tuning")
HOSTILE = [2**70, -2**70, 2**63, 2**63 - 1, -2**63 - 1, 10**400, -1, 0, 1.5, -0.0, 1e308,
           math.nan, math.inf, -math.inf, "text", "inf", None, True, [], [1, 2], {}, {"a": 1}]


def _data():
    """60 rows: two numeric features (one with a missing value) and one nominal, two classes."""
    rng = np.random.default_rng(0)
    X = np.empty((60, 3), dtype=object)
    X[:, 0] = rng.normal(size=60).round(1)
    X[:, 1] = rng.choice(["a", "b", "c"], 60)
    X[:, 2] = rng.normal(size=60).round(1)
    X[5, 0] = np.nan
    y = ((X[:, 0].astype(float) > 0) ^ (X[:, 1] == "a")).astype(int)
    return X, y


def _tuned(doc: dict) -> dict:
    """A tree file with the tuning record `train --max-depth auto` would write."""
    doc["tuning"] = {"metric": "accuracy", "grid": {"max_depth": [2, 3]},
                     "protocol": {"cv": 3, "repeats": 1, "seed": 0},
                     "best_params": {"max_depth": 3}, "best_score": 0.5,
                     "results": [{"params": {"max_depth": 2}, "mean": 0.4, "std": 0.1},
                                 {"params": {"max_depth": 3}, "mean": 0.5, "std": 0.1}]}
    return doc


@pytest.fixture(scope="module")
def kinds(tmp_path_factory):
    """{kind: (model file dict, data CSV path)}, one of every kind of model file."""
    X, y = _data()
    numeric = X[:, [0, 2]].astype(float)
    models = {
        "tree-format-1-tuned": (DecisionTreeClassifier(max_depth=3), False),
        "tree-format-2-pruned": (DecisionTreeClassifier(max_depth=3, leaf_estimate="laplace",
                                                        pruning="ccp", ccp_alpha=0.01), False),
        "tree-format-3": (DecisionTreeClassifier(max_depth=3, nominal_features=[1]), True),
        "tree-naive-bayes-leaves": (DecisionTreeClassifier(
            max_depth=2, leaf_model="naive-bayes", nominal_features=[1]), True),
        "forest-format-2": (RandomForestClassifier(n_estimators=2, max_depth=3,
                                                   random_state=0), False),
        "forest-format-3": (RandomForestClassifier(n_estimators=2, max_depth=3,
                                                   nominal_features=[1], random_state=0), True),
        "forest-naive-bayes-leaves": (RandomForestClassifier(
            n_estimators=2, max_depth=2, random_state=0, leaf_model="naive-bayes",
            nominal_features=[1]), True),
        "fdf": (FDFClassifier(nominal_features=[1]), True),
        "c45": (J48Classifier(min_samples_leaf=1), True),
        "c45-binary-splits": (J48Classifier(min_samples_leaf=1, binary_splits=True), True),
    }
    folder = tmp_path_factory.mktemp("kinds")
    out = {}
    for name, (model, nominal) in models.items():
        data = X if nominal else numeric
        doc = json.loads(json.dumps(model_to_dict(model.fit(data, y))))
        path = folder / f"{'mixed' if nominal else 'numeric'}.csv"
        with open(path, "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow([f"x{j}" for j in range(data.shape[1])] + ["class"])
            for row, label in zip(data, y):
                writer.writerow(["" if isinstance(v, float) and math.isnan(v) else v
                                 for v in row] + [label])
        out[name] = (_tuned(doc) if name.endswith("tuned") else doc, path)
    return out


def test_every_kind_is_covered(kinds):
    versions = {(doc.get("kind", "tree"), doc["format_version"]) for doc, _ in kinds.values()}
    assert versions == {("tree", 1), ("tree", 2), ("tree", 3), ("forest", 2), ("forest", 3),
                        ("fdf", 2), ("c45", 3)}
    for doc, _ in kinds.values():
        model_from_dict(copy.deepcopy(doc))


def _places(node, prefix=()):
    """Every path into the document (long lists: their first three items and the last)."""
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _places(value, prefix + (key,))
    elif isinstance(node, list):
        for i in sorted({*range(min(3, len(node))), len(node) - 1} - {-1}):
            yield from _places(node[i], prefix + (i,))


def _damage(doc: dict, place: tuple, how: str, value):
    doc = copy.deepcopy(doc)
    parent = doc
    for key in place[:-1]:
        parent = parent[key]
    key, old = place[-1], parent[place[-1]]
    if how == "replace":
        parent[key] = value
    elif how == "truncate" and isinstance(old, list):
        parent[key] = old[:-1]
    elif how == "lengthen" and isinstance(old, list):
        parent[key] = old + old[-1:]
    elif how == "wrap":
        parent[key] = [old]
    elif how == "delete" and isinstance(parent, dict):
        del parent[key]
    else:
        parent[key] = value
    return doc


def _cli(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def _one_line_error(result, path) -> bool:
    return (result.exit_code in (1, 2) and isinstance(result.exception, (SystemExit, type(None)))
            and result.stderr.count("\n") == 1 and str(path) in result.stderr)


@pytest.mark.parametrize("kind", ["tree-format-1-tuned", "tree-format-2-pruned",
                                  "tree-format-3", "tree-naive-bayes-leaves", "forest-format-2",
                                  "forest-format-3", "forest-naive-bayes-leaves", "fdf", "c45",
                                  "c45-binary-splits"])
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_a_damaged_file_is_one_line_or_predicts_as_before(kinds, kind, tmp_path, data):
    doc, csv_path = kinds[kind]
    places = [p for p in _places(doc) if p]
    place = data.draw(st.sampled_from(places), label="place")
    how = data.draw(st.sampled_from(["replace"] * 4 + ["truncate", "lengthen", "wrap",
                                                         "delete"]), label="how")
    value = data.draw(st.sampled_from(HOSTILE), label="value")
    path = tmp_path / "m.json"
    path.write_text(json.dumps(_damage(doc, place, how, value)))  # NaN as JSON's NaN
    try:
        model_from_dict(json.loads(path.read_text()), str(path))
    except ModelError as exc:
        assert str(exc).startswith(f"{path}: ") and "\n" not in str(exc)
        result = _cli("predict", path, csv_path)
        assert _one_line_error(result, path), (result.stderr, result.exception)
        return
    # it loads: every command ends cleanly (a damaged name may still be one line, exit 1)
    predicted = _cli("predict", path, csv_path, "--proba")
    tree = ["--tree", "0"] if doc.get("kind") == "forest" else []
    for result in (predicted, _cli("evaluate", path, csv_path, "--target", "class"),
                   *(_cli("export", path, "-f", fmt, *tree)
                     for fmt in ("text", "rules", "dot", "json"))):
        assert result.exit_code == 0 or _one_line_error(result, ""), (
            result.stderr, result.exception)
    if place[0] in INFORMATION:
        original = tmp_path / "original.json"
        original.write_text(json.dumps(doc))
        assert predicted.stdout == _cli("predict", original, csv_path, "--proba").stdout
