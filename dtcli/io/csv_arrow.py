"""The large-file half of the CSV reader, on pyarrow's multi-threaded parser.

Imported only for files above `dtcli.io.csv.SMALL_FILE_BYTES`: pyarrow (and
the pandas it pulls in when installed) take a few tenths of a second to import.

The numeric columns before the last one are copied once, from pyarrow's blocks
into one C-ordered float64 matrix whose columns the Table holds: with the default
target (the last column) and numeric features, that matrix is the training X.
"""
from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyarrow import csv as arrow_csv

from dtcli.errors import DataError
from dtcli.io.columns import (
    MISSING,
    MISSING_WORDS,
    NUMBER,
    LineOfRow,
    mostly_numbers,
    no_data_rows,
    not_a_number,
    numeric_column,
    parse_number,
    stray_text,
)
from dtcli.io.dataset import NOMINAL, NUMERIC, Column
from dtcli.io.source import FileContent

_BLOCK_BYTES = 4 << 20  # pyarrow parses blocks in parallel; a row must fit in one block
_BAND_CELLS = 128 << 10  # cells of the float matrix filled at a time (1 MB)


def read_columns(data: FileContent, source: str, names: list[str], delimiter: str,
                 skip_lines: int, as_text: set[str], as_number: set[str], line_of_row: LineOfRow,
                 parse_error: Callable[[Exception], DataError]) -> list[Column]:
    """Columns of a CSV file whose header is already read (see dtcli.io.csv for the rules)."""
    table = _parse(data, names, delimiter, skip_lines, as_text, parse_error)
    if table.num_rows == 0:
        raise no_data_rows(source)
    # One matrix for the numeric columns but the last (see the module docstring and
    # dtcli.io.encode.stack_columns).
    last = len(names) - 1
    in_matrix = [i for i, field in enumerate(table.schema)
                 if i != last and _is_numeric(field.type)]
    matrix, infinite = _float_matrix(table.select(in_matrix))
    matrix_column = dict(zip(in_matrix, matrix.T))
    columns = []
    for i, name in enumerate(names):
        if i in matrix_column:  # filling the matrix looked for infinite values already
            values = matrix_column[i]
            columns.append(numeric_column(name, values, source, line_of_row) if infinite
                           else Column(name, NUMERIC, values))
        elif _is_numeric(table.schema.field(i).type):
            columns.append(numeric_column(name, _to_float64(table.column(i)), source,
                                          line_of_row))
        else:
            columns.append(_text_column(name, table.column(i), source, line_of_row,
                                        as_text=name in as_text, as_number=name in as_number))
    return columns


def _parse(data: FileContent, names: list[str], delimiter: str, skip_lines: int,
           text_columns: set[str], parse_error: Callable[[Exception], DataError]) -> pa.Table:
    """Run pyarrow's parser; columns it infers as dates or times are re-read as text."""
    read_options = arrow_csv.ReadOptions(column_names=names, skip_rows=skip_lines,
                                         block_size=_BLOCK_BYTES)
    parse_options = arrow_csv.ParseOptions(delimiter=delimiter, ignore_empty_lines=True)

    def read(as_text: set[str]) -> pa.Table:
        convert_options = arrow_csv.ConvertOptions(
            # NaN in any case and sign pyarrow reads as a float NaN, or leaves as text
            # in a text column, which _clean_text then makes missing
            null_values=list(MISSING_WORDS), strings_can_be_null=True,
            quoted_strings_can_be_null=True,
            true_values=[], false_values=[],  # no boolean inference: keep "true" as text
            check_utf8=True,  # text that is not UTF-8 fails as string, is inferred binary
            column_types={name: pa.string() for name in as_text},
        )
        # The C allocator, not pyarrow's default mimalloc, which maps its buffers in huge
        # pages: on a VM that hands free 2 MB blocks back to its host, faulting those in
        # cost more than the parse (190 MB loaded by a new process: 1.45 s, now 0.85 s).
        return arrow_csv.read_csv(pa.BufferReader(data), read_options, parse_options,
                                  convert_options, memory_pool=pa.system_memory_pool())

    try:
        table = read(text_columns)
        temporal = {f.name for f in table.schema if pa.types.is_temporal(f.type)}
        if temporal:
            table = read(text_columns | temporal)
        if any(pa.types.is_binary(f.type) for f in table.schema):
            raise pa.ArrowInvalid("not UTF-8 text")  # parse_error finds its line
    except pa.ArrowException as exc:
        raise parse_error(exc) from None
    return table


