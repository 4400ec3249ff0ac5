"""CSV reader: pyarrow's multi-threaded parser for large files, Python's for small ones.

Rules, in the order they apply:

- Encoding: UTF-8, with or without a byte-order mark. Line ends LF, CRLF or CR.
- Delimiter: `,` `;` tab or `|`, sniffed from the first 64 KB unless given: the
  one that splits every sampled line into the same number (> 1) of fields,
  else the one giving the header the most fields, else `,`.
- Header: the first non-empty line. An empty header cell is named by its
  position, `V1`, `V2`, ... With `header=False` all columns are named so, as in
  R's `read.csv(header = FALSE)`.
- Quoting: `"` quotes a field, `""` inside quotes is a literal quote. Line
  breaks inside quoted fields are not supported. Blank lines are skipped.
- Missing values: a cell that is, after stripping surrounding whitespace, one
  of `MISSING_TOKENS`.
- Types: a column whose non-missing cells are all numbers is numeric
  (float64); any other column is nominal, holding the stripped text.
  `string_columns` forces nominal, `numeric_columns` forces numeric (a cell
  that is not a number is then an error naming its line).
- Infinite values ("inf", "1e999") are an error naming the line.
"""
from __future__ import annotations

import csv
import io
import re
from collections.abc import Collection, Iterator

import numpy as np

from dtcli.errors import DataError, ParameterError
from dtcli.io.columns import (
    check_unique_names,
    no_data_rows,
    not_a_number,
    numeric_column,
    ragged_row,
)
from dtcli.io.dataset import NOMINAL, Column, Table
from dtcli.io.source import FileContent, decode_utf8

MISSING_TOKENS = ("", "?", "NA", "N/A", "NaN", "nan")
DELIMITERS = (",", ";", "\t", "|")
_SNIFF_BYTES = 64 * 1024
_SNIFF_LINES = 50
# Up to this size Python's csv module parses faster than pyarrow can be imported;
# both paths follow the rules above (the tests run each fixture through both).
SMALL_FILE_BYTES = 1 << 20
# What a number looks like to both parsers: decimal and scientific notation,
# inf, and hexadecimal integers (which pyarrow's type inference takes).
NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(inf|infinity)"
                    r"|[+-]?0x[0-9a-f]+", re.IGNORECASE)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_LINE_END = re.compile(rb"[\r\n]")
_NOT_LINE_END = re.compile(rb"[^\r\n]")


def read_csv(
    data: FileContent,
    source: str,
    *,
    header: bool = True,
    delimiter: str | None = None,
    string_columns: Collection[str] = (),
    numeric_columns: Collection[str] = (),
) -> Table:
    """Parse CSV bytes (see the module docstring for the rules) into a Table."""
    if delimiter is not None and (len(delimiter) != 1 or delimiter in "\"\r\n"):
        raise ParameterError(f"the delimiter must be one character, not {delimiter!r}")
    head = _head_lines(data, source)
    first = next(i for i, line in enumerate(head) if line)  # pyarrow skips only empty lines
    delimiter = delimiter or sniff_delimiter(head[first:])
    first_row = _split_line(head[first], delimiter)
    if header:
        names = [cell.strip() or f"V{j}" for j, cell in enumerate(first_row, 1)]
    else:
        names = [f"V{j}" for j in range(1, len(first_row) + 1)]
    check_unique_names(names, [first + 1] * len(names), source)
    skip_lines = first + 1 if header else first

    if len(data) <= SMALL_FILE_BYTES:
        columns = _read_small(data, source, names, delimiter, skip_lines,
                              set(string_columns), set(numeric_columns))
    else:
        from dtcli.io.csv_arrow import read_columns

        def line_of_row(row: int) -> int:
            return _line_of_row(data, source, delimiter, skip_lines, row)

        def parse_error(exc: Exception) -> DataError:
            return _parse_error(data, source, delimiter, skip_lines, len(names), exc)

        columns = read_columns(data, source, names, delimiter, skip_lines, set(string_columns),
                               set(numeric_columns), line_of_row, parse_error)
    return Table(source, columns)


