"""CSV reader on pyarrow's multi-threaded parser.

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
import pyarrow as pa
import pyarrow.compute as pc
from pyarrow import csv as arrow_csv

from dtcli.errors import DataError, ParameterError
from dtcli.io.columns import (
    LineOfRow,
    check_unique_names,
    no_data_rows,
    not_a_number,
    numeric_column,
    ragged_row,
)
from dtcli.io.dataset import NOMINAL, Column, Table
from dtcli.io.source import decode_utf8

MISSING_TOKENS = ("", "?", "NA", "N/A", "NaN", "nan")
DELIMITERS = (",", ";", "\t", "|")
_SNIFF_BYTES = 64 * 1024
_SNIFF_LINES = 50
_BLOCK_BYTES = 4 << 20  # pyarrow parses blocks in parallel; a row must fit in one block
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_LINE_END = re.compile(rb"[\r\n]")
_NOT_LINE_END = re.compile(rb"[^\r\n]")


def read_csv(
    data: bytes,
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
    if not data.isascii():
        decode_utf8(data, source)  # raises, naming the line, unless valid UTF-8
    head = _head_lines(data)
    first = next(i for i, line in enumerate(head) if line)  # pyarrow skips only empty lines
    delimiter = delimiter or sniff_delimiter(head[first:])
    first_row = _split_line(head[first], delimiter)
    if header:
        names = [cell.strip() or f"V{j}" for j, cell in enumerate(first_row, 1)]
    else:
        names = [f"V{j}" for j in range(1, len(first_row) + 1)]
    check_unique_names(names, [first + 1] * len(names), source)
    skip_lines = first + 1 if header else first

    table = _parse(data, source, names, delimiter, skip_lines, set(string_columns))
    if table.num_rows == 0:
        raise no_data_rows(source)

    def line_of_row(row: int) -> int:
        return _line_of_row(data, delimiter, skip_lines, row)

    columns = [
        _column(name, table.column(i), source, line_of_row,
                as_text=name in string_columns, as_number=name in numeric_columns)
        for i, name in enumerate(names)
    ]
    return Table(source, columns)


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


def _head_lines(data: bytes) -> list[str]:
    """Whole lines from the start through 64 KB and the first non-empty line, decoded."""
    start = _NOT_LINE_END.search(data).start()  # the caller made sure data is not blank
    end = _LINE_END.search(data, max(start, _SNIFF_BYTES))
    return _LINE_BREAK.split(data[:end.start() if end else len(data)].decode("utf-8"))


def _split_line(line: str, delimiter: str) -> list[str]:
    return next(csv.reader([line], delimiter=delimiter))


def _parse(data: bytes, source: str, names: list[str], delimiter: str, skip_lines: int,
           text_columns: set[str]) -> pa.Table:
    """Run pyarrow's parser; columns it infers as dates or times are re-read as text."""
    read_options = arrow_csv.ReadOptions(column_names=names, skip_rows=skip_lines,
                                         block_size=_BLOCK_BYTES)
    parse_options = arrow_csv.ParseOptions(delimiter=delimiter, ignore_empty_lines=True)

    def read(as_text: set[str]) -> pa.Table:
        convert_options = arrow_csv.ConvertOptions(
            null_values=list(MISSING_TOKENS), strings_can_be_null=True,
            quoted_strings_can_be_null=True,
            true_values=[], false_values=[],  # no boolean inference: keep "true" as text
            check_utf8=False,  # already checked, with a better message
            column_types={name: pa.string() for name in as_text},
        )
        return arrow_csv.read_csv(pa.BufferReader(data), read_options, parse_options,
                                  convert_options)

    try:
        table = read(text_columns)
        temporal = {f.name for f in table.schema if pa.types.is_temporal(f.type)}
        if temporal:
            table = read(text_columns | temporal)
    except pa.ArrowException as exc:
        raise _parse_error(data, source, delimiter, skip_lines, len(names), exc) from None
    return table


def _column(name: str, values: pa.ChunkedArray, source: str, line_of_row: LineOfRow, *,
            as_text: bool, as_number: bool) -> Column:
    kind = values.type
    if pa.types.is_null(kind) or pa.types.is_integer(kind) or pa.types.is_floating(kind):
        return numeric_column(name, _to_float64(values), source, line_of_row)
    text = _clean_text(values)
    if not as_text:
        numbers = _cast_to_float(text)
        if numbers is not None:  # e.g. numbers next to " ?": pyarrow saw text
            return numeric_column(name, _to_float64(numbers), source, line_of_row)
        if as_number:
            row = _first_non_number(text)
            raise not_a_number(source, line_of_row(row), name, text[row].as_py())
    return Column(name, NOMINAL, text.to_numpy(zero_copy_only=False))


def _to_float64(values: pa.ChunkedArray) -> np.ndarray:
    """Copy chunk by chunk into one preallocated array (no concatenation)."""
    out = np.empty(len(values), dtype=np.float64)
    if pa.types.is_null(values.type):
        out.fill(np.nan)
        return out
    start = 0
    for chunk in values.chunks:
        out[start:start + len(chunk)] = chunk.to_numpy(zero_copy_only=False)  # nulls -> NaN
        start += len(chunk)
    return out


def _clean_text(values: pa.ChunkedArray) -> pa.ChunkedArray:
    """Strip cells and turn missing tokens (e.g. " ?") into nulls."""
    stripped = pc.utf8_trim_whitespace(values)
    missing = pc.is_in(stripped, value_set=pa.array(MISSING_TOKENS))
    return pc.if_else(missing, pa.scalar(None, pa.string()), stripped)


def _cast_to_float(text: pa.ChunkedArray) -> pa.ChunkedArray | None:
    try:
        return pc.cast(text, pa.float64())
    except pa.ArrowInvalid:
        return None


def _first_non_number(text: pa.ChunkedArray) -> int:
    """Row of the first cell that is not a number, by bisection with Arrow's own cast."""
    lo, hi = 0, len(text)  # invariant: text[lo:hi] holds a non-number
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _cast_to_float(text.slice(lo, mid - lo)) is None:
            hi = mid
        else:
            lo = mid
    return lo


def _data_records(data: bytes, delimiter: str, skip_lines: int) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) of each non-empty record after the first `skip_lines` lines.

    A slow re-read with Python's csv module, used only to locate errors.
    """
    reader = csv.reader(io.StringIO(data.decode("utf-8"), newline=""), delimiter=delimiter)
    try:
        for fields in reader:
            if fields and reader.line_num > skip_lines:
                yield reader.line_num, fields
    except csv.Error:  # e.g. a huge field: give up locating
        return


def _line_of_row(data: bytes, delimiter: str, skip_lines: int, row: int) -> int:
    for i, (line, _) in enumerate(_data_records(data, delimiter, skip_lines)):
        if i == row:
            return line
    return skip_lines + row + 1  # the two parsers disagree: assume one line per row


def _parse_error(data: bytes, source: str, delimiter: str, skip_lines: int, width: int,
                 exc: Exception) -> DataError:
    for line, fields in _data_records(data, delimiter, skip_lines):
        if len(fields) != width:
            return ragged_row(source, line, width, len(fields))
    reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return DataError(f"{source}: cannot parse as CSV ({reason})")
