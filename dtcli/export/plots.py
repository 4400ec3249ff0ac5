"""Small SVG plots: a score against a parameter with a band of one standard
deviation, a heat map of a score over two parameters, the cost-complexity pruning
path, the fold scores of methods on one dataset, a reliability diagram and a
Bayesian test's posterior in the probability simplex. Written as SVG text, as the
CD diagram is; each function returns a standalone SVG document.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from dtcli.export import svgkit
from dtcli.export.svgkit import escape, text, text_width

SIZE = 11
LINE_COLOUR = "#4e79a7"
BAND_COLOUR = "#a5c0dd"
MARK_COLOUR = "#e15759"


def nice_ticks(low: float, high: float, count: int = 6) -> list[float]:
    """Round values (1, 2 or 5 times a power of ten apart, at most `count` + 1 of them)
    in [low, high]."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return [low]
    raw = (high - low) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step - 1e-9) * step
    return [round(first + i * step, 12) for i in range(int((high - first) / step + 1e-9) + 1)]


def padded(values, share: float = 0.05) -> tuple[float, float]:
    """The range of `values`, widened by `share` each way (by 1 for a single value)."""
    finite = [v for v in values if v is not None and math.isfinite(v)]
    low, high = (min(finite), max(finite)) if finite else (0.0, 1.0)
    if high == low:
        return low - 0.5, high + 0.5
    span = high - low
    return low - share * span, high + share * span


def label(value: float) -> str:
    return f"{value:.4g}"


@dataclass
class Axes:
    """A plot area: `left`, `top`, `width`, `height` in px, and the data ranges it
    shows (`log_x`: a logarithmic x axis)."""

    left: float
    top: float
    width: float
    height: float
    x_range: tuple[float, float]
    y_range: tuple[float, float]
    log_x: bool = False

    def _fx(self, x: float) -> float:
        return math.log10(x) if self.log_x else x

    def px(self, x: float) -> float:
        lo, hi = (self._fx(v) for v in self.x_range)
        return self.left + (self._fx(x) - lo) / (hi - lo) * self.width

    def py(self, y: float) -> float:
        lo, hi = self.y_range
        return self.top + self.height - (y - lo) / (hi - lo) * self.height

    def x_ticks(self) -> list[float]:
        if not self.log_x:
            return nice_ticks(*self.x_range)
        lo, hi = (math.floor(math.log10(v)) for v in self.x_range)
        return [10.0 ** e for e in range(lo, hi + 2) if self.x_range[0] <= 10.0 ** e
                <= self.x_range[1]]

    def frame(self, x_label: str, y_label: str, title: str = "",
              x_ticks: list[tuple[float, str]] | None = None) -> list[str]:
        """The axes' box, ticks, tick labels, axis labels and title."""
        right, bottom = self.left + self.width, self.top + self.height
        parts = [f'<rect x="{self.left:.1f}" y="{self.top:.1f}" width="{self.width:.1f}" '
                 f'height="{self.height:.1f}" fill="none" stroke="#999"/>']
        ticks = x_ticks if x_ticks is not None else [(t, label(t)) for t in self.x_ticks()]
        for value, name in ticks:
            x = self.px(value)
            parts.append(f'<line x1="{x:.1f}" y1="{bottom:.1f}" x2="{x:.1f}" '
                         f'y2="{bottom + 4:.1f}" stroke="#666"/>')
            parts.append(text(x, bottom + 15, name, SIZE - 1, "middle"))
        for value in nice_ticks(*self.y_range):
            y = self.py(value)
            parts.append(f'<line x1="{self.left - 4:.1f}" y1="{y:.1f}" x2="{right:.1f}" '
                         f'y2="{y:.1f}" stroke="#e4e4e4"/>')
            parts.append(text(self.left - 6, y + 4, label(value), SIZE - 1, "end"))
        parts.append(text(self.left + self.width / 2, bottom + 32, x_label, SIZE, "middle"))
        parts.append(text(self.left - 46, self.top + self.height / 2, y_label, SIZE, "middle",
                          f'transform="rotate(-90 {self.left - 46:.1f} '
                          f'{self.top + self.height / 2:.1f})"'))
        if title:
            parts.append(text(self.left, self.top - 10, title, SIZE + 1,
                              extra='font-weight="bold"'))
        return parts


def _polyline(points: list[tuple[float, float]], colour: str, width: float = 1.5) -> str:
    coords = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    return (f'<polyline points="{coords}" fill="none" stroke="{colour}" '
            f'stroke-width="{width}"/>')


