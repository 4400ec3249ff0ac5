"""Words for a split test and a node's contents, shared by every export format."""
from __future__ import annotations

import math

import numpy as np

from dtcli.io.dataset import NOMINAL


def _number(x: float) -> str:
    return f"{x:.6g}"


def split_test(model, node: int, left: bool = True, missing: bool = False) -> str:
    """The test that sends a row to the left (or right) child of `node`.

    Where missing values go is left out for readability (the JSON export
    has it per node as `missing_left`), except for present/missing splits;
    with `missing=True` the side that takes them says "(or missing)", which
    makes the test exact (unseen nominal values count as missing).
    """
    tree = model.tree_
    feature = model.features_[tree.feature[node]]
    if feature.kind == NOMINAL:
        chosen = tree.category_left[node] == (1 if left else 0)
        cats = [c for i, c in enumerate(feature.categories) if chosen[i]]
        test = f"{feature.name} in {{{', '.join(cats)}}}"
    elif math.isinf(tree.threshold[node]):
        return f"{feature.name} is present" if left else f"{feature.name} is missing"
    else:
        test = f"{feature.name} {'<=' if left else '>'} {_number(tree.threshold[node])}"
    if missing and bool(tree.missing_left[node]) == left:
        test += " (or missing)"
    return test


def class_counts(model, node: int) -> str:
    counts = model.tree_.value[node]
    return ", ".join(f"{label}: {_number(c)}" for label, c in zip(model.classes_, counts))


def majority(model, node: int) -> str:
    return str(model.classes_[int(np.argmax(model.tree_.value[node]))])


def walk(model):
    """Depth-first (node, depth, path) with path the list of (parent, went_left)."""
    tree = model.tree_
    stack = [(0, 0, [])]
    while stack:
        node, depth, path = stack.pop()
        yield node, depth, path
        if tree.children_left[node] >= 0:
            stack.append((tree.children_right[node], depth + 1, path + [(node, False)]))
            stack.append((tree.children_left[node], depth + 1, path + [(node, True)]))
