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
label is the first class of highest probability, as `dtree predict` reports it, or for
a model with a decision threshold (`FlatModel.decision`) the positive class where its
probability reaches the threshold, else the other, as `dtree predict` decides it.

A split whose every row goes one way (a nominal split listing no category on its
listed side, a present-vs-missing split whose missing values go left) is replaced
by its child: the formats never meet an empty set.

What a format cannot carry is refused here in one line (`refuse_unless_exportable`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

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

    def lists(self) -> "FlatLists":
        """The arrays as Python lists, for writers that visit every node (a list item
        is read several times faster than a numpy scalar)."""
        return FlatLists(self.true_child.tolist(), self.false_child.tolist(),
                         self.feature.tolist(), self.threshold.tolist(), self.codes,
                         self.missing_true.tolist(), self.proba.tolist(),
                         (self.true_child == LEAF).tolist())


class FlatLists(NamedTuple):
    true_child: list
    false_child: list
    feature: list
    threshold: list
    codes: tuple
    missing_true: list
    proba: list
    is_leaf: list


@dataclass(frozen=True)
class FlatModel:
    features: list  # dtcli.io.dataset.Feature, in the model's order
    classes: list  # str, the model's class order (columns of predict_proba)
    trees: list  # FlatTree
    kind: str  # "tree" or "forest"
    # (positive class index, threshold) of a model with a decision threshold: the label is
    # the positive class where its probability is >= the threshold, else the other
    decision: tuple | None = None

    def label_rule(self) -> str:
        """The label's rule in words, for the artifacts' comments."""
        if self.decision is None:
            return "the first class of highest probability"
        positive, threshold = self.decision
        return (f"{self.classes[positive]} where its probability is >= {threshold!r}, else "
                f"{self.classes[1 - positive]} (the model's decision threshold)")

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


def float_literal(x: float, infinity: str) -> str:
    """A literal reading back as the same double (repr: the shortest that does), with
    `infinity` (and its negation) for the infinities."""
    x = float(x)
    if x in (np.inf, -np.inf):
        return infinity if x > 0 else "-" + infinity
    return repr(x)


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
                     trees=trees, kind=model.model_kind, decision=decision_of(model))


def decision_of(model) -> tuple | None:
    """(positive class index, threshold) of a model with a decision threshold, else None."""
    if getattr(model, "threshold_", None) is None:
        return None
    from dtcli.measures.fitted import positive_index

    return positive_index(model), float(model.threshold_)


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
    """`tree` (tree.py's arrays) as a FlatTree, one-way splits replaced by their child.
    Python lists, not numpy scalars, in the walk: a 100-tree forest has millions of nodes."""
    left, right = tree.children_left.tolist(), tree.children_right.tolist()
    feature, threshold = tree.feature.tolist(), tree.threshold.tolist()
    missing_left = tree.missing_left.tolist()
    offsets, all_codes = tree.category_offsets.tolist(), tree.category_codes.tolist()
    goes_left = tree.category_goes_left.tolist()
    nominal = [f.kind == NOMINAL for f in features]
    order, splits = [], []  # original ids in pre-order; per position its split or None
    slots = []  # per position: (parent position, 0 true / 1 false), or None for the root
    stack = [(0, None)]
    while stack:
        node, slot = stack.pop()
        split = None
        while left[node] != LEAF:  # through the one-way splits
            f, to_left = feature[node], missing_left[node]
            if nominal[f]:
                lo, hi = offsets[node], offsets[node + 1]
                # the listed side that missing values do not take
                side = tuple(all_codes[i] for i in range(lo, hi) if goes_left[i] != to_left)
                if not side:
                    node = left[node] if to_left else right[node]
                    continue
                split = ((right[node], left[node]) if to_left else (left[node], right[node]),
                         f, np.nan, side, False)
            elif threshold[node] == np.inf and to_left:
                node = left[node]
                continue
            else:
                split = ((left[node], right[node]), f, threshold[node], (), bool(to_left))
            break
        here = len(order)
        order.append(node)
        splits.append(split)
        slots.append(slot)
        if split is not None:
            stack.append((split[0][1], (here, 1)))
            stack.append((split[0][0], (here, 0)))  # popped first: pre-order
    n = len(order)
    children = np.full((n, 2), LEAF, np.int64)
    for here, slot in enumerate(slots):
        if slot is not None:
            children[slot] = here
    is_split = np.array([s is not None for s in splits], bool)
    order = np.array(order, np.int64)
    proba = np.where(is_split[:, None], 0.0, node_proba[order])
    return FlatTree(
        true_child=children[:, 0].copy(), false_child=children[:, 1].copy(),
        feature=np.array([LEAF if s is None else s[1] for s in splits], np.int64),
        threshold=np.array([np.nan if s is None else s[2] for s in splits], np.float64),
        codes=tuple(() if s is None else s[3] for s in splits),
        missing_true=np.array([False if s is None else s[4] for s in splits], bool),
        proba=np.ascontiguousarray(proba, dtype=np.float64),
        counts=np.asarray(tree.counts, np.float64)[order])
