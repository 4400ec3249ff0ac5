"""Nominal splits' category sets in model files, in both layouts (docs/model-format.md).

Format 3 (files of models with a nominal feature) stores a tree's sets as in memory
(tree.py): `category_offsets`, `category_codes` (sorted within a node) and
`category_goes_left`, listing the categories each nominal split saw in training; a
category not listed goes where missing values go. Older readers would misread that
(they take an unlisted category as going right), hence the version.

Formats 1 and 2 stored every category's side: `left_categories` per node in tree
files, a dense `category_left` (nodes x widest feature's categories) in forests;
every category not marked left goes right. `from_left_lists` turns those into the
sets that route every row alike: a node lists every category of its feature when
they are few beside its left list (LIST_ALL_SLACK: files of features with few
categories export as before), and otherwise only the categories whose side differs
from the missing values' (in a file written by dtree, whose unseen categories went
where missing values go, at most the node's training rows); a file that would need
more than that is refused as damaged.
"""
from __future__ import annotations

import numpy as np

from dtcli.io.dataset import NOMINAL
from dtcli.engine.tree import TREE_LEAF, Tree

SPARSE_VERSION = 3  # the first format version with sparse category sets
# A format 1-2 node lists every category of its feature when there are at most twice
# its left categories plus this many: memory in proportion to the file.
LIST_ALL_SLACK = 64
NAMES = Tree.CATEGORY_ARRAYS


def uses_sparse_layout(features) -> bool:
    """Whether a model over `features` is written in format 3's layout."""
    return any(f.kind == NOMINAL for f in features)


def nominal_splits(left: np.ndarray, feature: np.ndarray, features) -> np.ndarray:
    """Mask of the split nodes whose feature is nominal (features checked in range)."""
    nominal = np.array([f.kind == NOMINAL for f in features], bool)
    return (left != TREE_LEAF) & nominal[np.where(left != TREE_LEAF, feature, 0)]


def check_sets(offsets: np.ndarray, codes: np.ndarray, goes_left: np.ndarray,
               left: np.ndarray, feature: np.ndarray, features, fail) -> dict:
    """Tree's CATEGORY_ARRAYS after checking them (format 3); `fail(message)` raises.
    Offsets start at 0, never decrease and end at the number of codes; only nominal
    splits list categories, at least one each, of their feature, sorted, each once;
    sides are 0 or 1."""
    n = left.shape[0]
    if offsets.shape != (n + 1,) or codes.ndim != 1 or goes_left.shape != codes.shape:
        fail(f"category_offsets must hold node_count + 1 ({n + 1}) offsets and "
             "category_codes and category_goes_left one value per listed category")
    counts = np.diff(offsets)
    if offsets[0] != 0 or (counts < 0).any() or offsets[-1] != codes.shape[0]:
        fail("category_offsets must start at 0, never decrease and end at the number of "
             "category_codes")
    nominal = nominal_splits(left, feature, features)
    bad = (counts > 0) != nominal
    if bad.any():
        node = int(np.argmax(bad))
        fail(f"node {node}: " + ("a nominal split lists no category" if nominal[node]
                                 else "a leaf lists no categories" if left[node] == TREE_LEAF
                                 else "only a nominal split lists categories"))
    widths = np.array([len(f.categories) for f in features], np.int64)
    node_of = np.repeat(np.arange(n), counts)
    width = widths[feature[node_of]] if node_of.shape[0] else np.zeros(0, np.int64)
    bad = (codes < 0) | (codes >= width)
    bad[1:] |= (node_of[1:] == node_of[:-1]) & (codes[1:] <= codes[:-1])
    if bad.any():
        fail(f"node {int(node_of[np.argmax(bad)])}: category_codes must list categories of "
             "its feature, in increasing order, each once")
    if (goes_left > 1).any():
        fail("category_goes_left must hold 0 or 1")
    return dict(zip(NAMES, (offsets, codes, goes_left)))


def from_left_lists(left_lists, left: np.ndarray, feature: np.ndarray,
                    missing_left: np.ndarray, n_samples: np.ndarray, features, fail) -> dict:
    """Tree's CATEGORY_ARRAYS from formats 1-2: `left_lists` gives, for each nominal
    split in increasing node order, its sorted unique left category codes (checked in
    range of its feature). See the module docstring."""
    n = left.shape[0]
    counts = np.zeros(n, np.int64)
    codes, sides = [], []
    for node, listed in zip(np.flatnonzero(nominal_splits(left, feature, features)).tolist(),
                            left_lists):
        width = len(features[feature[node]].categories)
        if width <= 2 * listed.shape[0] + LIST_ALL_SLACK:  # every category, as before
            every = np.arange(width)
            side = np.isin(every, listed).astype(np.uint8)
        elif not missing_left[node]:  # the categories not going with missing values
            every, side = listed, np.ones(listed.shape[0], np.uint8)
        elif width - listed.shape[0] > n_samples[node]:
            fail(f"node {node}: sends {width - listed.shape[0]} categories right, more than "
                 f"its {n_samples[node]} training rows can have seen")
        else:  # (the bound makes this O(file size + rows))
            every = np.setdiff1d(np.arange(width), listed, assume_unique=True)
            side = np.zeros(every.shape[0], np.uint8)
        counts[node] = every.shape[0]
        codes.append(every)
        sides.append(side)
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    return dict(zip(NAMES, (offsets,
                            np.concatenate(codes or [np.zeros(0)]).astype(np.int64),
                            np.concatenate(sides or [np.zeros(0)]).astype(np.uint8))))


def from_dense(dense: np.ndarray, left: np.ndarray, feature: np.ndarray,
               missing_left: np.ndarray, features) -> dict:
    """Tree's CATEGORY_ARRAYS from a format 2 forest's dense `category_left` (checked),
    as `from_left_lists` makes them."""
    n, width = dense.shape
    widths = np.array([len(f.categories) for f in features], np.int64)
    nominal = nominal_splits(left, feature, features)
    own = np.where(nominal, widths[np.where(nominal, feature, 0)], 0)
    every = own <= 2 * dense.sum(axis=1, dtype=np.int64) + LIST_ALL_SLACK
    listed = (np.arange(width)[None, :] < own[:, None]) & (
        every[:, None] | (dense != missing_left[:, None]))
    nodes, codes = np.nonzero(listed)
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(nodes, minlength=n), out=offsets[1:])
    return dict(zip(NAMES, (offsets, codes.astype(np.int64), dense[nodes, codes].astype(np.uint8))))
