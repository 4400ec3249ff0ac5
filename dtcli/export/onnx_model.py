"""`-f onnx`: the model as an ONNX-ML graph, built with the `onnx` package's helpers.

Input `input`: one row per sample, the features in the model's order, numbers as they
are and a nominal feature as its category's code (the table in the model's metadata,
`category_table`, and in `dtree export -f onnx --describe`); NaN where a value is
missing, and any unlisted code (-1) for a category the model never saw: such a row
goes where the tree sends missing values. Outputs: `label` (the class label, the first
class of highest probability; with a decision threshold, Gather, GreaterOrEqual and Where
after the ensemble make it the positive class where its probability reaches the
threshold) and `probabilities` (one column per class, in `classes` order).

- opset 5 (the default): ai.onnx.ml `TreeEnsemble`, double input and thresholds
  (dtree's own doubles), `BRANCH_MEMBER` category sets, missing values tracked per
  node. A leaf carries one target, so each dtree tree is written once per class
  (tree t's copy for class k), the copies' leaves summed, then divided by the
  number of dtree trees.
- opset 3 (`--onnx-opset 3`): ai.onnx.ml `TreeEnsembleClassifier`, float32 input and
  thresholds. Each threshold t becomes the largest float32 not above t, so that
  every float32 input goes the side it goes in dtree (x <= t exactly when x <= t32);
  a double that is not a float32 can still change side when the caller rounds it
  to float32 (docs/export.md). A category set is a chain of equality tests that
  share their target subtree. Leaf probabilities are float32 (about 1e-7 apart
  from dtree's).
"""
from __future__ import annotations

import json

import numpy as np

from dtcli._version import __version__
from dtcli.errors import DtreeError, ParameterError
from dtcli.export.flat import FlatModel, FlatTree

OPSETS = (5, 3)
_LEQ, _EQ, _MEMBER = 0, 4, 6  # TreeEnsemble's node modes


def check_opset(opset) -> int:
    if opset not in OPSETS:
        raise ParameterError(f"--onnx-opset must be 5 (TreeEnsemble) or 3 "
                             f"(TreeEnsembleClassifier), got {opset!r}")
    return opset


def require_onnx():
    """The onnx package, or one DtreeError line saying what to install."""
    try:
        import onnx
    except ImportError:
        raise DtreeError('-f onnx needs the onnx package: pip install "dtcli[onnx]"') from None
    return onnx


def build(model: FlatModel, opset: int = 5):
    """The onnx.ModelProto of `model`."""
    check_opset(opset)
    onnx = require_onnx()
    from onnx import TensorProto, helper

    n_features, n_classes = len(model.features), len(model.classes)
    floats = TensorProto.DOUBLE if opset == 5 else TensorProto.FLOAT
    scores = "scores"
    nodes = (_tree_ensemble(model, helper, onnx.numpy_helper, scores) if opset == 5
             else _tree_ensemble_classifier(model, helper, scores))
    classes = helper.make_tensor("classes", TensorProto.STRING, [n_classes],
                                 [c.encode("utf-8") for c in model.classes])
    if opset == 5:
        divisor = helper.make_tensor("n_trees", floats, [], [float(len(model.trees))])
        nodes.append(helper.make_node("Div", [scores, "n_trees"], ["probabilities"]))
        initializers = [classes, divisor]
    else:
        nodes.append(helper.make_node("Identity", [scores], ["probabilities"]))
        initializers = [classes]
    if model.decision is None:
        nodes.append(helper.make_node("ArgMax", ["probabilities"], ["class_index"], axis=1,
                                      keepdims=0, select_last_index=0))
    else:
        decided, constants = _decided(model.decision, floats, helper)
        nodes += decided
        initializers += constants
    nodes.append(helper.make_node("Gather", ["classes", "class_index"], ["label"], axis=0))
    graph = helper.make_graph(
        nodes, "dtree_" + model.kind,
        [helper.make_tensor_value_info("input", floats, [None, n_features])],
        [helper.make_tensor_value_info("label", TensorProto.STRING, [None]),
         helper.make_tensor_value_info("probabilities", floats, [None, n_classes])],
        initializer=initializers)
    proto = helper.make_model(
        graph, producer_name="dtree", producer_version=__version__,
        opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("ai.onnx.ml", opset)])
    proto.ir_version = 8  # ONNX Runtime 1.10 and later read it
    helper.set_model_props(proto, metadata(model, opset))
    onnx.checker.check_model(proto)
    return proto


