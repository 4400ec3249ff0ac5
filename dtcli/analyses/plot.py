"""Line charts as plain SVG (no plotting dependency): a metric against a log-scaled x
(the skew sweep's ratio, the frontier's leaves), one coloured line per series, with an
optional band (low, high) around it and a legend."""
from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
            "#7f7f7f", "#bcbd22", "#17becf")
_WIDTH, _HEIGHT = 640, 400
_LEFT, _RIGHT, _TOP, _BOTTOM = 64, 180, 36, 52  # margins: the legend on the right


@dataclass
class Series:
    """One line: points (x, y), an optional band (lows, highs), markers at the points."""

    label: str
    xs: Sequence[float]
    ys: Sequence[float]
    lows: Sequence[float] | None = None
    highs: Sequence[float] | None = None
    line: bool = True
    dash: str = ""  # an SVG stroke-dasharray, "" for a solid line
    colour: str = ""  # "" for the next colour of the palette
    legend: bool = True  # a series without points is a legend entry only


def log_ticks(low: float, high: float) -> list[float]:
    """1-2-5 ticks of a log axis spanning [low, high] (low > 0)."""
    ticks = []
    for power in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1):
        ticks += [m * 10.0 ** power for m in (1, 2, 5) if low <= m * 10.0 ** power <= high]
    return ticks or [low, high]


def _linear_ticks(low: float, high: float) -> list[float]:
    step = 10 ** math.floor(math.log10((high - low) / 4)) if high > low else 1.0
    for factor in (1, 2, 5, 10):
        if (high - low) / (step * factor) <= 6:
            step *= factor
            break
    return [i * step for i in range(math.ceil(low / step), math.floor(high / step) + 1)]


def line_chart(series: Sequence[Series], *, title: str, x_label: str, y_label: str,
               x_ticks: Sequence[float] | None = None,
               x_tick_labels: Sequence[str] | None = None) -> str:
    """The chart as an SVG document; x on a log axis (every x > 0), ticks at `x_ticks`
    (default: 1-2-5) labelled by `x_tick_labels` (default: their values)."""
    points = [(x, v) for s in series for x, y, lo, hi in _rows(s) for v in (y, lo, hi)
              if math.isfinite(v)]
    xs = [x for x, _ in points] or [1.0, 10.0]
    ys = [y for _, y in points] or [0.0, 1.0]
    x_low, x_high = min(xs), max(xs)
    if x_high <= x_low:
        x_low, x_high = x_low / 2, x_high * 2
    y_low, y_high = min(ys), max(ys)
    pad = (y_high - y_low) * 0.05 or 0.05
    y_low, y_high = y_low - pad, y_high + pad
    plot_w, plot_h = _WIDTH - _LEFT - _RIGHT, _HEIGHT - _TOP - _BOTTOM

    def px(x):
        return _LEFT + (math.log(x) - math.log(x_low)) / (math.log(x_high) - math.log(x_low)) * plot_w

    def py(y):
        return _TOP + (y_high - y) / (y_high - y_low) * plot_h

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{_HEIGHT}" '
           f'viewBox="0 0 {_WIDTH} {_HEIGHT}" font-family="sans-serif" font-size="12">',
           f'<rect width="{_WIDTH}" height="{_HEIGHT}" fill="white"/>',
           _text(_LEFT + plot_w / 2, 20, title, "middle", size=14),
           f'<rect x="{_LEFT}" y="{_TOP}" width="{plot_w}" height="{plot_h}" fill="none" '
           'stroke="#444"/>']
    ticks = list(x_ticks if x_ticks is not None else log_ticks(x_low, x_high))
    for x, label in zip(ticks, x_tick_labels or [f"{x:g}" for x in ticks]):
        if x_low <= x <= x_high:
            out.append(f'<line x1="{px(x):.1f}" y1="{_TOP}" x2="{px(x):.1f}" '
                       f'y2="{_TOP + plot_h}" stroke="#ddd"/>')
            out.append(_text(px(x), _TOP + plot_h + 16, label, "middle"))
    for y in _linear_ticks(y_low, y_high):
        out.append(f'<line x1="{_LEFT}" y1="{py(y):.1f}" x2="{_LEFT + plot_w}" y2="{py(y):.1f}" '
                   'stroke="#ddd"/>')
        out.append(_text(_LEFT - 6, py(y) + 4, f"{y:g}", "end"))
    out.append(_text(_LEFT + plot_w / 2, _HEIGHT - 12, x_label, "middle"))
    out.append(_text(16, _TOP + plot_h / 2, y_label, "middle",
                     transform=f"rotate(-90 16 {_TOP + plot_h / 2:.1f})"))
    legend_row = 0
    for i, s in enumerate(series):
        colour = s.colour or COLOURS[i % len(COLOURS)]
        dash = f' stroke-dasharray="{s.dash}"' if s.dash else ""
        rows = [r for r in _rows(s) if math.isfinite(r[1])]
        band = [r for r in rows if math.isfinite(r[2]) and math.isfinite(r[3])]
        if len(band) >= 2:
            outline = ([f"{px(x):.1f},{py(hi):.1f}" for x, _, _, hi in band]
                       + [f"{px(x):.1f},{py(lo):.1f}" for x, _, lo, _ in reversed(band)])
            out.append(f'<polygon points="{" ".join(outline)}" fill="{colour}" '
                       'fill-opacity="0.15" stroke="none"/>')
        if s.line and len(rows) >= 2:
            path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y, _, _ in rows)
            out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" '
                       f'stroke-width="2"{dash}><title>{html.escape(s.label)}</title></polyline>')
        out += [f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{colour}">'
                f'<title>{html.escape(s.label)}: ({x:g}, {y:.4g})</title></circle>'
                for x, y, _, _ in rows]
        if not s.legend:
            continue
        legend_y = _TOP + 8 + 18 * legend_row
        legend_row += 1
        out.append(f'<line x1="{_WIDTH - _RIGHT + 12}" y1="{legend_y}" '
                   f'x2="{_WIDTH - _RIGHT + 32}" y2="{legend_y}" stroke="{colour}" '
                   f'stroke-width="3"{dash}/>')
        out.append(_text(_WIDTH - _RIGHT + 38, legend_y + 4, s.label, "start"))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _rows(s: Series):
    nan = [math.nan] * len(s.xs)
    return [(float(x), float(y), float(lo), float(hi)) for x, y, lo, hi in
            zip(s.xs, s.ys, s.lows if s.lows is not None else nan,
                s.highs if s.highs is not None else nan)]


def _text(x: float, y: float, content: str, anchor: str, size: int = 12,
          transform: str = "") -> str:
    extra = f' transform="{transform}"' if transform else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size}"{extra}>'
            f"{html.escape(content)}</text>")
