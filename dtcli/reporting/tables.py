"""Tables for people: rich tables that never cut a cell, and markdown tables.

A table wider than the console is split into column groups that each repeat
the first column (the dataset or class names); when not even one column
beside the first fits, the rows are printed plainly, one cell a line. Cells
are never wrapped or cut: a number or a dataset name cut to "0.83…" or
"ecoli…" is worse than no table. The console is the terminal's width, or, in a
pipe or a file, `COLUMNS` (as the shell exports it) else 80 columns, so that
`dtree compare ... > table.txt` reads as it does on a terminal. rich is imported
inside the functions: the CLI imports the report modules to build `dtree --help`.
"""
from __future__ import annotations

import functools
import io
import os
from collections.abc import Sequence

MARK = " *"  # a cell ending in it is the best of its row, shown in bold
PIPE_WIDTH = 80  # columns of a console that is not a terminal, unless COLUMNS says
_UNLIMITED = 10_000  # the width at which a table is measured unsqueezed


def console(stream, width: int | None = None):
    """A console on `stream`: the terminal's width and colour; plain text in
    `piped_width()` columns when it is not a terminal; or exactly `width` columns."""
    terminal = hasattr(stream, "isatty") and stream.isatty()
    if width is None and not terminal:
        width = piped_width()
    return console_class()(file=stream, highlight=False, force_terminal=terminal, width=width)


def piped_width() -> int:
    """`COLUMNS` when it is a positive number, else PIPE_WIDTH."""
    value = os.environ.get("COLUMNS", "")
    return int(value) if value.isdigit() and int(value) > 0 else PIPE_WIDTH


@functools.cache
def console_class():
    """rich's Console, except that a closed pipe raises BrokenPipeError: rich would exit
    the process with code 1 (and point stdout at /dev/null, even in a library call);
    the command line ends quietly with 0 for it (dtcli.cli)."""
    from rich.console import Console

    class PipeConsole(Console):
        def on_broken_pipe(self) -> None:
            raise  # the BrokenPipeError rich is handling

    return PipeConsole


def _rich_table(header, rows, columns: Sequence[int], footer_rows: int):
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(box=box.SIMPLE_HEAD)
    for i in columns:
        table.add_column(Text(header[i]), justify="left" if i == 0 else "right", no_wrap=True)
    for n, row in enumerate(rows):
        cells = [Text(row[i], style="bold" if row[i].endswith(MARK) else "") for i in columns]
        table.add_row(*cells, end_section=n == len(rows) - footer_rows - 1)
    return table


def _width(out, table) -> int:
    """The columns a table needs unsqueezed (measured as if the console were unlimited:
    a measurement is capped at the width it is given)."""
    from rich.measure import Measurement

    return Measurement.get(out, out.options.update_width(_UNLIMITED), table).maximum


def column_groups(out, header, rows, footer_rows: int = 0) -> list[list[int]] | None:
    """The data columns (1..) in consecutive groups whose tables, beside column 0, fit
    the console; None when column 0 and a single other column do not fit."""
    def fits(columns):
        return _width(out, _rich_table(header, rows, columns, footer_rows)) <= out.width

    groups: list[list[int]] = []
    for i in range(1, len(header)):
        if groups and fits([0, *groups[-1], i]):
            groups[-1].append(i)
        elif fits([0, i]):
            groups.append([i])
        else:
            return None
    return groups


def print_table(out, header, rows, *, title: str, footer_rows: int = 0) -> None:
    """Print a titled table on console `out`: whole, in column groups, or plainly (see the
    module docstring). The title is a line of its own, wrapped at the console's width."""
    from rich.text import Text

    header = [str(h) for h in header]
    rows = [[str(cell) for cell in row] for row in rows]
    groups = column_groups(out, header, rows, footer_rows)
    out.print(Text(title))
    if groups is None:
        for row in rows:
            out.print(Text(row[0], style="bold"))
            for name, cell in zip(header[1:], row[1:]):
                out.print(Text(f"  {name}: {cell}"))
    elif len(groups) <= 1:
        out.print(_rich_table(header, rows, range(len(header)), footer_rows))
    else:
        for group in groups:
            span = f"{group[0]}-{group[-1]}" if len(group) > 1 else f"{group[0]}"
            out.print(Text(f"columns {span} of {len(header) - 1}:"))
            out.print(_rich_table(header, rows, [0, *group], footer_rows))


def markdown_table(header, rows, right=()) -> str:
    right = set(right)
    escape = lambda text: str(text).replace("|", "\\|")  # noqa: E731
    out = io.StringIO()
    out.write("| " + " | ".join(escape(h) for h in header) + " |\n")
    out.write("|" + "|".join("---:" if i in right else "---" for i in range(len(header))) + "|\n")
    for row in rows:
        out.write("| " + " | ".join(escape(c) for c in row) + " |\n")
    return out.getvalue()
