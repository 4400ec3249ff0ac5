"""A J48 model in a model file (`"kind": "c45"`, format version 3): to and from a dict,
validated on load by `c45_from_dict`, a self-contained loader that a registry of model
kinds can call. The tree is stored as the parallel arrays of dtcli/c45/tree.py, its
class weights over `tree_classes` (the classes as the training file declared them, in
its order, as J48 grew the tree); `classes` are the columns predictions give."""
from __future__ import annotations

import numpy as np

from dtcli._version import __version__
from dtcli.c45.split import BINARY_NOMINAL, MULTIWAY, NUMERIC
from dtcli.c45.tree import LEAF, C45Tree
from dtcli.io.dataset import NOMINAL

KIND = "c45"
_ARRAYS = ("feature", "kind", "threshold", "child_offsets", "children", "branch_value", "value",
           "empty")


def c45_to_dict(model, *, target: str = "class", source: str | None = None) -> dict:
    from dtcli.model.check import FORMAT, feature_dicts

    tree = model.tree_
    return {
        "format": FORMAT, "format_version": 3, "kind": KIND, "dtree_version": __version__,
        "features": feature_dicts(model.features_),
        "target": target,
        "classes": [str(c) for c in model.classes_],
        "tree_classes": [str(c) for c in model.tree_classes_],
        "preset": getattr(model, "preset_", None),
        "options": model.options(),
        "training": {"source": source, "n_samples": model.n_samples_,
                     "fit_seconds": round(getattr(model, "fit_seconds_", 0.0), 6)},
        "tree": {
            "feature": tree.feature.tolist(), "kind": tree.kind.tolist(),
            "threshold": [None if np.isnan(t) else float(t) for t in tree.threshold],
            "child_offsets": tree.child_offsets.tolist(), "children": tree.children.tolist(),
            "branch_value": tree.branch_counts.tolist(), "value": tree.counts.tolist(),
            "empty": tree.empty.tolist()},
    }


def c45_from_dict(doc: dict, check):
    """A fitted J48Classifier from a parsed file; `check` is dtcli.model's checker (its
    `fail(message)` raises the one-line ModelError naming the file)."""
    from dtcli.c45.estimator import J48Classifier

    features = check.features(doc.get("features"))
    classes = check.string_list(doc.get("classes"), "classes")
    if len(classes) < 2 or len(set(classes)) != len(classes):
        check.fail("classes must list at least two distinct class labels")
    tree_classes = check.string_list(doc.get("tree_classes"), "tree_classes")
    if len(set(tree_classes)) != len(tree_classes) or not set(classes) <= set(tree_classes):
        check.fail("tree_classes must list distinct labels, every one of classes among them")
    preset = doc.get("preset")
    if preset is not None and not isinstance(preset, str):
        check.fail("preset must be a preset's name or null")
    options = check.mapping(doc.get("options"), "options")
    model = J48Classifier()
    try:
        model.set_params(**options)
        model.options()
    except Exception as exc:  # noqa: BLE001 - any invalid option means a damaged file
        check.fail(f"invalid J48 options ({exc})")
    model.tree_ = _tree(check.mapping(doc.get("tree"), "tree"), features, len(tree_classes),
                        check)
    model.preset_ = preset
    training = check.mapping(doc.get("training"), "training")
    model.n_samples_ = training.get("n_samples")
    model.features_, model.n_features_in_ = features, len(features)
    model.feature_names_in_ = np.array([f.name for f in features], dtype=object)
    model.classes_ = np.array(classes, dtype=object)
    model.n_classes_ = len(classes)
    model.tree_classes_ = np.array(tree_classes, dtype=object)
    return model


def _tree(raw: dict, features, n_classes: int, check) -> C45Tree:
    missing = [name for name in _ARRAYS if not isinstance(raw.get(name), list)]
    if missing:
        check.fail(f"tree needs the lists {', '.join(missing)}")
    try:
        feature = np.array(raw["feature"], dtype=np.int64)
        kind = np.array(raw["kind"], dtype=np.int64)
        threshold = np.array([np.nan if t is None else t for t in raw["threshold"]],
                             dtype=np.float64)
        offsets = np.array(raw["child_offsets"], dtype=np.int64)
        children = np.array(raw["children"], dtype=np.int64)
        branch_value = np.array(raw["branch_value"], dtype=np.float64).reshape(-1, n_classes)
        value = np.array(raw["value"], dtype=np.float64).reshape(-1, n_classes)
        empty = np.array(raw["empty"])
    except (TypeError, ValueError, OverflowError):
        check.fail("tree arrays must hold numbers of the right shape")
    n = feature.shape[0]
    if n == 0 or not all(a.shape[0] == n for a in (kind, threshold, value, empty)) \
            or offsets.shape != (n + 1,) or empty.dtype != bool:
        check.fail("tree arrays must have one entry per node (child_offsets one more)")
    if offsets[0] != 0 or (np.diff(offsets) < 0).any() or offsets[-1] != children.shape[0] \
            or branch_value.shape[0] != children.shape[0]:
        check.fail("tree.child_offsets must rise from 0 to the number of children")
    if not (np.isfinite(branch_value).all() and np.isfinite(value).all()
            and (branch_value >= 0).all() and (value >= 0).all()):
        check.fail("tree weights must be finite numbers >= 0")
    seen = np.zeros(n, dtype=np.int64)
    for node in range(n):
        kids = children[offsets[node]:offsets[node + 1]]
        if feature[node] == LEAF:
            if kids.shape[0] or kind[node] != LEAF:
                check.fail(f"tree node {node}: a leaf has no split and no children")
            continue
        if not 0 <= feature[node] < len(features) or ((kids <= node) | (kids >= n)).any():
            check.fail(f"tree node {node}: feature or children out of range")
        seen[kids] += 1
        _check_split(node, int(kind[node]), threshold[node], kids.shape[0],
                     features[feature[node]], check)
    if seen[0] != 0 or (seen[1:] != 1).any():
        check.fail("tree: every node but the root must be the child of exactly one node")
    return C45Tree(feature, kind, threshold, offsets, children, branch_value, value, empty)


def _check_split(node, kind, threshold, n_children, feature, check) -> None:
    nominal = feature.kind == NOMINAL
    if kind == NUMERIC and not nominal and np.isfinite(threshold) and n_children == 2:
        return
    if kind == MULTIWAY and nominal and n_children == len(feature.categories):
        return
    if kind == BINARY_NOMINAL and nominal and n_children == 2 and threshold == int(threshold) \
            and 0 <= threshold < len(feature.categories):
        return
    check.fail(f"tree node {node}: its split does not fit feature '{feature.name}'")
