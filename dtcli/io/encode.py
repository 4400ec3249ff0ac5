"""From a Table to model inputs: target and class labels, nominal codes, the X matrix."""
from __future__ import annotations

import os
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from dtcli.errors import DataError, ParameterError
from dtcli.io.dataset import NOMINAL, NUMERIC, STRING, Column, Dataset, Feature, Table
from dtcli.io.limits import check_class_target, check_node_records
from dtcli.io.row_ids import row_identifier_warnings

_NAMES_SHOWN = 8  # columns listed in an "unknown column" message
_BAND_BYTES = 1 << 20  # rows of X filled at a time by stack_columns


def dataset_from_table(table: Table, *, target: str | None = None,
                       drop: Sequence[str] = (), force: bool = False) -> Dataset:
    """Training data: choose the target, drop columns, encode features and classes.

    `target` and `drop` entries are column names, or 0-based indices into the
    file's columns written as digits ("3", "-1"); a name wins over an index; one
    naming no column is a ParameterError. The default target is the table's (KEEL
    @outputs), else the last column not dropped. Rows without a class value are
    dropped, with a warning, and so is a column that looks like a row identifier
    (`dtcli.io.row_ids`). A target that looks like regression data is an error
    unless `force`, and so is data beyond the engine's memory limit (see
    `dtcli.io.limits`). X may share memory with the table's columns (see
    `stack_columns`).
    """
    dropped = {_column_index(table, spec, "--drop") for spec in drop}
    target_at = _target_index(table, target, dropped)
    target_column = table.columns[target_at]
    inputs = [c for i, c in enumerate(table.columns) if i != target_at and i not in dropped]
    if not inputs:
        raise DataError(f"{table.source}: no feature columns besides the target "
                        f"'{target_column.name}'")
    table.check([*inputs, target_column])
    for column in inputs:
        if column.kind == STRING:
            raise DataError(f"{table.source}: column '{column.name}' is free text (ARFF string "
                            f"or date), which a tree cannot split on; drop it with --drop")

    classes, y, labelled = _encode_target(target_column)
    n_missing = int(labelled.size - labelled.sum())
    rows = labelled if n_missing else slice(None)  # a slice keeps all rows without a copy
    if len(classes) < 2:
        found = f"only one class '{classes[0]}'" if classes else "no class values"
        raise DataError(f"{table.source}: target column '{target_column.name}' has {found}; "
                        "need at least two")
    numbers = target_column.values[labelled] if target_column.kind == NUMERIC else None
    check_class_target(target_column.name, numbers, len(classes), len(y), table.source,
                       force=force)
    warnings = list(table.warnings)
    if n_missing:
        warnings.append(f"dropped {n_missing} row{'s' if n_missing > 1 else ''} with a "
                        f"missing class value in {table.source}")

    features = [_feature(column) for column in inputs]
    check_node_records(len(y), len(classes), target_column.name, table.source)
    encoded = [column.values[rows] if feature.kind == NUMERIC
               else encode_nominal(column.values[rows], feature.categories)
               for feature, column in zip(features, inputs)]
    dataset = Dataset(
        X=stack_columns(encoded, y.shape[0]),
        y=y,
        features=features,
        classes=classes,
        target=target_column.name,
        source=table.source,
        warnings=warnings,
        declared_classes=tuple(target_column.categories),
    )
    dataset.warnings.extend(row_identifier_warnings(dataset))
    return dataset


