"""A tree diagram: each node's split test, its non-zero class counts (or its size and
majority share, when many classes are present), and at leaves a mark and the
predicted class.

A diagram draws one guide per level in front of each line, so a deep tree
would take space quadratic in its depth: below `SECTION_DEPTH` levels the
subtree continues in a diagram of its own, after the current one. With
`max_depth`, a split at that depth shows the size of its subtree instead.

The lines are made one at a time (`lines`), so that writing a diagram to a file
or a pipe (`write_plain`) takes time in proportion to what it writes and memory in
proportion to the tree, not to the text (rich's Tree renders the whole text in
memory first: docs/pictures.md, "Large trees"). On a terminal (`render`, a rich
renderable) a label too long for the width wraps under its guide, as rich's Tree
wraps it.
"""
from __future__ import annotations

from collections import deque
from typing import IO, Iterator, NamedTuple

import numpy as np
from rich.segment import Segment
from rich.text import Text

from dtcli.export.describe import class_counts, class_name, leaf_model_note, split_test
from dtcli.export.paths import split_bounds

SECTION_DEPTH = 50
LEAF_MARK = "→"
# rich's tree guides (space, continue, fork, end), and its guides for an ASCII-only output
GUIDES = ("    ", "│   ", "├── ", "└── ")
ASCII_GUIDES = ("    ", "|   ", "+-- ", "`-- ")
SPACE, CONTINUE, FORK, END = range(4)


class Line(NamedTuple):
    """One node's label, after the guides of its levels (`guides`: one index into
    GUIDES per level, the last one the node's own) ."""

    guides: tuple[int, ...]
    label: Text

    def prefix(self, glyphs: tuple[str, ...], first: bool = True) -> str:
        """The guides in front of the label's first line (or of its continuation lines,
        where the node's own fork or end becomes a continue or a space)."""
        if not self.guides:
            return ""
        own = self.guides[-1] if first else (SPACE if self.guides[-1] == END else CONTINUE)
        return "".join(glyphs[g] for g in self.guides[:-1]) + glyphs[own]


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


def lines(model, header: str | None = None, max_depth: int | None = None) -> Iterator[Line]:
    """The diagram's lines, in order: each section's title, then its nodes depth first,
    left child first."""
    tree = model.tree_
    bounds = split_bounds(model)
    sizes = subtree_sizes(tree) if max_depth is not None else None
    starts = deque([(0, None, 0)])  # (node, edge from its parent, depth)
    while starts:
        start, edge, start_depth = starts.popleft()
        title = (header or "tree") if start == 0 else f"node {start} at depth {start_depth}"
        yield Line((), Text(title, style="bold"))
        stack = [(start, edge, start_depth, (END,))]  # ..., the node's guides
        while stack:
            node, edge, depth, guides = stack.pop()
            split = tree.children_left[node] >= 0
            if split and depth - start_depth == SECTION_DEPTH:
                yield Line(guides, _dim(f"... continued below from node {node}", edge))
                starts.append((node, edge, depth))
                continue
            yield Line(guides, _label(model, node, edge))
            above = guides[:-1] + ((SPACE if guides[-1] == END else CONTINUE),)
            if split and depth == max_depth:
                nodes, leaves = sizes[0][node] - 1, sizes[1][node]
                yield Line(above + (END,), _dim(f"... {nodes} more nodes ({leaves} leaves)"))
            elif split:
                for child, left, own in ((tree.children_right[node], False, END),
                                         (tree.children_left[node], True, FORK)):
                    stack.append((child, split_test(model, node, left, bounds[node]),
                                  depth + 1, above + (own,)))


class Diagram:
    """The diagram as a rich renderable (a terminal, the notebook, `dtree train`'s
    preview): guides dimmed as rich's Tree draws them, long labels wrapped below them."""

    def __init__(self, model, header: str | None = None, max_depth: int | None = None):
        self.model, self.header, self.max_depth = model, header, max_depth

    def __rich_console__(self, console, options):
        glyphs = ASCII_GUIDES if options.ascii_only else GUIDES
        guide_style = console.get_style("tree.line", default="")
        for line in lines(self.model, self.header, self.max_depth):
            first = line.prefix(glyphs)
            wrapped = console.render_lines(line.label, options.update(
                width=max(1, options.max_width - len(first)), height=None), pad=False)
            for i, segments in enumerate(wrapped):
                yield Segment(line.prefix(glyphs, i == 0), guide_style)
                yield from segments
                yield Segment.line()


def render(model, header: str | None = None, max_depth: int | None = None) -> Diagram:
    return Diagram(model, header, max_depth)


def write_plain(handle: IO[str], model, header: str | None = None,
                max_depth: int | None = None) -> None:
    """The diagram without colour or wrapping, one line at a time (a file or a pipe)."""
    encoding = (getattr(handle, "encoding", None) or "utf-8").lower()
    glyphs = GUIDES if encoding.startswith("utf") else ASCII_GUIDES
    for line in lines(model, header, max_depth):
        handle.write(line.prefix(glyphs) + line.label.plain + "\n")
