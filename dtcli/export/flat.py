"""The one view of a fitted tree or forest that every production format reads
(`-f onnx, sql, c, python, pmml`; docs/export.md), so the formats differ only in
how they write it.

A `FlatModel` is the model's features and classes and one `FlatTree` per tree.
Each split of a `FlatTree` says which rows go to its `true` child and sends all
others, missing values included, to its `false` child:

- numeric: `x <= threshold` (true) or not; `missing_true` says where a missing
  value goes (true when the tree sends missing values left);
- nominal: the row's category is one of `codes` (true); a missing value and a
  category the set does not list both go false, as dtree routes them (tree.py:
  a category a node does not list goes where missing values go). The set is
  whichever of the node's two listed sides does not go where missing values go.

Leaves hold the class probabilities dtree predicts there (frequency, Laplace or
m-estimate: leaf_estimate.py). A forest's probability is the mean of its trees',
added up in dtree's order (`tree_groups`: growth.forest_proba's groups, each summed
in tree order, then the groups in order, then divided by the number of trees),
so a runtime that follows the order reproduces dtree's doubles bit for bit. The
label is the first class of highest probability, as `dtree predict` reports it.

A split whose every row goes one way (a nominal split listing no category on its
listed side, a present-vs-missing split whose missing values go left) is replaced
by its child: the formats never meet an empty set.

What a format cannot carry is refused here in one line (`refuse_unless_exportable`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dtcli.errors import DtreeError
from dtcli.io.dataset import NOMINAL

FORMATS = ("onnx", "sql", "c", "python", "pmml")
# dtree's forest sums its trees' probabilities in groups of this many (ensemble/growth.py)
TREES_PER_GROUP = 4
LEAF = -1


class ExportRefused(DtreeError):
    """The model holds something the asked format cannot carry (exit code 1)."""


@dataclass(frozen=True)
class FlatTree:
    """Nodes in pre-order (node 0 the root; LEAF children on leaves)."""

    true_child: np.ndarray  # int64
    false_child: np.ndarray  # int64
    feature: np.ndarray  # int64 (LEAF on leaves)
    threshold: np.ndarray  # float64; NaN on nominal splits and leaves
    codes: tuple  # per node: tuple of category codes (nominal splits), else ()
    missing_true: np.ndarray  # bool: a missing value goes to true_child
    proba: np.ndarray  # float64 (node_count, n_classes): leaves' probabilities (0 elsewhere)
    counts: np.ndarray  # float64 (node_count, n_classes): the nodes' weighted class counts

    @property
    def node_count(self) -> int:
        return int(self.true_child.shape[0])

    def is_leaf(self, node: int) -> bool:
        return self.true_child[node] == LEAF


@dataclass(frozen=True)
class FlatModel:
    features: list  # dtcli.io.dataset.Feature, in the model's order
    classes: list  # str, the model's class order (columns of predict_proba)
    trees: list  # FlatTree
    kind: str  # "tree" or "forest"

    @property
    def nominal(self) -> list[bool]:
        return [f.kind == NOMINAL for f in self.features]

    def tree_groups(self) -> list[range]:
        """The trees' indices in the groups dtree adds up (module docstring)."""
        n = len(self.trees)
        return [range(k, min(k + TREES_PER_GROUP, n)) for k in range(0, n, TREES_PER_GROUP)]

    def category_table(self) -> dict[str, list[str]]:
        """Each nominal feature's categories, in code order (code i = categories[i])."""
        return {f.name: list(f.categories) for f in self.features if f.kind == NOMINAL}


def flatten(model, fmt: str) -> FlatModel:
    """The FlatModel of a fitted DecisionTreeClassifier or RandomForestClassifier;
    ExportRefused for what `fmt` cannot carry."""
    model._check_fitted()
    refuse_unless_exportable(model, fmt)
    if model.model_kind == "forest":
        trees = [_flat_tree(e.tree_, e.tree_.node_proba, model.features_)
                 for e in model.estimators_]
    else:
        trees = [_flat_tree(model.tree_, _leaf_proba(model), model.features_)]
    return FlatModel(features=list(model.features_), classes=[str(c) for c in model.classes_],
                     trees=trees, kind=model.model_kind)