def _decided(decision: tuple, floats, helper) -> tuple[list, list]:
    """The nodes (and their constants) of a decision threshold after the ensemble: the
    positive class's probability column, >= the threshold, as the class index."""
    from onnx import TensorProto

    positive, threshold = decision
    constants = [helper.make_tensor("positive_column", TensorProto.INT64, [], [positive]),
                 helper.make_tensor("threshold", floats, [], [threshold]),
                 helper.make_tensor("positive_index", TensorProto.INT64, [], [positive]),
                 helper.make_tensor("negative_index", TensorProto.INT64, [], [1 - positive])]
    nodes = [helper.make_node("Gather", ["probabilities", "positive_column"], ["positive_proba"],
                              axis=1),
             helper.make_node("GreaterOrEqual", ["positive_proba", "threshold"], ["decides"]),
             helper.make_node("Where", ["decides", "positive_index", "negative_index"],
                              ["class_index"])]
    return nodes, constants


def metadata(model: FlatModel, opset: int) -> dict[str, str]:
    """The model's metadata_props: what the input's columns are, and the label's rule."""
    return {"features": json.dumps([f.name for f in model.features]),
            "category_table": json.dumps(model.category_table()),
            "classes": json.dumps(model.classes),
            "dtree_kind": model.kind, "dtree_opset": str(opset),
            **({} if model.decision is None else
               {"decision": json.dumps({"positive": model.classes[model.decision[0]],
                                        "threshold": model.decision[1]})})}


def describe(model: FlatModel, opset: int) -> str:
    """`--describe`: the input's columns, the category codes and the outputs, as text."""
    float_type = "double" if opset == 5 else "float"
    lines = [f"ONNX ai.onnx.ml opset {opset}: "
             + ("TreeEnsemble" if opset == 5 else "TreeEnsembleClassifier")
             + f", {len(model.trees)} tree(s)",
             f"input 'input': {float_type} [N, {len(model.features)}], NaN = missing:"]
    for j, feature in enumerate(model.features):
        if feature.categories:
            codes = ", ".join(f"{c}={v}" for c, v in enumerate(feature.categories))
            lines.append(f"  {j}: {feature.name} (nominal; code: {codes}; "
                         "any other code: unseen)")
        else:
            lines.append(f"  {j}: {feature.name}")
    lines.append("output 'label': string [N]"
                 + ("" if model.decision is None else f": {model.label_rule()}"))
    lines.append(f"output 'probabilities': {float_type} [N, {len(model.classes)}]: "
                 + ", ".join(model.classes))
    return "\n".join(lines) + "\n"


