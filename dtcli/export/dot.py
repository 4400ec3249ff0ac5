"""Graphviz DOT source; render with `dot -Tsvg tree.dot -o tree.svg`.

Nodes list all their non-zero class counts and are filled as scikit-learn's
`export_graphviz(filled=True)` fills them: the majority class's hue (classes
evenly spaced around the colour wheel from 25 degrees, saturation 0.75, value
0.9), mixed with white by how far the majority's share leads the runner-up's,
(p1 - p2) / (1 - p2): a pure node has the full colour, a tie is white.
"""
from __future__ import annotations

import colorsys
from typing import Iterator

import numpy as np

from dtcli.export.describe import (WEIGHTED_NOTE, class_counts, is_weighted, majority,
                                   pruning_note, rows_text, split_test)
from dtcli.export.paths import split_bounds


def quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def class_colours(n_classes: int) -> list[tuple[int, int, int]]:
    """The RGB colour of each class at full strength."""
    # The hues as numpy's arange spaces them, so that they truncate to scikit-learn's.
    hues = np.arange(25, 385, 360.0 / n_classes).astype(int)[:n_classes]
    return [tuple(int(255 * c) for c in colorsys.hsv_to_rgb(h / 360.0, 0.75, 0.9))
            for h in hues.tolist()]


def fill_colour(proba: np.ndarray, colours: list[tuple[int, int, int]]) -> str:
    """`#rrggbb` for a node whose class shares are `proba`."""
    first, second = np.sort(proba)[::-1][:2]
    alpha = (first - second) / (1 - second)
    rgb = (round(alpha * c + (1 - alpha) * 255) for c in colours[int(np.argmax(proba))])
    return "#" + "".join(f"{c:02x}" for c in rgb)


def lines(model) -> Iterator[str]:
    """The DOT source, one statement a line (each ending in a newline), made as written."""
    tree = model.tree_
    colours = class_colours(len(model.classes_))
    bounds = split_bounds(model)
    yield "digraph tree {\n"
    yield '  node [shape=box, style="rounded,filled", fontname="Helvetica"];\n'
    yield '  edge [fontname="Helvetica"];\n'
    note = pruning_note({"pruning": getattr(model, "pruning_", None),
                         "leaf_estimate": {"name": model.leaf_estimate, "m": model.m}})
    if is_weighted(model):
        note += f", {WEIGHTED_NOTE}"
    if note:  # the graph's caption: how it was pruned, how its leaves give probabilities
        yield f"  label={quote(note.removeprefix(', '))};\n"
    for node in range(tree.node_count):
        counts = class_counts(model, node, summarise=False).plain
        label = f"{majority(model, node)}\n{counts}\n{rows_text(model, node)}"
        fill = fill_colour(tree.node_proba[node], colours)
        yield f'  n{node} [label={quote(label)}, fillcolor="{fill}"];\n'
        if tree.children_left[node] >= 0:
            for child, left in ((tree.children_left[node], True),
                                (tree.children_right[node], False)):
                test = split_test(model, node, left, bounds[node])
                yield f"  n{node} -> n{child} [label={quote(test)}];\n"
    yield "}\n"


def render(model) -> str:
    return "".join(lines(model))
