"""What a number and a missing value are, with the checks and messages every reader
(CSV on either parser, ARFF, KEEL) shares, so that a file reads alike whatever its
format or size.

- Missing value: a cell that is, once stripped of surrounding whitespace, empty,
  `?`, `NA` or `N/A` (exactly so: `na` or `Na`, sodium, is text), or NaN in any
  case and sign (`nan`, `NAN`, `-nan`: how number parsers, pyarrow's too, read it).
  A declared nominal value wins: an ARFF/KEEL `{yes, NA}` keeps "NA" a category.
- Number: decimal or scientific notation with an optional sign (`-1`, `.5`, `5.`,
  `1e-3`), `inf`/`infinity` (then an error: dtree needs finite numbers), or an
  unsigned hexadecimal integer (`0x1f`), as pyarrow's type inference reads them.
- A CSV column is numeric when more than half of its present cells are numbers
  (`MOSTLY_NUMBERS`); another text in it is then an error naming its line, never a
  reason to make the column nominal. Fewer numbers than that: a nominal column.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from dtcli.errors import DataError
from dtcli.io.dataset import NOMINAL, NUMERIC, Column

# 0-based data row -> 1-based line in the file, or a text ("row 3") for data in memory
LineOfRow = Callable[[int], int | str]

MISSING_WORDS = ("", "?", "NA", "N/A")
MISSING = re.compile(r"|\?|NA|N/A|[+-]?(?i:nan)")  # fullmatch of a stripped cell
NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(inf|infinity)"
                    r"|0x[0-9a-f]+", re.IGNORECASE)
MISSING_SHOWN = "empty, ?, NA, N/A or NaN"
_TEXT_SHOWN = 40  # characters of a cell quoted in a message


def is_missing(cell: str) -> bool:
    return MISSING.fullmatch(cell.strip()) is not None


def parse_number(cell: str) -> float:
    """A cell that fullmatches NUMBER, as float."""
    return float(int(cell, 16)) if "x" in cell or "X" in cell else float(cell)


def mostly_numbers(n_numbers: int, n_other: int) -> bool:
    """Whether a column of present cells with this many numbers and other texts is
    numeric (its other texts then mistakes), rather than a nominal column."""
    return n_numbers > n_other


def numbers_from_cells(cells: Iterable[str | None], name: str, source: str,
                       line_of_row: LineOfRow, *, integer: bool = False,
                       missing: Callable[[str], bool] = is_missing) -> Column:
    """A declared numeric column (ARFF, KEEL) from its cells (None: missing)."""
    values = []
    for row, cell in enumerate(cells):
        text = "" if cell is None else cell.strip()
        if missing(text):
            values.append(np.nan)
        elif NUMBER.fullmatch(text):
            values.append(parse_number(text))
        else:
            raise not_a_number(source, line_of_row(row), name, text)
    return numeric_column(name, np.array(values, dtype=np.float64), source, line_of_row,
                          integer=integer)


def nominal_from_cells(cells: Iterable[str | None], name: str, categories: Sequence[str],
                       source: str, line_of_row: LineOfRow, *,
                       missing: Callable[[str], bool] = is_missing) -> Column:
    """A nominal column with declared `categories` (ARFF, KEEL) from its cells."""
    allowed = set(categories)
    values = []
    for row, cell in enumerate(cells):
        text = None if cell is None else cell.strip()
        if text is None or (text not in allowed and missing(text)):
            values.append(None)
        elif text in allowed:
            values.append(text)
        else:
            raise not_declared(source, line_of_row(row), name, text, categories)
    return Column(name, NOMINAL, np.array(values, dtype=object), tuple(categories))


def column_from_cells(name: str, cells: Sequence[str | None], source: str,
                      line_of_row: LineOfRow, *, as_text: bool = False,
                      as_number: bool = False) -> Column:
    """A column whose type is inferred from its stripped cells (None: missing), as CSV's
    are (and data in memory): numeric if every present cell is a number; nominal with a
    `problem` (`stray_text`) if most are; nominal otherwise (or if `as_text`)."""
    if not as_text:
        texts = [i for i, cell in enumerate(cells)
                 if cell is not None and not NUMBER.fullmatch(cell)]
        if not texts:
            values = np.array([np.nan if cell is None else parse_number(cell) for cell in cells],
                              dtype=np.float64)
            return numeric_column(name, values, source, line_of_row)
        first = texts[0]
        if as_number:
            raise not_a_number(source, line_of_row(first), name, cells[first])
        n_present = sum(cell is not None for cell in cells)
        if mostly_numbers(n_present - len(texts), len(texts)):
            return Column(name, NOMINAL, np.array(cells, dtype=object), problem=stray_text(
                source, line_of_row(first), name, cells[first], n_present - len(texts),
                n_present))
    return Column(name, NOMINAL, np.array(cells, dtype=object))


def numeric_column(name: str, values: np.ndarray, source: str, line_of_row: LineOfRow, *,
                   integer: bool = False) -> Column:
    """A float64 column. An infinite value, or a fraction in a column declared
    integer, is an error naming its line (never a silent truncation)."""
    infinite = np.flatnonzero(np.isinf(values))
    if infinite.size:
        line = line_of_row(int(infinite[0]))
        raise DataError(
            f"{place(source, line)}: infinite value in column '{name}'; "
            "dtree needs finite numbers (leave the cell empty for a missing value)"
        )
    if integer:
        fractions = np.flatnonzero(~np.isnan(values) & (values != np.round(values)))
        if fractions.size:
            row = int(fractions[0])
            value = float(values[row])
            raise DataError(
                f"{source}:{line_of_row(row)}: integer column '{name}' holds {value!r}; "
                "declare it real if fractions are meant"
            )
    return Column(name, NUMERIC, values)


def check_unique_names(names: Sequence[str], lines: Sequence[int], source: str) -> None:
    """Raise on a repeated column name, naming the line (of the header, or of the
    attribute declaration) where it repeats."""
    seen: set[str] = set()
    for name, line in zip(names, lines):
        if name in seen:
            raise DataError(f"{source}:{line}: duplicate column name '{name}'; rename one of them")
        seen.add(name)


def place(source: str, line: int | str) -> str:
    """Where a cell is: "FILE:LINE" in a file, "X, row 3" in memory."""
    return f"{source}:{line}" if isinstance(line, int) else f"{source}, {line}"


def shown(text: str) -> str:
    """A cell as quoted in a message: one line, at most _TEXT_SHOWN characters."""
    text = text.encode("unicode_escape").decode("ascii") if not text.isprintable() else text
    return text if len(text) <= _TEXT_SHOWN else text[:_TEXT_SHOWN] + "..."


def not_a_number(source: str, line: int, column: str, text: str) -> DataError:
    return DataError(f"{place(source, line)}: column '{column}' holds '{shown(text)}', which is "
                     f"neither a number nor a missing value ({MISSING_SHOWN})")


def stray_text(source: str, line: int, column: str, text: str, n_numbers: int,
               n_present: int) -> DataError:
    """A text in a column of mostly numbers (see the module docstring)."""
    return DataError(f"{place(source, line)}: column '{column}' holds '{shown(text)}', but "
                     f"{n_numbers} of its {n_present} values are numbers; correct the cell "
                     f"or write a missing value as {MISSING_SHOWN}")


def not_declared(source: str, line: int, column: str, text: str,
                 categories: Sequence[str]) -> DataError:
    listed = ", ".join(shown(c) for c in categories[:20]) + (", ..." if len(categories) > 20
                                                            else "")
    return DataError(f"{source}:{line}: column '{column}' holds '{shown(text)}', which is not "
                     f"one of its declared values {{{listed}}}")


def ragged_row(source: str, line: int, expected: int, found: int) -> DataError:
    return DataError(f"{source}:{line}: expected {expected} fields, found {found}")


def no_data_rows(source: str) -> DataError:
    return DataError(f"{source}: no data rows")