def _tree_ensemble(model: FlatModel, helper, numpy_helper, output: str) -> list:
    """ai.onnx.ml TreeEnsemble (opset 5): one copy of each tree per class, splits in
    pre-order (the order in which runtimes read the membership sets)."""
    n_classes = len(model.classes)
    parts = {name: [] for name in ("featureids", "modes", "splits", "true", "false",
                                   "trueleafs", "falseleafs", "missing", "members", "roots",
                                   "targets", "weights")}
    n_splits = n_leaves = 0
    for tree in model.trees:
        shape = _tree_arrays(tree)
        for k in range(n_classes):
            for name in ("featureids", "modes", "splits", "trueleafs", "falseleafs", "missing"):
                parts[name].append(shape[name])
            for side in ("true", "false"):
                leafs = shape[side + "leafs"] == 1
                parts[side].append(shape[side] + np.where(leafs, n_leaves, n_splits))
            parts["members"].append(shape["members"])
            parts["roots"].append(np.array([n_splits]))
            parts["targets"].append(np.full(shape["leaves"].shape[0], k))
            parts["weights"].append(tree.proba[shape["leaves"], k])
            n_splits += shape["modes"].shape[0]
            n_leaves += shape["leaves"].shape[0]
    a = {name: np.concatenate(arrays) for name, arrays in parts.items()}

    def ints(name):
        return a[name].astype(np.int64).tolist()

    attrs = dict(
        nodes_featureids=ints("featureids"),
        nodes_modes=numpy_helper.from_array(a["modes"].astype(np.uint8), "nodes_modes"),
        nodes_splits=numpy_helper.from_array(a["splits"].astype(np.float64), "nodes_splits"),
        nodes_truenodeids=ints("true"), nodes_falsenodeids=ints("false"),
        nodes_trueleafs=ints("trueleafs"), nodes_falseleafs=ints("falseleafs"),
        nodes_missing_value_tracks_true=ints("missing"),
        leaf_targetids=ints("targets"),
        leaf_weights=numpy_helper.from_array(a["weights"].astype(np.float64), "leaf_weights"),
        tree_roots=ints("roots"), aggregate_function=1, post_transform=0, n_targets=n_classes)
    if a["members"].shape[0]:
        attrs["membership_values"] = numpy_helper.from_array(
            a["members"].astype(np.float64), "membership_values")
    return [helper.make_node("TreeEnsemble", ["input"], [output], domain="ai.onnx.ml",
                             **attrs)]


def _tree_arrays(tree: FlatTree) -> dict:
    """One tree's TreeEnsemble arrays, its split and leaf ids counted from 0: a split's
    children are leaf ids where *leafs is 1, split ids elsewhere; `leaves`: the flat
    tree's leaf nodes in leaf-id order. A tree that is one leaf is a split whose both
    sides are that leaf."""
    is_leaf = tree.true_child < 0
    if is_leaf.all():
        zero = np.zeros(1, np.int64)
        return {"featureids": zero, "modes": np.full(1, _LEQ), "splits": np.zeros(1),
                "true": zero, "false": zero, "trueleafs": np.ones(1, np.int64),
                "falseleafs": np.ones(1, np.int64), "missing": zero,
                "members": np.zeros(0), "leaves": zero}
    split_id = np.cumsum(~is_leaf) - 1
    leaf_id = np.cumsum(is_leaf) - 1
    splits = np.flatnonzero(~is_leaf)
    out = {"featureids": tree.feature[splits],
           "modes": np.array([_MEMBER if tree.codes[i] else _LEQ for i in splits.tolist()]),
           "splits": np.where(np.isnan(tree.threshold[splits]), 0.0, tree.threshold[splits]),
           "missing": tree.missing_true[splits].astype(np.int64),
           "leaves": np.flatnonzero(is_leaf)}
    for side, child in (("true", tree.true_child[splits]), ("false", tree.false_child[splits])):
        out[side + "leafs"] = is_leaf[child].astype(np.int64)
        out[side] = np.where(is_leaf[child], leaf_id[child], split_id[child])
    sets = [list(tree.codes[i]) + [np.nan] for i in splits.tolist() if tree.codes[i]]
    out["members"] = np.array([v for s in sets for v in s], np.float64)
    return out


def float32_threshold(t: float) -> float:
    """The largest float32 not above t: a float32 x has x <= t exactly when x <= it."""
    return float(float32_thresholds(np.array([t], np.float64))[0])


def float32_thresholds(t: np.ndarray) -> np.ndarray:
    """float32_threshold of every element (as float64 holding float32 values)."""
    with np.errstate(over="ignore"):  # beyond float32's range: inf, then the largest float32
        t32 = t.astype(np.float32)
    above = t32.astype(np.float64) > t
    t32[above] = np.nextafter(t32[above], np.float32(-np.inf))
    return t32.astype(np.float64)


_V3_NODE_ARRAYS = ("treeids", "nodeids", "featureids", "modes", "values", "true", "false",
                   "missing")
_V3_CLASS_ARRAYS = ("c_tree", "c_node", "c_id", "c_weight")


