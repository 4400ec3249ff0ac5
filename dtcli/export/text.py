"""A rich tree diagram: split test, class counts and majority class at each node."""
from __future__ import annotations

from rich.text import Text
from rich.tree import Tree as RichTree

from dtcli.export.describe import class_counts, majority, split_test


def _label(model, node: int, edge: str | None) -> Text:
    # Text objects, not markup strings: a feature named "[x]" must not break rendering.
    label = Text()
    if edge:
        label.append(edge, style="bold cyan")
        label.append("  ")
    label.append(majority(model, node), style="bold green")
    label.append(f"  [{class_counts(model, node)}]", style="dim")
    return label


def render(model, header: str | None = None) -> RichTree:
    tree = model.tree_
    root = RichTree(Text(header or "tree", style="bold"))
    stack = [(0, root, None)]
    while stack:
        node, parent, edge = stack.pop()
        branch = parent.add(_label(model, node, edge))
        if tree.children_left[node] >= 0:
            stack.append((tree.children_right[node], branch, split_test(model, node, False)))
            stack.append((tree.children_left[node], branch, split_test(model, node, True)))
    return root
