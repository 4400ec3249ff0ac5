"""What every kind of model file is checked with (dtcli/model/kinds.py lists the kinds):
the header fields all kinds share, and typed readers of JSON values, each failing with
one line that names the file, the block and the field
(`model.json: damaged model file: forest.parent[3] must be an integer in [-1, 2^63)`).

A JSON number may be any size and a JSON file may say NaN: every integer read here
fits an int64, every float is finite unless the field allows otherwise, and arrays
are checked element by element before numpy sees them, so no damaged value reaches
a kernel, an index or an allocation as anything but a ModelError.
"""
from __future__ import annotations

import math
import sys
from typing import Any, NoReturn

import numpy as np

from dtcli._version import __version__
from dtcli.errors import ModelError
from dtcli.io.dataset import NOMINAL, NUMERIC, Feature

FORMAT = "dtree-model"
FORMAT_VERSION = 2  # written by default; categories.SPARSE_VERSION is read too
# files with a decision threshold (a `decision` block, dtcli/measures/fitted.py): laid out as
# version 3, and a version older readers refuse rather than predict without the threshold
DECISION_VERSION = 4
INT64 = 2**63
_FLOAT_MAX = sys.float_info.max
# Children's class counts must add up to the parent's up to float rounding (weighted counts).
COUNT_TOLERANCE = 1e-9
_OPTIONS = ("max_depth", "min_samples_split", "min_samples_leaf", "min_gain")
# Options added after the first files: each written only when set (so that a file without
# it reads as before), read if there. A new option of the estimator is one name here.
_LATER_OPTIONS = ("min_weight_fraction_leaf",)


def is_int(value) -> bool:
    """A JSON integer that fits an int64."""
    return isinstance(value, int) and not isinstance(value, bool) and -INT64 <= value < INT64


def is_number(value) -> bool:
    """A JSON number that fits a float64 (an integer may not: 10**400); NaN included."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return isinstance(value, float) or -_FLOAT_MAX <= value <= _FLOAT_MAX


def is_finite(value) -> bool:
    return is_number(value) and math.isfinite(value)


def feature_dicts(features) -> list[dict]:
    return [{"name": f.name, "kind": f.kind, "categories": list(f.categories)}
            for f in features]


def header_fields(model, kind: str, target: str, source: str | None, n_samples: int) -> dict:
    """The fields every kind of tree-growing model file has, in their order."""
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "kind": kind,
        "dtree_version": __version__,
        "features": feature_dicts(model.features_),
        "target": target,
        "classes": [str(c) for c in model.classes_],
        "criterion": {"name": model.criterion, "params": criterion_params(model)},
        "options": {"max_depth": model.max_depth, "min_samples_split": model.min_samples_split,
                    "min_samples_leaf": model.min_samples_leaf, "min_gain": model.min_gain,
                    **{name: getattr(model, name) for name in _LATER_OPTIONS
                       if getattr(model, name)}},
        "training": {"source": source, "n_samples": n_samples,
                     "fit_seconds": round(getattr(model, "fit_seconds_", 0.0), 6),
                     "class_weight": _class_weight(model.class_weight)},
    }


def criterion_params(model) -> dict[str, float]:
    from dtcli import criteria

    criterion = criteria.get(model.criterion)
    vector = criterion.param_vector(model.criterion_params)
    return {p.name: float(vector[i]) for i, p in enumerate(criterion.params)}


def _class_weight(class_weight):
    """None, "balanced", or {label: weight} with labels as text, as `classes` stores them."""
    if class_weight is None or isinstance(class_weight, str):
        return class_weight
    return {str(label): float(weight) for label, weight in class_weight.items()}


def missing_counts_valid(counts: np.ndarray, n_samples: np.ndarray, left: np.ndarray) -> bool:
    """Whether `n_node_missing` counts are possible: per split at most its rows, 0 on
    leaves (tree and forest files alike)."""
    from dtcli.engine.tree import TREE_LEAF

    return not ((counts < 0) | (counts > n_samples) | ((left == TREE_LEAF) & (counts != 0))).any()


def children_add_up(n_samples: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Per split node (left != -1), whether its children's counts add up to its own;
    counts checked non-negative int64, summed without overflow."""
    split = left >= 0
    counts = n_samples.astype(np.uint64)
    parts = counts[np.where(split, left, 0)] + counts[np.where(split, right, 0)]
    return ~split | (parts == counts)


