"""A J48 model drawn as dtree draws its trees: `export -f svg|html` (the cards of
dtcli/export/svg.py), `-f dot` (Graphviz) and `-f rules`, for J48's multiway trees.

Each branch is labelled as J48 prints it (`= red`, `<= 0.74`, `> 0.74`, `!= red` for
-B), and each node's numbers are J48's: the class weights that reached it, which are
fractions where a missing value sent a row down every branch, shown to two decimals
as J48 prints a leaf's `(weight/errors)`. A leaf's class is the one the printed tree
and `predict` give it (ties by the file's declared class order; a leaf that received
no weight takes its parent's majority). The colours follow the declared classes.
"""
from __future__ import annotations

import numpy as np

from dtcli.c45.split import gr, max_class
from dtcli.c45.text import _condition, _rounded
from dtcli.c45.tree import LEAF, C45Tree
from dtcli.export.svg import Card, Diagram
from dtcli.export.svgkit import wrap

WRAP = 42  # characters per line of a list of weights


def _parents(tree: C45Tree) -> np.ndarray:
    parent = np.full(tree.node_count, -1, dtype=np.int64)
    for node in range(tree.node_count):
        parent[tree.branches(node)] = node
    return parent


def _leaf_class(tree: C45Tree, node: int, parent: np.ndarray) -> int:
    """J48's label of a leaf: its majority, or its parent's where it has no weight."""
    counts = tree.counts[node]
    if gr(float(counts.sum()), 0) or parent[node] < 0:
        return max_class(counts)
    return max_class(tree.counts[parent[node]])


def _weights(counts: np.ndarray, classes) -> str:
    return ", ".join(f"{classes[k]}: {_rounded(float(c))}" for k, c in enumerate(counts)
                     if c > 0)


def _branch_label(model, node: int, branch: int) -> str:
    feature = model.features_[int(model.tree_.feature[node])]
    return (feature.name + _condition(model.tree_, node, branch, feature,
                                      model.binary_splits)).strip()


def diagram(model, title: str | None = None) -> Diagram:
    """The `svg.Diagram` of a fitted J48Classifier."""
    tree = model.tree_
    classes = [str(c) for c in model.tree_classes_]
    parent = _parents(tree)
    cards = []
    for node in range(tree.node_count):
        counts = tree.counts[node]
        weight = f"weight {_rounded(float(counts.sum()))}"
        listed = [("text", line) for line in wrap(_weights(counts, classes), WRAP)]
        if tree.feature[node] == LEAF:
            k = _leaf_class(tree, node, parent)
            wrong = float(counts.sum() - counts[k])
            line = weight + (f" · errors {_rounded(wrong)}" if gr(wrong, 0) else "")
            card = Card([("test", f"→ {classes[k]}"), ("text", line)] + listed, counts,
                        "leaf", k, f"node {node}\nleaf: {classes[k]}\n{line}\n"
                                   f"class weights: {_weights(counts, classes)}")
        else:
            name = model.features_[int(tree.feature[node])].name
            card = Card([("test", name), ("text", weight)] + listed, counts, "split",
                        details=f"node {node}\nsplit on {name}, {len(tree.branches(node))} "
                                f"branches\n{weight}\nclass weights: "
                                f"{_weights(counts, classes)}")
            card.children = [int(child) for child in tree.branches(node)]
        cards.append(card)
    for node in range(tree.node_count):
        for b, child in enumerate(tree.branches(node)):
            feature = model.features_[int(tree.feature[node])]
            cards[child].edge = _condition(tree, node, b, feature, model.binary_splits).strip()
    notes = [f"{tree.n_leaves} leaves, size {tree.node_count}; each branch is labelled with "
             "its test, as J48 prints it",
             "weights: the training rows that reached a node, fractional where a missing "
             "value sent a row down every branch"]
    return Diagram(title or default_title(model), notes, classes, cards)


def default_title(model) -> str:
    pruning = ("unpruned" if model.pruning is None
               else f"pruned at confidence {model.confidence:g}")
    return f"J48 tree ({pruning}): {model.tree_.node_count} nodes"


def dot(model) -> str:
    """Graphviz DOT source: a box per node (its split feature, or its class, with its
    weight and class weights), an edge per branch labelled with its test."""
    from dtcli.export.dot import quote, class_colours, fill_colour

    tree = model.tree_
    classes = [str(c) for c in model.tree_classes_]
    colours = class_colours(len(classes))
    parent = _parents(tree)
    lines = ["digraph tree {",
             '  node [shape=box, style="rounded,filled", fontname="Helvetica"];',
             '  edge [fontname="Helvetica"];',
             f"  label={quote(default_title(model))};"]
    for node in range(tree.node_count):
        counts = tree.counts[node]
        total = float(counts.sum())
        head = (classes[_leaf_class(tree, node, parent)] if tree.feature[node] == LEAF
                else model.features_[int(tree.feature[node])].name)
        label = f"{head}\n[{_weights(counts, classes)}]\nweight = {_rounded(total)}"
        proba = counts / total if total > 0 else np.full(len(classes), 1 / len(classes))
        lines.append(f'  n{node} [label={quote(label)}, '
                     f'fillcolor="{fill_colour(proba, colours)}"];')
        for b, child in enumerate(tree.branches(node)):
            feature = model.features_[int(tree.feature[node])]
            test = _condition(tree, node, b, feature, model.binary_splits).strip()
            lines.append(f"  n{node} -> n{int(child)} [label={quote(test)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def rules(model) -> str:
    """One rule per leaf, depth-first: its path's tests (as J48 prints them), its class
    and J48's `(weight/errors)`. A row missing a tested value goes down every branch
    with a share of its weight (J48), so it is covered by several rules."""
    from dtcli.c45.text import leaf_label

    tree = model.tree_
    classes = [str(c) for c in model.tree_classes_]
    parent = _parents(tree)
    out = []
    stack: list[tuple[int, list[str]]] = [(0, [])]
    while stack:
        node, path = stack.pop()
        if tree.feature[node] == LEAF:
            fallback = tree.counts[parent[node]] if parent[node] >= 0 else tree.counts[node]
            out.append(f"if {' and '.join(path) or 'true'} then "
                       f"{leaf_label(tree.counts[node], fallback, classes)}\n")
            continue
        kids = tree.branches(node)
        for b in range(len(kids) - 1, -1, -1):
            stack.append((int(kids[b]), path + [_branch_label(model, node, b)]))
    return "".join(out)
