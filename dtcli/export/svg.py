"""A tree of cards as SVG: the drawing that `export -f svg` and `-f html` write.

A `Diagram` is what to draw, whatever the model: a title, notes, the class names, and
one `Card` per node (lines of text, class counts for a stacked bar, the label of the
edge from its parent, its children). `cards.py` makes diagrams of trees and FDF
forests; this module places them with the tidy layout (`layout.py`) and writes SVG.

Each card is a box: its lines (a split's test first, bold), a bar of its class
counts in the classes' colours (the legend's), its rows. A leaf's box is tinted in
its predicted class's colour, a leaf holding a model is drawn double, a subtree cut
by a depth limit is dashed. The edge from a parent enters the child's box at the
top centre, its label ("yes", "no") just right of it, inside the child's slot of the
layout, so that no label can overlap a box or another label. Every node is a group
`<g class="node" data-node="i" data-parent="p">` with a <title> holding its
details (a tooltip), which the HTML page uses to fold subtrees.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dtcli.export import svgkit
from dtcli.export.layout import Layout, tidy
from dtcli.export.svgkit import escape, text, text_width

SIZE = 11  # font size of a card's text, px
LINE = 14  # baseline to baseline
PAD = 6  # inside a box
BAR = 9  # height of the class bar
MIN_WIDTH = 64
EDGE_SIZE = 10
TITLE_SIZE = 14
LEGEND_SWATCH = 10
ROW_GAP = 38  # between rows of boxes: the edges' elbows and labels


@dataclass
class Card:
    """One node of a diagram: `lines` of (style, text), style "test" (bold: a split's
    test, a leaf's prediction; the class bar follows these), "text" or "note" (grey);
    `counts` for the class bar (None: no bar); `kind` "split", "leaf",
    "model" (a leaf with a model of its own), "cut" (a hidden subtree) or "group";
    `predicted`, a leaf's class index (its tint); `details`, its tooltip; `edge`, the
    label of the edge from its parent."""

    lines: list[tuple[str, str]]
    counts: np.ndarray | None = None
    kind: str = "split"
    predicted: int | None = None
    details: str = ""
    edge: str = ""
    children: list[int] = field(default_factory=list)


@dataclass
class Diagram:
    title: str
    notes: list[str]
    classes: list[str]
    cards: list[Card]  # card 0 is the root


@dataclass
class Placement:
    """Where everything goes: per card its box (x0, y0, x1, y1) and its edge label's
    rectangle (None at the root or without a label), the header's height, and the
    drawing's size."""

    boxes: np.ndarray
    labels: list[tuple[float, float, float, float] | None]
    header: float
    width: float
    height: float
    legend: list[tuple[float, float, int]]  # (x, y, class) of each swatch
    layout: Layout
    slots: np.ndarray  # each card's width in the layout (its box, or its edge's label)


def _card_size(card: Card) -> tuple[float, float]:
    widest = max((text_width(t, SIZE, style == "test") for style, t in card.lines), default=0)
    height = 2 * PAD + LINE * len(card.lines) + (BAR + 4 if card.counts is not None else 0)
    return max(MIN_WIDTH, widest + 2 * PAD), height


def _legend_width(name: str) -> float:
    return LEGEND_SWATCH + 4 + text_width(name, SIZE) + 14


def place(diagram: Diagram) -> Placement:
    cards = diagram.cards
    sizes = np.array([_card_size(card) for card in cards])
    label_widths = [text_width(card.edge, EDGE_SIZE) if card.edge else 0.0 for card in cards]
    # a slot holds its box and, right of the edge's end, its label
    slots = np.maximum(sizes[:, 0], 2 * (np.array(label_widths) + 5))
    layout = tidy([card.children for card in cards], slots, sizes[:, 1], row_gap=ROW_GAP)
    width = max(layout.width, 420.0, text_width(diagram.title, TITLE_SIZE, True) + 20,
                *(text_width(note, SIZE) + 20 for note in diagram.notes))
    # the header: title, notes, then the legend's swatches in rows as wide as the drawing
    y = 10 + TITLE_SIZE + 4 + LINE * len(diagram.notes)
    legend, x = [], 10.0
    for k, name in enumerate(diagram.classes):
        w = _legend_width(name)
        if x + w > width - 10 and x > 10:
            x, y = 10.0, y + LINE + 2
        legend.append((x, y + 4, k))
        x += w
    header = y + LINE + 8
    boxes = np.full((len(cards), 4), np.nan)
    x0 = layout.x - sizes[:, 0] / 2
    boxes[:, 0], boxes[:, 1] = x0, layout.y + header
    boxes[:, 2], boxes[:, 3] = x0 + sizes[:, 0], layout.y + header + sizes[:, 1]
    labels = []
    for i, card in enumerate(cards):
        if i == 0 or not card.edge or np.isnan(layout.x[i]):
            labels.append(None)
            continue
        top = boxes[i, 1]
        labels.append((layout.x[i] + 4, top - 4 - EDGE_SIZE - 2, layout.x[i] + 4
                       + label_widths[i], top - 3))
    return Placement(boxes, labels, header, width, layout.height + header, legend, layout,
                     slots)


def _node(diagram: Diagram, i: int, parent: int, box, slot: float,
          colours: list[str]) -> list[str]:
    card = diagram.cards[i]
    x0, y0, x1, y1 = box
    fill = (svgkit.tint(colours[card.predicted], 0.22) if card.predicted is not None
            else "#f4f4f4" if card.kind in ("cut", "group") else "white")
    stroke = ' stroke-dasharray="4 3"' if card.kind == "cut" else ""
    # data-x, data-slot: its centre and layout width, for the HTML page's re-layout
    parts = [f'<g class="node {card.kind}" data-node="{i}" data-parent="{parent}" '
             f'data-x="{(x0 + x1) / 2:.2f}" data-slot="{slot:.2f}">',
             f"<title>{escape(card.details)}</title>",
             f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{x1 - x0:.1f}" height="{y1 - y0:.1f}" '
             f'rx="4" fill="{fill}" stroke="#555"{stroke}/>']
    if card.kind == "model":  # a leaf with a model of its own: a double border
        parts.append(f'<rect x="{x0 + 2.5:.1f}" y="{y0 + 2.5:.1f}" width="{x1 - x0 - 5:.1f}" '
                     f'height="{y1 - y0 - 5:.1f}" rx="3" fill="none" stroke="#555"/>')
    # the bar follows the bold lines at the top (the test, or the prediction)
    bold = next((n for n, (style, _) in enumerate(card.lines) if style != "test"),
                len(card.lines)) or 1
    y = y0 + PAD
    for n, (style, line) in enumerate(card.lines):
        if n == bold and card.counts is not None:
            parts += _bar(card.counts, x0 + PAD, y + 2, x1 - x0 - 2 * PAD, colours)
            y += BAR + 4
        extra = ('font-weight="bold"' if style == "test"
                 else 'fill="#666"' if style == "note" else "")
        parts.append(text(x0 + PAD, y + LINE - 3, line, SIZE, extra=extra))
        y += LINE
    if bold >= len(card.lines) and card.counts is not None:
        parts += _bar(card.counts, x0 + PAD, y + 2, x1 - x0 - 2 * PAD, colours)
    parts.append("</g>")
    return parts


def _bar(counts: np.ndarray, x: float, y: float, width: float, colours: list[str]) -> list[str]:
    """The class counts as a stacked bar, each class in its colour."""
    total = float(np.sum(counts))
    parts = [f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" height="{BAR}" '
             f'fill="#eee"/>']
    if total <= 0:
        return parts
    for k in np.flatnonzero(counts).tolist():
        w = width * float(counts[k]) / total
        parts.append(f'<rect x="{x:.2f}" y="{y:.1f}" width="{w:.2f}" height="{BAR}" '
                     f'fill="{colours[k]}"/>')
        x += w
    return parts


def _edge(placement: Placement, parent: int, child: int, label: str) -> list[str]:
    boxes, layout = placement.boxes, placement.layout
    x1, y1 = layout.x[parent], boxes[parent, 3]
    x2, y2 = layout.x[child], boxes[child, 1]
    elbow = y2 - ROW_GAP / 2 - 4
    parts = [f'<g class="edge" data-child="{child}">',
             f'<path d="M{x1:.1f},{y1:.1f} V{elbow:.1f} H{x2:.1f} V{y2:.1f}" fill="none" '
             f'stroke="#888"/>']
    rect = placement.labels[child]
    if rect is not None:
        parts.append(text(rect[0], rect[3] - 2, label, EDGE_SIZE, extra='fill="#444"'))
    parts.append("</g>")
    return parts


def render(diagram: Diagram, placement: Placement | None = None, header: bool = True) -> str:
    """The diagram as a standalone SVG document; without `header`, the drawing of the
    tree alone (the HTML page shows the title, notes and legend above it)."""
    placement = placement or place(diagram)
    colours = svgkit.class_colours(len(diagram.classes))
    body = _header(diagram, placement, colours) if header else [
        f'<g transform="translate(0,{-placement.header:.1f})">']
    drawn = [i for i in range(len(diagram.cards)) if not np.isnan(placement.layout.x[i])]
    parent = np.full(len(diagram.cards), -1)
    body.append('<g class="edges">')
    for i in drawn:
        for child in diagram.cards[i].children:
            parent[child] = i
            body += _edge(placement, i, child, diagram.cards[child].edge)
    body.append('</g>\n<g class="nodes">')
    for i in drawn:
        body += _node(diagram, i, int(parent[i]), placement.boxes[i], placement.slots[i],
                      colours)
    body.append("</g>" if header else "</g>\n</g>")
    height = placement.height - (0 if header else placement.header)
    return svgkit.document(placement.width, height, body, 'class="dtree-tree"')


def _header(diagram: Diagram, placement: Placement, colours: list[str]) -> list[str]:
    """The title, the notes and the legend of class colours."""
    body = [text(10, 10 + TITLE_SIZE, diagram.title, TITLE_SIZE, extra='font-weight="bold"')]
    for n, note in enumerate(diagram.notes):
        body.append(text(10, 10 + TITLE_SIZE + 4 + LINE * (n + 1) - 2, note, SIZE,
                         extra='fill="#444"'))
    body.append('<g class="legend">')
    for x, y, k in placement.legend:
        body.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{LEGEND_SWATCH}" '
                    f'height="{LEGEND_SWATCH}" fill="{colours[k]}"/>')
        body.append(text(x + LEGEND_SWATCH + 4, y + LEGEND_SWATCH - 1, diagram.classes[k], SIZE))
    body.append("</g>")
    return body