def refuse_unless_exportable(model, fmt: str) -> None:
    """ExportRefused, one line naming the format and the reason, for a model `fmt`
    cannot carry."""
    kind = getattr(model, "model_kind", None)
    if kind == "c45":
        if fmt != "pmml":
            raise ExportRefused(f"-f {fmt} cannot carry a J48 (C4.5) tree: its rows with a "
                                "missing value go down every branch with fractional weights; "
                                "-f pmml carries that (missingValueStrategy=weightedConfidence)")
        return
    if kind == "fdf":
        raise ExportRefused(f"-f {fmt} cannot carry a fuzzy decision forest: its soft "
                            "memberships are no crisp tree; score it with dtree predict")
    if kind not in ("tree", "forest"):
        raise ExportRefused(f"-f {fmt}: not a dtree tree or forest")
    estimators = model.estimators_ if kind == "forest" else [model]
    if any(getattr(e, "leaf_model_", None) is not None for e in estimators):
        raise ExportRefused(f"-f {fmt} cannot carry Naive Bayes leaves (a model per leaf, "
                            "not a probability); train with --leaf-model counts to export, "
                            "or score with dtree predict")


def _leaf_proba(model) -> np.ndarray:
    from dtcli import leaf_estimate

    estimate = getattr(model, "leaf_estimate", "frequency")
    if estimate == "frequency":
        return model.tree_.node_proba
    estimate, m = leaf_estimate.check(estimate, model.m)
    return leaf_estimate.node_proba(model.tree_.counts, estimate, m)


def _flat_tree(tree, node_proba: np.ndarray, features) -> FlatTree:
    """`tree` (tree.py's arrays) as a FlatTree, one-way splits replaced by their child."""
    true_child, false_child, feature, threshold, codes, missing_true, proba, counts = \
        [], [], [], [], [], [], [], []
    n_classes = node_proba.shape[1]
    # (original node, slot of the parent's child pointer to fill: (list, index) or None)
    stack = [(0, None)]
    while stack:
        node, slot = stack.pop()
        node, split = _through_one_way(tree, node, features)
        here = len(true_child)
        if slot is not None:
            slot[0][slot[1]] = here
        for column in (true_child, false_child, feature):
            column.append(LEAF)
        threshold.append(np.nan)
        codes.append(())
        missing_true.append(False)
        proba.append(np.zeros(n_classes))
        counts.append(tree.counts[node])
        if split is None:
            proba[here] = np.asarray(node_proba[node], dtype=np.float64)
            continue
        to_true, to_false, feature[here], threshold[here], codes[here], missing_true[here] = \
            split
        stack.append((to_false, (false_child, here)))
        stack.append((to_true, (true_child, here)))  # popped first: pre-order
    return FlatTree(np.array(true_child, np.int64), np.array(false_child, np.int64),
                    np.array(feature, np.int64), np.array(threshold, np.float64),
                    tuple(codes), np.array(missing_true, bool), np.array(proba),
                    np.array(counts, np.float64).reshape(-1, n_classes))


def _through_one_way(tree, node: int, features):
    """(node, split) where node is the first node from `node` down whose rows do not all
    go one way, and split = (true child, false child, feature, threshold, codes,
    missing_true) in the original ids, or None for a leaf."""
    while not tree.is_leaf(node):
        left, right = int(tree.children_left[node]), int(tree.children_right[node])
        f = int(tree.feature[node])
        missing_left = bool(tree.missing_left[node])
        if features[f].kind == NOMINAL:
            listed, goes_left = tree.categories_at(node)
            # the listed side that missing values do not take
            side = listed[goes_left == (0 if missing_left else 1)]
            if side.shape[0] == 0:
                node = left if missing_left else right
                continue
            codes = tuple(int(c) for c in side)
            if missing_left:  # the set goes right; everything else left
                return node, (right, left, f, np.nan, codes, False)
            return node, (left, right, f, np.nan, codes, False)
        t = float(tree.threshold[node])
        if t == np.inf and missing_left:
            node = left
            continue
        return node, (left, right, f, t, (), missing_left)
    return node, None
