"""In-memory training and prediction input (numpy arrays, pandas DataFrames) as the
engine takes it: features (numeric or nominal, with their categories) and a float64
matrix in which a nominal value is its category's index (NaN: missing or unseen).
What `DecisionTreeClassifier.fit(X, y)` and the other estimators do with X; files go
through the readers instead (dtcli.io.load_dataset)."""
from __future__ import annotations

import decimal
import numbers

import numpy as np

from dtcli.errors import ParameterError
from dtcli.io.columns import column_from_cells, is_missing, shown
from dtcli.io.dataset import NOMINAL, NUMERIC, Feature
from dtcli.validation import as_2d_array, is_missing_value


def default_names(n: int) -> list[str]:
    """Feature names for unnamed input (a numpy array): x0, x1, ..."""
    return [f"x{j}" for j in range(n)]


def column_names(X) -> list[str] | None:
    """A DataFrame's column names as text (an integer name 3 is "3"), None for an array.
    Names that are not one level, or that repeat, are a ParameterError: a feature is
    found by its name when predicting."""
    columns = getattr(X, "columns", None)
    if columns is None or not hasattr(X, "dtypes"):
        return None
    if getattr(columns, "nlevels", 1) > 1:
        raise ParameterError(f"X has {columns.nlevels} levels of column names (a MultiIndex); "
                             "give one name per column, e.g. X.columns = ['_'.join(map(str, c)) "
                             "for c in X.columns]")
    names = [str(c) for c in columns]
    seen = set()
    for name in names:
        if name in seen:
            raise ParameterError(f"X has two columns named '{name}'; rename one of them")
        seen.add(name)
    return names


def columns_of(X) -> list[np.ndarray]:
    """The columns of a DataFrame or 2-D array as 1-D numpy arrays; a column of a type
    that has no reading as numbers or categories (dates, complex numbers, bytes) is a
    TypeError naming it."""
    if hasattr(X, "columns") and hasattr(X, "dtypes"):
        names = column_names(X)
        return [_checked_dtype(_frame_column(X.iloc[:, j]), names[j])
                for j in range(len(names))]
    array = as_2d_array(X)
    return [_checked_dtype(array[:, j], name)
            for j, name in enumerate(default_names(array.shape[1]))]


def declared_nominal(X) -> set[int]:
    """The DataFrame columns whose dtype makes them nominal whatever their values:
    category and bool (an array of bools is numbers, 0 and 1, as numpy reads it)."""
    dtypes = getattr(X, "dtypes", None)
    if dtypes is None or not hasattr(X, "columns"):
        return set()
    return {j for j, dtype in enumerate(dtypes)
            if getattr(dtype, "kind", "O") == "b" or str(dtype) == "category"}


def _frame_column(series) -> np.ndarray:
    kind = getattr(series.dtype, "kind", "O")
    if kind in "fiu":
        return series.to_numpy(dtype=np.float64, na_value=np.nan)
    if kind in "mMcSV":  # refused by _checked_dtype, naming the dtype
        return series.to_numpy()
    return series.astype(object).where(series.notna(), None).to_numpy()


def _checked_dtype(column: np.ndarray, name: str) -> np.ndarray:
    if column.dtype.kind in "mMcSV":
        raise TypeError(f"column '{name}' is of type {column.dtype}, which dtree cannot read "
                        "as numbers or categories; convert it (e.g. dates to numbers) or "
                        "leave it out")
    return column


def _is_numeric(column: np.ndarray) -> bool:
    return column.dtype.kind in "fiub"


def _cell_text(value, name: str, row: int) -> str | None:
    """One cell of a column of objects as a file would hold it: None if missing (None,
    NaN, pandas' NA), else its text, stripped: a number's shortest ("2", "0.5"), a
    bool's "True"/"False". A date, a complex number, a container or bytes is a
    TypeError naming the column, the row and the type."""
    if isinstance(value, str):
        text = value.strip()
        return None if is_missing(text) else text
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    try:
        if value is None or is_missing_value(value):
            return None
        if isinstance(value, (numbers.Real, decimal.Decimal)):  # int, float, numpy's, Fraction
            return _number_text(float(value))
    except OverflowError:  # an integer beyond any float: read as the file's 1e999 is
        return "inf" if value > 0 else "-inf"
    except (ArithmeticError, ValueError):  # Decimal("sNaN")
        return None
    raise TypeError(f"column '{name}' holds a {type(value).__name__} in row {row} "
                    f"({shown(repr(value))}), which dtree cannot read as a number or a "
                    "category; convert the column or leave it out")


