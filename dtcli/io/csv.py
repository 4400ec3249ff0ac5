"""CSV reader: pyarrow's multi-threaded parser for large files, Python's for small ones.

Rules, in the order they apply:

- Encoding: UTF-8, with or without a byte-order mark. Line ends LF, CRLF or CR.
  A NUL byte is an error naming its line (it is no text).
- Delimiter: `,` `;` tab or `|`, sniffed from the first 64 KB unless given: the
  one that splits every sampled line into the same number (> 1) of fields,
  else the one giving the header the most fields, else `,`.
- Header: the first non-empty line. An empty header cell is named by its
  position, `V1`, `V2`, ... With `header=False` all columns are named so, as in
  R's `read.csv(header = FALSE)`.
- Quoting: `"` quotes a field, `""` inside quotes is a literal quote. Line
  breaks inside quoted fields are not supported. Blank lines are skipped.
  A field may be of any length.
- Missing values and numbers: as `dtcli.io.columns` defines them for every reader.
- Types: a column whose present cells are all numbers is numeric (float64); one
  of mostly numbers holding some other text is an error naming the first such
  line, raised where the column is used (`Column.problem`); any other column is
  nominal, holding the stripped text.
  `string_columns` forces nominal, `numeric_columns` forces numeric (a cell
  that is not a number is then an error naming its line).
- Infinite values ("inf", "1e999") are an error naming the line.
"""
from __future__ import annotations

import contextlib
import csv
import io
import re
from collections.abc import Collection, Iterator


from dtcli.errors import DataError, ParameterError
from dtcli.io.columns import (MISSING, check_unique_names, column_from_cells, no_data_rows,
                               ragged_row)
from dtcli.io.dataset import Column, Table
from dtcli.io.source import FileContent, decode_utf8

DELIMITERS = (",", ";", "\t", "|")
_SNIFF_BYTES = 64 * 1024
_SNIFF_LINES = 50
# Up to this size Python's csv module parses faster than pyarrow can be imported;
# both paths follow the rules above (the tests run each fixture through both).
SMALL_FILE_BYTES = 1 << 20
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_LINE_END = re.compile(rb"[\r\n]")
_NOT_LINE_END = re.compile(rb"[^\r\n]")
_NUL = re.compile(rb"\x00")


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
    if delimiter is not None and (len(delimiter) != 1 or delimiter in "\"\r\n\0"):
        raise ParameterError(f"the delimiter must be one character, not {delimiter!r}")
    _check_no_nul(data, source)
    with _fields_up_to(len(data)):
        return _read(data, source, header, delimiter, string_columns, numeric_columns)


def _read(data: FileContent, source: str, header: bool, delimiter: str | None,
          string_columns: Collection[str], numeric_columns: Collection[str]) -> Table:
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
    return [column_from_cells(name, [_cell(fields[j]) for fields in rows], source,
                              lines.__getitem__, as_text=name in as_text,
                              as_number=name in as_number)
            for j, name in enumerate(names)]


def _cell(text: str) -> str | None:
    text = text.strip()
    return None if MISSING.fullmatch(text) else text


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
    except csv.Error as exc:  # never stop quietly: the rows after would be lost
        raise DataError(f"{source}:{reader.line_num + 1}: cannot parse as CSV ({exc})") from None


def _check_no_nul(data: FileContent, source: str) -> None:
    """A NUL byte is no text (and would end a C string early): an error naming its line."""
    nul = _NUL.search(data)
    if nul is not None:
        line = bytes(data[:nul.start()]).count(b"\n") + 1
        raise DataError(f"{source}:{line}: NUL byte (0x00) in the text; is this a CSV file?")


@contextlib.contextmanager
def _fields_up_to(n_chars: int) -> Iterator[None]:
    """Let Python's csv module take fields of up to n_chars (its default limit, 128 K
    characters, is an error otherwise); the process-wide limit is restored after."""
    default = csv.field_size_limit()
    csv.field_size_limit(max(default, n_chars))
    try:
        yield
    finally:
        csv.field_size_limit(default)


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
