"""`dtree export -f pmml` of a J48 tree (`J48Classifier.to_pmml`): a PMML 4.4 TreeModel
with one child per branch (`lessOrEqual` / `greaterThan`, `equal` per category, or
`equal` / `notEqual` for a binary nominal split) and
missingValueStrategy="weightedConfidence": a row missing the split's value goes down
every branch and the branches' confidences are weighted by their recordCount,
C4.5's fractional routing (tree.py's `proba`). A branch that received no training
weight holds what J48 predicts there (its parent's class frequencies, or its own
where it has some). The document around the nodes is dtcli/export/pmml.py's.
"""
from __future__ import annotations

from xml.sax.saxutils import quoteattr

import numpy as np

from dtcli.c45.split import MULTIWAY, NUMERIC, SMALL
from dtcli.c45.tree import _probs
from dtcli.export.pmml import distribution, document, node_element, number


def render(model) -> str:
    model._check_fitted()
    return document(model, [str(c) for c in model.classes_], _j48_nodes(model),
                    "weightedConfidence", "multiSplit")


def _j48_nodes(model) -> str:
    tree = model.tree_
    classes = [str(c) for c in model.tree_classes_]
    laplace = model.leaf_estimate == "laplace"
    features = model.features_

    def walk(at: int, predicate: str, record_count: float, probs, pad: str) -> str:
        if probs is not None or tree.feature[at] < 0:  # an empty branch, or a leaf
            probs = _probs(tree.counts[at], laplace) if probs is None else probs
            score = classes[int(np.argmax(probs))]
            return node_element(at, score, record_count, predicate,
                             distribution(classes, tree.counts[at], probs, pad + "  "), pad)
        start = tree.child_offsets[at]
        kids = tree.branches(at)
        bags = tree.branch_counts[start:start + kids.shape[0]]
        own = _probs(bags.sum(axis=0), laplace)
        feature = features[tree.feature[at]]
        inner = ""
        for b, child in enumerate(kids):
            empty = None
            if tree.empty[child]:
                empty = _probs(bags[b], laplace) if bags[b].sum() > SMALL else own
            inner += walk(int(child), _j48_predicate(tree, at, b, feature),
                          float(bags[b].sum()), empty, pad + "  ")
        score = classes[int(np.argmax(tree.counts[at]))]
        return node_element(at, score, record_count, predicate, inner, pad)

    return walk(0, "<True/>", float(tree.counts[0].sum()), None, "    ")


def _j48_predicate(tree, node: int, branch: int, feature) -> str:
    name = quoteattr(feature.name)
    kind, threshold = int(tree.kind[node]), float(tree.threshold[node])
    if kind == NUMERIC:
        operator = "lessOrEqual" if branch == 0 else "greaterThan"
        return f'<SimplePredicate field={name} operator="{operator}" value="{number(threshold)}"/>'
    if kind == MULTIWAY:
        value = feature.categories[branch]
        return f'<SimplePredicate field={name} operator="equal" value={quoteattr(value)}/>'
    operator = "equal" if branch == 0 else "notEqual"
    value = feature.categories[int(threshold)]
    return f'<SimplePredicate field={name} operator="{operator}" value={quoteattr(value)}/>'
