"""The forest kind of model file (format 2, or 3 for models with a nominal feature:
docs/model-format.md): the fields every model has (model/files.py), a `forest` block of
its options, and `trees`, each tree's parallel arrays in compact form; format 3
stores the category sets sparse (model/categories.py), format 2 a dense
`category_left`.

A compact array is {"dtype": "int64"|"float64"|"uint8", "shape": [...], "data":
base64 of its little-endian bytes}: a forest of 100 trees of 30k nodes would be
hundreds of MB as JSON number lists, and its floats (NaN thresholds and scores
included) round-trip bit for bit. Every tree is validated as strictly as a tree
file's, with array operations (a forest has millions of nodes).
"""
from __future__ import annotations

import numpy as np

from dtcli.io.dataset import NOMINAL
from dtcli.model.arrays import decode_compact, encode_array
from dtcli.model.check import (COUNT_TOLERANCE, INT64, Checker, children_add_up, header_fields,
                               missing_counts_valid)
from dtcli.model.categories import SPARSE_VERSION, check_sets, from_dense, uses_sparse_layout
from dtcli.engine.tree import TREE_LEAF, TREE_UNDEFINED, Tree

# Each array of a tree in the file: dtype, and the shape as a function of
# (node count, classes, widest nominal feature's categories).
_ARRAYS = {
    "children_left": ("int64", lambda n, k, c: (n,)),
    "children_right": ("int64", lambda n, k, c: (n,)),
    "feature": ("int64", lambda n, k, c: (n,)),
    "threshold": ("float64", lambda n, k, c: (n,)),
    "missing_left": ("uint8", lambda n, k, c: (n,)),
    "value": ("float64", lambda n, k, c: (n, k)),
    "n_node_samples": ("int64", lambda n, k, c: (n,)),
    "score": ("float64", lambda n, k, c: (n,)),
}
# the file's "value" holds a tree's class counts (Tree.value is their fractions)
_ATTRIBUTE = {"value": "counts"}
# format 2's categories; format 3's (1 dimension: their shapes are checked together)
_DENSE_CATEGORIES = ("category_left", "uint8", lambda n, k, c: (n, c))
_SPARSE_CATEGORIES = {"category_offsets": ("int64", lambda n, k, c: (n + 1,)),
                      "category_codes": ("int64", lambda n, k, c: 1),
                      "category_goes_left": ("uint8", lambda n, k, c: 1)}


def forest_to_dict(forest, *, target: str, source: str | None) -> dict:
    from dtcli.ensemble.leaves import leaves_block

    trees = [e.tree_ for e in forest.estimators_]
    # a file with a decision threshold is version 4, laid out as version 3
    sparse = uses_sparse_layout(forest.features_) or getattr(forest, "decision_", None) is not None
    header = header_fields(forest, "forest", target, source, forest._n_rows)
    if sparse:
        header["format_version"] = SPARSE_VERSION
    return {
        **header,
        "forest": {"n_estimators": len(trees), "max_features": forest.max_features,
                   "bootstrap": bool(forest.bootstrap), "max_samples": forest.max_samples,
                   "seed": forest._seed,
                   "oob_score": getattr(forest, "oob_score_", None),
                   "leaf_model": forest.leaf_model},
        "trees": [{"node_count": t.node_count,
                   **{name: encode_array(getattr(t, _ATTRIBUTE.get(name, name)), dtype)
                      for name, (dtype, _) in _ARRAYS.items()},
                   **({name: encode_array(getattr(t, name), dtype)
                       for name, (dtype, _) in _SPARSE_CATEGORIES.items()} if sparse
                      else {"category_left": encode_array(np.zeros((t.node_count, 0)), "uint8")}),
                   **({"n_node_missing": encode_array(t.n_node_missing, "int64")}
                      if (t.n_node_missing >= 0).all() else {}),
                   **leaves_block(e)} for t, e in zip(trees, forest.estimators_)],
    }


_FOREST_KEYS = ("n_estimators", "max_features", "bootstrap", "max_samples", "seed")


def forest_from_dict(doc: dict, check: Checker):
    """A fitted RandomForestClassifier from a forest file, validated field by field."""
    from dtcli.ensemble.forest import RandomForestClassifier
    from dtcli.ensemble.leaves import load_leaves

    forest = RandomForestClassifier()
    features, classes = check.header(doc, forest, ("balanced", "balanced_subsample"))
    block = check.mapping(doc.get("forest"), "forest")
    for key in _FOREST_KEYS:
        check.field(block, key, "forest")
    check.integer(block["seed"], "forest.seed", 0)
    check.integer(block["n_estimators"], "forest.n_estimators", 1)
    try:
        forest.set_params(n_estimators=block.get("n_estimators"),
                          max_features=block.get("max_features"),
                          bootstrap=block.get("bootstrap"), max_samples=block.get("max_samples"),
                          random_state=block.get("seed"))
        forest._max_features(len(features))
        if not isinstance(forest.bootstrap, bool):
            raise ValueError("bootstrap must be true or false")
        if forest.max_samples is not None:
            if not forest.bootstrap:
                raise ValueError("max_samples needs bootstrap true")
            forest._n_draws(doc.get("training", {}).get("n_samples") or INT64 - 1)
    except Exception as exc:  # noqa: BLE001 - any invalid option means a damaged file
        check.fail(f"invalid forest options ({exc})")
    trees = doc.get("trees")
    if not isinstance(trees, list) or len(trees) != forest.n_estimators:
        check.fail(f"trees must be a list of forest.n_estimators ({forest.n_estimators}) trees")
    max_categories = max((len(f.categories) for f in features if f.kind == NOMINAL), default=0)
    class_array = np.array(classes, dtype=object)
    forest._set_fitted(features, class_array)
    forest.feature_names_in_ = np.array([f.name for f in features], dtype=object)
    forest._seed, forest._n_rows = forest.random_state, doc.get("training", {}).get("n_samples")
    forest.estimators_ = [
        forest._estimator(_checked_tree(check, check.mapping(t, f"trees[{i}]"), f"trees[{i}]",
                                        features, len(classes), max_categories,
                                        doc["format_version"] >= SPARSE_VERSION),
                          features, class_array)
        for i, t in enumerate(trees)]
    load_leaves(forest, block.get("leaf_model", "counts"), trees, check)
    if block.get("oob_score") is not None:
        forest.oob_score_ = check.number(block["oob_score"], "forest.oob_score", 0, 1)
    return forest