def score_curve(xs: list[float], means: list[float], stds: list[float], x_label: str,
                y_label: str, title: str, best: float | None = None) -> str:
    """A score against one parameter, the band of one std around it, the best point
    marked; a logarithmic x axis when the values are positive and span over 100x."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    xs, means, stds = ([v[i] for i in order] for v in (xs, means, stds))
    stds = [s if s is not None and math.isfinite(s) else 0.0 for s in stds]
    log_x = min(xs) > 0 and max(xs) / min(xs) > 100
    x_range = ((min(xs) / 1.2, max(xs) * 1.2) if log_x else padded(xs, 0.03))
    axes = Axes(70, 40, 460, 240, x_range,
                padded([m - s for m, s in zip(means, stds)] + [m + s for m, s in zip(means, stds)]),
                log_x)
    upper = [(axes.px(x), axes.py(m + s)) for x, m, s in zip(xs, means, stds)]
    lower = [(axes.px(x), axes.py(m - s)) for x, m, s in zip(xs, means, stds)]
    band = " ".join(f"{x:.1f},{y:.1f}" for x, y in upper + lower[::-1])
    parts = axes.frame(x_label, y_label, title)
    parts.append(f'<polygon points="{band}" fill="{BAND_COLOUR}" fill-opacity="0.5" '
                 f'stroke="none"><title>mean ± 1 std over folds</title></polygon>')
    parts.append(_polyline([(axes.px(x), axes.py(m)) for x, m in zip(xs, means)], LINE_COLOUR))
    for x, m, s in zip(xs, means, stds):
        parts.append(f'<circle cx="{axes.px(x):.1f}" cy="{axes.py(m):.1f}" r="2.5" '
                     f'fill="{LINE_COLOUR}"><title>{escape(f"{label(x)}: {m:.4f} ± {s:.4f}")}'
                     f"</title></circle>")
    if best is not None:
        i = xs.index(best)
        parts.append(f'<circle cx="{axes.px(best):.1f}" cy="{axes.py(means[i]):.1f}" r="5" '
                     f'fill="none" stroke="{MARK_COLOUR}" stroke-width="2"/>')
        x = axes.px(best)  # the label inside the frame, also at either end
        anchor = ("start" if x < axes.left + 40 else
                  "end" if x > axes.left + axes.width - 40 else "middle")
        parts.append(text(x + {"start": -4, "end": 4, "middle": 0}[anchor],
                          axes.py(means[i]) - 9, f"best {label(best)}", SIZE, anchor,
                          f'fill="{MARK_COLOUR}"'))
    return svgkit.document(560, 330, parts)


def heat_map(x_values: list[float], y_values: list[float], scores: list[list[float]],
             x_label: str, y_label: str, title: str, best: tuple[float, float] | None = None,
             higher_is_better: bool = True) -> str:
    """A score over a grid of two parameters, `scores[i][j]` at (x_values[j],
    y_values[i]), darker for better; each cell shows its score."""
    finite = [v for row in scores for v in row if v is not None and math.isfinite(v)]
    low, high = (min(finite), max(finite)) if finite else (0.0, 1.0)
    cell_w = max(34.0, max(text_width(label(x), SIZE - 1) for x in x_values) + 6)
    cell_h = 20.0
    left, top = 70.0 + max(text_width(label(y), SIZE - 1) for y in y_values), 40.0
    parts = [text(left, top - 14, title, SIZE + 1, extra='font-weight="bold"')]
    for i, y in enumerate(y_values):
        row_y = top + (len(y_values) - 1 - i) * cell_h  # the first y at the bottom
        parts.append(text(left - 6, row_y + 14, label(y), SIZE - 1, "end"))
        for j, x in enumerate(x_values):
            value = scores[i][j]
            share = 0.0 if value is None or not math.isfinite(value) or high == low else (
                (value - low) / (high - low) if higher_is_better else (high - value) / (high - low))
            fill = svgkit.tint(LINE_COLOUR, 0.08 + 0.8 * share)
            cell_x = left + j * cell_w
            stroke = (f' stroke="{MARK_COLOUR}" stroke-width="2"'
                      if best is not None and (x, y) == tuple(best) else "")
            shown = "-" if value is None or not math.isfinite(value) else f"{value:.3f}"
            parts.append(f'<rect x="{cell_x:.1f}" y="{row_y:.1f}" width="{cell_w:.1f}" '
                         f'height="{cell_h:.1f}" fill="{fill}"{stroke}><title>'
                         f'{escape(f"{x_label}={label(x)}, {y_label}={label(y)}: {shown}")}'
                         "</title></rect>")
            parts.append(text(cell_x + cell_w / 2, row_y + 14, shown.lstrip("0") or "0",
                              SIZE - 2, "middle", 'fill="white"' if share > 0.6 else ""))
    bottom = top + len(y_values) * cell_h
    for j, x in enumerate(x_values):
        parts.append(text(left + (j + 0.5) * cell_w, bottom + 14, label(x), SIZE - 1, "middle"))
    parts.append(text(left + len(x_values) * cell_w / 2, bottom + 32, x_label, SIZE, "middle"))
    parts.append(text(20, top + len(y_values) * cell_h / 2, y_label, SIZE, "middle",
                      f'transform="rotate(-90 20 {top + len(y_values) * cell_h / 2:.1f})"'))
    width = max(left + len(x_values) * cell_w + 20, left + text_width(title, SIZE + 1, True) + 10)
    return svgkit.document(width, bottom + 44, parts)


def pruning_path(alphas: list[float], impurities: list[float], leaves: list[int],
                 title: str) -> str:
    """The cost-complexity path as scikit-learn's example plots it: the total leaf
    impurity and the number of leaves against the effective alpha, as steps (each
    value holds from its alpha to the next)."""
    x_range = padded(alphas, 0.02)
    panels = [("total leaf impurity", impurities, 64.0), ("leaves", leaves, 304.0)]
    parts = [text(70, 22, title, SIZE + 2, extra='font-weight="bold"')]
    for name, values, top in panels:
        axes = Axes(70, top, 460, 170, x_range, padded(values))
        parts += axes.frame("effective alpha", name, f"{name} against alpha")
        steps = []
        for i, (a, v) in enumerate(zip(alphas, values)):
            steps.append((axes.px(a), axes.py(v)))
            end = alphas[i + 1] if i + 1 < len(alphas) else x_range[1]
            steps.append((axes.px(end), axes.py(v)))
        parts.append(_polyline(steps, LINE_COLOUR))
        for a, v in zip(alphas, values):
            parts.append(f'<circle cx="{axes.px(a):.1f}" cy="{axes.py(v):.1f}" r="2.5" '
                         f'fill="{LINE_COLOUR}"><title>alpha {label(a)}: {label(v)}</title>'
                         "</circle>")
    return svgkit.document(max(560, 80 + text_width(title, SIZE + 2, True)), 524, parts)


def fold_strips(methods: list[str], folds: dict[str, list[float]], means: dict[str, float],
                best: list[str], title: str, metric: str) -> str:
    """One row per method: its fold scores as dots, its mean as a bar across them; the
    best method's row in bold."""
    name_width = max(text_width(m, SIZE, True) for m in methods) + 12
    values = [v for m in methods for v in folds.get(m, []) if v is not None] + [
        means[m] for m in methods]
    axes = Axes(name_width + 10, 34, 300, 20.0 * len(methods), padded(values), (0, 1))
    row = 20.0
    parts = [text(10, 20, title, SIZE + 1, extra='font-weight="bold"')]
    for i, m in enumerate(methods):
        y = axes.top + row * (i + 0.5)
        parts.append(text(axes.left - 8, y + 4, m, SIZE, "end",
                          'font-weight="bold"' if m in best else ""))
        parts.append(f'<line x1="{axes.left:.1f}" y1="{y:.1f}" x2="{axes.left + axes.width:.1f}" '
                     f'y2="{y:.1f}" stroke="#eee"/>')
        for v in folds.get(m, []):
            if v is not None and math.isfinite(v):
                parts.append(f'<circle cx="{axes.px(v):.1f}" cy="{y:.1f}" r="3" '
                             f'fill="{LINE_COLOUR}" fill-opacity="0.45"/>')
        x = axes.px(means[m])
        parts.append(f'<line x1="{x:.1f}" y1="{y - 7:.1f}" x2="{x:.1f}" y2="{y + 7:.1f}" '
                     f'stroke="{MARK_COLOUR if m in best else "#222"}" stroke-width="2.5">'
                     f"<title>{escape(f'{m}: mean {means[m]:.4f}')}</title></line>")
    bottom = axes.top + axes.height
    parts.append(f'<line x1="{axes.left:.1f}" y1="{bottom:.1f}" '
                 f'x2="{axes.left + axes.width:.1f}" y2="{bottom:.1f}" stroke="#999"/>')
    for t in nice_ticks(*axes.x_range, count=4):
        parts.append(f'<line x1="{axes.px(t):.1f}" y1="{bottom:.1f}" x2="{axes.px(t):.1f}" '
                     f'y2="{bottom + 4:.1f}" stroke="#666"/>')
        parts.append(text(axes.px(t), bottom + 15, label(t), SIZE - 1, "middle"))
    parts.append(text(axes.left + axes.width / 2, bottom + 30, metric, SIZE, "middle"))
    return svgkit.document(axes.left + axes.width + 20, bottom + 40, parts)


