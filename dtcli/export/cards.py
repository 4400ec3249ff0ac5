"""Diagrams (`svg.Diagram`) of fitted models: a tree's nodes, and an FDF forest's rules.

A tree's split card shows its test (what sends a row left, "yes"; the edges say
"yes" and "no", and "(or missing)" on the side missing values take), its class
bar, its training rows, its non-zero class counts (or its majority share when
many classes are present) and, after S-pruning, its p-value. A leaf shows its
predicted class with the probability its leaf estimate gives it; a Naive Bayes
leaf says that it is a model and lists its priors. With `max_depth`, a split at
that depth keeps its card, dashed, with the size of the subtree it hides. The
tests and counts are worded as in the text export (`describe`).
"""
from __future__ import annotations

import numpy as np

from dtcli import leaf_estimate
from dtcli.export.describe import (OR_MISSING, WEIGHTED_NOTE, class_counts, condition,
                                   is_weighted, number, pruning_note, rows_text, split_test)
from dtcli.export.paths import split_bounds
from dtcli.export.svg import Card, Diagram
from dtcli.export.svgkit import wrap
from dtcli.export.text import subtree_sizes

WRAP = 42  # characters per line of a test or a list of counts
MAX_PRIORS = 6  # a Naive Bayes leaf lists this many priors, the largest first


def default_title(model) -> str:
    params = model.criterion_params or {}
    name = model.criterion + ("(" + ", ".join(f"{k}={v:g}" for k, v in params.items()) + ")"
                              if params else "")
    note = pruning_note({"pruning": getattr(model, "pruning_", None),
                         "leaf_estimate": {"name": model.leaf_estimate, "m": model.m}})
    return f"{name} tree{note}: {model.tree_.node_count} nodes"


def tree_diagram(model, title: str | None = None, max_depth: int | None = None) -> Diagram:
    """The diagram of a fitted tree (a DecisionTreeClassifier, or a forest's tree)."""
    tree = model.tree_
    notes = _notes(model, max_depth)
    bounds = split_bounds(model)
    estimate = leaf_estimate.node_proba(tree.counts, model.leaf_estimate, model.m)
    p_values = (getattr(model, "pruning_", None) or {}).get("p_values")
    depth = tree.depth
    sizes = subtree_sizes(tree) if max_depth is not None else None
    cards = [Card([]) for _ in range(tree.node_count)]  # nodes below a cut stay blank
    edges = [""] * tree.node_count
    stack = [0]
    while stack:
        node = stack.pop()
        if tree.children_left[node] < 0:
            cards[node] = _leaf(model, node, float(estimate[node, tree.node_class[node]]))
            continue
        tests = [split_test(model, node, left, bounds[node]) for left in (True, False)]
        cards[node] = card = _split(model, node, tests,
                                    None if p_values is None else p_values[node])
        children = (int(tree.children_left[node]), int(tree.children_right[node]))
        if max_depth is not None and depth[node] == max_depth:
            card.kind = "cut"
            card.lines.append(("note", f"{sizes[0][node] - 1} more nodes "
                                       f"({sizes[1][node]} leaves) not shown"))
            continue
        card.children = list(children)
        stack.extend(children)
        for child, test, word in zip(children, tests, ("yes", "no")):
            edges[child] = word + (OR_MISSING if test.endswith(OR_MISSING) else "")
    for card, edge in zip(cards, edges):
        card.edge = edge
    classes = [str(c) for c in model.classes_]
    return Diagram(title or default_title(model), notes, classes, cards)


def _notes(model, max_depth) -> list[str]:
    tree = model.tree_
    notes = [f"{tree.n_leaves} leaves, depth {tree.max_depth}; a split's test sends a row "
             "to \"yes\", the left child"]
    if is_weighted(model):
        notes.append(WEIGHTED_NOTE)
    if max_depth is not None and tree.max_depth > max_depth:
        notes.append(f"shown to depth {max_depth}: a dashed box hides its subtree")
    if getattr(model, "leaf_model_", None) is not None:
        notes.append("a double box is a leaf with a Naive Bayes model of its own")
    return notes


def _counts_lines(model, node: int) -> list[tuple[str, str]]:
    # many classes: "n = 120, c: 41.7%", whose n the card shows already
    counts = class_counts(model, node).plain[1:-1].removeprefix(
        f"n = {model.tree_.n_node_samples[node]}, ")
    return [("text", line) for line in wrap(counts, WRAP)]


def _details(model, node: int, head: list[str]) -> str:
    tree = model.tree_
    counts = ", ".join(f"{model.classes_[k]}: {number(v)}"
                       for k, v in enumerate(tree.counts[node]) if v > 0)
    weight = (f", weight {number(float(tree.counts[node].sum()))}" if is_weighted(model)
              else "")
    return "\n".join([f"node {node}", *head, f"rows: {tree.n_node_samples[node]}{weight}",
                      f"class counts: {counts}"])


