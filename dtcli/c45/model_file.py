"""A J48 model in a model file (`"kind": "c45"`, format version 3): to and from a dict,
validated on load by `c45_from_dict`, a self-contained loader that a registry of model
kinds can call. The tree is stored as the parallel arrays of dtcli/c45/tree.py, its
class weights over `tree_classes` (the classes as the training file declared them, in
its order, as J48 grew the tree); `classes` are the columns predictions give.

Checked as a tree file is (model_tree.check_tree): typed fields, finite non-negative
weights, each split's branch weights adding up to its own and each child's weights
being its branch's, no weight for a class without training rows; and, in files written
since issue 47, the columns of weights tied to their labels: `training.class_totals`
gives each label its root weight and `tree.class_signatures` its column's sum over the
nodes weighted by node number (1, 2, ...), so that a reordered class list no longer
matches unless the two columns are the same (and then predict the same)."""
from __future__ import annotations

import numpy as np

from dtcli._version import __version__
from dtcli.c45.split import BINARY_NOMINAL, MULTIWAY, NUMERIC
from dtcli.c45.tree import LEAF, C45Tree
from dtcli.io.dataset import NOMINAL

KIND = "c45"


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
                     "fit_seconds": round(getattr(model, "fit_seconds_", 0.0), 6),
                     "class_totals": dict(zip((str(c) for c in model.tree_classes_),
                                              tree.counts[0].tolist()))},
        "tree": {
            "feature": tree.feature.tolist(), "kind": tree.kind.tolist(),
            "threshold": [None if np.isnan(t) else float(t) for t in tree.threshold],
            "child_offsets": tree.child_offsets.tolist(), "children": tree.children.tolist(),
            "branch_value": tree.branch_counts.tolist(), "value": tree.counts.tolist(),
            "empty": tree.empty.tolist(),
            "class_signatures": dict(zip((str(c) for c in model.tree_classes_),
                                         class_signatures(tree.counts).tolist()))},
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
    _check_classes(model.tree_.counts, classes, tree_classes, doc, check)
    model.preset_ = preset
    model.n_samples_ = doc["training"].get("n_samples")
    model.features_, model.n_features_in_ = features, len(features)
    model.feature_names_in_ = np.array([f.name for f in features], dtype=object)
    model.classes_ = np.array(classes, dtype=object)
    model.n_classes_ = len(classes)
    model.tree_classes_ = np.array(tree_classes, dtype=object)
    return model


def class_signatures(counts: np.ndarray) -> np.ndarray:
    """Per class, its column of node weights summed weighted by node number (1, 2, ...)."""
    return np.arange(1, counts.shape[0] + 1, dtype=np.float64) @ counts


def _check_classes(counts: np.ndarray, classes, tree_classes, doc: dict, check) -> None:
    """The training block typed, and the weights consistent with the training classes:
    none for a declared class without rows, the class totals and signatures by label."""
    from dtcli.model.check import COUNT_TOLERANCE

    training = check.mapping(doc.get("training"), "training")
    check.training({k: v for k, v in training.items() if k != "class_totals"}, classes, ())
    if "class_weight" in training:
        check.fail("training.class_weight is not part of a J48 model")
    root = counts[0]
    tolerance = COUNT_TOLERANCE * max(float(root.sum()), 1.0)
    for k, label in enumerate(tree_classes):
        if label not in classes and root[k] > tolerance:
            check.fail(f"tree.value[0] gives class {label!r} weight, but it had no "
                       "training rows")
    by_label = (("training.class_totals", training.get("class_totals"), root),
                ("tree.class_signatures", doc["tree"].get("class_signatures"),
                 class_signatures(counts)))
    for name, given, expected in by_label:
        if given is None:  # files written before issue 47
            continue
        given = check.numbers(check.mapping(given, name), name)
        scale = COUNT_TOLERANCE * max(float(np.abs(expected).sum()), 1.0)
        if set(given) != set(tree_classes) or any(
                abs(given[label] - expected[k]) > scale for k, label in enumerate(tree_classes)):
            check.fail(f"{name} does not match the tree's weights of tree_classes (in their "
                       "order): a class list or a column of weights was changed")


