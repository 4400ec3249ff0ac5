"""Words for a split test and a node's contents, shared by every export format."""
from __future__ import annotations

import math

import numpy as np

from dtcli.io.dataset import NOMINAL


def number(x: float) -> str:
    return f"{x:.6g}"


def split_test(model, node: int, left: bool = True) -> str:
    """The test that sends a row to the left (or right) child of `node`.

    Where missing values go is left out for readability (the JSON export
    has it per node as `missing_left`; the rules say it), except for
    present/missing splits.
    """
    tree = model.tree_
    feature = model.features_[tree.feature[node]]
    if feature.kind == NOMINAL:
        chosen = tree.category_left[node] == (1 if left else 0)
        cats = [c for i, c in enumerate(feature.categories) if chosen[i]]
        return f"{feature.name} in {{{', '.join(cats)}}}"
    if math.isinf(tree.threshold[node]):
        return f"{feature.name} is present" if left else f"{feature.name} is missing"
    return f"{feature.name} {'<=' if left else '>'} {number(tree.threshold[node])}"


def class_counts(model, node: int) -> str:
    counts = model.tree_.value[node]
    return ", ".join(f"{label}: {number(c)}" for label, c in zip(model.classes_, counts))


def majority(model, node: int) -> str:
    return str(model.classes_[int(np.argmax(model.tree_.value[node]))])