def search_plot(doc: dict) -> str:
    """`dtree tune --plot`: a tune document's score against its parameter (with the band
    of one std over folds), or a heat map over its two parameters."""
    names = list(doc["grid"])
    results, best = doc["results"], doc["best_params"]
    protocol = doc["protocol"]
    title = (f"{doc['criterion']} on {doc['dataset']}: {doc['metric']}, {protocol['cv']}-fold "
             f"CV x {protocol['repeats']}")
    if len(names) == 1:
        name = names[0]
        return score_curve([r["params"][name] for r in results], [r["mean"] for r in results],
                           [r["std"] for r in results], name, doc["metric"], title, best[name])
    xs = sorted({r["params"][names[0]] for r in results})
    ys = sorted({r["params"][names[1]] for r in results})
    cells = {(r["params"][names[0]], r["params"][names[1]]): r["mean"] for r in results}
    return heat_map(xs, ys, [[cells.get((x, y)) for x in xs] for y in ys], names[0], names[1],
                    title, (best[names[0]], best[names[1]]), doc["higher_is_better"])


def reliability_diagram(calibration: dict, title: str) -> str:
    """The reliability diagram of pooled out-of-fold probabilities (`runner.pooled_calibration`):
    each bin's accuracy against its mean confidence (the diagonal is perfect calibration),
    and below, the number of rows in each of the equal-width confidence bins."""
    bins = calibration["bins"]
    axes = Axes(70, 40, 300, 240, (0.0, 1.0), (0.0, 1.0))
    counts = Axes(70, 300, 300, 60, (0.0, 1.0), (0.0, max(max(calibration["count"]), 1)))
    parts = axes.frame("", "accuracy", title, x_ticks=[])
    parts.append(f'<line x1="{axes.px(0):.1f}" y1="{axes.py(0):.1f}" x2="{axes.px(1):.1f}" '
                 f'y2="{axes.py(1):.1f}" stroke="#999" stroke-dasharray="4 3"/>')
    points = [(c, a, n) for c, a, n in zip(calibration["confidence"], calibration["accuracy"],
                                           calibration["count"]) if n]
    parts.append(_polyline([(axes.px(c), axes.py(a)) for c, a, _ in points], LINE_COLOUR))
    for c, a, n in points:
        parts.append(f'<circle cx="{axes.px(c):.1f}" cy="{axes.py(a):.1f}" r="3" '
                     f'fill="{LINE_COLOUR}"><title>{escape(f"confidence {c:.3f}: accuracy {a:.3f}, {n} rows")}'
                     f"</title></circle>")
    parts += counts.frame("confidence (largest class probability)", "rows")
    for m, n in enumerate(calibration["count"]):
        if n:
            x0, x1 = counts.px(m / bins), counts.px((m + 1) / bins)
            parts.append(f'<rect x="{x0 + 1:.1f}" y="{counts.py(n):.1f}" width="{x1 - x0 - 2:.1f}" '
                         f'height="{counts.py(0) - counts.py(n):.1f}" fill="{BAND_COLOUR}">'
                         f"<title>{escape(f'{m / bins:.3f} to {(m + 1) / bins:.3f}: {n} rows')}"
                         f"</title></rect>")
    return svgkit.document(400, 410, parts)


