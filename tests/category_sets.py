"""The dense form of a tree's category sets, as the engine kept them before they were
sparse: one row per node, one column per category of the widest nominal feature; a
nominal split's row holds, for each category of its feature, 1 if it goes left (a
category the node did not list goes where missing values go), and 0 beyond its
feature's categories; every other row is 0. Tests compare trees through it."""
from __future__ import annotations

import numpy as np


def dense_category_left(tree, n_categories: np.ndarray, is_nominal: np.ndarray) -> np.ndarray:
    """uint8 (node_count, widest nominal feature's categories)."""
    n_categories = np.asarray(n_categories, np.int64)
    is_nominal = np.asarray(is_nominal, bool)
    width = int(n_categories[is_nominal].max(initial=0))
    dense = np.zeros((tree.node_count, width), np.uint8)
    for node in np.flatnonzero(tree.children_left >= 0):
        f = tree.feature[node]
        if is_nominal[f]:
            dense[node, :n_categories[f]] = tree.missing_left[node]
            codes, goes_left = tree.categories_at(node)
            dense[node, codes] = goes_left
    return dense


def goes_left(tree, node: int, category: int) -> int:
    """1 if `node` sends `category` left, else 0, from the documented semantics: a
    category the node does not list goes where missing values go."""
    codes, sides = tree.categories_at(node)
    listed = list(codes).index(category) if category in codes else -1
    return int(sides[listed]) if listed >= 0 else int(tree.missing_left[node])


def sets_listing_every_category(category_left: np.ndarray, nominal_nodes) -> dict:
    """Tree's category arrays in which each of `nominal_nodes` lists every column of its
    row of the dense `category_left` (1 left, 0 right); other nodes list nothing."""
    n, width = category_left.shape
    counts = np.zeros(n, np.int64)
    counts[list(nominal_nodes)] = width
    rows = np.repeat(np.arange(n), counts)
    return {"category_offsets": np.r_[0, np.cumsum(counts)].astype(np.int64),
            "category_codes": np.tile(np.arange(width), len(nominal_nodes)).astype(np.int64),
            "category_goes_left": category_left[rows, np.tile(np.arange(width),
                                                              len(nominal_nodes))]}
