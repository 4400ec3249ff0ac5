"""A fitted C4.5 tree as parallel arrays, and J48's prediction from them.

Node 0 is the root; a node's children follow it (pre-order), listed in
`children[child_offsets[i]:child_offsets[i + 1]]`, branch by branch. A numeric split
sends a value <= `threshold` to its first child; a multiway nominal split sends
category c to child c; a binary nominal split sends the category `threshold` to its
first child and the others to its second. `branch_counts` (aligned with `children`)
holds the class weights the split gave each branch, which J48 prints, routes missing
values by and predicts from where a branch received none; `counts` holds each node's
own class weights (a leaf's are its prediction), and `value` their fractions, as
DecisionTreeClassifier's `tree_.value` (the model file keeps the names "branch_value"
and "value" for the weights).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dtcli.c45.grow import Node
from dtcli.c45.split import MULTIWAY, SMALL, Split
from dtcli.engine.tree import class_fractions

LEAF = -1


@dataclass
class C45Tree:
    feature: np.ndarray  # int64, LEAF for a leaf
    kind: np.ndarray  # int64: split.NUMERIC, MULTIWAY or BINARY_NOMINAL; LEAF for a leaf
    threshold: np.ndarray  # float64: a cut, a category (binary nominal), or NaN
    child_offsets: np.ndarray  # int64, node_count + 1
    children: np.ndarray  # int64
    branch_counts: np.ndarray  # float64, (len(children), n_classes)
    counts: np.ndarray  # float64, (node_count, n_classes)
    empty: np.ndarray  # bool: a leaf grown from no weight (J48 skips it for missing values)

    @property
    def node_count(self) -> int:
        return int(self.feature.shape[0])

    @property
    def value(self) -> np.ndarray:
        return class_fractions(self.counts)

    @property
    def n_leaves(self) -> int:
        return int((self.feature == LEAF).sum())

    def branches(self, node: int) -> np.ndarray:
        return self.children[self.child_offsets[node]:self.child_offsets[node + 1]]

    @property
    def max_depth(self) -> int:
        depth = np.zeros(self.node_count, dtype=np.int64)
        for node in range(self.node_count):
            depth[self.branches(node)] = depth[node] + 1
        return int(depth.max())

    @classmethod
    def from_nodes(cls, root: Node) -> "C45Tree":
        order, stack = [], [root]
        while stack:  # pre-order, children in branch order
            node = stack.pop()
            order.append(node)
            stack.extend(reversed(node.children))
        ids = {id(node): i for i, node in enumerate(order)}
        offsets, children, branch_counts = [0], [], []
        for node in order:
            children.extend(ids[id(child)] for child in node.children)
            if node.children:
                branch_counts.extend(node.matrix)
            offsets.append(len(children))
        n_classes = root.matrix.shape[1]
        return cls(
            feature=np.array([LEAF if n.is_leaf else n.split.feature for n in order], np.int64),
            kind=np.array([LEAF if n.is_leaf else n.split.kind for n in order], np.int64),
            threshold=np.array([np.nan if n.is_leaf else n.split.threshold for n in order]),
            child_offsets=np.array(offsets, np.int64), children=np.array(children, np.int64),
            branch_counts=np.array(branch_counts, np.float64).reshape(-1, n_classes),
            counts=np.array([n.matrix.sum(axis=0) for n in order]),
            empty=np.array([n.empty for n in order], dtype=bool))

    def branch_of(self, node: int, values: np.ndarray) -> np.ndarray:
        split = Split(int(self.feature[node]), int(self.kind[node]),
                      float(self.threshold[node]), 0.0, 0.0, np.empty((0, 0)))
        branch = split.branch_of(values)
        if split.kind == MULTIWAY:  # a category the tree never saw: as if missing
            n = self.child_offsets[node + 1] - self.child_offsets[node]
            branch = np.where(branch >= n, -1, branch)
        return branch

    def proba(self, X: np.ndarray, laplace: bool = False) -> np.ndarray:
        """J48's class probabilities (ClassifierTree.getProbs): a row whose value a split
        needs is missing goes down every non-empty branch with the branch's share of the
        training weight, and sums what they give; a row reaching a branch that received
        no training weight takes the split node's class frequencies."""
        n_classes = self.counts.shape[1]
        out = np.zeros((X.shape[0], n_classes))
        arriving: dict[int, list] = {0: [(np.arange(X.shape[0]), np.ones(X.shape[0]))]}
        for node in range(self.node_count):
            if node not in arriving:
                continue
            rows = np.concatenate([r for r, _ in arriving[node]])
            weight = np.concatenate([w for _, w in arriving.pop(node)])
            if self.feature[node] == LEAF:
                out[rows] += weight[:, None] * _probs(self.counts[node], laplace)[None, :]
                continue
            start = self.child_offsets[node]
            kids = self.branches(node)
            bags = self.branch_counts[start:start + kids.shape[0]]
            per_bag = bags.sum(axis=1)
            own = _probs(bags.sum(axis=0), laplace)
            branch = self.branch_of(node, X[rows, self.feature[node]])
            for b, child in enumerate(kids):
                here = branch == b
                if self.empty[child]:
                    probs = _probs(bags[b], laplace) if per_bag[b] > SMALL else own
                    out[rows[here]] += weight[here, None] * probs[None, :]
                    continue
                share = per_bag[b] / per_bag.sum()
                take = here | (branch < 0)
                arriving.setdefault(int(child), []).append(
                    (rows[take], np.where(branch[take] < 0, weight[take] * share, weight[take])))
        return out


def _probs(counts: np.ndarray, laplace: bool) -> np.ndarray:
    total = counts.sum()
    if laplace:
        return (counts + 1.0) / (total + counts.shape[0])
    if abs(total) < SMALL:
        return np.zeros_like(counts)
    return counts / total


def weka_argmax(proba: np.ndarray) -> np.ndarray:
    """The first class whose probability beats every earlier one by more than 1e-6
    (ClassifierTree.classifyInstance)."""
    best = np.full(proba.shape[0], -1.0)
    index = np.zeros(proba.shape[0], dtype=np.int64)
    for k in range(proba.shape[1]):
        better = proba[:, k] - best > SMALL
        index[better], best[better] = k, proba[better, k]
    return index

