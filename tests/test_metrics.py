"""Tests of dtcli.measures.metrics against hand-computed values and scikit-learn."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dtcli.measures import metrics, probabilities

sklearn_metrics = pytest.importorskip("sklearn.metrics")


@st.composite
def labels_and_predictions(draw, max_classes=5):
    k = draw(st.integers(2, max_classes))
    n = draw(st.integers(1, 40))
    labels = st.lists(st.integers(0, k - 1), min_size=n, max_size=n)
    return k, np.array(draw(labels)), np.array(draw(labels))


@st.composite
def labels_and_leaf_probabilities(draw, n_classes):
    """Labels and tree-like probabilities: small class counts over their total, so ties abound.

    Every class appears in the labels (as scikit-learn's multi-class AUC requires).
    """
    n = draw(st.integers(n_classes, 40))
    labels = draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n))
    labels[:n_classes] = range(n_classes)
    row = st.lists(st.integers(0, 3), min_size=n_classes, max_size=n_classes)
    counts = np.array(draw(st.lists(row, min_size=n, max_size=n)), dtype=float)
    counts[counts.sum(axis=1) == 0] = 1.0
    return np.array(labels), counts / counts.sum(axis=1, keepdims=True)


# --------------------------------------------------------------------------
# Label metrics
# --------------------------------------------------------------------------


def test_label_metrics_on_a_hand_example():
    y_true = np.array([0, 0, 0, 0, 1, 1, 2])
    y_pred = np.array([0, 0, 1, 2, 1, 1, 1])
    assert metrics.accuracy(y_true, y_pred) == pytest.approx(4 / 7)
    assert metrics.balanced_accuracy(y_true, y_pred) == pytest.approx((0.5 + 1.0 + 0.0) / 3)
    # F1 per class: 2*2/(4+0+2) = 2/3, 2*2/(4+2+0) = 2/3, 0
    assert metrics.f1_macro(y_true, y_pred) == pytest.approx(4 / 9)
    assert metrics.confusion_matrix(y_true, y_pred, 4).tolist() == [
        [2, 1, 1, 0], [0, 2, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0],
    ]


def test_balanced_accuracy_ignores_classes_that_are_only_predicted():
    y_true, y_pred = np.array([0, 0, 1]), np.array([0, 2, 1])
    assert metrics.balanced_accuracy(y_true, y_pred) == pytest.approx(0.75)


def test_f1_macro_counts_classes_that_are_only_predicted_as_zero():
    y_true, y_pred = np.array([0, 0, 1]), np.array([0, 2, 1])
    assert metrics.f1_macro(y_true, y_pred) == pytest.approx((2 / 3 + 1 + 0) / 3)


@settings(max_examples=100, deadline=None)
@given(labels_and_predictions())
def test_label_metrics_match_scikit_learn(case):
    k, y_true, y_pred = case
    expected_accuracy = sklearn_metrics.accuracy_score(y_true, y_pred)
    assert metrics.accuracy(y_true, y_pred) == pytest.approx(expected_accuracy)
    assert metrics.f1_macro(y_true, y_pred) == pytest.approx(
        sklearn_metrics.f1_score(y_true, y_pred, average="macro", zero_division=0.0)
    )
    np.testing.assert_array_equal(
        metrics.confusion_matrix(y_true, y_pred, k),
        sklearn_metrics.confusion_matrix(y_true, y_pred, labels=range(k)),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn warns about classes that are only predicted
        expected = sklearn_metrics.balanced_accuracy_score(y_true, y_pred)
    assert metrics.balanced_accuracy(y_true, y_pred) == pytest.approx(expected)


def test_label_metrics_reject_mismatched_or_out_of_range_input():
    with pytest.raises(ValueError, match="equal length"):
        metrics.accuracy(np.array([0, 1]), np.array([0]))
    with pytest.raises(ValueError, match="0..1"):
        metrics.confusion_matrix(np.array([0, 2]), np.array([0, 1]), 2)


# --------------------------------------------------------------------------
# From the confusion matrix: per class, G-mean, Matthews, kappa
# --------------------------------------------------------------------------


def test_confusion_matrix_metrics_on_a_hand_example():
    # rows true, columns predicted: class 0 has 4 rows (2 right), 1 has 2 (2 right), 2 has 1 (0)
    matrix = [[2, 1, 1], [0, 2, 0], [0, 1, 0]]
    scores = metrics.per_class_scores(matrix)
    np.testing.assert_allclose(scores["precision"], [1.0, 0.5, 0.0])
    np.testing.assert_allclose(scores["recall"], [0.5, 1.0, 0.0])
    np.testing.assert_allclose(scores["f1"], [2 / 3, 2 / 3, 0.0])
    assert scores["support"].tolist() == [4, 2, 1]
    assert metrics.g_mean(matrix) == 0.0  # class 2 is never found
    assert metrics.g_mean([[2, 2], [1, 3]]) == pytest.approx(math.sqrt(0.5 * 0.75))
    # s = 7, c = 4, t = (4, 2, 1), p = (2, 4, 1): (28 - 17) / sqrt((49 - 21)(49 - 21))
    assert metrics.matthews_corrcoef(matrix) == pytest.approx(11 / 28)
    # p_o = 4/7, p_e = 17/49: (28/49 - 17/49) / (32/49)
    assert metrics.cohen_kappa(matrix) == pytest.approx(11 / 32)


def test_undefined_scores_are_nan_or_scikit_learns_convention():
    only_zero_predicted = [[3, 0], [2, 0]]
    scores = metrics.per_class_scores(only_zero_predicted)
    assert math.isnan(scores["precision"][1]) and scores["recall"][1] == 0.0
    assert metrics.matthews_corrcoef(only_zero_predicted) == 0.0
    assert metrics.cohen_kappa(only_zero_predicted) == 0.0
    single_class = [[5, 0], [0, 0]]
    assert math.isnan(metrics.per_class_scores(single_class)["recall"][1])
    assert metrics.g_mean(single_class) == 1.0  # over the classes present
    assert math.isnan(metrics.cohen_kappa(single_class))


def g_mean_by_hand(y_true, y_pred):
    """imbalanced-learn's definition, the geometric mean of the per-class recalls, over the
    classes in y_true."""
    recalls = [np.mean(y_pred[y_true == c] == c) for c in np.unique(y_true)]
    return float(np.prod(recalls) ** (1 / len(recalls)))


@settings(max_examples=100, deadline=None)
@given(labels_and_predictions())
def test_confusion_matrix_metrics_match_scikit_learn(case):
    k, y_true, y_pred = case
    matrix = metrics.confusion_matrix(y_true, y_pred, k)
    scores = metrics.per_class_scores(matrix)
    expected = sklearn_metrics.precision_recall_fscore_support(
        y_true, y_pred, labels=range(k), zero_division=np.nan)
    for name, column in zip(("precision", "recall", "f1", "support"), expected):
        np.testing.assert_allclose(scores[name], column, equal_nan=True, err_msg=name)
    assert metrics.g_mean(matrix) == pytest.approx(g_mean_by_hand(y_true, y_pred), abs=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn warns about a single class
        mcc = sklearn_metrics.matthews_corrcoef(y_true, y_pred)
        kappa = sklearn_metrics.cohen_kappa_score(y_true, y_pred)
    assert metrics.matthews_corrcoef(matrix) == pytest.approx(mcc, abs=1e-12)
    assert metrics.cohen_kappa(matrix) == pytest.approx(kappa, abs=1e-12, nan_ok=True)


# --------------------------------------------------------------------------
# AUC
# --------------------------------------------------------------------------


def test_roc_auc_binary_counts_ties_as_half():
    # Pairs (positive, negative): (0.8, 0.3) win, (0.8, 0.5) win, (0.5, 0.3) win, (0.5, 0.5) tie.
    y, score = np.array([1, 1, 0, 0]), np.array([0.8, 0.5, 0.3, 0.5])
    assert probabilities.roc_auc_binary(y, score) == pytest.approx(3.5 / 4)


def test_roc_auc_binary_is_nan_without_both_classes():
    assert math.isnan(probabilities.roc_auc_binary(np.array([1, 1]), np.array([0.2, 0.3])))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.sampled_from([0.0, 0.25, 0.5, 1.0])), min_size=2))
def test_roc_auc_binary_matches_scikit_learn_with_ties(pairs):
    y, score = (np.array(column) for column in zip(*pairs))
    assume(0 < y.sum() < len(y))
    expected = sklearn_metrics.roc_auc_score(y, score)
    assert probabilities.roc_auc_binary(y, score) == pytest.approx(expected)


@settings(max_examples=50, deadline=None)
@given(labels_and_leaf_probabilities(n_classes=2))
def test_auc_binary_uses_the_second_column(case):
    y, proba = case
    assert probabilities.auc(y, proba) == pytest.approx(sklearn_metrics.roc_auc_score(y, proba[:, 1]))


@settings(max_examples=50, deadline=None)
@given(st.integers(3, 5).flatmap(lambda k: labels_and_leaf_probabilities(n_classes=k)))
def test_auc_multiclass_is_hand_and_till_as_in_scikit_learn_ovo(case):
    y, proba = case
    labels = range(proba.shape[1])
    expected = sklearn_metrics.roc_auc_score(y, proba, multi_class="ovo", labels=labels)
    assert probabilities.auc(y, proba) == pytest.approx(expected)


def test_auc_hand_and_till_on_a_hand_example():
    y = np.array([0, 1, 2, 2])
    proba = np.array([[0.6, 0.3, 0.1], [0.5, 0.4, 0.1], [0.2, 0.4, 0.4], [0.3, 0.1, 0.6]])
    # Pair (0, 1): A(0|1) = 1 (0.6 > 0.5), A(1|0) = 1 (0.4 > 0.3).
    # Pair (0, 2): A(0|2) = 1, A(2|0) = 1.
    # Pair (1, 2): A(1|2) = (1 + 0.5) / 2 (0.4 > 0.1, 0.4 = 0.4), A(2|1) = 1.
    assert probabilities.auc(y, proba) == pytest.approx((1 + 1 + (0.75 + 1) / 2) / 3)


def test_auc_skips_pairs_with_a_class_missing_from_y_true():
    y = np.array([0, 0, 2, 2])
    proba = np.array([[0.7, 0.2, 0.1], [0.5, 0.4, 0.1], [0.6, 0.1, 0.3], [0.1, 0.2, 0.7]])
    # Only the pair (0, 2): A(0|2) = 3/4 (0.5 < 0.6), A(2|0) = 1.
    assert probabilities.auc(y, proba) == pytest.approx((0.75 + 1.0) / 2)


def test_auc_is_nan_with_a_single_class():
    assert math.isnan(probabilities.auc(np.array([1, 1]), np.array([[0.5, 0.5], [0.2, 0.8]])))


def test_auc_rejects_class_indices_beyond_the_model():
    with pytest.raises(ValueError, match="0..1"):
        probabilities.auc(np.array([0, 2]), np.array([[0.5, 0.5], [0.2, 0.8]]))


# --------------------------------------------------------------------------
# Log loss (P_cost)
# --------------------------------------------------------------------------


def test_log_loss_is_the_summed_cost_of_eq_4():
    y = np.array([0, 1, 1])
    proba = np.array([[0.5, 0.5], [0.2, 0.8], [0.9, 0.1]])
    expected = -(math.log(0.5) + math.log(0.8) + math.log(0.1))
    assert probabilities.log_loss(y, proba) == pytest.approx(expected)
    assert probabilities.log_loss(y, proba, normalize=True) == pytest.approx(expected / 3)


def test_log_loss_clips_zero_probabilities():
    proba = np.array([[1.0, 0.0]])
    assert probabilities.log_loss(np.array([1]), proba) == pytest.approx(-math.log(1e-15))
    assert probabilities.log_loss(np.array([1]), proba, eps=1e-5) == pytest.approx(-math.log(1e-5))
    assert probabilities.log_loss(np.array([0]), proba) == 0.0


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 5).flatmap(lambda k: labels_and_leaf_probabilities(n_classes=k)))
def test_log_loss_matches_scikit_learn(case):
    y, proba = case
    eps = np.finfo(float).eps  # scikit-learn clips to [eps, 1 - eps]
    expected = sklearn_metrics.log_loss(y, proba, labels=range(proba.shape[1]))
    mean = probabilities.log_loss(y, proba, eps=eps, normalize=True)
    assert mean == pytest.approx(expected, rel=1e-9, abs=1e-14)
    assert probabilities.log_loss(y, proba, eps=eps) == pytest.approx(len(y) * mean, rel=1e-12)