def _read_small(data: FileContent, source: str, names: list[str], delimiter: str,
                skip_lines: int, as_text: set[str], as_number: set[str]) -> list[Column]:
    """Parse a small file with Python's csv module (pyarrow's import costs more than that)."""
    lines, rows = [], []
    for line, fields in _data_records(data, source, delimiter, skip_lines):
        if len(fields) != len(names):
            raise ragged_row(source, line, len(names), len(fields))
        lines.append(line)
        rows.append(fields)
    if not rows:
        raise no_data_rows(source)

    def line_of_row(row: int) -> int:
        return lines[row]

    columns = []
    for j, name in enumerate(names):
        cells = [_cell(fields[j]) for fields in rows]
        numbers = None if name in as_text else _as_numbers(cells)
        if numbers is not None:
            columns.append(numeric_column(name, numbers, source, line_of_row))
            continue
        if name in as_number:
            row = next(i for i, cell in enumerate(cells)
                       if cell is not None and not NUMBER.fullmatch(cell))
            raise not_a_number(source, lines[row], name, cells[row])
        columns.append(Column(name, NOMINAL, np.array(cells, dtype=object)))
    return columns


def _cell(text: str) -> str | None:
    text = text.strip()
    return None if text in MISSING_TOKENS else text


def _as_numbers(cells: list[str | None]) -> np.ndarray | None:
    """The cells as float64 (None -> NaN) if every present one is a number, else None."""
    if not all(cell is None or NUMBER.fullmatch(cell) for cell in cells):
        return None
    return np.array([np.nan if cell is None else _number(cell) for cell in cells],
                    dtype=np.float64)


def _number(cell: str) -> float:
    return float(int(cell, 16)) if "x" in cell or "X" in cell else float(cell)


def sniff_delimiter(lines: list[str]) -> str:
    """Pick the delimiter from sample lines (the first is the header)."""
    sample = [line for line in lines if line][:_SNIFF_LINES]
    best, best_score = ",", (False, 1)
    for candidate in DELIMITERS:
        widths = [len(fields) for fields in csv.reader(sample, delimiter=candidate)]
        score = (len(set(widths)) == 1, widths[0])
        if widths[0] > 1 and score > best_score:
            best, best_score = candidate, score
    return best


def _head_lines(data: FileContent, source: str) -> list[str]:
    """Whole lines from the start through 64 KB and the first non-empty line, decoded."""
    start = _NOT_LINE_END.search(data).start()  # the caller made sure data is not blank
    end = _LINE_END.search(data, max(start, _SNIFF_BYTES))
    return _LINE_BREAK.split(decode_utf8(data[:end.start() if end else len(data)], source))


def _split_line(line: str, delimiter: str) -> list[str]:
    return next(csv.reader([line], delimiter=delimiter))


def _data_records(data: FileContent, source: str, delimiter: str,
                  skip_lines: int) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) of each non-empty record after the first `skip_lines` lines,
    by Python's csv module: slow, so used only for small files and to locate errors.
    Text that is not UTF-8 is the first error, raised naming its line."""
    text = decode_utf8(data, source)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        for fields in reader:
            if fields and reader.line_num > skip_lines:
                yield reader.line_num, fields
    except csv.Error:  # e.g. a huge field: give up locating
        return


def _line_of_row(data: FileContent, source: str, delimiter: str, skip_lines: int,
                 row: int) -> int:
    for i, (line, _) in enumerate(_data_records(data, source, delimiter, skip_lines)):
        if i == row:
            return line
    return skip_lines + row + 1  # the two parsers disagree: assume one line per row


def _parse_error(data: FileContent, source: str, delimiter: str, skip_lines: int, width: int,
                 exc: Exception) -> DataError:
    for line, fields in _data_records(data, source, delimiter, skip_lines):
        if len(fields) != width:
            return ragged_row(source, line, width, len(fields))
    reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return DataError(f"{source}: cannot parse as CSV ({reason})")
