"""Classification metrics of class probabilities: ROC AUC, log loss, average precision
(PR-AUC), the Brier score and calibration.

Conventions as in metrics.py: ``y_true`` holds integer class indices 0..K-1 and
``proba`` is an (n, K) array whose column c belongs to class c.
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np

from dtcli.stats.ranks import tied_ranks

__all__ = [
    "ECE_BINS",
    "auc",
    "average_precision",
    "average_precision_binary",
    "brier_score",
    "calibration_bins",
    "calibration_of",
    "calibration_sums",
    "expected_calibration_error",
    "log_loss",
    "roc_auc_binary",
]


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
