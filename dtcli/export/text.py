"""A rich tree diagram: each node's split test, its non-zero class counts (or its
size and majority share, when many classes are present), and at leaves a mark
and the predicted class.

A diagram draws one guide per level in front of each line, so a deep tree
would take space quadratic in its depth: below `SECTION_DEPTH` levels the
subtree continues in a diagram of its own, after the current one. With
`max_depth`, a split at that depth shows the size of its subtree instead.
"""
from __future__ import annotations

from collections import deque

import numpy as np
from rich.console import Group
from rich.text import Text
from rich.tree import Tree as RichTree

from dtcli.export.describe import class_counts, class_name, leaf_model_note, split_test
from dtcli.export.paths import split_bounds

SECTION_DEPTH = 50
LEAF_MARK = "→"


def _label(model, node: int, edge: str | None) -> Text:
    # Text objects, not markup strings: a feature named "[x]" must not break rendering.
    tree = model.tree_
    label = Text()
    label.append(edge or "root", style="bold")
    label.append("  ")
    if tree.children_left[node] < 0:
        label.append(f"{LEAF_MARK} ")
        label.append_text(class_name(model, tree.node_class[node]))
        label.append("  ")
    label.append_text(class_counts(model, node))
    p_values = (getattr(model, "pruning_", None) or {}).get("p_values")
    if p_values and p_values[node] is not None:  # S-pruning tested this node's split
        label.append(f"  p={p_values[node]:.3g}", style="dim")
    note = leaf_model_note(model, node) if tree.children_left[node] < 0 else None
    if note:
        label.append(f"  {note}", style="dim")
    return label


def _dim(message: str, edge: str | None = None) -> Text:
    label = Text()
    label.append(f"{edge}  " if edge else "", style="bold")
    label.append(message, style="dim")
    return label


def subtree_sizes(tree) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and leaves in the subtree of every node (itself included)."""
    nodes = np.ones(tree.node_count, dtype=np.int64)
    leaves = (tree.children_left < 0).astype(np.int64)
    for node in reversed(range(tree.node_count)):  # children have greater ids
        if tree.children_left[node] >= 0:
            for child in (tree.children_left[node], tree.children_right[node]):
                nodes[node] += nodes[child]
                leaves[node] += leaves[child]
    return nodes, leaves


def render(model, header: str | None = None, max_depth: int | None = None) -> RichTree | Group:
    tree = model.tree_
    bounds = split_bounds(model)
    sizes = subtree_sizes(tree) if max_depth is not None else None
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
                parent.add(_dim(f"... continued below from node {node}", edge))
                starts.append((node, edge, depth))
                continue
            branch = parent.add(_label(model, node, edge))
            if split and depth == max_depth:
                nodes, leaves = sizes[0][node] - 1, sizes[1][node]
                branch.add(_dim(f"... {nodes} more nodes ({leaves} leaves)"))
            elif split:
                for child, left in ((tree.children_right[node], False),
                                    (tree.children_left[node], True)):
                    stack.append((child, branch, split_test(model, node, left, bounds[node]),
                                  depth + 1))
        sections.append(section)
    return sections[0] if len(sections) == 1 else Group(*sections)
