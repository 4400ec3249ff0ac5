"""ARFF reader on liac-arff.

Attribute types: `numeric` and `real` become numeric columns; `integer` too,
where a fraction is an error (liac-arff alone would truncate it); `{a, b}`
nominal columns with that declared value list; `string` and `date` free-text
columns (kind STRING), fine as the class column, an error as a feature unless
dropped. Missing values are `?`. Sparse rows (`{0 x, 3 y}`) are read as
liac-arff reads them. liac-arff's errors become DataErrors naming the line
and, where it can be told, the column.
"""
from __future__ import annotations

import csv
import re

import numpy as np

from dtcli.errors import DataError
from dtcli.io.columns import (
    no_data_rows,
    not_a_number,
    not_declared,
    numeric_column,
    ragged_row,
)
from dtcli.io.dataset import NOMINAL, STRING, Column, Table

_DATA_LINE = re.compile(r"\s*@data\b.*", re.IGNORECASE)
# An @attribute line split into "@attribute NAME ", the type word and the rest.
_TYPED_ATTRIBUTE = re.compile(r"(\s*@attribute\s+(?:'[^']*'|\"[^\"]*\"|\S+)\s+)(\w+)(.*)",
                              re.IGNORECASE)
_NUMERIC_KINDS = ("NUMERIC", "REAL", "INTEGER")

Attributes = list[tuple[str, object]]  # liac-arff's: (name, "NUMERIC" | "STRING" | [values])


def read_arff(text: str, source: str) -> Table:
    """Parse the text of an ARFF file into a Table."""
    import arff

    # liac-arff takes a list of lines as it takes a file, and counts lines as we do.
    lines = text.splitlines()
    data_at = next((i for i, line in enumerate(lines) if _DATA_LINE.fullmatch(line)), None)
    if data_at is None:
        raise DataError(f"{source}: no @data line; is this an ARFF file?")
    header = _retype(lines[:data_at], "date", "string")  # liac-arff cannot read dates
    attributes: Attributes = []
    try:
        attributes = arff.load(header + ["@data"])["attributes"]
        rows = arff.load(_retype(header, "integer", "numeric") + lines[data_at:])["data"]
    except arff.ArffException as exc:
        raise _explain(exc, lines, attributes, source) from None
    if not rows:
        raise no_data_rows(source)

    def line_of_row(row: int) -> int:
        return _data_line_numbers(lines, data_at)[row]

    columns = []
    for (name, kind), values in zip(attributes, zip(*rows)):
        if isinstance(kind, list):
            columns.append(Column(name, NOMINAL, np.array(values, dtype=object), tuple(kind)))
        elif kind == "STRING":
            columns.append(Column(name, STRING, np.array(values, dtype=object)))
        else:  # None (missing) becomes NaN
            columns.append(numeric_column(name, np.array(values, dtype=np.float64), source,
                                          line_of_row, integer=kind == "INTEGER"))
    return Table(source, columns)


def _retype(lines: list[str], old: str, new: str) -> list[str]:
    """Declare the attributes of type `old` as type `new` (line count unchanged)."""
    def retyped(line: str) -> str:
        match = _TYPED_ATTRIBUTE.fullmatch(line)
        return match.group(1) + new if match and match.group(2).lower() == old else line
    return [retyped(line) for line in lines]


def _data_line_numbers(lines: list[str], data_at: int) -> list[int]:
    """Line numbers of the data rows: non-blank, non-comment lines after @data."""
    return [number for number, line in enumerate(lines[data_at + 1:], data_at + 2)
            if line.strip() and not line.strip().startswith("%")]


def _explain(exc: Exception, lines: list[str], attributes: Attributes, source: str) -> DataError:
    """A one-line DataError for a liac-arff error, naming the column when it can be told."""
    import arff

    line = exc.line
    if attributes and 0 < line <= len(lines) and isinstance(
            exc, (arff.BadDataFormat, arff.BadNumericalValue, arff.BadNominalValue)):
        fields = [f.strip() for f in next(csv.reader([lines[line - 1].strip()], quotechar="'",
                                                     skipinitialspace=True))]
        if isinstance(exc, arff.BadDataFormat) and len(fields) != len(attributes):
            return ragged_row(source, line, len(attributes), len(fields))
        for (name, kind), field in zip(attributes, fields):
            if field == "?":
                continue
            if isinstance(kind, list) and field not in kind:
                return not_declared(source, line, name, field, kind)
            if kind in _NUMERIC_KINDS and not _is_number(field):
                return not_a_number(source, line, name, field)
    # liac-arff puts the line inside its message ("..., at line 7."): say it once, up front.
    message = re.sub(r",? (?:at|in) line -?\d+\.?", "", str(exc))
    return DataError(f"{source}:{line}: {message}")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