def _weights(check, value, name: str, n: int, n_classes: int) -> np.ndarray:
    """`n` rows of `n_classes` finite weights >= 0, as an (n, n_classes) array."""
    rows = check.sized_list(value, name, n)
    for i, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != n_classes:
            check.fail(f"{name}[{i}] must hold {n_classes} class weights")
    flat = check.floats([w for row in rows for w in row], name)
    if (flat < 0).any() or not np.isfinite(flat.sum()):
        check.fail(f"{name} must hold weights >= 0 whose sum is finite")
    return flat.reshape(n, n_classes)


def _tree(raw: dict, features, n_classes: int, check) -> C45Tree:
    def field(name):
        return check.field(raw, name, "tree")

    feature = check.ints(field("feature"), "tree.feature", None, LEAF, len(features) - 1)
    n = feature.shape[0]
    if n == 0:
        check.fail("tree.feature must list at least the root")
    kind = check.ints(field("kind"), "tree.kind", n, LEAF,
                      max(NUMERIC, MULTIWAY, BINARY_NOMINAL))
    threshold = check.floats(field("threshold"), "tree.threshold", n, none_is_nan=True)
    offsets = check.ints(field("child_offsets"), "tree.child_offsets", n + 1, 0)
    children = check.ints(field("children"), "tree.children", None, 0, n - 1)
    empty = check.sized_list(field("empty"), "tree.empty", n)
    if not all(isinstance(flag, bool) for flag in empty):
        check.fail("tree.empty must hold true/false")
    empty = np.array(empty, dtype=bool).reshape(n)
    if offsets[0] != 0 or (np.diff(offsets) < 0).any() or offsets[-1] != children.shape[0]:
        check.fail("tree.child_offsets must rise from 0 to the number of children")
    branch_value = _weights(check, field("branch_value"), "tree.branch_value",
                            children.shape[0], n_classes)
    value = _weights(check, field("value"), "tree.value", n, n_classes)
    seen = np.zeros(n, dtype=np.int64)
    for node in range(n):
        kids = children[offsets[node]:offsets[node + 1]]
        if feature[node] == LEAF:
            if kids.shape[0] or kind[node] != LEAF:
                check.fail(f"tree node {node}: a leaf has no split and no children")
            continue
        if ((kids <= node) | (kids >= n)).any():
            check.fail(f"tree node {node}: feature or children out of range")
        seen[kids] += 1
        _check_split(node, int(kind[node]), threshold[node], kids.shape[0],
                     features[feature[node]], check)
        _check_weights(node, kids, branch_value[offsets[node]:offsets[node + 1]], value, check)
    if seen[0] != 0 or (seen[1:] != 1).any():
        check.fail("tree: every node but the root must be the child of exactly one node")
    return C45Tree(feature, kind, threshold, offsets, children, branch_value, value, empty)


def _check_weights(node, kids, bags, value, check) -> None:
    """A split's branches' weights add up to the node's, and each child's are its branch's
    (what J48 grew: prediction reads the leaves' and the branches' weights)."""
    from dtcli.model.check import COUNT_TOLERANCE

    tolerance = COUNT_TOLERANCE * max(float(value[node].sum()), 1.0)
    if (np.abs(bags.sum(axis=0) - value[node]) > tolerance).any():
        check.fail(f"tree node {node}: its branches' weights (branch_value) do not add up "
                   "to its own (value)")
    if (np.abs(value[kids] - bags) > tolerance).any():
        check.fail(f"tree node {node}: a child's weights (value) are not its branch's "
                   "(branch_value)")


def _check_split(node, kind, threshold, n_children, feature, check) -> None:
    nominal = feature.kind == NOMINAL
    if kind == NUMERIC and not nominal and np.isfinite(threshold) and n_children == 2:
        return
    if kind == MULTIWAY and nominal and n_children == len(feature.categories):
        return
    if kind == BINARY_NOMINAL and nominal and n_children == 2 and np.isfinite(threshold) \
            and threshold == int(threshold) and 0 <= threshold < len(feature.categories):
        return
    check.fail(f"tree node {node}: its split does not fit feature '{feature.name}'")
