"""One if-then rule per leaf, in depth-first order, with its coverage and confidence.

Each condition says which side takes the missing values ("(or missing)";
unseen nominal values count as missing) where training rows missing the
feature took that path (the model file records, per split, how many of its
rows lacked its feature: `n_node_missing`). A split that saw none in training
sends missing values to its larger child; its rules do not mention them (in a
model file from before dtree recorded it, every condition says where they go).
The tests on one feature along a path are merged into at most a lower
and an upper bound, or one set of categories (`paths`): a rule stays as long
as the number of features it tests, not the depth of its leaf, so the rules
of any tree take time and space linear in its size.

Coverage is the number of training rows that reached the leaf; confidence is
its predicted class's share of the leaf's (weighted) class counts, which
follow, the non-zero ones only.

A feature name, category or class label that holds a line break, a comma, a
brace, a double quote or another control character, or starts or ends with a
space, is written as a JSON string ("a, b"), so that a rule is one line and
reads one way; other names are written as they are.
"""
from __future__ import annotations

import dataclasses
import json
import math
import re
from typing import Iterator

import numpy as np

from dtcli.export.describe import (bound_test, category_test, confidence, leaf_model_note,
                                   number, percent)
from dtcli.export.paths import Bounds, depth_first


def _conditions(feature, bounds: Bounds) -> list[str]:
    name = feature.name
    if not bounds.values:
        return [f"{name} is missing"] + ([] if bounds.missing else [f"{name} is present"])
    if bounds.categories is not None:
        return [category_test(feature, bounds.categories, bounds.says_missing)]
    tests = ([bound_test(name, ">", bounds.low, bounds.says_missing)] if bounds.low > -math.inf
             else []) + ([bound_test(name, "<=", bounds.high, bounds.says_missing)]
                         if bounds.high < math.inf else [])
    return tests or ([] if bounds.missing else [f"{name} is present"])


_NEEDS_QUOTES = re.compile(r'[\x00-\x1f\x7f,{}"]|^\s|\s$|^$')


def quoted(text: str) -> str:
    """`text`, or a JSON string of it where it could break or blur a rule (module doc)."""
    return json.dumps(text, ensure_ascii=False) if _NEEDS_QUOTES.search(text) else text


def _rule(model, features, classes, node: int, path: dict[int, Bounds]) -> str:
    conditions = [c for f, bounds in path.items() for c in _conditions(features[f], bounds)]
    note = leaf_model_note(model, node)
    tree = model.tree_
    value = tree.counts[node]
    counts = ", ".join(f"{classes[k]}: {number(value[k])}" for k in np.flatnonzero(value))
    return (f"if {' and '.join(conditions) or 'true'} then {classes[tree.node_class[node]]}"
            f"  (coverage {tree.n_node_samples[node]}, "
            f"confidence {percent(confidence(model, node))})"
            f"  [{counts}]" + (f"  {note}" if note else ""))


def lines(model) -> Iterator[str]:
    """The rules, one line each (ending in a newline), made as they are written."""
    features = [dataclasses.replace(f, name=quoted(f.name),
                                    categories=tuple(quoted(c) for c in f.categories))
                for f in model.features_]
    classes = [quoted(str(c)) for c in model.classes_]
    leaves = model.tree_.children_left < 0
    return (_rule(model, features, classes, node, path) + "\n"
            for node, path in depth_first(model) if leaves[node])


def render(model) -> str:
    return "".join(lines(model))
