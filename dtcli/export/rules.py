"""One if-then rule per leaf, in depth-first order.

Each condition says which side takes the missing values ("(or missing)";
unseen nominal values count as missing), so the rules route every row
exactly as the tree does. The tests on one feature along a path are merged
into at most a lower and an upper bound, or one set of categories: a rule
stays as long as the number of features it tests, not the depth of its
leaf, so the rules of any tree take time and space linear in its size.
"""
from __future__ import annotations

import math
from typing import NamedTuple

from dtcli.export.describe import class_counts, majority, number
from dtcli.io.dataset import NOMINAL


class _Bounds(NamedTuple):
    """What a path allows of one feature: values in (low, high] (or the categories in
    `categories`, None for all), values at all, missing values."""

    low: float = -math.inf
    high: float = math.inf
    categories: frozenset | None = None
    values: bool = True
    missing: bool = True


def _narrow(model, bounds: _Bounds, node: int, left: bool) -> _Bounds:
    """`bounds` of the split feature of `node` after going to its left or right child."""
    tree = model.tree_
    threshold = tree.threshold[node]
    if model.features_[tree.feature[node]].kind == NOMINAL:
        sent = frozenset((tree.category_left[node] == (1 if left else 0)).nonzero()[0].tolist())
        categories = sent if bounds.categories is None else bounds.categories & sent
        bounds = bounds._replace(categories=categories)
    elif math.isinf(threshold):  # present (left) versus missing (right)
        return bounds._replace(missing=False) if left else bounds._replace(values=False)
    elif left:
        bounds = bounds._replace(high=min(bounds.high, threshold))
    else:
        bounds = bounds._replace(low=max(bounds.low, threshold))
    return bounds._replace(missing=bounds.missing and bool(tree.missing_left[node]) == left)


def _conditions(feature, bounds: _Bounds) -> list[str]:
    name = feature.name
    if not bounds.values:
        return [f"{name} is missing"] + ([] if bounds.missing else [f"{name} is present"])
    suffix = " (or missing)" if bounds.missing else ""
    if feature.kind == NOMINAL:
        chosen = [c for i, c in enumerate(feature.categories) if i in bounds.categories]
        return [f"{name} in {{{', '.join(chosen)}}}{suffix}"]
    tests = ([f"{name} > {number(bounds.low)}{suffix}"] if bounds.low > -math.inf else []) + (
        [f"{name} <= {number(bounds.high)}{suffix}"] if bounds.high < math.inf else [])
    return tests or ([] if bounds.missing else [f"{name} is present"])


def _rule(model, node: int, path: dict[int, _Bounds]) -> str:
    conditions = [c for f, bounds in path.items()
                  for c in _conditions(model.features_[f], bounds)]
    return (f"if {' and '.join(conditions) or 'true'} then {majority(model, node)}"
            f"  [{class_counts(model, node)}]")


def render(model) -> str:
    tree = model.tree_
    lines = []
    # (node, bounds per feature tested on the way, in the order of their first test)
    stack: list[tuple[int, dict[int, _Bounds]]] = [(0, {})]
    while stack:
        node, path = stack.pop()
        if tree.children_left[node] < 0:
            lines.append(_rule(model, node, path))
            continue
        feature = int(tree.feature[node])
        bounds = path.get(feature, _Bounds())
        for child, left in ((tree.children_right[node], False), (tree.children_left[node], True)):
            stack.append((child, {**path, feature: _narrow(model, bounds, node, left)}))
    return "\n".join(lines) + "\n"
