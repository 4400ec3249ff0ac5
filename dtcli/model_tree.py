"""The tree kind of model file (formats 1-3; docs/model-format.md): a DecisionTreeClassifier
as parallel arrays of JSON lists, with its optional pruning record, leaf estimate,
tuning record (dtcli/tuning/record.py) and Naive Bayes leaves (dtcli/leaves/files.py).

NaN thresholds (leaves and nominal splits) are written as null and the
present-vs-missing threshold as "inf", keeping the file strict JSON. Format 3
(models with a nominal feature) stores the nominal splits' categories sparse, as in
memory (model/categories.py); formats 1 and 2 list per node the category indices
sent left in `left_categories`, and still load. A tree whose leaves use the counts
as probabilities is written as version 1 without `kind`, which older readers
predict alike.
"""
from __future__ import annotations

import math

import numpy as np

from dtcli.io.dataset import NOMINAL, Feature
from dtcli.model.categories import (SPARSE_VERSION, check_sets, from_left_lists,
                                    uses_sparse_layout)
from dtcli.model.check import (COUNT_TOLERANCE, INT64, Checker,
                               criterion_params, header_fields, missing_counts_valid)
from dtcli.engine.tree import TREE_LEAF, TREE_UNDEFINED, Tree


def tree_to_dict(model, *, target: str, source: str | None) -> dict:
    """JSON-ready dict of a fitted DecisionTreeClassifier."""
    tree = model.tree_
    # a file with a decision threshold is version 4, laid out as version 3
    sparse = uses_sparse_layout(model.features_) or getattr(model, "decision_", None) is not None
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
        **({"preset": model.preset_} if getattr(model, "preset_", None) else {}),
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
            "value": tree.counts.tolist(),
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


def _encode_float(x: float):
    if math.isnan(x):
        return None
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return float(x)


def tree_from_dict(doc: dict, check: Checker):
    """A fitted DecisionTreeClassifier from a tree file, validated field by field."""
    from dtcli.estimator import DecisionTreeClassifier

    version = doc["format_version"]
    model = DecisionTreeClassifier()
    features, classes = check.header(doc, model)
    model.pruning_ = check.pruning(model, doc.get("pruning"))
    check.leaf_estimate(model, doc.get("leaf_estimate"), version)
    if "tuning" in doc:  # how train chose parameters given as auto (dtcli/tuning/record.py)
        from dtcli.tuning.record import check_tuning

        model.tuning_ = check_tuning(doc["tuning"], criterion_params(model),
                                     {**doc["options"], **(model.pruning_ or {})}, check.fail)
    if "preset" in doc:  # train --preset NAME (dtcli/presets.py)
        model.preset_ = _preset(doc["preset"], check)
    model.tree_ = check_tree(check, check.mapping(doc.get("tree"), "tree"), features,
                             len(classes), version)
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
    return model


def _preset(name, check: Checker) -> str:
    from dtcli.presets import PRESETS

    trees = [p for p, preset in PRESETS.items() if preset.model == "tree"]
    if name not in trees:
        check.fail(f"preset must be the name of a preset that trains a tree "
                   f"({', '.join(trees)}), got {name!r}")
    return name


