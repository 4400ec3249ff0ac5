"""Checks of the estimator's input, with scikit-learn's messages where its checks read them.

scikit-learn's `check_estimator` matches some error messages by their words
("Unknown label type", "Reshape your data", "0 feature(s)"), so those words are
kept; the rest of each message says what to do.
"""
from __future__ import annotations

import functools
import numbers
import sys
import warnings
from collections.abc import Mapping

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
        missing = np.fromiter((is_missing_value(v) for v in labels), bool, labels.shape[0])
    else:
        return
    if missing.any():
        raise ParameterError(
            f"y has {int(missing.sum())} missing label(s) (NaN or None), the first at row "
            f"{int(np.argmax(missing))}: drop those rows or give them a class")


def is_missing_value(value) -> bool:
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
def row_weights(sample_weight, class_weight, codes: np.ndarray,
                classes: np.ndarray) -> np.ndarray | None:
    """Each row's weight, sample_weight times its class's weight; None when neither is
    given (every row weighs 1)."""
    weights = None
    if sample_weight is not None:
        weights = np.asarray(sample_weight, dtype=np.float64)
        if (weights.shape != codes.shape or (weights < 0).any()
                or not np.isfinite(weights).all()):
            raise ParameterError("sample_weight must be finite, non-negative, one per row")
    if class_weight is not None:
        by_class = class_weight_vector(class_weight, codes, classes)[codes]
        weights = by_class if weights is None else weights * by_class
    if weights is not None and not weights.sum() > 0:
        raise ParameterError("sample_weight (times class_weight) sums to zero: "
                             "no row would count")
    return weights


def class_weight_vector(class_weight, codes: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """The weight of every class: for "balanced", scikit-learn's
    n_samples / (n_classes * bincount(y)) over the classes y holds; for a dict
    {label: weight}, its weights, 1 for labels it leaves out."""
    if isinstance(class_weight, str) and class_weight == "balanced":
        counts = np.bincount(codes, minlength=classes.shape[0]).astype(np.float64)
        present = counts > 0
        weights = np.ones(classes.shape[0])
        weights[present] = codes.shape[0] / (present.sum() * counts[present])
        return weights
    if not isinstance(class_weight, Mapping):
        raise ParameterError("class_weight must be None, 'balanced' or a dict "
                             f"{{label: weight}}, got {class_weight!r}")
    index = {label: i for i, label in enumerate(classes.tolist())}
    unknown = [label for label in class_weight if label not in index]
    if unknown:
        raise ParameterError(f"class_weight names label(s) {unknown!r} that are not classes of y "
                             f"(classes: {classes.tolist()!r})")
    weights = np.ones(classes.shape[0])
    for label, weight in class_weight.items():
        if (isinstance(weight, bool) or not isinstance(weight, numbers.Real)
                or not (np.isfinite(weight) and weight >= 0)):
            raise ParameterError(f"class_weight of {label!r} must be a finite number >= 0, "
                                 f"got {weight!r}")
        weights[index[label]] = weight
    return weights