class Checker:
    """Typed readers of a parsed model file named `path` in messages."""

    def __init__(self, path: str):
        self.path = path

    def fail(self, message: str) -> NoReturn:
        raise ModelError(f"{self.path}: damaged model file: {message}")

    def mapping(self, value, name) -> dict:
        if not isinstance(value, dict):
            self.fail(f"{name} must be an object")
        return value

    def field(self, block: dict, key: str, where: str):
        if key not in block:
            self.fail(f"{where}.{key} is missing")
        return block[key]

    def string_list(self, value, name) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(f"{name} must be a list of strings")
        return value

    def integer(self, value, name, low: int = -INT64, high: int = INT64 - 1) -> int:
        if not is_int(value) or not low <= value <= high:
            self.fail(f"{name} must be an integer in [{low}, {high}]")
        return value

    def number(self, value, name, low: float = -math.inf, high: float = math.inf) -> float:
        if not is_finite(value) or not low <= value <= high:
            self.fail(f"{name} must be a finite number in [{low:g}, {high:g}]")
        return float(value)

    def numbers(self, value: dict, name) -> dict:
        """A mapping whose values are all finite numbers."""
        for key, item in value.items():
            if not is_finite(item):
                self.fail(f"{name}.{key} must be a number")
        return value

    def sized_list(self, value, name, n: int | None) -> list:
        if not isinstance(value, list):
            self.fail(f"{name} must be a list")
        if n is not None and len(value) != n:
            self.fail(f"{name} has {len(value)} values, expected {n}")
        return value

    def ints(self, value, name, n: int | None = None, low: int = -INT64,
             high: int = INT64 - 1) -> np.ndarray:
        """A list of integers in [low, high] (of length n, if given) as an int64 array."""
        values = self.sized_list(value, name, n)
        array = None
        if all(type(v) is int for v in values):  # (not bool) the usual case, checked whole
            try:
                array = np.array(values, dtype=np.int64).reshape(len(values))
            except OverflowError:
                pass
        if array is None or ((array < low) | (array > high)).any():
            i = next(i for i, v in enumerate(values) if not is_int(v) or not low <= v <= high)
            self.fail(f"{name}[{i}] must be an integer in [{low}, {high}]")
        return array

    def flags(self, value, name, n: int | None = None) -> np.ndarray:
        flags = self.sized_list(value, name, n)
        if not all(isinstance(v, bool) or (is_int(v) and v in (0, 1)) for v in flags):
            self.fail(f"{name} must hold true/false")
        return np.array(flags, dtype=np.uint8).reshape(len(flags))

    def floats(self, value, name, n: int | None = None, none_is_nan: bool = False,
               infinities: bool = False) -> np.ndarray:
        """Finite numbers; also null (as NaN) and "inf"/"-inf" where allowed."""
        values = self.sized_list(value, name, n)
        if all(type(v) is float or type(v) is int for v in values):  # the usual case, whole
            try:
                out = np.array(values, dtype=np.float64).reshape(len(values))
                if np.isfinite(out).all():
                    return out
            except OverflowError:  # an integer beyond any float
                pass
        decode = {"inf": math.inf, "-inf": -math.inf} if infinities else {}
        out = np.empty(len(values))
        for i, v in enumerate(values):
            if is_finite(v):
                out[i] = float(v)
            elif v is None and none_is_nan:
                out[i] = math.nan
            elif isinstance(v, str) and v in decode:
                out[i] = decode[v]
            else:
                self.fail(f"{name}[{i}] is not a finite number")
        return out

    def classes(self, doc: dict) -> list[str]:
        classes = self.string_list(doc.get("classes"), "classes")
        if len(classes) < 2 or len(set(classes)) != len(classes):
            self.fail("classes must list at least two distinct class labels")
        return classes

    def header(self, doc: dict, model, class_weights=("balanced",)):
        """Check the fields every tree-growing kind has and set `model`'s parameters from
        them; returns (features, classes)."""
        from dtcli import criteria

        features = self.features(doc.get("features"))
        classes = self.classes(doc)
        if not isinstance(doc.get("target", ""), str):
            self.fail("target must be a string")
        class_weight = self.training(doc.get("training", {}), classes, class_weights)
        criterion = self.mapping(doc.get("criterion"), "criterion")
        options = self.mapping(doc.get("options"), "options")
        params = self.numbers(self.mapping(criterion.get("params"), "criterion.params"),
                              "criterion.params")
        for key in _OPTIONS:
            self.field(options, key, "options")
        try:
            model.set_params(criterion=criterion.get("name"), criterion_params=dict(params),
                             class_weight=class_weight, **{k: options[k] for k in _OPTIONS},
                             **{k: options[k] for k in _LATER_OPTIONS if k in options})
            model.checked_stop_rules()
            criteria.get(model.criterion).param_vector(model.criterion_params)
        except Exception as exc:  # noqa: BLE001 - any invalid option means a damaged file
            self.fail(f"invalid criterion or options ({exc})")
        return features, classes

    def training(self, value, classes: list[str], class_weights=("balanced",)):
        """The `training` block (absent: {}): an object of the right types. Returns its
        class_weight (None when absent, as in files written before it was recorded;
        `class_weights` are the names it may be)."""
        value = self.mapping(value, "training")
        if not isinstance(value.get("source"), (str, type(None))):
            self.fail("training.source must be a string or null")
        for key in ("n_samples", "fit_seconds"):
            if value.get(key) is not None:
                self.number(value[key], f"training.{key}", 0)
        if value.get("n_samples") is not None:
            self.integer(value["n_samples"], "training.n_samples", 0)
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
            self.number(weight, f"training.class_weight.{label}", 0)
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
            if chosen is not None and (not is_finite(chosen) or not chosen >= 0):
                raise ValueError("chosen_alpha must be a number >= 0")
            p_values = value.get("p_values", [])
            if not isinstance(p_values, list) or not all(
                    p is None or (is_finite(p) and 0 <= p <= 1) for p in p_values):
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


def version_and_kind(doc: Any, path: str, kinds) -> tuple[int, str]:
    """The file's format version and kind (one of `kinds`), after checking its format."""
    check = Checker(path)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ModelError(f"{path}: not a dtree model file (no \"format\": \"{FORMAT}\")")
    version = doc.get("format_version")
    if not is_int(version) or version < 1:
        check.fail("format_version is missing or not a positive integer")
    if version > DECISION_VERSION:
        raise ModelError(f"{path}: written by a newer dtree (model format {version}); this "
                         f"dtree {__version__} reads formats up to {DECISION_VERSION}: upgrade "
                         "dtcli")
    kind = doc.get("kind", "tree") if version >= 2 else "tree"
    if not isinstance(kind, str) or kind not in kinds:
        check.fail(f"kind must be one of {', '.join(kinds)}")
    return version, kind
