"""An FDF model in a model file (`"kind": "fdf"`, format version 2): to and from a dict,
validated on load. The file keeps the training rows' attribute values (bins and
categories, not the raw numbers) and classes, because predicting a sample whose
branch the training samples did not build grows it from them (section III.B), and
the forest of the training samples' rules, which `export` shows."""
from __future__ import annotations

import numpy as np

from dtcli._version import __version__
from dtcli.io.dataset import NUMERIC
from dtcli.model.check import FORMAT, FORMAT_VERSION, INT64, Checker, feature_dicts

_OPTIONS = ("min_samples_leaf", "max_depth", "min_gain", "nb_min_samples", "alpha", "combine")


def fdf_to_dict(model, *, target: str = "class", source: str | None = None) -> dict:
    forest, data = model.forest_, model.data_
    return {
        "format": FORMAT, "format_version": FORMAT_VERSION, "kind": "fdf",
        "dtree_version": __version__,
        "features": feature_dicts(model.features_),
        "target": target,
        "classes": [str(c) for c in model.classes_],
        "options": {name: getattr(model, name) for name in _OPTIONS},
        "training": {"source": source, "n_samples": int(data.y.shape[0]),
                     "fit_seconds": round(getattr(model, "fit_seconds_", 0.0), 6)},
        "cuts": {str(j): cuts.tolist() for j, cuts in sorted(model.cuts_.items())},
        "data": {"codes": data.codes.T.tolist(), "y": data.y.tolist()},
        "forest": {"parent": list(forest.parent), "feature": list(forest.feature),
                   "value": list(forest.value),
                   "counts": [c.astype(int).tolist() for c in forest.counts],
                   "n_rules": list(forest.n_rules)},
    }


def fdf_from_dict(doc: dict, check: Checker):
    """A fitted FDFClassifier from a parsed file, validated field by field."""
    from dtcli.fdf.estimator import FDFClassifier
    from dtcli.fdf.grow import Coded

    features = check.features(doc.get("features"))
    classes = check.classes(doc)
    if not isinstance(doc.get("target", ""), str):
        check.fail("target must be a string")
    check.training(doc.get("training", {}), classes, ())
    options = check.mapping(doc.get("options"), "options")
    model = FDFClassifier()
    try:
        model.set_params(**{name: check.field(options, name, "options") for name in _OPTIONS})
        model.stops()
    except ValueError as exc:  # ParameterError: any invalid option means a damaged file
        check.fail(f"invalid FDF options ({exc})")
    cuts = check.mapping(doc.get("cuts"), "cuts")
    model.cuts_ = {}
    for j, feature in enumerate(features):
        if feature.kind != NUMERIC:
            continue
        values = check.floats(cuts.get(str(j)), f"cuts.{j}")
        if (np.diff(values) <= 0).any():
            check.fail(f"cuts.{j} must be increasing numbers")
        model.cuts_[j] = values
    model.features_, model.n_features_in_ = features, len(features)
    model.feature_names_in_ = np.array([f.name for f in features], dtype=object)
    model.classes_ = np.array(classes, dtype=object)
    model.n_classes_ = len(classes)
    n_values = model._n_values()
    data = check.mapping(doc.get("data"), "data")
    y = check.ints(data.get("y"), "data.y", None, 0, len(classes) - 1)
    if y.shape[0] == 0:
        check.fail("data.y must hold the training rows' class indices")
    columns = check.sized_list(data.get("codes"), "data.codes", len(features))
    codes = np.empty((y.shape[0], len(features)), dtype=np.int64)
    for j, column in enumerate(columns):  # -1: missing or unseen
        codes[:, j] = check.ints(column, f"data.codes[{j}]", y.shape[0], -1,
                                 int(n_values[j]) - 1)
    model.data_ = Coded(codes, y, n_values, len(classes))
    model.forest_ = _forest(check.mapping(doc.get("forest"), "forest"), n_values, y,
                            len(classes), check)
    model.fit_seconds_ = float(doc.get("training", {}).get("fit_seconds") or 0.0)
    return model


def _forest(doc: dict, n_values: np.ndarray, y: np.ndarray, n_classes: int, check: Checker):
    """The trie of rules: node 0 the root, every other node below an earlier one, testing
    one of its feature's values, its class counts within its parent's (the root's: all
    rows'), and every training row ending one rule."""
    from dtcli.fdf.grow import Forest

    parent = check.ints(doc.get("parent"), "forest.parent", None, -1, INT64 - 1)
    n = parent.shape[0]
    if n == 0 or parent[0] != -1:
        check.fail("forest.parent must start with the root's -1")
    feature = check.ints(doc.get("feature"), "forest.feature", n, -1, n_values.shape[0] - 1)
    value = check.ints(doc.get("value"), "forest.value", n, -1)
    n_rules = check.ints(doc.get("n_rules"), "forest.n_rules", n, 0, y.shape[0])
    rows = check.sized_list(doc.get("counts"), "forest.counts", n)
    counts = [check.ints(row, f"forest.counts[{i}]", n_classes, 0, y.shape[0])
              for i, row in enumerate(rows)]
    if (counts[0] != np.bincount(y, minlength=n_classes)).any() or \
            n_rules.sum() != y.shape[0]:
        check.fail("forest: the root counts every training row and every row ends one rule")
    for node in range(1, n):
        if not 0 <= parent[node] < node or feature[node] < 0 or \
                not 0 <= value[node] < n_values[feature[node]] or \
                (counts[node] > counts[parent[node]]).any():
            check.fail(f"forest: node {node} has a wrong parent, feature, value or counts")
    return Forest(parent.tolist(), feature.tolist(), value.tolist(),
                  [c.astype(np.float64) for c in counts], n_rules.tolist())
