"""Checks and messages shared by the CSV, ARFF and KEEL readers."""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from dtcli.errors import DataError
from dtcli.io.dataset import NUMERIC, Column

LineOfRow = Callable[[int], int]  # 0-based data row -> 1-based line in the file


def numeric_column(name: str, values: np.ndarray, source: str, line_of_row: LineOfRow, *,
                   integer: bool = False) -> Column:
    """A float64 column. An infinite value, or a fraction in a column declared
    integer, is an error naming its line (never a silent truncation)."""
    infinite = np.flatnonzero(np.isinf(values))
    if infinite.size:
        line = line_of_row(int(infinite[0]))
        raise DataError(
            f"{source}:{line}: infinite value in column '{name}'; "
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


def not_a_number(source: str, line: int, column: str, text: str) -> DataError:
    return DataError(f"{source}:{line}: column '{column}' holds '{text}', which is not a number")


def not_declared(source: str, line: int, column: str, text: str,
                 categories: Sequence[str]) -> DataError:
    return DataError(f"{source}:{line}: column '{column}' holds '{text}', which is not one of "
                     f"its declared values {{{', '.join(categories)}}}")


def ragged_row(source: str, line: int, expected: int, found: int) -> DataError:
    return DataError(f"{source}:{line}: expected {expected} fields, found {found}")


def no_data_rows(source: str) -> DataError:
    return DataError(f"{source}: no data rows")
