"""An FDF model in a model file (`"kind": "fdf"`, format version 2): to and from a dict,
validated on load. The file keeps the training rows' attribute values (bins and
categories, not the raw numbers) and classes, because predicting a sample whose
branch the training samples did not build grows it from them (section III.B), and
the forest of the training samples' rules, which `export` shows."""
from __future__ import annotations

import numpy as np

from dtcli._version import __version__
from dtcli.io.dataset import NUMERIC

_OPTIONS = ("min_samples_leaf", "max_depth", "min_gain", "nb_min_samples", "alpha", "combine")


def fdf_to_dict(model, *, target: str = "class", source: str | None = None) -> dict:
    from dtcli.model import FORMAT, FORMAT_VERSION, feature_dicts

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


def fdf_from_dict(doc: dict, check):
    """A fitted FDFClassifier from a parsed file; `check` is the loader's _Checker."""
    from dtcli.fdf.estimator import FDFClassifier
    from dtcli.fdf.grow import Coded, Forest

    features = check.features(doc.get("features"))
    classes = check.string_list(doc.get("classes"), "classes")
    if len(classes) < 2 or len(set(classes)) != len(classes):
        check.fail("classes must list at least two distinct class labels")
    options = check.mapping(doc.get("options"), "options")
    model = FDFClassifier()
    try:
        model.set_params(**{name: options[name] for name in _OPTIONS})
        model.stops()
    except Exception as exc:  # noqa: BLE001 - any invalid option means a damaged file
        check.fail(f"invalid FDF options ({exc})")
    cuts = check.mapping(doc.get("cuts"), "cuts")
    model.cuts_ = {}
    for j, feature in enumerate(features):
        if feature.kind != NUMERIC:
            continue
        values = _ints_or_floats(cuts.get(str(j)), float, check, f"cuts.{j}")
        if not np.isfinite(values).all() or (np.diff(values) <= 0).any():
            check.fail(f"cuts.{j} must be increasing numbers")
        model.cuts_[j] = values
    model.features_, model.n_features_in_ = features, len(features)
    model.feature_names_in_ = np.array([f.name for f in features], dtype=object)
    model.classes_ = np.array(classes, dtype=object)
    model.n_classes_ = len(classes)
    n_values = model._n_values()
    data = check.mapping(doc.get("data"), "data")
    y = _ints_or_floats(data.get("y"), int, check, "data.y")
    columns = data.get("codes")
    if not isinstance(columns, list) or len(columns) != len(features):
        check.fail("data.codes must hold one list per feature")
    codes = np.empty((y.shape[0], len(features)), dtype=np.int64)
    for j, column in enumerate(columns):
        codes[:, j] = _ints_or_floats(column, int, check, f"data.codes[{j}]", y.shape[0])
        if ((codes[:, j] < -1) | (codes[:, j] >= n_values[j])).any():
            check.fail(f"data.codes[{j}] holds a value outside the feature's bins or categories")
    if y.shape[0] == 0 or ((y < 0) | (y >= len(classes))).any():
        check.fail("data.y must hold class indices")
    model.data_ = Coded(codes, y, n_values, len(classes))
    model.forest_ = _forest(check.mapping(doc.get("forest"), "forest"), n_values, len(classes),
                            y.shape[0], check, Forest)
    training = check.mapping(doc.get("training", {}), "training")
    model.fit_seconds_ = float(training.get("fit_seconds") or 0.0)
    return model


def _ints_or_floats(value, kind, check, name, length=None) -> np.ndarray:
    ok = isinstance(value, list) and all(
        isinstance(v, (int, float) if kind is float else int) and not isinstance(v, bool)
        for v in value)
    if not ok or (length is not None and len(value) != length):
        check.fail(f"{name} must be a list of {'numbers' if kind is float else 'integers'}"
                   + ("" if length is None else f" of length {length}"))
    return np.array(value, dtype=np.float64 if kind is float else np.int64)


def _forest(doc: dict, n_values: np.ndarray, n_classes: int, n_samples: int, check, Forest):
    parent = _ints_or_floats(doc.get("parent"), int, check, "forest.parent")
    n = parent.shape[0]
    feature = _ints_or_floats(doc.get("feature"), int, check, "forest.feature", n)
    value = _ints_or_floats(doc.get("value"), int, check, "forest.value", n)
    n_rules = _ints_or_floats(doc.get("n_rules"), int, check, "forest.n_rules", n)
    counts = doc.get("counts")
    if not isinstance(counts, list) or len(counts) != n:
        check.fail(f"forest.counts must hold {n} rows")
    counts = [_ints_or_floats(row, int, check, "forest.counts", n_classes) for row in counts]
    if n == 0 or parent[0] != -1 or (n_rules < 0).any() or n_rules.sum() != n_samples:
        check.fail("forest: node 0 is the root and every training row ends one rule")
    for node in range(1, n):
        if not 0 <= parent[node] < node or not 0 <= feature[node] < n_values.shape[0] or \
                not 0 <= value[node] < n_values[feature[node]] or (counts[node] < 0).any():
            check.fail(f"forest: node {node} has a wrong parent, feature, value or counts")
    return Forest(parent.tolist(), feature.tolist(), value.tolist(),
                  [c.astype(np.float64) for c in counts], n_rules.tolist())
