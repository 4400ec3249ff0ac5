"""A fitted tree as parallel arrays, in scikit-learn's layout.

Node 0 is the root and a child's id is always greater than its parent's.
`counts[i]` holds the (weighted) class counts of node i, for every node, not
only leaves; `value` is what scikit-learn (since 1.4) holds there, each node's
weighted class fractions, of shape (node_count, 1, n_classes). Leaves have
children_left == children_right == TREE_LEAF and feature == TREE_UNDEFINED.

A nominal split lists the categories of its feature that reached it in training,
each with its side, in CSR form: node i's categories are
category_codes[category_offsets[i]:category_offsets[i + 1]], sorted, and
category_goes_left (1 left, 0 right) says where each goes. A category not listed
(one the node never saw, or one the feature did not have in training) goes where
missing values go (`missing_left`). Other nodes list nothing. The sets grow with
the categories seen at the nominal splits (at most the node's rows), never with
nodes x categories.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from dtcli.sentinels import TREE_LEAF, TREE_UNDEFINED  # noqa: F401  (re-exported)


def class_fractions(counts: np.ndarray) -> np.ndarray:
    """Every node's weighted class fractions as scikit-learn (since 1.4) holds them in
    `tree_.value`: shape (node_count, 1, n_classes), one output; 0 where a node has no
    weight."""
    totals = counts.sum(axis=1, keepdims=True)
    fractions = np.divide(counts, totals, out=np.zeros_like(counts), where=totals > 0)
    return fractions[:, np.newaxis, :]


@dataclass
class Tree:
    children_left: np.ndarray  # int64
    children_right: np.ndarray  # int64
    feature: np.ndarray  # int64
    threshold: np.ndarray  # float64: x <= threshold goes left; NaN for nominal splits
    missing_left: np.ndarray  # uint8: where missing (and unlisted) values go
    counts: np.ndarray  # float64 (node_count, n_classes): weighted class counts
    n_node_samples: np.ndarray  # int64
    score: np.ndarray  # float64: criterion score of the node's split, NaN on leaves
    # int64: training rows at the node missing its split feature (0 on leaves); -1 where
    # not known (a model file written before dtree recorded it). None: all unknown.
    n_node_missing: np.ndarray | None = None
    # nominal splits' categories (module docstring); None: no nominal split
    category_offsets: np.ndarray = None  # int64 (node_count + 1)
    category_codes: np.ndarray = None  # int64, sorted within a node
    category_goes_left: np.ndarray = None  # uint8, one per code
    # Prediction's packed form of the arrays above, per nominal-feature mask, built on
    # first use: a fitted tree's arrays are never changed.
    _walks: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    # one value (or row) per node; the category sets are CATEGORY_ARRAYS
    ARRAYS = ("children_left", "children_right", "feature", "threshold", "missing_left",
              "counts", "n_node_samples", "score", "n_node_missing")
    CATEGORY_ARRAYS = ("category_offsets", "category_codes", "category_goes_left")

    def __post_init__(self):
        if self.n_node_missing is None:
            self.n_node_missing = np.full(self.children_left.shape[0], -1, np.int64)
        if self.category_offsets is None:
            self.category_offsets = np.zeros(self.node_count + 1, np.int64)
            self.category_codes = np.zeros(0, np.int64)
            self.category_goes_left = np.zeros(0, np.uint8)

    def saw_missing(self, node: int) -> bool:
        """Whether training rows at split `node` lacked its feature (True where unknown)."""
        return bool(self.n_node_missing[node] != 0)

    def categories_at(self, node: int) -> tuple[np.ndarray, np.ndarray]:
        """(codes, goes_left) of the categories `node` lists (views)."""
        lo, hi = self.category_offsets[node], self.category_offsets[node + 1]
        return self.category_codes[lo:hi], self.category_goes_left[lo:hi]

    def category_sets_of(self, nodes: np.ndarray, emptied: np.ndarray | None = None) -> dict:
        """The CATEGORY_ARRAYS of a tree made of `nodes` (ids, in its order), with the
        sets of the nodes `emptied` marks (a mask over `nodes`) left out."""
        counts = np.diff(self.category_offsets)[nodes]
        if emptied is not None:
            counts = np.where(emptied, 0, counts)
        return gather_sets(self.category_offsets[nodes], counts, self.category_codes,
                           self.category_goes_left)

    @property
    def node_count(self) -> int:
        return int(self.children_left.shape[0])

    @property
    def n_leaves(self) -> int:
        return int(np.count_nonzero(self.children_left == TREE_LEAF))

    @property
    def weighted_n_node_samples(self) -> np.ndarray:
        return self.counts.sum(axis=1)

    @property
    def value(self) -> np.ndarray:
        """scikit-learn's `tree_.value` (since 1.4): `class_fractions(counts)`."""
        return class_fractions(self.counts)

    @property
    def depth(self) -> np.ndarray:
        """Depth of every node (root = 0)."""
        depth = np.zeros(self.node_count, dtype=np.int64)
        level, below = np.zeros(1, np.int64), 0  # one level of nodes at a time
        while level.shape[0]:
            split = level[self.children_left[level] != TREE_LEAF]
            level = np.concatenate((self.children_left[split], self.children_right[split]))
            below += 1
            depth[level] = below
        return depth

    @property
    def max_depth(self) -> int:
        return int(self.depth.max())

    @cached_property
    def parent(self) -> np.ndarray:
        """Parent of every node; TREE_LEAF for the root (read-only)."""
        parent = np.full(self.node_count, TREE_LEAF, dtype=np.int64)
        split = np.flatnonzero(self.children_left != TREE_LEAF)
        parent[self.children_left[split]] = split
        parent[self.children_right[split]] = split
        parent.flags.writeable = False
        return parent

    def decision_path(self, leaves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The nodes from the root to each of `leaves` in CSR form (indptr, indices):
        path i is indices[indptr[i]:indptr[i + 1]], in increasing node id."""
        indptr = np.zeros(leaves.shape[0] + 1, dtype=np.int64)
        np.cumsum(self.depth[leaves] + 1, out=indptr[1:])
        indices = np.empty(indptr[-1], dtype=np.int64)
        # fill every path from its end: the leaf, its parent, ... up to the root
        slot, node = indptr[1:] - 1, leaves
        while node.shape[0]:
            indices[slot] = node
            below_root = node != 0
            slot, node = slot[below_root] - 1, self.parent[node[below_root]]
        return indptr, indices

    def feature_importances(self, n_features: int) -> np.ndarray:
        """Per feature, the sum over the nodes split on it of weighted_n_node_samples
        times `score`, normalised to sum to 1 (zeros if nothing scored)."""
        split = self.children_left != TREE_LEAF
        total = np.bincount(self.feature[split], minlength=n_features,
                            weights=self.weighted_n_node_samples[split] * self.score[split])
        return total / total.sum() if total.sum() > 0 else total

    def is_leaf(self, node: int) -> bool:
        return self.children_left[node] == TREE_LEAF

    def apply(self, X: np.ndarray, is_nominal: np.ndarray, n_threads: int = 1) -> np.ndarray:
        """Leaf index of every row of X (float64, NaN = missing)."""
        from dtcli.engine.predict import apply_rows
        from dtcli.jit.threads import run_chunks

        X = np.ascontiguousarray(X, dtype=np.float64)
        leaves = np.empty(X.shape[0], dtype=np.int64)
        walk = self._walk(is_nominal)
        run_chunks(apply_rows, X.shape[0], n_threads, X.size, X, walk.nodes, walk.node_id,
                   walk.categories, leaves)
        return leaves

    def _walk(self, is_nominal: np.ndarray):
        """The tree packed for `engine.predict.apply_rows`, built once per nominal mask."""
        from dtcli.engine.predict import pack

        key = np.asarray(is_nominal, dtype=np.uint8).tobytes()
        if key not in self._walks:
            self._walks[key] = pack(self, np.frombuffer(key, dtype=np.uint8))
        return self._walks[key]

    @cached_property
    def node_proba(self) -> np.ndarray:
        """Class probabilities of every node: its counts normalised (read-only)."""
        totals = self.counts.sum(axis=1, keepdims=True)
        n_classes = self.counts.shape[1]
        with np.errstate(invalid="ignore", divide="ignore"):
            proba = np.where(totals > 0, self.counts / totals, 1.0 / n_classes)
        proba.flags.writeable = False
        return proba

    @cached_property
    def is_weighted(self) -> bool:
        """Whether the class counts are weights rather than rows: a forest's tree
        (bootstrap multiplicities), or a tree fitted with row or class weights. Kept:
        exports ask at every node."""
        return not np.allclose(self.counts.sum(axis=1), self.n_node_samples, rtol=1e-9,
                               atol=1e-9)

    def training_accuracy(self) -> float:
        """Accuracy on the rows the tree was grown from, read off its leaves: each
        training row reaches the leaf that counted it, so the rows of a leaf's
        predicted class are the ones predicted right (weighted by sample weight if
        the fit had weights). What predict on those rows would score, without
        predicting."""
        leaves = self.children_left == TREE_LEAF
        counts = self.counts[leaves]
        right = counts[np.arange(counts.shape[0]), self.node_class[leaves]].sum()
        return float(right / counts.sum())

    @cached_property
    def node_class(self) -> np.ndarray:
        """Index of every node's predicted class (ties as argmax of `node_proba`; read-only)."""
        classes = np.argmax(self.node_proba, axis=1)
        classes.flags.writeable = False
        return classes


def gather_sets(starts: np.ndarray, counts: np.ndarray, codes: np.ndarray,
                goes_left: np.ndarray) -> dict:
    """Tree's CATEGORY_ARRAYS for nodes whose categories are codes[starts[i]:][:counts[i]]
    (and goes_left alike)."""
    offsets = np.zeros(counts.shape[0] + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    take = np.repeat(starts - offsets[:-1], counts) + np.arange(offsets[-1])
    return {"category_offsets": offsets,
            "category_codes": np.ascontiguousarray(codes[take], dtype=np.int64),
            "category_goes_left": np.ascontiguousarray(goes_left[take], dtype=np.uint8)}
