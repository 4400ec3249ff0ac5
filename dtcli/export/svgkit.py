"""What every SVG picture of dtree shares: escaping, text widths, class colours, and
the document around the shapes. SVG is written as text: no plotting library.

Text widths are estimated from Helvetica's advance widths (grouped: narrow, wide,
capitals, digits), rounded up, so that a box sized by `text_width` holds its text
in Helvetica, Arial and their usual substitutes.
"""
from __future__ import annotations

import colorsys
import re

FONT = "Helvetica, Arial, sans-serif"

# Advance widths in em, of Helvetica's glyphs, by group; other characters take DEFAULT.
_WIDTHS = {**dict.fromkeys("ijlI|!.,:;'`", 0.28), **dict.fromkeys("ftr()[]{}/\\- ", 0.34),
           **dict.fromkeys("mwMW%@", 0.89), **dict.fromkeys("\"*^", 0.4),
           **dict.fromkeys("0123456789", 0.56), **dict.fromkeys("<>=+~#_$?", 0.6)}
_CAPITAL = 0.72
_DEFAULT = 0.58
_BOLD = 1.08  # bold glyphs are wider
_SLACK = 1.04  # and a little room for kerning and font substitutes

# Tableau's ten colours, then evenly spaced hues alternating in lightness.
_PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1",
            "#ff9da7", "#9c755f", "#bab0ac")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def escape(text: str) -> str:
    """Text safe inside an XML element or a double-quoted attribute: `&`, `<`, `>` and
    quotes as entities, characters XML cannot hold as U+FFFD."""
    text = _CONTROL.sub("\ufffd", str(text))
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#39;"))


def text_width(text: str, size: float, bold: bool = False) -> float:
    """The width of `text` at font `size` px, slightly over rather than under."""
    ems = sum(_WIDTHS.get(c, _CAPITAL if c.isupper() else _DEFAULT) for c in text)
    return ems * size * (_BOLD if bold else 1.0) * _SLACK


def class_colours(n_classes: int) -> list[str]:
    """A colour per class, `#rrggbb`: Tableau 10 up to ten classes, else evenly spaced
    hues alternating between two lightnesses, so neighbours differ."""
    if n_classes <= len(_PALETTE):
        return list(_PALETTE[:n_classes])
    colours = []
    for k in range(n_classes):
        r, g, b = colorsys.hls_to_rgb(k / n_classes, 0.45 if k % 2 else 0.62, 0.65)
        colours.append("#" + "".join(f"{round(255 * c):02x}" for c in (r, g, b)))
    return colours


def tint(colour: str, share: float) -> str:
    """`colour` mixed with white: `share` of the colour."""
    rgb = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(share * c + (1 - share) * 255):02x}" for c in rgb)


def text(x: float, y: float, content: str, size: float = 11, anchor: str = "start",
         extra: str = "") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:g}" text-anchor="{anchor}"'
            f'{" " + extra if extra else ""}>{escape(content)}</text>')


def wrap(line: str, limit: int, separators: str = ", ") -> list[str]:
    """`line` cut into pieces of at most `limit` characters after a separator (a list
    of categories stays readable); a piece with no separator is cut where it must."""
    pieces, rest = [], line
    while len(rest) > limit:
        cut = rest.rfind(separators, 0, limit)
        cut = limit if cut <= 0 else cut + len(separators)
        pieces.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    return pieces + [rest]


def document(width: float, height: float, body: list[str], extra: str = "") -> str:
    """A standalone SVG document of `body` elements on a white background."""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" '
            f'height="{height:.0f}" viewBox="0 0 {width:.1f} {height:.1f}" '
            f'font-family="{FONT}"{" " + extra if extra else ""}>\n'
            f'<rect width="100%" height="100%" fill="white"/>\n'
            + "\n".join(body) + "\n</svg>\n")
