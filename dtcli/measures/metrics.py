"""Classification metrics of predicted classes: accuracy and the measures of a confusion
matrix (the measures of class probabilities are in probabilities.py).

Conventions: ``y_true`` and ``y_pred`` are integer class indices 0..K-1, and
``proba`` is an (n, K) array of estimated class probabilities whose column c
belongs to class c, K being the number of classes the model knows (a test
fold may lack some of them).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "accuracy",
    "class_scores",
    "decisions",
    "balanced_accuracy",
    "balanced_accuracy_of",
    "cohen_kappa",
    "confusion_matrix",
    "expected_cost",
    "f1_macro",
    "f1_macro_of",
    "g_mean",
    "matthews_corrcoef",
    "per_class_scores",
]


def _check_labels(y_true: np.ndarray, y_pred: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if y_true.ndim != 1 or y_true.shape != y_pred.shape or len(y_true) == 0:
        raise ValueError(
            f"y_true and y_pred must be non-empty 1-D arrays of equal length, "
            f"got shapes {y_true.shape} and {y_pred.shape}"
        )
    return y_true.astype(np.int64), y_pred.astype(np.int64)


def accuracy(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Fraction of samples predicted correctly."""
    y_true, y_pred = _check_labels(y_true, y_pred)
    return float(np.mean(y_true == y_pred))


def confusion_matrix(y_true: np.ndarray, y_pred: np.ndarray, n_classes: int) -> np.ndarray:
    """(n_classes, n_classes) int64 counts: row = true class, column = predicted class."""
    y_true, y_pred = _check_labels(y_true, y_pred)
    for name, labels in (("y_true", y_true), ("y_pred", y_pred)):
        if labels.min() < 0 or labels.max() >= n_classes:
            raise ValueError(f"class indices in {name} must lie in 0..{n_classes - 1}")
    counts = np.bincount(y_true * n_classes + y_pred, minlength=n_classes * n_classes)
    return counts.reshape(n_classes, n_classes).astype(np.int64)


def _confusion_of_seen_classes(y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
    y_true, y_pred = _check_labels(y_true, y_pred)
    return confusion_matrix(y_true, y_pred, int(max(y_true.max(), y_pred.max())) + 1)


def balanced_accuracy(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Mean recall over the classes present in y_true.

    Classes that are only predicted, never true, have no recall and are left out
    (as scikit-learn's balanced_accuracy_score does).
    """
    return balanced_accuracy_of(_confusion_of_seen_classes(y_true, y_pred))


def balanced_accuracy_of(matrix: np.ndarray) -> float:
    """`balanced_accuracy` from the confusion matrix (any number of empty classes)."""
    support = matrix.sum(axis=1)
    present = support > 0
    return float(np.mean(np.diag(matrix)[present] / support[present]))


def f1_macro(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Unweighted mean of per-class F1 = 2TP / (2TP + FP + FN).

    The mean runs over the classes present in y_true or in y_pred (scikit-learn's
    default label set); a class only predicted, never true, scores F1 = 0.
    """
    return f1_macro_of(_confusion_of_seen_classes(y_true, y_pred))


def f1_macro_of(matrix: np.ndarray) -> float:
    """`f1_macro` from the confusion matrix (any number of empty classes)."""
    true_positive = np.diag(matrix)
    denominator = matrix.sum(axis=0) + matrix.sum(axis=1)  # 2TP + FP + FN
    seen = denominator > 0
    return float(np.mean(2.0 * true_positive[seen] / denominator[seen]))


# --------------------------------------------------------------------------
# From a confusion matrix (rows: true class, columns: predicted class)
# --------------------------------------------------------------------------


def _check_matrix(matrix) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=float)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or matrix.sum() <= 0:
        raise ValueError(f"expected a square confusion matrix of counts, got shape {matrix.shape}")
    return matrix


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, NaN where the denominator is 0 (the score is undefined)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1),
                        np.nan)


