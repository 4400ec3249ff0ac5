"""What `dtree criteria` prints: the registry as a table of one line per criterion at 80
columns, one criterion's full entry, or JSON.

The table's family is the module its kernel is written in (dtcli/criteria/: impurity,
hellinger, dcsm), its paper the first author and year of its first source, and its use
the summary's first clause: all read from the registry entry, so a new criterion needs
nothing here.
"""
from __future__ import annotations

import re
import textwrap

WIDTH = 80
_YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")
_AUTHOR = re.compile(r"^(?:[A-Z][a-z]?\.[ -]?)+(?:[A-Z]\.-[A-Z]\.\s)?\s*(?P<surname>[A-Z][\w'-]+)$")


def family(criterion) -> str:
    """The module of dtcli/criteria/ that holds the criterion's kernel."""
    return criterion.family


def short_paper(source: str) -> str:
    """'Breiman et al. 1984' for the first of a source's references (`;`-separated)."""
    first = source.split(";")[0]
    surnames = []
    for part in first.split(", "):
        names = [_AUTHOR.match(name.strip()) for name in part.split(" and ")]
        if not all(names):
            break
        surnames += [name["surname"] for name in names]
    year = _YEAR.search(first)
    who = (surnames[0] if len(surnames) == 1 else f"{surnames[0]} & {surnames[1]}"
           if len(surnames) == 2 else f"{surnames[0]} et al.") if surnames else first[:20]
    return f"{who} {year.group(1)}" if year else who


def entries() -> list[dict]:
    """Every criterion as `criteria -f json` writes it."""
    from dtcli.criteria import CRITERIA

    return [{"name": c.name,
             "params": [{"name": p.name, "default": p.default, "range": p.describe_range()}
                        for p in c.params],
             "source": c.source, "summary": c.summary,
             "family": family(c), "paper": short_paper(c.source)} for c in CRITERIA.values()]


def table_lines(rows: list[dict], width: int = WIDTH) -> list[str]:
    """One criterion a row (its use wrapped within `width`): name, family, paper, use."""
    heads = ("criterion", "family", "paper")
    widths = [max(len(h), *(len(row[key]) for row in rows))
              for h, key in zip(heads, ("name", "family", "paper"))]
    indent = sum(widths) + 2 * len(widths)
    lines = ["  ".join(h.ljust(w) for h, w in zip(heads, widths)) + "  use"]
    for row in rows:
        use = row["summary"].split(";")[0].rstrip(".")
        wrapped = textwrap.wrap(use, max(width - indent, 20), break_on_hyphens=False) or [""]
        cells = (row["name"], row["family"], row["paper"])
        lines.append("  ".join(c.ljust(w) for c, w in zip(cells, widths)) + "  " + wrapped[0])
        lines += [" " * indent + more for more in wrapped[1:]]
    lines.append("")
    lines.append("dtree criteria NAME (or --long) shows a criterion's parameters and sources.")
    return lines


def entry_lines(row: dict, width: int = WIDTH) -> list[str]:
    """One criterion's full entry: what it is, its parameters (default, range), sources."""
    def block(label: str, text: str) -> list[str]:
        return textwrap.wrap(text, width, initial_indent=f"{label:<12}",
                             subsequent_indent=" " * 12, break_on_hyphens=False)

    lines = [f"{row['name']} ({row['family']}, {row['paper']})"]
    lines += block("use", row["summary"])
    for param in row["params"]:
        lines += block("parameter", f"{param['name']} = {param['default']:g} "
                                    f"(default), in {param['range']}")
    if not row["params"]:
        lines += block("parameters", "none")
    for source in row["source"].split("; "):
        lines += block("source", source)
    return lines
