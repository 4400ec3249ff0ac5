"""In-memory training and prediction input (numpy arrays, pandas DataFrames) as the
engine takes it: features (numeric or nominal, with their categories) and a float64
matrix in which a nominal value is its category's index (NaN: missing or unseen).
What `DecisionTreeClassifier.fit(X, y)` and the other estimators do with X; files go
through the readers instead (dtcli.io.load_dataset)."""
from __future__ import annotations

import numbers

import numpy as np

from dtcli.errors import ParameterError
from dtcli.io.dataset import NOMINAL, NUMERIC, Feature
from dtcli.validation import as_2d_array


def default_names(n: int) -> list[str]:
    """Feature names for unnamed input (a numpy array): x0, x1, ..."""
    return [f"x{j}" for j in range(n)]


def column_names(X) -> list[str] | None:
    columns = getattr(X, "columns", None)
    if columns is None or not hasattr(X, "dtypes"):
        return None
    return [str(c) for c in columns]


def columns_of(X) -> list[np.ndarray]:
    """The columns of a DataFrame or 2-D array as 1-D numpy arrays."""
    if hasattr(X, "columns") and hasattr(X, "dtypes"):
        return [_frame_column(X[c]) for c in X.columns]
    array = as_2d_array(X)
    return [array[:, j] for j in range(array.shape[1])]


def _frame_column(series) -> np.ndarray:
    kind = getattr(series.dtype, "kind", "O")
    if kind in "fiu":
        return series.to_numpy(dtype=np.float64, na_value=np.nan)
    return series.astype(object).where(series.notna(), None).to_numpy()


def _is_numeric(column: np.ndarray) -> bool:
    return column.dtype.kind in "fiu"


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
    """A nominal value as its category string; None for missing."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return None
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)


def encode_training(columns, names, nominal_selector, text_may_be_numbers):
    n = len(columns)
    if n == 0:
        raise ParameterError("X has no feature columns")
    names = names or default_names(n)
    forced = _nominal_indices(nominal_selector, names if names else None, n)
    features = []
    for j, column in enumerate(columns):
        if j not in forced and _is_numeric(column):
            features.append(Feature(names[j], NUMERIC))
            continue
        if j not in forced and text_may_be_numbers:
            try:
                columns[j] = column.astype(np.float64)
                features.append(Feature(names[j], NUMERIC))
                continue
            except (TypeError, ValueError):
                pass
        labels = {_label(v) for v in column} - {None}
        features.append(Feature(names[j], NOMINAL, tuple(sorted(labels))))
    return features, encode_columns(columns, features)


def encode_columns(columns, features) -> np.ndarray:
    """Float64 matrix for the engine: nominal values become category indices (NaN if unseen)."""
    matrix = np.empty((len(columns[0]) if columns else 0, len(features)), dtype=np.float64)
    for j, (column, feature) in enumerate(zip(columns, features)):
        if feature.kind == NOMINAL:
            index = {c: float(i) for i, c in enumerate(feature.categories)}
            matrix[:, j] = [index.get(_label(v), np.nan) for v in column]
        else:
            try:
                matrix[:, j] = np.asarray(column, dtype=np.float64)
            except (TypeError, ValueError):
                raise ParameterError(f"column {feature.name!r} is numeric in the tree but "
                                     "holds non-numeric values") from None
    return matrix
