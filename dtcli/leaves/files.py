"""Naive Bayes leaves in a model file: to and from the JSON block `leaf_model`
(docs/model-format.md), validated on load like the rest of the file: the leaves'
class counts must be the tree's at those leaves (what they were fitted on), and each
categorical feature's counts in a leaf and class may not add up to more than the
class's count there (rows with the feature missing are skipped)."""
from __future__ import annotations

import numpy as np

from dtcli.io.dataset import NOMINAL
from dtcli.model.check import COUNT_TOLERANCE
from dtcli.leaves.naive_bayes import NaiveBayesLeaves, leaf_options


def _as_list(array: np.ndarray, dtype: str):
    return array.tolist()


def leaves_to_dict(leaves: NaiveBayesLeaves, write=_as_list) -> dict:
    """The `leaf_model` block; `write(array, dtype)` stores each array (dtype "int64",
    "float64" or "uint8" for booleans): as nested JSON lists by default, a forest's
    as compact arrays (dtcli/ensemble/model_file.py)."""
    return {
        "name": "naive-bayes",
        "options": dict(leaves.options),
        "nodes": write(leaves.nodes, "int64"),
        "class_counts": write(leaves.class_counts, "float64"),
        "categorical": {"features": write(leaves.cat_features, "int64"),
                        "sizes": write(leaves.cat_sizes, "int64"),
                        "counts": write(leaves.cat_counts, "float64")},
        "gaussian": {"features": write(leaves.gauss_features, "int64"),
                     "mean": write(leaves.gauss_mean, "float64"),
                     "var": write(leaves.gauss_var, "float64"),
                     "used": write(leaves.gauss_used, "uint8")},
        "cuts": {str(j): write(cuts, "float64") for j, cuts in sorted(leaves.cuts.items())},
    }


def leaves_from_dict(doc, tree, features, n_classes: int, fail, read=None) -> NaiveBayesLeaves:
    """The leaves' models from a model file's `leaf_model` block; `fail(message)` raises
    the loader's error for a damaged block; `read(value, dtype, ndim, where, name,
    shape=None)` reads each array as _list_array does (the default) from what
    leaves_to_dict's `write` stored."""
    def where(message):
        fail(f"leaf_model: {message}")

    read = read or _list_array

    if not isinstance(doc, dict) or doc.get("name") != "naive-bayes":
        where('must be an object with "name": "naive-bayes"')
    try:
        options = leaf_options(doc.get("options"))
    except Exception as exc:  # noqa: BLE001 - any invalid option means a damaged file
        where(f"invalid options ({exc})")
    nodes = read(doc.get("nodes"), np.int64, 1, where, "nodes")
    if (np.diff(nodes) <= 0).any() or ((nodes < 0) | (nodes >= tree.node_count)).any() or \
            (tree.children_left[nodes] >= 0).any():
        where("nodes must be increasing ids of the tree's leaves")
    L, K = nodes.shape[0], n_classes
    class_counts = _counts(doc.get("class_counts"), (L, K), where, "class_counts", read)
    tolerance = COUNT_TOLERANCE * np.maximum(tree.counts[nodes].sum(axis=1), 1.0)[:, None]
    if (np.abs(class_counts - tree.counts[nodes]) > tolerance).any():
        where("class_counts must be the tree's class counts at each leaf")
    categorical, gaussian = (_mapping(doc.get(k), where, k) for k in ("categorical", "gaussian"))
    cuts = {}
    for key, values in _mapping(doc.get("cuts"), where, "cuts").items():
        j = int(key) if key.isdigit() else -1
        if not 0 <= j < len(features) or features[j].kind == NOMINAL:
            where(f"cuts: {key!r} is not a numeric feature")
        cuts[j] = read(values, np.float64, 1, where, f"cuts.{key}")
        if not np.isfinite(cuts[j]).all() or (np.diff(cuts[j]) <= 0).any():
            where(f"cuts.{key} must be increasing numbers")
    cat_features = _feature_list(categorical.get("features"), features, where, "categorical",
                                 read)
    sizes = read(categorical.get("sizes"), np.int64, 1, where, "categorical.sizes")
    expected = [len(cuts[j]) + 1 if j in cuts else len(features[j].categories)
                for j in cat_features]
    if sizes.tolist() != expected or any(features[j].kind != NOMINAL and j not in cuts
                                         for j in cat_features):
        where("categorical.sizes must be each feature's categories (or bins)")
    cat_counts = _counts(categorical.get("counts"), (L, K, int(sizes.sum())), where,
                         "categorical.counts", read)
    for start, size in zip((np.cumsum(sizes) - sizes).tolist(), sizes.tolist()):
        if (cat_counts[:, :, start:start + size].sum(axis=2) > class_counts + tolerance).any():
            where("categorical.counts must not count more rows than class_counts has")
    gauss_features = _feature_list(gaussian.get("features"), features, where, "gaussian",
                                   read)
    if any(features[j].kind == NOMINAL for j in gauss_features):
        where("gaussian.features must be numeric features")
    shape = (L, K, gauss_features.shape[0])
    mean = read(gaussian.get("mean"), np.float64, 3, where, "gaussian.mean", shape)
    var = read(gaussian.get("var"), np.float64, 3, where, "gaussian.var", shape)
    used = read(gaussian.get("used"), bool, 2, where, "gaussian.used", shape[::2])
    if not (np.isfinite(mean).all() and np.isfinite(var).all() and (var > 0).all()):
        where("gaussian.mean must be finite and gaussian.var positive")
    return NaiveBayesLeaves(options, nodes, class_counts, cat_features, sizes, cat_counts,
                            gauss_features, mean, var, used, cuts)


def _mapping(value, where, name) -> dict:
    if not isinstance(value, dict):
        where(f"{name} must be an object")
    return value


def _list_array(value, dtype, ndim: int, where, name, shape=None) -> np.ndarray:
    """A nested JSON list as an array of `ndim` dimensions (and `shape`, if given)."""
    try:
        if not isinstance(value, list):
            raise ValueError
        if dtype is bool:
            flat = np.array(value, dtype=object).ravel() if value else np.array([])
            if not all(isinstance(v, bool) for v in flat):
                raise ValueError
        elif dtype is np.int64:
            flat = np.array(value, dtype=object).ravel() if value else np.array([])
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in flat):
                raise ValueError
        array = np.array(value, dtype=dtype)
        if shape is not None and 0 in shape:
            array = array.reshape(shape)
        if array.ndim != ndim or (shape is not None and array.shape != shape):
            raise ValueError
    except (ValueError, TypeError, OverflowError):
        where(f"{name} must be a list{'' if shape is None else ' of shape ' + str(shape)}")
    return array


def _counts(value, shape, where, name, read) -> np.ndarray:
    counts = read(value, np.float64, len(shape), where, name, shape)
    if not np.isfinite(counts).all() or (counts < 0).any():
        where(f"{name} must hold non-negative counts")
    return counts


def _feature_list(value, features, where, name, read) -> np.ndarray:
    indices = read(value, np.int64, 1, where, f"{name}.features")
    if ((indices < 0) | (indices >= len(features))).any() or \
            len(set(indices.tolist())) != indices.shape[0]:
        where(f"{name}.features must be distinct feature indices")
    return indices
