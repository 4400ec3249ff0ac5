"""Prediction's packed walk against a plain one-row-at-a-time walk, on random trees.

The trees are drawn directly as parallel arrays, with node ids in a random
order (children neither adjacent nor in breadth-first order), numeric and
nominal splits listing random subsets of the categories (sparse sets), thresholds
of +-inf, and rows with missing values and categories the tree never saw. The
plain walk reads the sets' dense form (tests/category_sets.py): a brute-force
check of the binary search in the sparse sets.
"""
import math

import numpy as np
import pytest
from category_sets import dense_category_left

from dtcli.engine.predict import apply_rows, pack
from dtcli.engine.tree import TREE_LEAF, TREE_UNDEFINED, Tree

N_FEATURES = 4
MAX_CATEGORIES = 5


def random_tree(rng, n_internal: int, is_nominal: np.ndarray) -> Tree:
    """A random valid tree of 2 * n_internal + 1 nodes; every child's id exceeds its parent's."""
    # grow the shape: split a random current leaf n_internal times
    kids = {0: None}
    for _ in range(n_internal):
        leaf = int(rng.choice([node for node, k in kids.items() if k is None]))
        left, right = len(kids), len(kids) + 1
        kids[leaf] = (left, right)
        kids[left] = kids[right] = None
    # number the nodes in a random order that still puts parents first
    ids, frontier = {}, [0]
    while frontier:
        node = frontier.pop(int(rng.integers(len(frontier))))
        ids[node] = len(ids)
        frontier += list(kids[node] or ())
    n = len(kids)
    tree = Tree(children_left=np.full(n, TREE_LEAF), children_right=np.full(n, TREE_LEAF),
                feature=np.full(n, TREE_UNDEFINED), threshold=np.full(n, np.nan),
                missing_left=np.zeros(n, np.uint8),
                counts=np.ones((n, 2)), n_node_samples=np.ones(n, np.int64),
                score=np.full(n, np.nan))
    listed = [np.zeros(0, np.int64)] * n  # per node, its categories (a random subset)
    for node, children in kids.items():
        if children is None:
            continue
        i = ids[node]
        tree.children_left[i], tree.children_right[i] = ids[children[0]], ids[children[1]]
        tree.feature[i] = f = rng.integers(N_FEATURES)
        tree.missing_left[i] = rng.integers(2)
        if is_nominal[f]:
            listed[i] = np.flatnonzero(rng.random(MAX_CATEGORIES) < rng.random())
        else:
            tree.threshold[i] = rng.choice([-np.inf, np.inf, *rng.normal(size=6).round(1)])
    counts = np.array([codes.shape[0] for codes in listed], np.int64)
    tree.category_offsets = np.r_[0, np.cumsum(counts)].astype(np.int64)
    tree.category_codes = np.concatenate(listed).astype(np.int64)
    tree.category_goes_left = rng.integers(0, 2, counts.sum()).astype(np.uint8)
    return tree


def random_rows(rng, n: int, is_nominal: np.ndarray) -> np.ndarray:
    """Rows on the thresholds' scale with some infinite, a fifth missing; nominal values
    include unseen ones."""
    X = rng.normal(size=(n, N_FEATURES)).round(1)
    X[rng.random((n, N_FEATURES)) < 0.05] = np.inf
    categories = rng.integers(-1, MAX_CATEGORIES + 2, (n, N_FEATURES)).astype(np.float64)
    X[:, is_nominal == 1] = categories[:, is_nominal == 1]
    X[rng.random((n, N_FEATURES)) < 0.2] = np.nan
    return X


def reference_leaf(tree: Tree, is_nominal: np.ndarray, row: np.ndarray) -> int:
    """The documented routing, one node at a time, by the dense form of the sets (a
    category a node does not list goes where missing values go)."""
    category_left = dense_category_left(tree, np.full(N_FEATURES, MAX_CATEGORIES), is_nominal)
    node = 0
    while tree.children_left[node] != TREE_LEAF:
        f = tree.feature[node]
        value = row[f]
        if math.isnan(value):
            left = tree.missing_left[node] == 1
        elif is_nominal[f]:
            seen = 0 <= value < MAX_CATEGORIES
            left = (category_left[node, int(value)] == 1 if seen
                    else tree.missing_left[node] == 1)  # unseen: where missing values go
        else:
            left = value <= tree.threshold[node]
        node = tree.children_left[node] if left else tree.children_right[node]
    return node


@pytest.mark.parametrize("seed", range(20))
def test_packed_walk_matches_the_reference_walk(seed):
    rng = np.random.default_rng(seed)
    is_nominal = (rng.random(N_FEATURES) < 0.5).astype(np.uint8)
    tree = random_tree(rng, int(rng.integers(0, 60)), is_nominal)
    X = random_rows(rng, 300, is_nominal)
    expected = [reference_leaf(tree, is_nominal, row) for row in X]
    np.testing.assert_array_equal(tree.apply(X, is_nominal), expected)


@pytest.mark.parametrize("seed", range(5))
def test_leaves_do_not_depend_on_how_rows_are_chunked(seed):
    rng = np.random.default_rng(seed)
    is_nominal = (rng.random(N_FEATURES) < 0.5).astype(np.uint8)
    tree = random_tree(rng, 200, is_nominal)
    X = random_rows(rng, 1000, is_nominal)
    walk = pack(tree, is_nominal)
    whole = tree.apply(X, is_nominal)
    # chunks shorter than the lanes, and chunks whose lanes refill many times
    bounds = np.unique(np.r_[0, rng.integers(0, len(X), 12), len(X)])
    chunked = np.empty(len(X), np.int64)
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        apply_rows(X, walk.nodes, walk.node_id, walk.categories, chunked, lo, hi)
    np.testing.assert_array_equal(chunked, whole)
    big = np.repeat(X, 100, axis=0)  # enough work for the threads to share it
    np.testing.assert_array_equal(tree.apply(big, is_nominal, n_threads=3),
                                  np.repeat(whole, 100))


def test_a_single_leaf_takes_every_row():
    rng = np.random.default_rng(0)
    is_nominal = np.array([1, 0, 0, 0], np.uint8)  # a leaf's record names feature 0
    tree = random_tree(rng, 0, is_nominal)
    X = random_rows(rng, 50, is_nominal)
    np.testing.assert_array_equal(tree.apply(X, is_nominal), np.zeros(50))
