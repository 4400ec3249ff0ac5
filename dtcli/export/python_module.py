"""`-f python`: a dependency-free Python module scoring one row (a dict by the original
column names; category strings as in the data; None or NaN for a missing value).

The trees are tables the module walks, not nested `if`s: a deep tree stays within
Python's nesting limits, and a forest's module grows with its nodes only. The
arithmetic is dtree's (flat.py), so probabilities equal `dtree predict --proba`'s.
"""
from __future__ import annotations

from dtcli._version import __version__
from dtcli.export.flat import FlatModel, FlatTree, float_literal

_WALK = '''

def _leaf(tree, row):
    true_child, false_child, column, threshold, members, missing_true, leaf = tree
    node = 0
    while true_child[node] >= 0:
        value = row[column[node]]
        if members[node] is not None:
            goes_true = value in members[node]
        elif value is None or value != value:  # missing (None or NaN)
            goes_true = missing_true[node]
        else:
            goes_true = value <= threshold[node]
        node = true_child[node] if goes_true else false_child[node]
    return leaf[node]


def predict_proba(row):
    """Each class label's probability for `row` (a dict by column name)."""
    total = [0.0] * len(CLASSES)
    for group in GROUPS:
        part = [0.0] * len(CLASSES)
        for index in group:
            leaf = _leaf(TREES[index], row)
            for k in range(len(CLASSES)):
                part[k] += leaf[k]
        for k in range(len(CLASSES)):
            total[k] += part[k]
    return {label: total[k] / len(TREES) for k, label in enumerate(CLASSES)}


def predict(row):
    """The class label of highest probability (the first such class on a tie), or with
    a DECISION (positive label, threshold) the positive label where its probability is
    at least the threshold, else the other."""
    proba = predict_proba(row)
    if DECISION is not None:
        positive, threshold = DECISION
        return positive if proba[positive] >= threshold else \
            next(label for label in CLASSES if label != positive)
    return max(CLASSES, key=lambda label: (proba[label], -CLASSES.index(label)))
'''


def render(model: FlatModel) -> str:
    names = [f.name for f in model.features]
    lines = [f'"""A {model.kind} exported by dtree {__version__} (dtree export -f python).',
             "",
             "predict_proba(row) -> {class label: probability}; predict(row) -> label."
             + ("" if model.decision is None else f" predict: {model.label_rule()}."),
             "`row` maps each feature's column name to its value: a number, a category",
             "string as it appears in the data, or None for a missing value. A category",
             "the model never saw goes where the tree sends missing values.",
             '"""',
             "",
             f"FEATURES = {names!r}",
             f"CLASSES = {model.classes!r}",
             f"GROUPS = {[list(g) for g in model.tree_groups()]!r}",
             "# predict's decision threshold: (positive label, threshold), or None for the",
             "# most probable class",
             "DECISION = " + ("None" if model.decision is None else
                              f"({model.classes[model.decision[0]]!r}, "
                              f"{_float(model.decision[1])})"),
             "",
             "# per tree: true child, false child (-1 on leaves), column, threshold (x <= t),",
             "# category set (None on numeric splits), missing goes true, leaf probabilities",
             "TREES = ["]
    lines += [f"    {_tree(tree, model):s}," for tree in model.trees]
    lines.append("]")
    return "\n".join(lines) + _WALK


def _tree(flat: FlatTree, model: FlatModel) -> str:
    tree = flat.lists()
    names = [f.name for f in model.features]
    columns = [None if leaf else names[f] for leaf, f in zip(tree.is_leaf, tree.feature)]
    members, thresholds, leaves = [], [], []
    for i, leaf in enumerate(tree.is_leaf):
        codes = tree.codes[i]
        if codes:
            categories = model.features[tree.feature[i]].categories
            members.append("frozenset(" + repr(sorted(categories[c] for c in codes)) + ")")
        else:
            members.append("None")
        thresholds.append("None" if leaf or codes else _float(tree.threshold[i]))
        leaves.append("(" + "".join(_float(p) + ", " for p in tree.proba[i]) + ")" if leaf
                      else "None")
    return ("(" + repr(tree.true_child) + ", " + repr(tree.false_child) + ", " + repr(columns)
            + ", [" + ", ".join(thresholds) + "], [" + ", ".join(members) + "], "
            + repr(tree.missing_true) + ", [" + ", ".join(leaves) + "])")


def _float(x: float) -> str:
    return float_literal(x, "float('inf')")
