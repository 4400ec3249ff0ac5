"""Model files: the fitted model and its metadata as versioned JSON.

Format 2 adds a `kind`: "tree" (the layout of format 1, which still loads, plus the
kind) or "forest" (dtcli/ensemble/model_file.py: many trees, compact arrays).
A tree is parallel arrays, as in memory, so a
deep tree needs no recursion to read or write. NaN thresholds (leaves and
nominal splits) are written as null and the present-vs-missing threshold as
"inf", keeping the file strict JSON. Format 3 (models with a nominal feature)
stores the nominal splits' categories as in memory, sparse (model_categories.py);
formats 1 and 2 list per node the category indices sent left in
`left_categories` (an empty list elsewhere), and still load. Loading validates
every field and array, so a damaged or foreign file is rejected with a
message rather than mispredicting. docs/model-format.md describes each field.
"""
from __future__ import annotations

import json
import math
import sys
from typing import Any

import numpy as np

from dtcli._version import __version__
from dtcli.atomic import open_output
from dtcli.errors import ModelError
from dtcli.io.dataset import NOMINAL, NUMERIC, Feature
from dtcli.model_categories import (SPARSE_VERSION, check_sets, from_left_lists,
                                    uses_sparse_layout)
from dtcli.tree import TREE_LEAF, TREE_UNDEFINED, Tree

FORMAT = "dtree-model"
FORMAT_VERSION = 2  # written by default; model_categories.SPARSE_VERSION is read too
# A tree file whose leaves use the counts as probabilities (leaf_estimate "frequency")
# says version 1, which older readers predict alike, and has no `kind` (a version 1
# file is a tree); other estimates, Naive Bayes leaves (a `leaf_model` block), forests
# and FDF models need version 2 readers.
KINDS = ("tree", "forest", "fdf")  # format 2's `kind` (absent: a tree)


def model_to_dict(model, *, target: str = "class", source: str | None = None) -> dict[str, Any]:
    """JSON-ready dict of a fitted `DecisionTreeClassifier`, `RandomForestClassifier`
    (dtcli/ensemble/model_file.py's layout) or `FDFClassifier` (dtcli/fdf/files.py's)."""
    if getattr(model, "model_kind", None) == "fdf":
        from dtcli.fdf.files import fdf_to_dict

        return fdf_to_dict(model, target=target, source=source)
    if hasattr(model, "estimators_"):
        from dtcli.ensemble.model_file import forest_to_dict

        return forest_to_dict(model, target=target, source=source)
    tree = model.tree_
    sparse = uses_sparse_layout(model.features_)
    if sparse:
        categories = {"category_offsets": tree.category_offsets.tolist(),
                      "category_codes": tree.category_codes.tolist(),
                      "category_goes_left": tree.category_goes_left.astype(bool).tolist()}
    else:  # no nominal feature: no category anywhere
        categories = {"left_categories": [[] for _ in range(tree.node_count)]}
    estimate = getattr(model, "leaf_estimate", "frequency")
    doc = {
        **header_fields(model, "tree", target, source, int(tree.n_node_samples[0])),
        **({"tuning": model.tuning_} if getattr(model, "tuning_", None) else {}),
        "pruning": getattr(model, "pruning_", None),
        "leaf_estimate": {"name": estimate, "m": float(model.m)},
        "tree": {
            "node_count": tree.node_count,
            "children_left": tree.children_left.tolist(),
            "children_right": tree.children_right.tolist(),
            "feature": tree.feature.tolist(),
            "threshold": [_encode_float(t) for t in tree.threshold],
            "missing_left": tree.missing_left.astype(bool).tolist(),
            **categories,
            "value": tree.value.tolist(),
            "n_node_samples": tree.n_node_samples.tolist(),
            "score": [_encode_float(s) for s in tree.score],
            **({"n_node_missing": tree.n_node_missing.tolist()}
               if (tree.n_node_missing >= 0).all() else {}),
        },
    }
    if getattr(model, "leaf_model_", None) is not None:
        from dtcli.leaves.files import leaves_to_dict

        doc["leaf_model"] = leaves_to_dict(model.leaf_model_)
    elif estimate == "frequency" and not sparse:
        doc["format_version"] = 1
        del doc["kind"]
    if sparse:
        doc["format_version"] = SPARSE_VERSION
    return doc


