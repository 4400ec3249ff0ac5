"""What the tests above a node allow of each feature, walked without recursion.

A path is a dict {feature index: Bounds}, in the order of each feature's first
test. Narrowing merges the tests of one feature, so a path holds at most one
entry per feature: walking a tree costs time and space linear in its size
(times the number of features tested on a path), not in the sum of its depths.
"""
from __future__ import annotations

import math
from typing import Iterator, NamedTuple

from dtcli.io.dataset import NOMINAL


class Bounds(NamedTuple):
    """What a path allows of one feature: values in (low, high] (or the category
    indices in `categories`, None for all), values at all, missing values, and whether
    training rows missing it took this path (`missing_seen`: every test of the feature
    on the path saw some; where none did, a rule does not mention missing values)."""

    low: float = -math.inf
    high: float = math.inf
    categories: frozenset | None = None
    values: bool = True
    missing: bool = True
    missing_seen: bool = True

    @property
    def says_missing(self) -> bool:
        """Whether a rule says "(or missing)": missing values pass, as in training."""
        return self.missing and self.missing_seen


ANYTHING = Bounds()


def narrow(model, bounds: Bounds, node: int, left: bool) -> Bounds:
    """`bounds` of the split feature of `node` after going to its left or right child."""
    tree = model.tree_
    threshold = tree.threshold[node]
    bounds = bounds._replace(missing_seen=bounds.missing_seen and tree.saw_missing(node))
    if model.features_[tree.feature[node]].kind == NOMINAL:
        codes, goes_left = tree.categories_at(node)
        sent = frozenset(codes[goes_left == (1 if left else 0)].tolist())
        categories = sent if bounds.categories is None else bounds.categories & sent
        bounds = bounds._replace(categories=categories)
    elif math.isinf(threshold):  # present (left) versus missing (right)
        return bounds._replace(missing=False) if left else bounds._replace(values=False)
    elif left:
        bounds = bounds._replace(high=min(bounds.high, threshold))
    else:
        bounds = bounds._replace(low=max(bounds.low, threshold))
    return bounds._replace(missing=bounds.missing and bool(tree.missing_left[node]) == left)


def depth_first(model) -> Iterator[tuple[int, dict[int, Bounds]]]:
    """Every node with the path that reaches it, in depth-first order, left child first."""
    tree = model.tree_
    stack: list[tuple[int, dict[int, Bounds]]] = [(0, {})]
    while stack:
        node, path = stack.pop()
        yield node, path
        if tree.children_left[node] < 0:
            continue
        feature = int(tree.feature[node])
        bounds = path.get(feature, ANYTHING)
        for child, left in ((tree.children_right[node], False), (tree.children_left[node], True)):
            stack.append((child, {**path, feature: narrow(model, bounds, node, left)}))


def split_bounds(model) -> list[Bounds | None]:
    """For every split node, what the tests above it allow of its own split feature
    (None on leaves)."""
    tree = model.tree_
    found: list[Bounds | None] = [None] * tree.node_count
    for node, path in depth_first(model):
        if tree.children_left[node] >= 0:
            found[node] = path.get(int(tree.feature[node]), ANYTHING)
    return found