def per_class_scores(matrix) -> dict[str, np.ndarray]:
    """Precision, recall and F1 of every class, and its support (true rows).

    precision = TP / (TP + FP), recall = TP / (TP + FN), F1 = 2TP / (2TP + FP + FN):
    scikit-learn's precision_recall_fscore_support with zero_division=nan, so a
    class never predicted has no precision and a class never true no recall (NaN).
    """
    matrix = _check_matrix(matrix)
    true_positive = np.diag(matrix)
    predicted, support = matrix.sum(axis=0), matrix.sum(axis=1)
    return {"precision": _ratio(true_positive, predicted),
            "recall": _ratio(true_positive, support),
            "f1": _ratio(2 * true_positive, predicted + support),
            "support": support.astype(np.int64)}


def g_mean(matrix) -> float:
    """Geometric mean of the recalls of the classes present (support > 0).

    sqrt(TPR * TNR) for two classes (Kubat and Matwin 1997); imbalanced-learn's
    geometric_mean_score for more. A class only predicted, never true, has no
    recall and is left out, as in `balanced_accuracy` (imbalanced-learn counts it
    as recall 0, and so G-mean 0). 0 as soon as one present class is never found.
    """
    recall = per_class_scores(matrix)["recall"]
    recall = recall[~np.isnan(recall)]
    return float(np.exp(np.mean(np.log(recall)))) if (recall > 0).all() else 0.0


def matthews_corrcoef(matrix) -> float:
    """Matthews' correlation, Gorodkin's R_K for K classes (scikit-learn's matthews_corrcoef).

    (c s - sum_k p_k t_k) / sqrt((s^2 - sum_k p_k^2)(s^2 - sum_k t_k^2)) with c the
    correct predictions, s the samples, t_k and p_k the true and predicted counts
    of class k. 0 when all true or all predicted labels are one class (the
    denominator is 0), as scikit-learn.
    """
    matrix = _check_matrix(matrix)
    true, predicted, total = matrix.sum(axis=1), matrix.sum(axis=0), matrix.sum()
    covariance = np.trace(matrix) * total - true @ predicted
    scale = (total**2 - predicted @ predicted) * (total**2 - true @ true)
    return float(covariance / math.sqrt(scale)) if scale > 0 else 0.0


def cohen_kappa(matrix) -> float:
    """Cohen's kappa (p_o - p_e) / (1 - p_e): the observed agreement p_o beyond the agreement
    p_e = sum_k t_k p_k / s^2 expected from the class frequencies alone. NaN when p_e = 1
    (a single class, always predicted), as scikit-learn's cohen_kappa_score."""
    matrix = _check_matrix(matrix)
    total = matrix.sum()
    observed = np.trace(matrix) / total
    expected = float(matrix.sum(axis=1) @ matrix.sum(axis=0)) / total**2
    return (observed - expected) / (1.0 - expected) if expected < 1.0 else math.nan


def class_scores(matrix, positive: int) -> dict[str, float]:
    """Precision, recall and F1 of class `positive` (`per_class_scores`), with scikit-learn's
    zero_division=0 for a precision never predicted (the class was never found) and an F1
    of a class neither true nor predicted; recall NaN when the class is absent (nothing to
    find)."""
    scores = per_class_scores(matrix)
    precision, recall, f1 = (scores[name][positive] for name in ("precision", "recall", "f1"))
    return {"precision": 0.0 if math.isnan(precision) else float(precision),
            "recall": float(recall), "f1": 0.0 if math.isnan(f1) else float(f1)}


def decisions(proba: np.ndarray, positive: int, threshold: float | None) -> np.ndarray:
    """The predicted classes: the most probable (the first of ties), or for two classes with
    a threshold, the positive one where its probability is at least the threshold."""
    if threshold is None:
        return np.argmax(proba, axis=1)
    return np.where(proba[:, positive] >= threshold, positive, 1 - positive)


def expected_cost(matrix, costs) -> float:
    """sum_ij C_ij M_ij / sum M: the mean cost per row of the decisions in confusion matrix M
    (costs C: rows the true class, columns the predicted one)."""
    matrix = np.asarray(matrix, dtype=float)
    return float((np.asarray(costs, dtype=float) * matrix).sum() / matrix.sum())