def feature_dicts(features) -> list[dict]:
    return [{"name": f.name, "kind": f.kind, "categories": list(f.categories)}
            for f in features]


def header_fields(model, kind: str, target: str, source: str | None, n_samples: int) -> dict:
    """The fields every kind of model file has, in their order."""
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "kind": kind,
        "dtree_version": __version__,
        "features": feature_dicts(model.features_),
        "target": target,
        "classes": [str(c) for c in model.classes_],
        "criterion": {"name": model.criterion, "params": _criterion_params(model)},
        "options": {"max_depth": model.max_depth, "min_samples_split": model.min_samples_split,
                    "min_samples_leaf": model.min_samples_leaf, "min_gain": model.min_gain,
                    **({"min_weight_fraction_leaf": model.min_weight_fraction_leaf}
                       if model.min_weight_fraction_leaf else {})},
        "training": {"source": source, "n_samples": n_samples,
                     "fit_seconds": round(getattr(model, "fit_seconds_", 0.0), 6),
                     "class_weight": _class_weight(model.class_weight)},
    }


def _criterion_params(model) -> dict[str, float]:
    from dtcli import criteria

    criterion = criteria.get(model.criterion)
    vector = criterion.param_vector(model.criterion_params)
    return {p.name: float(vector[i]) for i, p in enumerate(criterion.params)}


def _class_weight(class_weight):
    """None, "balanced", or {label: weight} with labels as text, as `classes` stores them."""
    if class_weight is None or isinstance(class_weight, str):
        return class_weight
    return {str(label): float(weight) for label, weight in class_weight.items()}


def _encode_float(x: float):
    if math.isnan(x):
        return None
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return float(x)


def save_model(model, path: str, *, target: str = "class", source: str | None = None) -> None:
    text = json.dumps(model_to_dict(model, target=target, source=source), allow_nan=False,
                      separators=(",", ":"))
    with open_output(path) as handle:
        handle.write(text + "\n")


def load_model(path: str):
    """Read and validate a model file ('-' for stdin); returns (DecisionTreeClassifier, metadata dict)."""
    try:
        if path == "-":
            raw = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as handle:
                raw = handle.read()
    except FileNotFoundError:
        raise ModelError(f"{path}: no such model file") from None
    except OSError as exc:
        raise ModelError(f"{path}: cannot read model file ({exc.strerror})") from None
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise ModelError(f"{path}: not a dtree model file (not JSON)") from None
    except ValueError as exc:  # JSON, but an integer of thousands of digits
        raise ModelError(f"{path}: damaged model file: {exc}") from None
    return model_from_dict(doc, path)


def model_from_dict(doc: Any, path: str = "<model>"):
    """A fitted DecisionTreeClassifier or RandomForestClassifier from a parsed model
    file, validated field by field; returns (model, doc). `path` names the file in
    error messages."""
    from dtcli.estimator import DecisionTreeClassifier

    check = _Checker(path)
    kind = check.kind(doc)
    if kind == "forest":
        from dtcli.ensemble.model_file import forest_from_dict

        return forest_from_dict(doc, check), doc
    if kind == "fdf":
        from dtcli.fdf.files import fdf_from_dict

        return fdf_from_dict(doc, check), doc
    version = doc["format_version"]
    model = DecisionTreeClassifier()
    features, classes = check.header(doc, model)
    model.pruning_ = check.pruning(model, doc.get("pruning"))
    check.leaf_estimate(model, doc.get("leaf_estimate"), version)
    if "tuning" in doc:  # how train chose parameters given as auto (dtcli/tuning/record.py)
        from dtcli.tuning.record import check_tuning

        model.tuning_ = check_tuning(doc["tuning"], _criterion_params(model),
                                     {**doc["options"], **(model.pruning_ or {})}, check.fail)
    model.tree_ = check.tree(check.mapping(doc.get("tree"), "tree"), features, len(classes),
                             version)
    if "p_values" in (model.pruning_ or {}) and len(model.pruning_["p_values"]) != \
            model.tree_.node_count:
        check.fail("pruning.p_values must hold one p-value (or null) per node of the tree")
    model._set_fitted(features, np.array(classes, dtype=object))
    model.feature_names_in_ = np.array([f.name for f in features], dtype=object)
    if "leaf_model" in doc:
        from dtcli.leaves.files import leaves_from_dict

        model.leaf_model_ = leaves_from_dict(doc["leaf_model"], model.tree_, features,
                                             len(classes), check.fail)
        model.set_params(leaf_model="naive-bayes", leaf_params=dict(model.leaf_model_.options))
    return model, doc


