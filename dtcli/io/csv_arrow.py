"""The large-file half of the CSV reader, on pyarrow's multi-threaded parser.

Imported only for files above `dtcli.io.csv.SMALL_FILE_BYTES`: pyarrow (and
the pandas it pulls in when installed) take a few tenths of a second to import.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyarrow import csv as arrow_csv

from dtcli.errors import DataError
from dtcli.io.columns import LineOfRow, no_data_rows, not_a_number, numeric_column
from dtcli.io.csv import MISSING_TOKENS, NUMBER
from dtcli.io.dataset import NOMINAL, Column

_BLOCK_BYTES = 4 << 20  # pyarrow parses blocks in parallel; a row must fit in one block


def read_columns(data: bytes, source: str, names: list[str], delimiter: str, skip_lines: int,
                 as_text: set[str], as_number: set[str], line_of_row: LineOfRow,
                 parse_error: Callable[[Exception], DataError]) -> list[Column]:
    """Columns of a CSV file whose header is already read (see dtcli.io.csv for the rules)."""
    table = _parse(data, names, delimiter, skip_lines, as_text, parse_error)
    if table.num_rows == 0:
        raise no_data_rows(source)
    return [_column(name, table.column(i), source, line_of_row, as_text=name in as_text,
                    as_number=name in as_number)
            for i, name in enumerate(names)]


def _parse(data: bytes, names: list[str], delimiter: str, skip_lines: int,
           text_columns: set[str], parse_error: Callable[[Exception], DataError]) -> pa.Table:
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
        raise parse_error(exc) from None
    return table


def _column(name: str, values: pa.ChunkedArray, source: str, line_of_row: LineOfRow, *,
            as_text: bool, as_number: bool) -> Column:
    kind = values.type
    if pa.types.is_null(kind) or pa.types.is_integer(kind) or pa.types.is_floating(kind):
        return numeric_column(name, _to_float64(values), source, line_of_row)
    text = _clean_text(values)
    if not as_text:
        not_numbers = _not_numbers(text)
        if not pc.any(not_numbers).as_py():  # e.g. numbers next to " ?": pyarrow saw text
            return numeric_column(name, _to_float64(pc.cast(text, pa.float64())), source,
                                  line_of_row)
        if as_number:
            row = pc.indices_nonzero(not_numbers)[0].as_py()
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


def _not_numbers(text: pa.ChunkedArray) -> pa.ChunkedArray:
    """True where a cell is present but not a number as `dtcli.io.csv.NUMBER` defines it
    (pyarrow's own cast would also take hexadecimal)."""
    numbers = pc.match_substring_regex(text, f"^(?:{NUMBER.pattern})$", ignore_case=True)
    return pc.fill_null(pc.invert(numbers), False)