def check_tree(check: Checker, tree: dict, features: list[Feature], n_classes: int,
               version: int) -> Tree:
    """The `tree` block's arrays as a Tree, after every check docs/model-format.md lists."""
    def array(name, read, *args, **kwargs):
        return read(check.field(tree, name, "tree"), f"tree.{name}", *args, **kwargs)

    n = check.integer(tree.get("node_count"), "tree.node_count", 1, INT64 - 2)
    left = array("children_left", check.ints, n)
    right = array("children_right", check.ints, n)
    feature = array("feature", check.ints, n)
    threshold = array("threshold", check.floats, n, none_is_nan=True, infinities=True)
    missing_left = array("missing_left", check.flags, n)
    rows = array("value", check.sized_list, n)
    if not all(isinstance(r, list) and len(r) == n_classes for r in rows):
        check.fail(f"tree.value must hold {n_classes} class counts per node")
    flat, value = [count for row in rows for count in row], None
    if all(type(c) is float or type(c) is int for c in flat):  # the usual case, whole
        try:
            value = np.array(flat, dtype=np.float64).reshape(n, n_classes)
        except OverflowError:  # an integer beyond any float
            pass
    if value is None or not np.isfinite(value).all():
        for i, row in enumerate(rows):  # the row to name
            check.floats(row, f"tree.value[{i}]")
    # weighted counts are subtracted in the engine: a zero may come out as -1e-14
    if (value < -COUNT_TOLERANCE * abs(value[0]).sum()).any():
        check.fail("tree.value must hold non-negative class counts")
    n_samples = array("n_node_samples", check.ints, n, 0)
    score = array("score", check.floats, n, none_is_nan=True)
    sparse = version >= SPARSE_VERSION
    if sparse and "left_categories" in tree:
        check.fail(f"tree.left_categories is not part of format {version}")
    left_categories = [[]] * n if sparse else array("left_categories", check.sized_list, n)
    left_lists = []  # of the nominal splits, in node order
    parents = np.zeros(n, np.int64)
    for node in range(n):
        if left[node] == TREE_LEAF:
            if right[node] != TREE_LEAF or feature[node] != TREE_UNDEFINED:
                check.fail(f"node {node}: a leaf must have both children and feature unset")
            if left_categories[node] != [] or not math.isnan(threshold[node]):
                check.fail(f"node {node}: a leaf has no threshold and no left_categories")
            continue
        if not (node < left[node] < n and node < right[node] < n):
            check.fail(f"node {node}: child ids must be greater than the parent's and < {n}")
        parents[left[node]] += 1
        parents[right[node]] += 1
        if int(n_samples[left[node]]) + int(n_samples[right[node]]) != int(n_samples[node]):
            check.fail(f"node {node}: its children's n_node_samples do not add up to its own")
        if not 0 <= feature[node] < len(features):
            check.fail(f"node {node}: feature {feature[node]} does not exist")
        f = features[feature[node]]
        cats = left_categories[node]
        if f.kind == NOMINAL:
            if not isinstance(cats, list) or not all(
                    isinstance(c, int) and not isinstance(c, bool)
                    and 0 <= c < len(f.categories) for c in cats):
                check.fail(f"node {node}: left_categories must index {f.name}'s categories")
            if not math.isnan(threshold[node]):
                check.fail(f"node {node}: a split on nominal feature {f.name} has a threshold")
            if not sparse:
                left_lists.append(np.unique(np.array(cats, np.int64)))
        elif math.isnan(threshold[node]):
            check.fail(f"node {node}: numeric split without a threshold")
        elif cats != []:
            check.fail(f"node {node}: a split on numeric feature {f.name} lists categories")
    if parents[0] != 0 or (parents[1:] != 1).any():
        orphan = int(np.flatnonzero(parents[1:] != 1)[0]) + 1 if parents[0] == 0 else 0
        check.fail(f"node {orphan}: every node but the root must be the child of exactly "
                   "one node")
    _counts_add_up(check, left, right, value)
    if sparse:
        offsets = array("category_offsets", check.ints, n + 1, 0)
        listed = int(offsets[-1])  # as many codes and sides as the offsets say
        sets = check_sets(offsets, array("category_codes", check.ints, listed),
                          array("category_goes_left", check.flags, listed),
                          left, feature, features, check.fail)
    else:
        sets = from_left_lists(left_lists, left, feature, missing_left, n_samples, features,
                               check.fail)
    missing = None  # files before n_node_missing leave it unknown
    if "n_node_missing" in tree:
        missing = array("n_node_missing", check.ints, n)
        if not missing_counts_valid(missing, n_samples, left):
            check.fail("tree.n_node_missing must count at most each split's rows, 0 on leaves")
    return Tree(children_left=left, children_right=right, feature=feature,
                threshold=threshold, missing_left=missing_left, counts=value,
                n_node_samples=n_samples, score=score, n_node_missing=missing, **sets)


def _counts_add_up(check: Checker, left: np.ndarray, right: np.ndarray,
                   value: np.ndarray) -> None:
    """Every split's children's class counts add up to its own (what predict relies on:
    a leaf's counts are the training rows that reached it)."""
    split = np.flatnonzero(left != TREE_LEAF)
    parts = value[left[split]] + value[right[split]]
    tolerance = COUNT_TOLERANCE * value[split].sum(axis=1, keepdims=True)
    wrong = (np.abs(parts - value[split]) > tolerance).any(axis=1)
    if wrong.any():
        check.fail(f"node {split[np.argmax(wrong)]}: its children's class counts (value) do "
                   "not add up to its own")