def _number_text(number: float) -> str:
    return str(int(number)) if number.is_integer() and abs(number) < 2**53 else repr(number)


def _read_cells(column: np.ndarray, name: str) -> tuple[np.ndarray, Feature]:
    """A column of objects read by the files' rules (dtcli.io.columns): numbers, or
    categories, or the error a file's column of mostly numbers with a text gets."""
    cells = [_cell_text(value, name, row) for row, value in enumerate(column)]
    read = column_from_cells(name, cells, "X", _row)
    if read.problem is not None:
        raise read.problem
    if read.kind == NUMERIC:
        return read.values, Feature(name, NUMERIC)
    return read.values, Feature(name, NOMINAL, tuple(sorted(set(cells) - {None})))


def _row(row: int) -> str:
    """Where a cell of X is, in messages (a file's cells are at lines)."""
    return f"row {row}"


def _nominal_indices(selector, names: list[str] | None, n: int) -> set[int]:
    if selector is None:
        return set()
    selector = list(np.atleast_1d(selector))
    if selector and isinstance(selector[0], (bool, np.bool_)):
        if len(selector) != n:
            raise ParameterError(f"nominal_features mask has {len(selector)} entries, X has {n} columns")
        return {i for i, flag in enumerate(selector) if flag}
    chosen = set()
    for item in selector:
        if isinstance(item, str):
            if names is None or item not in names:
                raise ParameterError(f"nominal_features names unknown column {item!r}")
            chosen.add(names.index(item))
        elif isinstance(item, numbers.Integral) and -n <= item < n:
            chosen.add(int(item) % n)
        else:
            raise ParameterError(f"nominal_features entry {item!r} is not a column of X")
    return chosen


def _label(value) -> str | None:
    """A nominal value as its category (None: missing), read as `_cell_text` reads it; a
    value of a type it refuses is its str(), unseen in training."""
    try:
        return _cell_text(value, "", 0)
    except TypeError:
        return str(value)


def encode_training(columns, names, nominal_selector, nominal_dtypes=()):
    """(features, matrix) of training columns: numbers numeric, `nominal_selector`'s and
    `nominal_dtypes`' columns nominal, a column of objects (text, Decimal, ...) read by
    the rules of a file's column (`_read_cells`)."""
    n = len(columns)
    if n == 0:
        raise ParameterError("X has no feature columns")
    names = names or default_names(n)
    forced = _nominal_indices(nominal_selector, names if names else None, n) | set(nominal_dtypes)
    features = []
    for j, column in enumerate(columns):
        if j in forced:
            if column.dtype.kind == "O":
                for row, value in enumerate(column):  # refuse dates, containers, ...
                    _cell_text(value, names[j], row)
            labels = {_label(v) for v in column} - {None}
            features.append(Feature(names[j], NOMINAL, tuple(sorted(labels))))
        elif _is_numeric(column):
            features.append(Feature(names[j], NUMERIC))
        else:
            columns[j], feature = _read_cells(column, names[j])
            features.append(feature)
    return features, encode_columns(columns, features)


def encode_columns(columns, features) -> np.ndarray:
    """Float64 matrix for the engine: nominal values become category indices (NaN if unseen);
    a numeric feature's column of objects is read as a file's numeric column is."""
    matrix = np.empty((len(columns[0]) if columns else 0, len(features)), dtype=np.float64)
    for j, (column, feature) in enumerate(zip(columns, features)):
        if feature.kind == NOMINAL:
            index = {c: float(i) for i, c in enumerate(feature.categories)}
            matrix[:, j] = [index.get(_label(v), np.nan) for v in column]
        elif _is_numeric(column):
            matrix[:, j] = column
        else:
            cells = [_cell_text(value, feature.name, row) for row, value in enumerate(column)]
            matrix[:, j] = column_from_cells(feature.name, cells, "X", _row,
                                             as_number=True).values
    return matrix