def _split(model, node: int, tests: list[str], p_value) -> Card:
    tree = model.tree_
    shown = tests[0].removesuffix(OR_MISSING)
    rows = rows_text(model, node)
    if p_value is not None:  # S-pruning tested this split
        rows += f" · p-value {p_value:.3g}"
    lines = [("test", line) for line in wrap(shown, WRAP)]
    lines += [("text", rows)] + _counts_lines(model, node)
    head = [f"yes: {tests[0]}", f"no: {tests[1]}",
            f"criterion score: {number(tree.score[node])}"]
    if p_value is not None:
        head.append(f"S-pruning p-value: {p_value:.4g}")
    return Card(lines, tree.counts[node], "split", details=_details(model, node, head))


def _leaf(model, node: int, probability: float) -> Card:
    tree = model.tree_
    predicted = int(tree.node_class[node])
    name = str(model.classes_[predicted])
    leaf_models = getattr(model, "leaf_model_", None)
    rows = ("text", rows_text(model, node))
    if leaf_models is not None:
        note = leaf_models.describe(node, model.features_, model.classes_)
        i = int(np.searchsorted(leaf_models.nodes, node))
        if i < leaf_models.nodes.shape[0] and leaf_models.nodes[i] == node:
            prior = np.exp(leaf_models.log_prior()[i])
            listed = ", ".join(f"{model.classes_[k]} {prior[k]:.2f}"
                               for k in np.argsort(-prior, kind="stable")[:MAX_PRIORS])
            more = ", ..." if prior.shape[0] > MAX_PRIORS else ""
            lines = [("test", "naive bayes model"), rows]
            lines += [("text", line) for line in wrap(f"priors: {listed}{more}", WRAP)]
            return Card(lines, tree.counts[node], "model", predicted,
                        _details(model, node, [note]))
        lines = [("test", f"→ {name}"), rows, ("note", "too few rows for a model:"),
                 ("note", "smoothed class frequencies")]
        return Card(lines, tree.counts[node], "leaf", predicted, _details(model, node, [note]))
    estimate = "" if model.leaf_estimate == "frequency" else f" ({model.leaf_estimate})"
    lines = [("test", f"→ {name}"), ("text", f"{rows[1]} · p({name}) = {probability:.3g}")]
    lines += _counts_lines(model, node)
    head = [f"leaf: predicts {name}, probability {probability:.4g}{estimate}"]
    return Card(lines, tree.counts[node], "leaf", predicted, _details(model, node, head))


def fdf_diagram(model) -> Diagram:
    """An FDF forest's trees under one root: a card per tree (the attribute of its
    first condition), then its conditions; where rules end, their conclusion."""
    forest = model.forest_
    classes = [str(c) for c in model.classes_]
    children: list[list[int]] = [[] for _ in forest.parent]
    for node in range(1, len(forest.parent)):
        children[forest.parent[node]].append(node)
    for kids in children:
        kids.sort(key=lambda n: (forest.feature[n], forest.value[n]))
    root = Card([("test", "all rows"), ("text", f"n = {number(forest.counts[0].sum())}")],
                np.asarray(forest.counts[0], dtype=float), "group",
                details="the training rows; each child is a tree of the forest")
    cards = [root]
    by_feature: dict[int, list[int]] = {}
    for node in children[0]:
        by_feature.setdefault(forest.feature[node], []).append(node)
    for number_, (feature, roots) in enumerate(by_feature.items(), start=1):
        group = Card([("test", f"tree {number_}"), ("text", model.features_[feature].name)],
                     kind="group", details=f"tree {number_}: rules whose first condition "
                                           f"tests {model.features_[feature].name}")
        root.children.append(len(cards))
        cards.append(group)
        stack = [(node, group) for node in reversed(roots)]
        while stack:
            node, parent = stack.pop()
            parent.children.append(len(cards))
            card = _fdf_card(model, node, classes)
            cards.append(card)
            stack.extend((child, card) for child in reversed(children[node]))
    title = f"FDF forest: {len(by_feature)} trees, {len(forest.parent) - 1} conditions"
    return Diagram(title, ["a node's rows match every condition above it; "
                           "→ marks where rules end"], classes, cards)


def _fdf_card(model, node: int, classes: list[str]) -> Card:
    forest = model.forest_
    counts = np.asarray(forest.counts[node], dtype=float)
    test = condition(model, forest.feature[node], forest.value[node])
    lines = [("test", line) for line in wrap(test, WRAP)]
    lines.append(("text", f"n = {number(counts.sum())}"))
    predicted = int(np.argmax(counts))
    if forest.n_rules[node]:
        lines.append(("text", f"→ {classes[predicted]} ({forest.n_rules[node]} rules)"))
    listed = ", ".join(f"{classes[k]}: {number(c)}" for k, c in enumerate(counts) if c > 0)
    return Card(lines, counts, "leaf" if forest.n_rules[node] else "split",
                predicted if forest.n_rules[node] else None,
                details=f"{test}\nsupport {number(counts.sum())}: {listed}\n"
                        f"rules ending here: {forest.n_rules[node]}")
