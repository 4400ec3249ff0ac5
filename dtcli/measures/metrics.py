"""Classification metrics.

Conventions: ``y_true`` and ``y_pred`` are integer class indices 0..K-1, and
``proba`` is an (n, K) array of estimated class probabilities whose column c
belongs to class c, K being the number of classes the model knows (a test
fold may lack some of them).
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np

from dtcli.stats.ranks import tied_ranks

__all__ = [
    "ECE_BINS",
    "accuracy",
    "auc",
    "average_precision",
    "average_precision_binary",
    "brier_score",
    "calibration_bins",
    "calibration_of",
    "calibration_sums",
    "class_scores",
    "decisions",
    "balanced_accuracy",
    "balanced_accuracy_of",
    "cohen_kappa",
    "confusion_matrix",
    "expected_calibration_error",
    "expected_cost",
    "f1_macro",
    "f1_macro_of",
    "g_mean",
    "log_loss",
    "matthews_corrcoef",
    "per_class_scores",
    "roc_auc_binary",
]


def _check_labels(y_true: np.ndarray, y_pred: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if y_true.ndim != 1 or y_true.shape != y_pred.shape or len(y_true) == 0:
        raise ValueError(
            f"y_true and y_pred must be non-empty 1-D arrays of equal length, "
            f"got shapes {y_true.shape} and {y_pred.shape}"
        )
    return y_true.astype(np.int64), y_pred.astype(np.int64)


def _check_proba(y_true: np.ndarray, proba: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    y_true, proba = np.asarray(y_true).astype(np.int64), np.asarray(proba, dtype=float)
    if proba.ndim != 2 or y_true.ndim != 1 or len(y_true) != len(proba) or len(y_true) == 0:
        raise ValueError(
            f"expected non-empty y_true of shape (n,) and proba of shape (n, K), "
            f"got {y_true.shape} and {proba.shape}"
        )
    if y_true.min() < 0 or y_true.max() >= proba.shape[1]:
        raise ValueError(f"class indices in y_true must lie in 0..{proba.shape[1] - 1}")
    return y_true, proba


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


def roc_auc_binary(y_true01: np.ndarray, score: np.ndarray) -> float:
    """Area under the ROC curve in its Mann-Whitney form.

    The probability that a random positive scores higher than a random negative,
    ties counting 1/2: (sum of the positives' ranks - P(P+1)/2) / (P N), with
    tied scores sharing their average rank. NaN if either class is absent.
    """
    positive = np.asarray(y_true01).astype(bool)
    score = np.asarray(score, dtype=float)
    if positive.ndim != 1 or positive.shape != score.shape:
        raise ValueError(
            f"labels and scores must be 1-D arrays of equal length, "
            f"got shapes {positive.shape} and {score.shape}"
        )
    n_positive = int(positive.sum())
    n_negative = len(positive) - n_positive
    if n_positive == 0 or n_negative == 0:
        return float("nan")
    rank_sum = float(tied_ranks(score)[positive].sum())
    return (rank_sum - n_positive * (n_positive + 1) / 2.0) / (n_positive * n_negative)


def auc(y_true: np.ndarray, proba: np.ndarray) -> float:
    """AUC for K = 2 classes, Hand and Till's (2001) multi-class M measure for K > 2.

    K = 2: the AUC of proba[:, 1] for class 1. K > 2: the mean over unordered
    pairs of classes {i, j} of (A(i|j) + A(j|i)) / 2, where A(i|j) is the AUC
    separating class i from class j by the estimated probability of class i,
    computed on the samples of classes i and j only (scikit-learn's
    roc_auc_score with multi_class="ovo"). Pairs involving a class absent from
    y_true are skipped, so M averages over the classes the fold contains.
    NaN if y_true holds fewer than two classes.
    """
    y_true, proba = _check_proba(y_true, proba)
    present = np.unique(y_true)
    if len(present) < 2:
        return float("nan")
    if proba.shape[1] == 2:
        return roc_auc_binary(y_true == 1, proba[:, 1])
    pair_aucs = []
    for i, j in combinations(present, 2):
        in_pair = (y_true == i) | (y_true == j)
        i_versus_j = roc_auc_binary(y_true[in_pair] == i, proba[in_pair, i])
        j_versus_i = roc_auc_binary(y_true[in_pair] == j, proba[in_pair, j])
        pair_aucs.append((i_versus_j + j_versus_i) / 2.0)
    return float(np.mean(pair_aucs))


def log_loss(
    y_true: np.ndarray, proba: np.ndarray, eps: float = 1e-15, *, normalize: bool = False
) -> float:
    """Probabilistic cost P_cost = -sum_i log(P_i) (FDF paper, eq. (4)).

    P_i is the probability the model gives to the true class of test sample i;
    the log is natural (nats; divide by ln 2 for the paper's "bit costing" —
    its Figure 4 shows ratios, which the base does not change). Eq. (4) is a sum
    over the n test samples; ``normalize=True`` returns the mean instead, which
    is scikit-learn's log_loss. P_i is clipped to [eps, 1] so that a zero
    probability costs -log(eps) (34.5 nats for the default eps = 1e-15) instead
    of infinity; the other columns of ``proba`` are not used.
    """
    y_true, proba = _check_proba(y_true, proba)
    p_true = np.clip(proba[np.arange(len(y_true)), y_true], eps, 1.0)
    costs = -np.log(p_true)
    return float(costs.mean() if normalize else costs.sum())


# --------------------------------------------------------------------------
# From class probabilities: precision-recall, Brier, calibration
# --------------------------------------------------------------------------


def _weights(n: int, sample_weight) -> np.ndarray:
    if sample_weight is None:
        return np.ones(n)
    weights = np.asarray(sample_weight, dtype=float)
    if weights.shape != (n,) or (weights < 0).any():
        raise ValueError(f"sample_weight must be {n} non-negative numbers")
    return weights


def average_precision_binary(y_true01, score, sample_weight=None) -> float:
    """Average precision, AP = sum_n (R_n - R_{n-1}) P_n over the distinct score thresholds
    taken from the highest down (tied scores form one threshold): the step-wise area under
    the precision-recall curve, without interpolation (scikit-learn's
    average_precision_score). NaN when no row (or no weight) is positive."""
    positive = np.asarray(y_true01).astype(bool)
    score = np.asarray(score, dtype=float)
    if positive.ndim != 1 or positive.shape != score.shape:
        raise ValueError(f"labels and scores must be 1-D arrays of equal length, "
                         f"got shapes {positive.shape} and {score.shape}")
    weights = _weights(len(score), sample_weight)
    order = np.argsort(-score, kind="mergesort")
    score, positive, weights = score[order], positive[order], weights[order]
    true_positive = np.cumsum(weights * positive)
    predicted = np.cumsum(weights)
    last_of_tie = np.r_[np.flatnonzero(np.diff(score)), len(score) - 1]
    true_positive, predicted = true_positive[last_of_tie], predicted[last_of_tie]
    total = true_positive[-1]
    if total <= 0:
        return math.nan
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(predicted > 0, true_positive / np.where(predicted > 0, predicted, 1),
                             0.0)
    recall_steps = np.diff(np.r_[0.0, true_positive / total])
    return float(recall_steps @ precision)


def average_precision(y_true, proba, *, average: str = "macro", positive: int = 1,
                      sample_weight=None) -> float:
    """PR-AUC as average precision (`average_precision_binary`) of the class probabilities.

    Two classes: the AP of class `positive` scored by its probability. More: the one-vs-rest
    AP of each class present in y_true, averaged unweighted ("macro") or by the classes'
    supports ("weighted"), as scikit-learn's average_precision_score on the binarized
    labels of the present classes. NaN if y_true holds a single class.
    """
    y_true, proba = _check_proba(y_true, proba)
    weights = _weights(len(y_true), sample_weight)
    if len(np.unique(y_true)) < 2:
        return math.nan
    if proba.shape[1] == 2 and average == "macro":
        return average_precision_binary(y_true == positive, proba[:, positive], weights)
    present = np.unique(y_true)
    scores = np.array([average_precision_binary(y_true == k, proba[:, k], weights)
                       for k in present])
    if average == "macro":
        return float(scores.mean())
    if average == "weighted":
        support = np.array([weights[y_true == k].sum() for k in present])
        return float(scores @ support / support.sum())
    raise ValueError(f"average must be 'macro' or 'weighted', got {average!r}")


def brier_score(y_true, proba, sample_weight=None) -> float:
    """Brier's (1950) score, the mean over rows of the squared distance between the
    probability vector and the one-hot true class: sum_k (p_k - [y = k])^2. For two classes
    the usual binary form (p - y)^2 of one class's probability, which is half of it
    (scikit-learn's brier_score_loss, scale_by_half="auto")."""
    y_true, proba = _check_proba(y_true, proba)
    weights = _weights(len(y_true), sample_weight)
    one_hot = np.zeros_like(proba)
    one_hot[np.arange(len(y_true)), y_true] = 1.0
    distance = ((proba - one_hot) ** 2).sum(axis=1)
    if proba.shape[1] == 2:
        distance = distance / 2.0
    return float(distance @ weights / weights.sum())


ECE_BINS = 15


def calibration_sums(y_true, proba, n_bins: int = ECE_BINS) -> dict[str, np.ndarray]:
    """The reliability diagram's bins (Guo et al. 2017) as sums, which pool over folds by
    adding: each row's confidence (its largest probability, the predicted class the first
    of ties) falls in bin m when (m - 1)/M < confidence <= m/M, edges np.linspace(0, 1,
    M + 1) (a confidence of 0 in the first bin). Per bin: the number of rows ("count"),
    the sum of their confidences ("confidence") and of their correct predictions
    ("correct")."""
    y_true, proba = _check_proba(y_true, proba)
    confidence = proba.max(axis=1)
    correct = (np.argmax(proba, axis=1) == y_true).astype(float)
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    bins = np.clip(np.searchsorted(edges, confidence, side="left") - 1, 0, n_bins - 1)
    return {"count": np.bincount(bins, minlength=n_bins),
            "confidence": np.bincount(bins, confidence, n_bins),
            "correct": np.bincount(bins, correct, n_bins)}


def calibration_of(sums) -> dict[str, np.ndarray]:
    """Per bin of `calibration_sums` (or their sum over folds): the number of rows, their
    mean confidence and their accuracy (NaN in empty bins)."""
    count = np.asarray(sums["count"], dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return {"count": count, "confidence": np.asarray(sums["confidence"]) / count,
                "accuracy": np.asarray(sums["correct"]) / count}


def calibration_bins(y_true, proba, n_bins: int = ECE_BINS) -> dict[str, np.ndarray]:
    """`calibration_of` the rows' `calibration_sums`."""
    return calibration_of(calibration_sums(y_true, proba, n_bins))


def expected_calibration_error(y_true, proba, n_bins: int = ECE_BINS) -> float:
    """ECE = sum_m (n_m / n) |accuracy_m - confidence_m| over `calibration_bins` (Naeini et
    al. 2015; Guo et al. 2017, eq. (3)), 15 equal-width bins of the confidence."""
    bins = calibration_bins(y_true, proba, n_bins)
    used = bins["count"] > 0
    gap = np.abs(bins["accuracy"][used] - bins["confidence"][used])
    return float(bins["count"][used] @ gap / bins["count"].sum())


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