def _tree_ensemble_classifier(model: FlatModel, helper, output: str) -> list:
    """ai.onnx.ml TreeEnsembleClassifier (opset 3): float32 thresholds (float32_threshold),
    category sets as chains of BRANCH_EQ nodes, leaf weights divided by the number of
    trees (the operator sums them)."""
    parts = [_v3_tree(tree, t, len(model.trees)) for t, tree in enumerate(model.trees)]
    a = {name: np.concatenate([p[name] for p in parts]).tolist()
         for name in _V3_NODE_ARRAYS + _V3_CLASS_ARRAYS}
    return [helper.make_node(
        "TreeEnsembleClassifier", ["input"], ["onnx_label", output], domain="ai.onnx.ml",
        nodes_treeids=a["treeids"], nodes_nodeids=a["nodeids"], nodes_featureids=a["featureids"],
        nodes_modes=a["modes"], nodes_values=a["values"], nodes_truenodeids=a["true"],
        nodes_falsenodeids=a["false"], nodes_missing_value_tracks_true=a["missing"],
        class_treeids=a["c_tree"], class_nodeids=a["c_node"], class_ids=a["c_id"],
        class_weights=a["c_weight"], classlabels_int64s=list(range(len(model.classes))),
        post_transform="NONE")]


def _v3_tree(tree: FlatTree, t: int, n_trees: int) -> dict:
    """Tree t's rows of TreeEnsembleClassifier's node and class arrays. A category set
    {c1, ..., cm} is m BRANCH_EQ nodes: x == c1 goes true, else to the next, the last's
    else to the false child; the chain's extra links take the ids after the node's own."""
    extra = np.array([max(len(c) - 1, 0) for c in tree.codes], np.int64)
    ids = np.arange(tree.node_count) + np.cumsum(extra) - extra
    is_leaf = tree.true_child < 0
    numeric = ~is_leaf & (extra == 0) & np.array([not c for c in tree.codes])
    leaves, splits = np.flatnonzero(is_leaf), np.flatnonzero(numeric)
    rows = {"nodeids": [ids[leaves], ids[splits]],
            "featureids": [np.zeros(leaves.shape[0], np.int64), tree.feature[splits]],
            "modes": [np.full(leaves.shape[0], "LEAF"), np.full(splits.shape[0], "BRANCH_LEQ")],
            "values": [np.zeros(leaves.shape[0]), float32_thresholds(tree.threshold[splits])],
            "true": [np.zeros(leaves.shape[0], np.int64), ids[tree.true_child[splits]]],
            "false": [np.zeros(leaves.shape[0], np.int64), ids[tree.false_child[splits]]],
            "missing": [np.zeros(leaves.shape[0], np.int64),
                        tree.missing_true[splits].astype(np.int64)]}
    for i in np.flatnonzero(~is_leaf & ~numeric).tolist():  # the category sets' chains
        codes = tree.codes[i]
        links = ids[i] + np.arange(len(codes))
        otherwise = np.append(links[1:], ids[tree.false_child[i]])
        for name, values in (("nodeids", links), ("featureids", np.full(len(codes), tree.feature[i])),
                             ("modes", np.full(len(codes), "BRANCH_EQ")),
                             ("values", np.array(codes, np.float64)),
                             ("true", np.full(len(codes), ids[tree.true_child[i]])),
                             ("false", otherwise), ("missing", np.zeros(len(codes), np.int64))):
            rows[name].append(values)
    out = {name: np.concatenate(values) for name, values in rows.items()}
    order = np.argsort(out["nodeids"], kind="stable")  # ONNX Runtime takes the first as root
    out = {name: values[order] for name, values in out.items()}
    out["treeids"] = np.full(out["nodeids"].shape[0], t, np.int64)
    n_classes = tree.proba.shape[1]
    out["c_tree"] = np.full(leaves.shape[0] * n_classes, t, np.int64)
    out["c_node"] = np.repeat(ids[leaves], n_classes)
    out["c_id"] = np.tile(np.arange(n_classes), leaves.shape[0])
    out["c_weight"] = (tree.proba[leaves] / n_trees).ravel()
    return out