def triangle_svg(masses, title: str, base: str, other: str) -> str:
    """The posterior samples of a signed-rank test as points in the probability simplex, a
    corner per region (Benavoli et al. 2017, Figure 6): `base` worse at the left,
    equivalent at the top, `base` better at the right. SVG."""
    width, height, margin = 340.0, 300.0, 40.0
    corners = ((margin, height - margin), (width / 2, margin + 16),
               (width - margin, height - margin))
    parts = [svgkit.text(10, 18, title, 12, extra='font-weight="bold"'),
             '<polygon points="' + " ".join(f"{x:.1f},{y:.1f}" for x, y in corners)
             + '" fill="none" stroke="#666"/>', '<g fill="#4e79a7" fill-opacity="0.3">']
    for masses_of_sample in masses:
        x = sum(m * c[0] for m, c in zip(masses_of_sample, corners))
        y = sum(m * c[1] for m, c in zip(masses_of_sample, corners))
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="1.3"/>')
    parts.append("</g>")
    parts += [svgkit.text(corners[0][0], corners[0][1] + 18, f"{other} better", 11, "middle"),
              svgkit.text(corners[1][0], corners[1][1] - 6, "equivalent (rope)", 11, "middle"),
              svgkit.text(corners[2][0], corners[2][1] + 18, f"{base} better", 11, "middle")]
    return svgkit.document(width, height + 10, parts)