_OPTIONS = ("max_depth", "min_samples_split", "min_samples_leaf", "min_gain")
_LATER_OPTIONS = {"min_weight_fraction_leaf": 0.0}  # written only when set, read if there
_INT64 = 2**63


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value) -> bool:
    """A JSON number that fits a float64 (an integer may not: 10**400)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return isinstance(value, float) or -_FLOAT_MAX <= value <= _FLOAT_MAX


def missing_counts_valid(counts: np.ndarray, n_samples: np.ndarray, left: np.ndarray) -> bool:
    """Whether `n_node_missing` counts are possible: per split at most its rows, 0 on
    leaves (tree and forest files alike)."""
    return not ((counts < 0) | (counts > n_samples) | ((left == TREE_LEAF) & (counts != 0))).any()


_FLOAT_MAX = sys.float_info.max
# Children's class counts must add up to the parent's up to float rounding (weighted counts).
COUNT_TOLERANCE = 1e-9


class _Checker:
    def __init__(self, path: str):
        self.path = path

    def fail(self, message: str):
        raise ModelError(f"{self.path}: damaged model file: {message}")

    def kind(self, doc) -> str:
        """The model's kind, after checking the format and its version."""
        path = self.path
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise ModelError(f"{path}: not a dtree model file (no \"format\": \"{FORMAT}\")")
        version = doc.get("format_version")
        if not _is_int(version) or version < 1:
            self.fail("format_version is missing or not a positive integer")
        if version > SPARSE_VERSION:
            raise ModelError(f"{path}: written by a newer dtree (model format {version}); this "
                             f"dtree {__version__} reads formats up to {SPARSE_VERSION}: upgrade "
                             "dtcli")
        kind = doc.get("kind", "tree") if version >= 2 else "tree"
        if kind not in KINDS:
            self.fail(f"kind must be one of {', '.join(KINDS)}")
        return kind

    def header(self, doc: dict, model, class_weights=("balanced",)):
        """Check the fields every kind has and set `model`'s parameters from them;
        returns (features, classes)."""
        from dtcli import criteria

        check = self
        features = check.features(doc.get("features"))
        classes = check.string_list(doc.get("classes"), "classes")
        if len(classes) < 2 or len(set(classes)) != len(classes):
            check.fail("classes must list at least two distinct class labels")
        if not isinstance(doc.get("target", ""), str):
            check.fail("target must be a string")
        class_weight = check.training(doc.get("training", {}), classes, class_weights)
        criterion = check.mapping(doc.get("criterion"), "criterion")
        options = check.mapping(doc.get("options"), "options")
        params = check.numbers(check.mapping(criterion.get("params"), "criterion.params"),
                               "criterion.params")
        missing = [k for k in _OPTIONS if k not in options]
        if missing:
            check.fail(f"options.{missing[0]} is missing")
        try:
            model.set_params(criterion=criterion.get("name"), criterion_params=dict(params),
                             class_weight=class_weight, **{k: options[k] for k in _OPTIONS},
                             **{k: options.get(k, v) for k, v in _LATER_OPTIONS.items()})
            model.stop_rules()
            criteria.get(model.criterion).param_vector(model.criterion_params)
        except Exception as exc:  # noqa: BLE001 - any invalid option means a damaged file
            check.fail(f"invalid criterion or options ({exc})")
        return features, classes

    def mapping(self, value, name) -> dict:
        if not isinstance(value, dict):
            self.fail(f"{name} must be an object")
        return value

    def numbers(self, value: dict, name) -> dict:
        """A mapping whose values are all finite numbers."""
        for key, item in value.items():
            if not _is_number(item) or not math.isfinite(item):
                self.fail(f"{name}.{key} must be a number")
        return value

    def training(self, value, classes: list[str], class_weights=("balanced",)):
        """The `training` block: an object of the right types if present. Returns its
        class_weight (None when absent, as in files written before it was recorded;
        `class_weights` are the names it may be)."""
        value = self.mapping(value, "training")
        if not isinstance(value.get("source"), (str, type(None))):
            self.fail("training.source must be a string or null")
        for key in ("n_samples", "fit_seconds"):
            if value.get(key) is not None and (not _is_number(value[key]) or value[key] < 0
                                                or not math.isfinite(value[key])):
                self.fail(f"training.{key} must be a non-negative number")
        return self.class_weight(value.get("class_weight"), classes, class_weights)

    def class_weight(self, value, classes: list[str], names=("balanced",)):
        """null, one of `names`, or an object of known class labels to weights >= 0."""
        if value is None or (isinstance(value, str) and value in names):
            return value
        if not isinstance(value, dict):
            self.fail('training.class_weight must be null, "balanced" or an object '
                      "{class label: weight}")
        for label, weight in value.items():
            if label not in classes:
                self.fail(f"training.class_weight names {label!r}, not one of the classes")
            if not _is_number(weight) or not math.isfinite(weight) or weight < 0:
                self.fail(f"training.class_weight.{label} must be a non-negative number")
        return {label: float(weight) for label, weight in value.items()}

    def pruning(self, model, value):
        """null, or {"method": a pruning method, its parameters, what it chose}; sets the
        model's pruning parameters (as `pruning_` records them)."""
        from dtcli.pruning import methods

        if value is None:
            return None
        value = self.mapping(value, "pruning")
        params = {k: v for k, v in value.items() if k in model.get_params() and k != "pruning"}
        try:
            method = methods.get(value.get("method"))
            unknown = set(value) - {"method", "chosen_alpha", "p_values", *method.params}
            if unknown:
                raise ValueError(f"unknown key {sorted(unknown)[0]!r}")
            model.set_params(pruning=value["method"], **params)
            methods.checked(model.pruning, model.get_params())
            chosen = value.get("chosen_alpha")
            if chosen is not None and (not _is_number(chosen) or not chosen >= 0):
                raise ValueError("chosen_alpha must be a number >= 0")
            p_values = value.get("p_values", [])
            if not isinstance(p_values, list) or not all(
                    p is None or (_is_number(p) and 0 <= p <= 1) for p in p_values):
                raise ValueError("p_values must list a p-value in [0, 1] or null per node")
        except Exception as exc:  # noqa: BLE001 - any invalid value means a damaged file
            self.fail(f"invalid pruning ({exc})")
        return value

    def leaf_estimate(self, model, value, version: int) -> None:
        """The leaves' probability estimate (absent: frequency, as before it was recorded);
        any other than frequency needs format version 2."""
        from dtcli import leaf_estimate

        if value is None:
            return
        value = self.mapping(value, "leaf_estimate")
        try:
            name, m = leaf_estimate.check(value.get("name"), value.get("m", 2.0))
        except Exception as exc:  # noqa: BLE001
            self.fail(f"invalid leaf_estimate ({exc})")
        if name != "frequency" and version < 2:
            self.fail(f"leaf_estimate {name!r} needs format_version 2")
        model.set_params(leaf_estimate=name, m=m)

    def string_list(self, value, name) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(f"{name} must be a list of strings")
        return value

    def features(self, value) -> list[Feature]:
        if not isinstance(value, list) or not value:
            self.fail("features must be a non-empty list")
        features = []
        for i, item in enumerate(value):
            item = self.mapping(item, f"features[{i}]")
            name, kind = item.get("name"), item.get("kind")
            if not isinstance(name, str) or kind not in (NUMERIC, NOMINAL):
                self.fail(f"features[{i}] needs a name and a kind (numeric or nominal)")
            categories = tuple(self.string_list(item.get("categories", []),
                                                f"features[{i}].categories"))
            if len(set(categories)) != len(categories):
                self.fail(f"features[{i}].categories lists a category twice")
            features.append(Feature(name, kind, categories if kind == NOMINAL else ()))
        names = [f.name for f in features]
        if len(set(names)) != len(names):
            self.fail("features names a column twice")
        return features

    def _list(self, tree, name, n) -> list:
        if name not in tree:
            self.fail(f"tree.{name} is missing")
        value = tree[name]
        if not isinstance(value, list):
            self.fail(f"tree.{name} must be a list")
        if len(value) != n:
            self.fail(f"tree.{name} has {len(value)} values, expected {n}")
        return value

    def _ints(self, tree, name, n) -> np.ndarray:
        value = self._list(tree, name, n)
        if not all(_is_int(v) and -_INT64 <= v < _INT64 for v in value):
            self.fail(f"tree.{name} must hold integers")
        return np.array(value, dtype=np.int64).reshape(n)

    def _flags(self, tree, name, n) -> np.ndarray:
        flags = self._list(tree, name, n)
        if not all(isinstance(v, bool) or v in (0, 1) for v in flags):
            self.fail(f"tree.{name} must hold true/false")
        return np.array(flags, dtype=np.uint8).reshape(n)

    def _floats(self, tree, name, n, none_is_nan: bool) -> np.ndarray:
        """Numbers, null (NaN, if allowed) and "inf"/"-inf", as written by _encode_float."""
        decode = {"inf": math.inf, "-inf": -math.inf}
        out = np.empty(n)
        for i, v in enumerate(self._list(tree, name, n)):
            if _is_number(v):
                out[i] = float(v)
            elif v is None and none_is_nan:
                out[i] = math.nan
            elif isinstance(v, str) and v in decode:
                out[i] = decode[v]
            else:
                self.fail(f"tree.{name}[{i}] is not a number")
        return out

    def _counts_add_up(self, left: np.ndarray, right: np.ndarray, value: np.ndarray) -> None:
        """Every split's children's class counts add up to its own (what predict relies on:
        a leaf's counts are the training rows that reached it)."""
        split = np.flatnonzero(left != TREE_LEAF)
        parts = value[left[split]] + value[right[split]]
        tolerance = COUNT_TOLERANCE * value[split].sum(axis=1, keepdims=True)
        wrong = (np.abs(parts - value[split]) > tolerance).any(axis=1)
        if wrong.any():
            self.fail(f"node {split[np.argmax(wrong)]}: its children's class counts (value) do "
                      "not add up to its own")

    def tree(self, tree: dict, features: list[Feature], n_classes: int, version: int) -> Tree:
        n = tree.get("node_count")
        if not _is_int(n) or n < 1:
            self.fail("tree.node_count must be a positive integer")
        left = self._ints(tree, "children_left", n)
        right = self._ints(tree, "children_right", n)
        feature = self._ints(tree, "feature", n)
        threshold = self._floats(tree, "threshold", n, none_is_nan=True)
        missing_left = self._flags(tree, "missing_left", n)
        rows = self._list(tree, "value", n)
        if not all(isinstance(r, list) and len(r) == n_classes and all(map(_is_number, r))
                   for r in rows):
            self.fail(f"tree.value must hold {n_classes} class counts per node")
        value = np.array(rows, dtype=np.float64).reshape(n, n_classes)
        # weighted counts are subtracted in the engine: a zero may come out as -1e-14
        if not np.isfinite(value).all() or (value < -COUNT_TOLERANCE * abs(value[0]).sum()).any():
            self.fail("tree.value must hold non-negative class counts")
        n_samples = self._ints(tree, "n_node_samples", n)
        if (n_samples < 0).any():
            self.fail("tree.n_node_samples must be non-negative")
        score = self._floats(tree, "score", n, none_is_nan=True)
        sparse = version >= SPARSE_VERSION
        if sparse and "left_categories" in tree:
            self.fail(f"tree.left_categories is not part of format {version}")
        left_categories = [[]] * n if sparse else self._list(tree, "left_categories", n)
        left_lists = []  # of the nominal splits, in node order
        parents = np.zeros(n, np.int64)
        for node in range(n):
            leaf = left[node] == TREE_LEAF
            if leaf:
                if right[node] != TREE_LEAF or feature[node] != TREE_UNDEFINED:
                    self.fail(f"node {node}: a leaf must have both children and feature unset")
                if left_categories[node] != [] or not math.isnan(threshold[node]):
                    self.fail(f"node {node}: a leaf has no threshold and no left_categories")
                continue
            if not (node < left[node] < n and node < right[node] < n):
                self.fail(f"node {node}: child ids must be greater than the parent's and < {n}")
            parents[left[node]] += 1
            parents[right[node]] += 1
            if n_samples[left[node]] + n_samples[right[node]] != n_samples[node]:
                self.fail(f"node {node}: its children's n_node_samples do not add up to its own")
            if not 0 <= feature[node] < len(features):
                self.fail(f"node {node}: feature {feature[node]} does not exist")
            f = features[feature[node]]
            cats = left_categories[node]
            if f.kind == NOMINAL:
                if not isinstance(cats, list) or not all(
                        _is_int(c) and 0 <= c < len(f.categories) for c in cats):
                    self.fail(f"node {node}: left_categories must index {f.name}'s categories")
                if not math.isnan(threshold[node]):
                    self.fail(f"node {node}: a split on nominal feature {f.name} has a threshold")
                if not sparse:
                    left_lists.append(np.unique(np.array(cats, np.int64)))
            elif math.isnan(threshold[node]):
                self.fail(f"node {node}: numeric split without a threshold")
            elif cats != []:
                self.fail(f"node {node}: a split on numeric feature {f.name} lists categories")
        if parents[0] != 0 or (parents[1:] != 1).any():
            orphan = int(np.flatnonzero(parents[1:] != 1)[0]) + 1 if parents[0] == 0 else 0
            self.fail(f"node {orphan}: every node but the root must be the child of exactly "
                      "one node")
        self._counts_add_up(left, right, value)
        if sparse:
            offsets = self._ints(tree, "category_offsets", n + 1)
            listed = int(offsets[-1])  # as many codes and sides as the offsets say
            sets = check_sets(offsets, self._ints(tree, "category_codes", listed),
                              self._flags(tree, "category_goes_left", listed),
                              left, feature, features, self.fail)
        else:
            sets = from_left_lists(left_lists, left, feature, missing_left, n_samples, features,
                                   self.fail)
        return Tree(children_left=left, children_right=right, feature=feature,
                    threshold=threshold, missing_left=missing_left, value=value,
                    n_node_samples=n_samples, score=score,
                    n_node_missing=self.missing_counts(tree, n, left, n_samples), **sets)

    def missing_counts(self, tree: dict, n: int, left: np.ndarray,
                       n_samples: np.ndarray) -> np.ndarray | None:
        """tree.n_node_missing, optional (files before it: unknown, None): per split, at
        most its rows; 0 on leaves."""
        if "n_node_missing" not in tree:
            return None
        counts = self._ints(tree, "n_node_missing", n)
        if not missing_counts_valid(counts, n_samples, left):
            self.fail("tree.n_node_missing must count at most each split's rows, 0 on leaves")
        return counts
