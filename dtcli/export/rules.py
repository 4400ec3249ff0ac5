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
"""
from __future__ import annotations

import math

from dtcli.export.describe import (bound_test, category_test, class_counts, confidence,
                                   leaf_model_note, majority, percent)
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


def _rule(model, node: int, path: dict[int, Bounds]) -> str:
    conditions = [c for f, bounds in path.items()
                  for c in _conditions(model.features_[f], bounds)]
    note = leaf_model_note(model, node)
    return (f"if {' and '.join(conditions) or 'true'} then {majority(model, node)}"
            f"  (coverage {model.tree_.n_node_samples[node]}, "
            f"confidence {percent(confidence(model, node))})"
            f"  {class_counts(model, node, summarise=False).plain}"
            + (f"  {note}" if note else ""))


def render(model) -> str:
    leaves = model.tree_.children_left < 0
    return "".join(_rule(model, node, path) + "\n" for node, path in depth_first(model)
                   if leaves[node])
