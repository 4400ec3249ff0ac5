"""A rich tree diagram: split test, class counts and majority class at each node.

A diagram draws one guide per level in front of each line, so a deep tree
would take space quadratic in its depth: below `SECTION_DEPTH` levels the
subtree continues in a diagram of its own, after the current one.
"""
from __future__ import annotations

from collections import deque

from rich.console import Group
from rich.text import Text
from rich.tree import Tree as RichTree

from dtcli.export.describe import class_counts, majority, split_test

SECTION_DEPTH = 50


def _label(model, node: int, edge: str | None) -> Text:
    # Text objects, not markup strings: a feature named "[x]" must not break rendering.
    label = Text()
    if edge:
        label.append(edge, style="bold cyan")
        label.append("  ")
    label.append(majority(model, node), style="bold green")
    label.append(f"  [{class_counts(model, node)}]", style="dim")
    return label


def _continued(node: int, edge: str) -> Text:
    label = Text(edge, style="bold cyan")
    label.append(f"  ... continued below from node {node}", style="dim")
    return label


def render(model, header: str | None = None) -> RichTree | Group:
    tree = model.tree_
    sections = []
    starts = deque([(0, None, 0)])  # (node, edge from its parent, depth)
    while starts:
        start, edge, start_depth = starts.popleft()
        title = (header or "tree") if start == 0 else f"node {start} at depth {start_depth}"
        section = RichTree(Text(title, style="bold"))
        stack = [(start, section, edge, start_depth)]
        while stack:
            node, parent, edge, depth = stack.pop()
            split = tree.children_left[node] >= 0
            if split and depth - start_depth == SECTION_DEPTH:
                parent.add(_continued(node, edge))
                starts.append((node, edge, depth))
                continue
            branch = parent.add(_label(model, node, edge))
            if split:
                stack.append((tree.children_right[node], branch, split_test(model, node, False),
                              depth + 1))
                stack.append((tree.children_left[node], branch, split_test(model, node, True),
                              depth + 1))
        sections.append(section)
    return sections[0] if len(sections) == 1 else Group(*sections)