def features_from_table(table: Table, features: Sequence[Feature], *,
                        labels_of: Sequence[str] = ()) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Prediction data: encode the columns named by a model's `features`.

    Returns X (columns in the order of `features`; a nominal value outside the
    feature's categories becomes NaN, like a missing value) and, for each name
    in `labels_of` that the table has (the class column, columns to copy to the
    output), its text labels (None for a missing value).
    """
    by_name = {column.name: column for column in table.columns}
    table.check([by_name[name] for name in [f.name for f in features] + list(labels_of)
                 if name in by_name])
    encoded = []
    for feature in features:
        column = by_name.get(feature.name)
        if column is None:
            raise DataError(f"{table.source}: column '{feature.name}' required by the model "
                            "is missing")
        if feature.kind == NUMERIC:
            if column.kind != NUMERIC:
                raise DataError(f"{table.source}: column '{feature.name}' holds text, but the "
                                "model expects numbers there")
            encoded.append(column.values)
        else:
            encoded.append(encode_nominal(column_labels(column), feature.categories))
    labels = {name: column_labels(by_name[name]) for name in labels_of if name in by_name}
    return stack_columns(encoded, table.n_rows), labels


def _encode_target(column: Column) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """(classes, y for the labelled rows, mask of labelled rows) of a target column.

    A numeric column is encoded from its distinct values, without making a
    string per row (1M rows: 0.1 s instead of 1 s).
    """
    if column.kind == NUMERIC:
        labelled = ~np.isnan(column.values)
        unique, codes = _distinct_and_codes(column.values[labelled])
        labels = [format_number(v) for v in unique.tolist()]
    else:
        labelled = np.not_equal(column.values, None)
        unique_labels, codes = _distinct_and_codes(column.values[labelled].astype(str))
        labels = unique_labels.tolist()
    classes = sort_labels(set(labels))
    position = {label: i for i, label in enumerate(classes)}
    remap = np.array([position[label] for label in labels], dtype=np.int64)
    return classes, remap[codes] if len(labels) else codes.astype(np.int64), labelled


def column_labels(column: Column) -> np.ndarray:
    """A column as text (object array, None = missing); whole numbers lose their ".0"."""
    if column.kind != NUMERIC:
        return column.values
    values = column.values
    known = ~np.isnan(values)
    unique, codes = _distinct_and_codes(values[known])
    labels = np.full(len(values), None, dtype=object)
    labels[known] = np.array([format_number(v) for v in unique.tolist()], dtype=object)[codes]
    return labels


def _distinct_and_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """np.unique(values, return_inverse=True), faster: its inverse costs an argsort,
    a search among the few distinct values less (1M numbers: 13 ms instead of 42)."""
    unique = np.unique(values)
    return unique, np.searchsorted(unique, values)


def format_number(value: float) -> str:
    """1.0 -> "1", 0.5 -> "0.5" (shortest text that reads back as the same float)."""
    if value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return repr(value)


def sort_labels(labels: set[str]) -> tuple[str, ...]:
    """Numerically when every label is a number ("2" before "10"), else as text."""
    try:
        keys = {label: float(label) for label in labels}
    except ValueError:
        return tuple(sorted(labels))
    if any(np.isnan(k) for k in keys.values()):
        return tuple(sorted(labels))
    return tuple(sorted(labels, key=lambda label: (keys[label], label)))


def encode_nominal(values: np.ndarray, categories: Sequence[str]) -> np.ndarray:
    """Index of each value in `categories` as float64; NaN for missing or unknown values."""
    index = {category: float(i) for i, category in enumerate(categories)}
    return np.fromiter((index.get(v, np.nan) for v in values), dtype=np.float64,
                       count=len(values))


def stack_columns(columns: list[np.ndarray], n_rows: int) -> np.ndarray:
    """Columns side by side as a C-contiguous float64 (n_rows, n_columns) matrix.

    When the columns already are the columns of one such matrix, in order (the
    CSV reader lays numeric columns out so), that matrix itself, not a copy.
    Else a new one, filled a band of rows at a time so that the strided writes
    stay in the cache (three times faster than writing whole columns), bands on
    all cores as numpy's copies release the GIL (1M x 20: 0.03 s).
    """
    shared = _matrix_of(columns)
    if shared is not None:
        return shared
    X = np.empty((n_rows, len(columns)), dtype=np.float64)
    band = max(1, _BAND_BYTES // (8 * max(1, len(columns))))

    def fill(start: int) -> None:
        rows = X[start:start + band]
        for k, values in enumerate(columns):
            rows[:, k] = values[start:start + band]

    with ThreadPoolExecutor(os.cpu_count()) as pool:
        list(pool.map(fill, range(0, n_rows, band)))  # list(): raise what a band raised
    return X


def _matrix_of(columns: list[np.ndarray]) -> np.ndarray | None:
    """The C-contiguous float64 matrix whose columns, in order, these arrays are, if any."""
    matrix = columns[0].base if columns else None
    if not (isinstance(matrix, np.ndarray) and matrix.ndim == 2 and matrix.dtype == np.float64
            and matrix.flags.c_contiguous and matrix.shape[1] == len(columns)):
        return None
    start = _address(matrix)
    for k, values in enumerate(columns):
        if (values.base is not matrix or values.shape != matrix.shape[:1]
                or values.strides != matrix.strides[:1]
                or _address(values) != start + k * matrix.itemsize):
            return None
    return matrix


def _address(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


def _target_index(table: Table, target: str | None, dropped: set[int]) -> int:
    if target is not None:
        index = _column_index(table, target, "--target")
    elif table.default_target in table.names:
        index = table.names.index(table.default_target)
    else:
        index = max(set(range(len(table.columns))) - dropped, default=-1)
    if index < 0 or index in dropped:
        raise ParameterError(f"{table.source}: the target column is dropped (--drop); "
                             "keep it or choose another with --target")
    return index


def _feature(column: Column) -> Feature:
    """A column's feature schema; CSV nominal values get their sorted observed values."""
    if column.kind == NUMERIC:
        return Feature(column.name, NUMERIC)
    categories = column.categories or tuple(sorted(set(column.values) - {None}))
    return Feature(column.name, NOMINAL, categories)


def _column_index(table: Table, spec: str, option: str) -> int:
    """Position of the column named `spec`, or at index `spec` (digits, may be negative)."""
    spec = str(spec)
    names = table.names
    if spec in names:
        return names.index(spec)
    if re.fullmatch(r"-?\d+", spec) and -len(names) <= int(spec) < len(names):
        return int(spec) % len(names)
    shown = ", ".join(names[:_NAMES_SHOWN]) + (", ..." if len(names) > _NAMES_SHOWN else "")
    raise ParameterError(f"{table.source}: {option} '{spec}': no such column "
                         f"({len(names)} columns: {shown})")