def _is_numeric(kind: pa.DataType) -> bool:
    """Whether pyarrow typed a column as numbers (a column of nothing but missing is null)."""
    return pa.types.is_null(kind) or pa.types.is_integer(kind) or pa.types.is_floating(kind)


def _text_column(name: str, values: pa.ChunkedArray, source: str, line_of_row: LineOfRow, *,
                 as_text: bool, as_number: bool) -> Column:
    """A column pyarrow kept as text: numbers after all if every cell is one once
    stripped and with missing values removed (e.g. numbers next to " ?", or next to
    decimals hexadecimal ones), an error if most are, else nominal."""
    text = _clean_text(values)
    if not as_text:
        not_numbers = _not_numbers(text)
        n_texts = pc.sum(not_numbers).as_py() or 0
        if n_texts == 0:
            return numeric_column(name, _text_to_float64(text), source, line_of_row)
        row = pc.indices_nonzero(not_numbers)[0].as_py()
        if as_number:
            raise not_a_number(source, line_of_row(row), name, text[row].as_py())
        n_present = len(text) - text.null_count
        if mostly_numbers(n_present - n_texts, n_texts):
            return Column(name, NOMINAL, text.to_numpy(zero_copy_only=False), problem=stray_text(
                source, line_of_row(row), name, text[row].as_py(), n_present - n_texts,
                n_present))
    return Column(name, NOMINAL, text.to_numpy(zero_copy_only=False))


def _text_to_float64(text: pa.ChunkedArray) -> np.ndarray:
    """Cells that all are numbers as float64; pyarrow's cast takes no hexadecimal."""
    if pc.any(pc.match_substring(text, "x", ignore_case=True)).as_py():
        return np.array([np.nan if cell is None else parse_number(cell)
                          for cell in text.to_pylist()], dtype=np.float64)
    return _to_float64(pc.cast(text, pa.float64()))


def _float_matrix(table: pa.Table) -> tuple[np.ndarray, bool]:
    """The table's columns side by side as a C-ordered float64 matrix (missing as NaN),
    and whether it holds an infinite value. pyarrow's blocks are copied on all cores
    (numpy's copies release the GIL), each a band of rows at a time so that the
    strided writes stay in the cache."""
    matrix = np.empty((table.num_rows, table.num_columns), dtype=np.float64)
    blocks = table.to_batches()
    starts = np.cumsum([0] + [block.num_rows for block in blocks[:-1]]).tolist()
    band = max(1, _BAND_CELLS // max(1, table.num_columns))

    def fill(block: pa.RecordBatch, start: int) -> bool:
        # numpy views of the whole block first: a conversion per band costs more in Python
        # safe=False: an integer beyond 2^53 rounds to the nearest float, as in the
        # small-file reader, instead of raising
        columns = [values.cast(pa.float64(), safe=False).to_numpy(zero_copy_only=False)
                   for values in block.columns]
        infinite = False
        for offset in range(0, block.num_rows, band):
            rows = matrix[start + offset:start + min(offset + band, block.num_rows)]
            for k, values in enumerate(columns):
                rows[:, k] = values[offset:offset + band]
            infinite |= bool(np.isinf(rows).any())
        return infinite

    with ThreadPoolExecutor(pa.cpu_count()) as pool:
        return matrix, any(list(pool.map(fill, blocks, starts)))


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
    """Strip cells and turn missing values (e.g. " ?", "NAN") into nulls."""
    stripped = pc.utf8_trim_whitespace(values)
    missing = pc.match_substring_regex(stripped, f"^(?:{MISSING.pattern})$")
    return pc.if_else(missing, pa.scalar(None, pa.string()), stripped)


def _not_numbers(text: pa.ChunkedArray) -> pa.ChunkedArray:
    """True where a cell is present but not a number as `dtcli.io.columns.NUMBER` defines it."""
    numbers = pc.match_substring_regex(text, f"^(?:{NUMBER.pattern})$", ignore_case=True)
    return pc.fill_null(pc.invert(numbers), False)
