"""Growing, collapsing and pruning a C4.5 tree as Weka's J48 does (ClassifierTree.buildTree,
C45PruneableClassifierTree: collapse, prune with subtree raising, Stats.addErrs).

The tree is built of `Node` objects while it grows and is pruned (subtree raising
moves whole branches and re-counts them with the raised node's rows), then laid out
as arrays (dtcli/c45/tree.py). Recursion follows the tree's depth, which the minimum
of two rows per branch and the gain-ratio screen keep small on the data C4.5 is for.
"""
from __future__ import annotations

import math

import numpy as np

from dtcli.c45.split import (Data, Split, class_totals, eq, gr, gr_or_eq, max_class, select_split,
                             seq_sum, sm_or_eq, with_unknown)
from dtcli.pruning.pessimistic import added_errors

_SLACK = 0.1  # J48's margin in favour of the smaller tree


class Node:
    """A node: its rows (indices and weights, kept for subtree raising), its split (None
    for a leaf), `matrix` (branches x classes: the weights each branch received; one row,
    the class weights, for a leaf), its children, and `empty` (grown from no weight)."""

    __slots__ = ("rows", "w", "split", "matrix", "children", "empty")

    def __init__(self, rows, w, split: Split | None, matrix: np.ndarray, empty: bool = False):
        self.rows, self.w, self.split, self.matrix = rows, w, split, matrix
        self.children: list[Node] = []
        self.empty = empty

    @property
    def is_leaf(self) -> bool:
        return self.split is None

    def make_leaf(self) -> None:
        self.split, self.children = None, []
        self.matrix = self.matrix.sum(axis=0)[None, :]


def multi_valued(data: Data) -> bool:
    """Every feature nominal with at least 0.3 x (training rows) categories (J48's
    multiVal: then no feature is left out of the average gain for its many values)."""
    return bool(all(n > 0 and not n < 0.3 * data.X.shape[0] for n in data.n_categories))


def grow(data: Data, rows: np.ndarray, w: np.ndarray, multi: bool) -> Node:
    split = select_split(data, rows, w, multi)
    if split is None:
        return Node(rows, w, None, class_totals(data, rows, w)[None, :], eq(seq_sum(w), 0))
    node = Node(rows, w, split, split.matrix)
    node.children = [grow(data, r, v, multi) for r, v in branch_rows(data, split, split.matrix,
                                                                     rows, w)]
    return node


def branch_rows(data: Data, split: Split, matrix: np.ndarray, rows, w):
    """Each branch's (rows, weights): a row of missing value goes to every branch with
    its weight times the branch's share of `matrix` (ClassifierSplitModel.split)."""
    branch = split.branch_of(data.X[rows, split.feature])
    missing = branch < 0
    per_bag = matrix.sum(axis=1)
    total = seq_sum(per_bag)
    out = []
    for b in range(matrix.shape[0]):
        share = per_bag[b] / total
        take = (branch == b) | (missing & gr(share, 0))
        out.append((rows[take], np.where(missing, w * share, w)[take]))
    return out


def reset_matrix(data: Data, node: Node, rows, w) -> np.ndarray:
    """The node's split re-counted on other rows (resetDistribution)."""
    if node.is_leaf:
        return class_totals(data, rows, w)[None, :]
    branch = node.split.branch_of(data.X[rows, node.split.feature])
    known = branch >= 0
    matrix = np.zeros_like(node.matrix)
    np.add.at(matrix, (branch[known], data.y[rows][known]), w[known])
    return with_unknown(matrix, data, rows, w, node.split.feature)


def errors(per_class: np.ndarray) -> float:
    total = seq_sum(per_class)
    return total - per_class[max_class(per_class)]


def training_errors(node: Node) -> float:
    if node.is_leaf:
        return errors(node.matrix[0])
    return sum(training_errors(child) for child in node.children)


def collapse(node: Node) -> None:
    """A split whose subtree makes no fewer training errors (less 1e-3) than the node
    alone becomes a leaf (J48 does this even unpruned)."""
    if node.is_leaf:
        return
    if training_errors(node) >= errors(node.matrix.sum(axis=0)) - 1e-3:
        node.make_leaf()
        return
    for child in node.children:
        collapse(child)


class Pruner:
    """C4.5's pessimistic pruning at confidence `cf` (a Java float, as J48's -C is)."""

    def __init__(self, data: Data, cf: float, raising: bool):
        self.data, self.cf, self.raising = data, float(np.float32(cf)), raising

    def leaf_errors(self, per_class: np.ndarray) -> float:
        total = seq_sum(per_class)
        if eq(total, 0):
            return 0.0
        wrong = errors(per_class)
        return wrong + added_errors(total, wrong, self.cf)

    def estimated(self, node: Node) -> float:
        if node.is_leaf:
            return self.leaf_errors(node.matrix[0])
        return sum(self.estimated(child) for child in node.children)

    def for_branch(self, node: Node, rows, w) -> float:
        """The errors `node`'s subtree predicts for other rows (those of its parent)."""
        if node.is_leaf:
            return self.leaf_errors(class_totals(self.data, rows, w))
        matrix = reset_matrix(self.data, node, rows, w)
        return sum(self.for_branch(child, r, v) for child, (r, v) in
                   zip(node.children, branch_rows(self.data, node.split, matrix, rows, w)))

    def recount(self, node: Node, rows, w) -> None:
        """Give a raised subtree the raised node's rows (newDistribution)."""
        node.rows, node.w = rows, w
        node.matrix = reset_matrix(self.data, node, rows, w)
        if node.is_leaf:
            if not eq(seq_sum(w), 0):
                node.empty = False
            return
        for child, (r, v) in zip(node.children,
                                 branch_rows(self.data, node.split, node.matrix, rows, w)):
            self.recount(child, r, v)

    def prune(self, node: Node) -> None:
        if node.is_leaf:
            return
        for child in node.children:
            self.prune(child)
        per_bag = node.matrix.sum(axis=1)
        largest, most = -1, 0.0
        for b, weight in enumerate(per_bag):  # Distribution.maxBag: the last of equals
            if gr_or_eq(weight, most):
                largest, most = b, weight
        branch = (self.for_branch(node.children[largest], node.rows, node.w)
                  if self.raising else math.inf)
        as_leaf = self.leaf_errors(node.matrix.sum(axis=0))
        as_tree = self.estimated(node)
        if sm_or_eq(as_leaf, as_tree + _SLACK) and sm_or_eq(as_leaf, branch + _SLACK):
            node.make_leaf()
            return
        if sm_or_eq(branch, as_tree + _SLACK):
            raised = node.children[largest]
            node.split, node.children, node.matrix = raised.split, raised.children, raised.matrix
            self.recount(node, node.rows, node.w)
            self.prune(node)