def _decode(check, tree: dict, where: str, name: str, dtype: str, shape) -> np.ndarray:
    return decode_compact(tree.get(name), dtype, shape,
                          lambda message: check.fail(f"{where}.{name}{message}"))


def _checked_tree(check, tree: dict, where: str, features, n_classes: int,
                  max_categories: int, sparse: bool) -> Tree:
    """The checks of model_tree.check_tree, on whole arrays."""
    n = check.integer(tree.get("node_count"), f"{where}.node_count", 1, INT64 - 2)
    layout = {**_ARRAYS, **(_SPARSE_CATEGORIES if sparse
                            else {_DENSE_CATEGORIES[0]: _DENSE_CATEGORIES[1:]})}
    arrays = {name: _decode(check, tree, where, name, dtype, shape(n, n_classes, max_categories))
              for name, (dtype, shape) in layout.items()}
    left, right, feature = arrays["children_left"], arrays["children_right"], arrays["feature"]
    threshold, value, samples = arrays["threshold"], arrays["value"], arrays["n_node_samples"]
    # format 3 lists categories only where check_sets allows them
    categories = arrays.get("category_left", np.zeros((n, 0), np.uint8))

    def fail_at(bad: np.ndarray, message: str):
        if bad.any():
            check.fail(f"{where} node {int(np.argmax(bad))}: {message}")

    leaf = left == TREE_LEAF
    fail_at(leaf & ((right != TREE_LEAF) | (feature != TREE_UNDEFINED)),
            "a leaf must have both children and feature unset")
    fail_at(leaf & (~np.isnan(threshold) | categories.any(axis=1)),
            "a leaf has no threshold and no left categories")
    fail_at((arrays["missing_left"] > 1), "missing_left must be 0 or 1")
    # A child's weighted counts are its parent's minus its sibling's: -1e-16 happens.
    rounding = -COUNT_TOLERANCE * np.abs(value[0]).sum()
    fail_at(~np.isfinite(value).all(axis=1) | (value < rounding).any(axis=1),
            "value must hold non-negative class counts")
    fail_at(samples < 0, "n_node_samples must be non-negative")
    split = np.flatnonzero(~leaf)
    node = np.arange(n)
    fail_at(~leaf & ~((node < left) & (left < n) & (node < right) & (right < n)),
            f"child ids must be greater than the parent's and < {n}")
    parents = np.bincount(np.concatenate([left[split], right[split]]), minlength=n)
    fail_at(np.concatenate([[parents[0] != 0], parents[1:] != 1]),
            "every node but the root must be the child of exactly one node")
    fail_at(~leaf & ((feature < 0) | (feature >= len(features))), "feature does not exist")
    fail_at(~children_add_up(samples, left, right), "its children's n_node_samples do not add up")
    nominal = np.array([f.kind == NOMINAL for f in features], bool)
    widths = np.array([len(f.categories) for f in features], np.int64)
    f = np.where(leaf, 0, feature)
    on_nominal = ~leaf & nominal[f]
    fail_at(~leaf & ~on_nominal & (np.isnan(threshold) | categories.any(axis=1)),
            "a numeric split needs a threshold and no categories")
    beyond = np.arange(categories.shape[1])[None, :] >= widths[f][:, None]
    fail_at(on_nominal & (~np.isnan(threshold) | (categories.astype(bool) & beyond).any(axis=1)
                          | (categories > 1).any(axis=1)),
            "a nominal split has no threshold and marks only its feature's categories")
    parts = value[left[split]] + value[right[split]]
    tolerance = COUNT_TOLERANCE * value[split].sum(axis=1, keepdims=True)
    wrong = np.zeros(n, bool)
    wrong[split] = (np.abs(parts - value[split]) > tolerance).any(axis=1)
    fail_at(wrong, "its children's class counts (value) do not add up to its own")
    missing = None  # optional: files before it leave it unknown
    if "n_node_missing" in tree:
        missing = decode_compact(tree["n_node_missing"], "int64", (n,),
                                 lambda message: check.fail(f"{where}.n_node_missing{message}"))
        if not missing_counts_valid(missing, samples, left):
            check.fail(f"{where}.n_node_missing must count at most each split's rows, 0 on "
                       "leaves")
    if sparse:
        sets = check_sets(*(arrays[name] for name in _SPARSE_CATEGORIES), left, feature, features,
                          lambda message: check.fail(f"{where}: {message}"))
    else:
        sets = from_dense(categories, left, feature, arrays["missing_left"], features)
    return Tree(children_left=left, children_right=right, feature=feature, threshold=threshold,
                missing_left=arrays["missing_left"], counts=value, n_node_samples=samples,
                score=arrays["score"], n_node_missing=missing, **sets)
