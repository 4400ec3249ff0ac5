"""ARFF reader on liac-arff.

Attribute types: `numeric` and `real` become numeric columns; `integer` too,
where a fraction is an error (liac-arff alone would truncate it); `{a, b}`
nominal columns with that declared value list; `string` and `date` free-text
columns (kind STRING), fine as the class column, an error as a feature unless
dropped. liac-arff splits the rows (quotes, sparse rows `{0 x, 3 y}`) and
checks nominal values (a declared one, or `?` for missing); dtree reads the
numeric cells, with the missing values and numbers of every reader
(`dtcli.io.columns`). liac-arff's errors become DataErrors naming the line and,
for a nominal value, the column; an @attribute line it would choke on is one too.
"""
from __future__ import annotations

import csv
import re

import numpy as np

from dtcli.errors import DataError
from dtcli.io.columns import (
    no_data_rows,
    not_declared,
    numbers_from_cells,
    ragged_row,
    shown,
)
from dtcli.io.dataset import NOMINAL, STRING, Column, Table

_DATA_LINE = re.compile(r"\s*@data\b.*", re.IGNORECASE)
_ATTRIBUTE_LINE = re.compile(r"\s*@attribute\b.*", re.IGNORECASE)
# An @attribute line split into "@attribute NAME" and its type: a word and the rest,
# or a non-empty value list.
_TYPED_ATTRIBUTE = re.compile(r"(\s*@attribute\s+(?:'[^']*'|\"[^\"]*\"|[^\s{]+))\s*"
                              r"(\w+.*|\{.*\S.*\})\s*", re.IGNORECASE)
_READ_AS_TEXT = ("numeric", "real", "integer", "date")  # in the pass that reads the rows

Attributes = list[tuple[str, object]]  # liac-arff's: (name, "NUMERIC" | "STRING" | [values])


def read_arff(text: str, source: str) -> Table:
    """Parse the text of an ARFF file into a Table."""
    import arff

    # liac-arff takes a list of lines as it takes a file, and counts lines as we do.
    lines = text.splitlines()
    data_at = next((i for i, line in enumerate(lines) if _DATA_LINE.fullmatch(line)), None)
    if data_at is None:
        raise DataError(f"{source}: no @data line; is this an ARFF file?")
    _check_attribute_lines(lines[:data_at], source)
    attributes: list[tuple[str, object]] = []
    try:
        # liac-arff reads no dates: they are free text anyway
        attributes = arff.load(_retyped(lines[:data_at], ("date",)) + ["@data"])["attributes"]
        # numeric cells as text (or None for "?"): dtree reads numbers and missing values
        rows = arff.load(_retyped(lines[:data_at], _READ_AS_TEXT) + lines[data_at:])["data"]
    except arff.ArffException as exc:
        raise _explain(exc, lines, attributes, source) from None
    if not rows:
        raise no_data_rows(source)
    line_numbers = _data_line_numbers(lines, data_at)
    return Table(source, [_column(name, kind, cells, source, line_numbers.__getitem__)
                          for (name, kind), cells in zip(attributes, zip(*rows))])


def _column(name: str, kind: object, cells: tuple, source: str, line_of_row) -> Column:
    """A column from liac-arff's declared type and its cells (numeric ones as text)."""
    if isinstance(kind, list):
        return Column(name, NOMINAL, np.array(cells, dtype=object), tuple(kind))
    if kind == "STRING":
        return Column(name, STRING, np.array(cells, dtype=object))
    return numbers_from_cells(cells, name, source, line_of_row, integer=kind == "INTEGER")


def _check_attribute_lines(header: list[str], source: str) -> None:
    """liac-arff fails on some malformed @attribute lines with an IndexError or a
    ValueError: refuse them first, naming the line."""
    for number, line in enumerate(header, 1):
        if _ATTRIBUTE_LINE.fullmatch(line) and not _TYPED_ATTRIBUTE.fullmatch(line):
            raise DataError(f"{source}:{number}: cannot read the @attribute line "
                            f"'{shown(line.strip())}'; expected @attribute NAME TYPE")


def _retyped(lines: list[str], kinds: tuple[str, ...]) -> list[str]:
    """Declare the attributes of the given types as strings (line count unchanged)."""
    def retyped(line: str) -> str:
        match = _TYPED_ATTRIBUTE.fullmatch(line)
        if match is None or match.group(2).split()[0].lower() not in kinds:
            return line
        return match.group(1) + " string"
    return [retyped(line) for line in lines]


def _data_line_numbers(lines: list[str], data_at: int) -> list[int]:
    """Line numbers of the data rows: non-blank, non-comment lines after @data."""
    return [number for number, line in enumerate(lines[data_at + 1:], data_at + 2)
            if line.strip() and not line.strip().startswith("%")]


def _explain(exc: Exception, lines: list[str], attributes: list, source: str) -> DataError:
    """A one-line DataError for a liac-arff error, naming the line and, for a bad row
    or nominal value, the column."""
    import arff

    line = exc.line
    if attributes and 0 < line <= len(lines) and isinstance(
            exc, (arff.BadDataFormat, arff.BadNominalValue)):
        fields = [f.strip() for f in next(csv.reader([lines[line - 1].strip()], quotechar="'",
                                                     skipinitialspace=True))]
        if isinstance(exc, arff.BadDataFormat) and len(fields) != len(attributes):
            return ragged_row(source, line, len(attributes), len(fields))
        for (name, kind), field in zip(attributes, fields):
            if isinstance(kind, list) and field not in kind and field != "?":
                return not_declared(source, line, name, field, kind)
    # liac-arff puts the line inside its message ("..., at line 7."): say it once, up front.
    message = re.sub(r",? (?:at|in) line -?\d+\.?", "", str(exc))
    return DataError(f"{source}:{line}: {message}")
