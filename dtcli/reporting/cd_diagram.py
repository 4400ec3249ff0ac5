"""Critical-difference diagrams (Demsar 2006, section 3.2.4, Figure 1(a)) as plain SVG.

A rank axis runs from 1 (best, on the left) to k. Each method hangs from its
average rank by a line leading to its label: the better half of the methods
on the left, the worse half on the right. Thick bars join groups of methods
that are not significantly different, and a bar at the top shows the length
of the critical difference. (Demsar draws the axis the other way round, best
on the right.) When the omnibus test did not reject, there is no post-hoc
test to draw: the diagram has no CD bar, one bar joins every method, and a
note in its place says why.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from dtcli.stats.posthoc import pairs_beyond_cd

__all__ = ["critical_difference_svg", "nonsignificant_groups"]

_FONT_SIZE = 13
_CHAR_WIDTH = 0.6 * _FONT_SIZE  # rough advance of a sans-serif character
_ROW_HEIGHT = 20
_CLIQUE_SPACING = 8
_LABEL_GAP = 14  # between the end of a method's line and its label


def nonsignificant_groups(
    avg_ranks: Sequence[float], significant_pairs: Iterable[tuple[int, int]]
) -> list[list[int]]:
    """Maximal runs of methods, consecutive in rank order, with no significant pair inside.

    Returns each group (of at least two methods) as indices into ``avg_ranks``,
    best rank first; groups are listed from the best-ranked one. These are the
    bars of the diagram: with Nemenyi's pairs they are the maximal runs whose
    rank span is at most the critical difference.
    """
    order = list(np.argsort(np.asarray(avg_ranks, dtype=float), kind="stable"))
    significant = {frozenset(pair) for pair in significant_pairs}
    groups: list[list[int]] = []
    end = 0
    for start in range(len(order)):
        end = max(end, start)
        while end + 1 < len(order) and all(
            frozenset((order[end + 1], member)) not in significant
            for member in order[start : end + 1]
        ):
            end += 1
        if end > start and (not groups or groups[-1][-1] != order[end]):
            groups.append([int(i) for i in order[start : end + 1]])
    return groups


def _text(
    x: float, y: float, content: str, anchor: str, css_class: str, size: int = _FONT_SIZE
) -> str:
    return (
        f'<text class="{css_class}" x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" '
        f'font-size="{size}">{html.escape(content)}</text>'
    )


def _line(
    x1: float, y1: float, x2: float, y2: float, css_class: str, width: float = 1, tooltip: str = ""
) -> str:
    """A black line; a tooltip becomes its SVG <title>."""
    title = f"<title>{html.escape(tooltip)}</title>" if tooltip else ""
    return (
        f'<line class="{css_class}" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
        f'stroke="black" stroke-width="{width}">{title}</line>'
    )


@dataclass(frozen=True)
class _Layout:
    """Where things go: x of the rank axis ends, y of each band of the drawing."""

    k: int
    axis_left: float
    axis_right: float
    cd_y: float
    axis_y: float
    first_clique_y: float
    first_row_y: float

    def x_of(self, rank: float) -> float:
        return self.axis_left + (rank - 1.0) / (self.k - 1) * (self.axis_right - self.axis_left)


def _axis_and_cd_bar(layout: _Layout, cd: float | None, note: str | None) -> list[str]:
    x_best, y = layout.x_of(1.0), layout.cd_y
    parts = [_line(layout.axis_left, layout.axis_y, layout.axis_right, layout.axis_y, "axis", 1.5)]
    if cd is not None:
        x_cd = layout.x_of(1.0 + cd)
        parts += [
            _line(x_best, y, x_cd, y, "cd", 2),
            _line(x_best, y - 4, x_best, y + 4, "cd"),
            _line(x_cd, y - 4, x_cd, y + 4, "cd"),
            _text((x_best + x_cd) / 2, y - 8, f"CD = {cd:.2f}", "middle", "cd"),
        ]
    if note:
        parts.append(_text(x_best, y - (22 if cd is not None else 0), note, "start", "note"))
    for tick in np.arange(1.0, layout.k + 0.25, 0.5):
        x, major = layout.x_of(tick), tick == int(tick)
        parts.append(_line(x, layout.axis_y, x, layout.axis_y - (8 if major else 4), "tick"))
        if major:
            parts.append(_text(x, layout.axis_y - 12, str(int(tick)), "middle", "tick"))
    return parts


def _clique_bars(
    layout: _Layout, names: Sequence[str], ranks: np.ndarray, groups: list[list[int]]
) -> list[str]:
    parts = []
    for row, group in enumerate(groups):
        y = layout.first_clique_y + _CLIQUE_SPACING * row
        tooltip = "not significantly different: " + ", ".join(names[i] for i in group)
        x1, x2 = layout.x_of(ranks[group[0]]) - 4, layout.x_of(ranks[group[-1]]) + 4
        parts.append(_line(x1, y, x2, y, "clique", 4, tooltip))
    return parts


def _method_lines(
    layout: _Layout, labels: dict[int, str], ranks: np.ndarray, side: list[int], anchor: str
) -> list[str]:
    """Lines from the axis down to label rows, then out to the left ("end") or right side."""
    if anchor == "end":
        end_x, label_x = layout.axis_left - _LABEL_GAP / 2, layout.axis_left - _LABEL_GAP
    else:
        end_x, label_x = layout.axis_right + _LABEL_GAP / 2, layout.axis_right + _LABEL_GAP
    parts = []
    for row, i in enumerate(side):
        x, y = layout.x_of(ranks[i]), layout.first_row_y + _ROW_HEIGHT * row
        parts.append(
            f'<polyline class="method-line" points="{x:.1f},{layout.axis_y:.1f} {x:.1f},{y:.1f} '
            f'{end_x:.1f},{y:.1f}" fill="none" stroke="black" stroke-width="1"/>'
        )
        parts.append(_text(label_x, y + 4, labels[i], anchor, "method"))
    return parts


def critical_difference_svg(
    names: Sequence[str],
    avg_ranks: Sequence[float],
    cd: float | None,
    significant_pairs: Iterable[tuple[int, int]] | None = None,
    title: str | None = None,
    note: str | None = None,
) -> str:
    """Draw a critical-difference diagram; returns a self-contained SVG document.

    ``significant_pairs`` are index pairs of methods that differ significantly
    (``posthoc.nemenyi(...).significant_pairs``); by default, the pairs whose
    average ranks differ by more than ``cd``. ``cd`` None: no post-hoc test (the
    omnibus test did not reject), so no CD bar and no significant pair. ``note``: a
    line under the CD bar (or in its place) that says so.
    """
    ranks = np.asarray(avg_ranks, dtype=float)
    k = len(names)
    if k < 2 or ranks.shape != (k,):
        raise ValueError(
            f"need at least 2 method names and one average rank each, got {k} names "
            f"and ranks of shape {ranks.shape}"
        )
    if cd is None:
        significant_pairs = []
    elif significant_pairs is None:
        significant_pairs = pairs_beyond_cd(ranks, cd)
    groups = nonsignificant_groups(ranks, significant_pairs)
    order = [int(i) for i in np.argsort(ranks, kind="stable")]
    left, right = order[: math.ceil(k / 2)], order[math.ceil(k / 2) :][::-1]
    labels = {i: f"{names[i]} ({ranks[i]:.2f})" for i in order}

    def label_width(side: list[int]) -> float:
        return max((len(labels[i]) * _CHAR_WIDTH for i in side), default=0.0)

    axis_left = label_width(left) + 2 * _LABEL_GAP
    cd_y = (30.0 if title else 0.0) + 28.0
    first_clique_y = cd_y + 50.0
    layout = _Layout(
        k=k,
        axis_left=axis_left,
        axis_right=axis_left + max(360.0, 45.0 * (k - 1)),
        cd_y=cd_y,
        axis_y=cd_y + 36.0,
        first_clique_y=first_clique_y,
        first_row_y=first_clique_y + _CLIQUE_SPACING * len(groups) + 14.0,
    )
    width = max(layout.axis_right + label_width(right) + 2 * _LABEL_GAP,
                layout.x_of(1 + (cd or 0)) + 10,
                layout.x_of(1) + len(note or "") * _CHAR_WIDTH + 10)
    height = layout.first_row_y + _ROW_HEIGHT * (len(left) - 1) + 14.0

    parts = [_text(width / 2, 20.0, title, "middle", "title", _FONT_SIZE + 2)] if title else []
    parts += _axis_and_cd_bar(layout, cd, note)
    parts += _clique_bars(layout, names, ranks, groups)
    parts += _method_lines(layout, labels, ranks, left, "end")
    parts += _method_lines(layout, labels, ranks, right, "start")
    body = "\n".join(f"  {part}" for part in parts)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.1f} {height:.1f}" font-family="sans-serif">\n'
        f'  <rect width="100%" height="100%" fill="white"/>\n{body}\n</svg>\n'
    )


def comparison_svg(doc: dict) -> str:
    """The diagram of a comparison document (`comparison.comparison_document`);
    ParameterError with fewer than two datasets, which have no Nemenyi test."""
    from dtcli.errors import ParameterError
    from dtcli.reporting.report import ALPHA

    if doc["friedman"] is None:
        raise ParameterError("--cd-diagram needs at least two datasets")
    methods, nemenyi, posthoc = doc["criteria"], doc["nemenyi"], doc["posthoc"]
    what = doc.get("metric") or doc.get("table", "scores")
    title = f"{what}: {len(doc['datasets'])} datasets, " + (
        f"Nemenyi alpha {ALPHA}" if nemenyi is not None else "average ranks")
    note = None
    if not posthoc["omnibus_rejected"]:  # Demsar (2006): post-hoc tests after a rejection
        note = (f"Iman-Davenport p = {doc['iman_davenport']['p']:.4g}: no significant "
                f"difference at alpha {ALPHA}; "
                + ("groups shown regardless (--posthoc always)" if posthoc["shown"] else
                   "no post-hoc test"))
    ranks = [doc["average_ranks"][m] for m in methods]
    if nemenyi is None:
        return critical_difference_svg(methods, ranks, None, [], title=title, note=note)
    pairs = [(methods.index(a), methods.index(b)) for a, b in nemenyi["significant_pairs"]]
    return critical_difference_svg(methods, ranks, nemenyi["cd"], pairs, title=title,
                                   note=note)
