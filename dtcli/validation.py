"""Checks of the estimator's input, with scikit-learn's messages where its checks read them.

scikit-learn's `check_estimator` matches some error messages by their words
("Unknown label type", "Reshape your data", "0 feature(s)"), so those words are
kept; the rest of each message says what to do.
"""
from __future__ import annotations

import functools
import sys
import warnings

import numpy as np

from dtcli.errors import DataConversionWarning, NotFittedError, ParameterError


# not fitted ------------------------------------------------------------------------------
def not_fitted(estimator) -> NotFittedError:
    """The error for using `estimator` before fit."""
    return make_not_fitted_error(f"This {type(estimator).__name__} instance is not fitted "
                                 "yet; call 'fit' before using it")


def make_not_fitted_error(*args) -> NotFittedError:
    """A NotFittedError that is also scikit-learn's NotFittedError once scikit-learn is
    loaded: its estimator checks and its users' `except` clauses test for that class,
    and no class can pass issubclass without being derived from it. Reading sys.modules
    imports nothing, and code that names scikit-learn's class has imported it."""
    sklearn_exceptions = sys.modules.get("sklearn.exceptions")
    if sklearn_exceptions is None:
        return NotFittedError(*args)
    return _with_sklearn_base(sklearn_exceptions.NotFittedError)(*args)


@functools.cache
def _with_sklearn_base(sklearn_class: type) -> type:
    return type("NotFittedError", (NotFittedError, sklearn_class),
                {"__module__": __name__, "__doc__": NotFittedError.__doc__,
                 # pickled as a call that rebuilds it, in the process that unpickles
                 "__reduce__": lambda self: (make_not_fitted_error, self.args)})


# X ----------------------------------------------------------------------------------------
def as_2d_array(X) -> np.ndarray:
    """X (not a DataFrame) as a 2-D numpy array with at least one column."""
    if type(X).__module__.startswith("scipy.sparse"):
        raise ParameterError("sparse input is not supported: pass a dense array (X.toarray())")
    array = np.asarray(X)
    if array.dtype.kind == "c":
        raise ParameterError("Complex data not supported: X holds complex numbers")
    if array.ndim != 2:
        raise ParameterError(
            f"X must be two-dimensional, got shape {array.shape}. Reshape your data: "
            "X.reshape(-1, 1) if it is one feature, X.reshape(1, -1) if it is one row")
    if array.shape[1] == 0:
        raise ParameterError(
            f"X has 0 feature(s) (shape={array.shape}) while a minimum of 1 is required.")
    return array


# y ----------------------------------------------------------------------------------------
def class_labels(y, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """The sorted classes of y and each row's class index (int64); refuses what is not
    one class label per row."""
    if y is None:
        raise ParameterError(
            "DecisionTreeClassifier requires y to be passed, but the target y is None")
    labels = np.asarray(y)
    if labels.ndim == 2 and labels.shape[1] == 1:
        warnings.warn(DataConversionWarning(
            "A column-vector y was passed when a 1d array was expected; read as 1-D"),
            stacklevel=3)
        labels = labels[:, 0]
    if labels.ndim != 1 or labels.shape[0] != n_rows:
        raise ParameterError(f"y should be a 1d array of {n_rows} labels, one per row of X "
                             f"(one-dimensional); got shape {labels.shape}")
    if labels.dtype.kind == "c":
        raise ParameterError("Complex data not supported: y holds complex numbers")
    _reject_missing_labels(labels)
    _reject_continuous_labels(labels)
    try:
        classes, codes = np.unique(labels, return_inverse=True)
    except TypeError:
        raise ParameterError("Unknown label type: y mixes labels that cannot be ordered "
                             "together (strings and numbers?)") from None
    return classes, codes.astype(np.int64)


def _reject_missing_labels(labels: np.ndarray) -> None:
    if labels.dtype.kind == "f":
        missing = np.isnan(labels)
    elif labels.dtype.kind == "O":
        missing = np.fromiter((_is_missing(v) for v in labels), bool, labels.shape[0])
    else:
        return
    if missing.any():
        raise ParameterError(
            f"y has {int(missing.sum())} missing label(s) (NaN or None), the first at row "
            f"{int(np.argmax(missing))}: drop those rows or give them a class")


def _is_missing(value) -> bool:
    """None, NaN or pandas' NA and NaT, without importing pandas."""
    if value is None:
        return True
    try:
        return bool(value != value)
    except TypeError:  # pandas.NA compares as NA, whose truth value is ambiguous
        return True


def _reject_continuous_labels(labels: np.ndarray) -> None:
    """Floats that are not whole numbers are a regression target, as scikit-learn's
    type_of_target says ("continuous"): each value would become a class of its own."""
    if labels.dtype.kind != "f":
        return
    if np.isinf(labels).any():
        raise ParameterError("y contains infinity; class labels must be finite")
    fractional = labels != np.round(labels)
    if fractional.any():
        raise ParameterError(
            f"Unknown label type: continuous. y holds non-integer numbers such as "
            f"{labels[fractional][0]!r}: a classifier needs class labels (bin a numeric "
            "target first, e.g. with np.digitize)")


# weights ----------------------------------------------------------------------------------
def row_weights(sample_weight, codes: np.ndarray) -> np.ndarray | None:
    """Each row's weight; None when not given (every row weighs 1)."""
    if sample_weight is None:
        return None
    weights = np.asarray(sample_weight, dtype=np.float64)
    if weights.shape != codes.shape or (weights < 0).any() or not np.isfinite(weights).all():
        raise ParameterError("sample_weight must be finite, non-negative, one per row")
    if not weights.sum() > 0:
        raise ParameterError("sample_weight sums to zero: no row would count")
    return weights
