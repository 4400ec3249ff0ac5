"""Costs and decision thresholds (dtcli/measures/thresholds.py): expected_cost by hand, a fixed
threshold against scikit-learn on out-of-fold probabilities, and --threshold auto never
seeing the outer test fold (with a planted leak that the check catches)."""
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import dtcli
from dtcli.measures import thresholds
from dtcli.cli import cli
from dtcli.sampling.folds import repeat_folds
from dtcli.crossval.scoring import score_predictions
from dtcli.io import load_dataset
from dtcli.measures import positive_class

sk = pytest.importorskip("sklearn.metrics")
ROOT = Path(__file__).resolve().parent.parent
ECOLI = ROOT / "examples" / "imbalanced" / "ecoli2.dat"
TREE = {"leaf_estimate": "laplace", "min_samples_leaf": 5}
TREE_ARGS = ["--leaf-estimate", "laplace", "--min-samples-leaf", "5"]


def evaluate_json(*args):
    result = CliRunner().invoke(cli, ["evaluate", str(ECOLI), "--cv", "4", "--seed", "1",
                                      "-q", "-f", "json", *TREE_ARGS, *map(str, args)])
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def fold_probabilities():
    data = load_dataset(str(ECOLI))
    for train, test in repeat_folds(data.y, 4, 1, 0):
        model = dtcli.DecisionTreeClassifier(**TREE).fit(data.X[train], data.y[train])
        yield data, train, test, model.predict_proba(data.X[test])


def test_expected_cost_is_the_mean_cost_of_the_decisions():
    y = np.array([0, 0, 1, 1, 1])
    proba = np.array([[0.9, 0.1], [0.4, 0.6], [0.2, 0.8], [0.7, 0.3], [0.5, 0.5]])
    costs = ((0.0, 1.0), (10.0, 0.0))  # FP = 1, FN = 10 for positive class 1
    # argmax (first of ties): predictions 0, 1, 1, 0, 0 -> one FP, two FN
    result = score_predictions(y, proba, 1, costs)
    assert result["metrics"]["expected_cost"] == pytest.approx((1 + 2 * 10) / 5)
    # at threshold 0.5 row 5 (p = 0.5) becomes positive: one FP, one FN
    result = score_predictions(y, proba, 1, costs, threshold=0.5)
    assert result["metrics"]["expected_cost"] == pytest.approx((1 + 10) / 5)
    assert result["threshold"] == 0.5
    assert np.isnan(score_predictions(y, proba, 1)["metrics"]["expected_cost"])


def test_a_fixed_threshold_gives_scikit_learns_scores_on_each_fold():
    doc = evaluate_json("--threshold", "0.2", "--cost", "FN=10,FP=1")
    recalls, costs = [], []
    for data, _, test, proba in fold_probabilities():
        positive = positive_class(data.y, 2)
        y_pred = np.where(proba[:, positive] >= 0.2, positive, 1 - positive)
        recalls.append(sk.recall_score(data.y[test], y_pred, pos_label=positive))
        matrix = sk.confusion_matrix(data.y[test], y_pred, labels=[0, 1])
        costs.append((10 * matrix[positive, 1 - positive] + matrix[1 - positive, positive])
                     / len(test))
    assert doc["recall"]["values"] == pytest.approx(recalls, abs=1e-12)
    assert doc["expected_cost"]["values"] == pytest.approx(costs, abs=1e-12)
    assert doc["thresholds"] == [0.2] * 4 and doc["threshold"] == 0.2


def test_choose_threshold_minimises_the_cost_on_the_rows_it_is_given():
    y = np.array([0, 0, 0, 1, 1])
    proba = np.array([[0.9, 0.1], [0.8, 0.2], [0.7, 0.3], [0.75, 0.25], [0.4, 0.6]])
    decision = thresholds.Decision(costs=((0.0, 1.0), (10.0, 0.0)), threshold="auto")
    # 0.25 catches both positives at the price of one false positive (cost 1)
    assert thresholds.choose_threshold(y, proba, 1, decision) == 0.25


def recording_auto_threshold(monkeypatch):
    """Record every row an automatic threshold's inner cross-validation fits or predicts."""
    seen = []
    real = thresholds.auto_threshold

    def recorded(train, y, positive, decision, seed, fit_predict):
        def spy(inner_train, inner_test):
            seen.append((set(train.tolist()), set(inner_train.tolist()),
                         set(inner_test.tolist())))
            return fit_predict(inner_train, inner_test)
        return real(train, y, positive, decision, seed, spy)

    monkeypatch.setattr(thresholds, "auto_threshold", recorded)
    return seen


def assert_no_leak(seen, folds):
    """Every inner fit and prediction of an outer fold's threshold used its training rows
    only: never a row of that fold's test rows."""
    assert seen
    by_train = {frozenset(train.tolist()): set(test.tolist()) for train, test in folds}
    for train, inner_train, inner_test in seen:
        test = by_train[frozenset(train)]
        assert not (inner_train | inner_test) & test, "the outer test fold was used"


def test_the_automatic_threshold_never_sees_the_outer_test_fold(monkeypatch):
    seen = recording_auto_threshold(monkeypatch)
    doc = evaluate_json("--threshold", "auto", "--cost", "FN=10,FP=1")
    data = load_dataset(str(ECOLI))
    assert_no_leak(seen, repeat_folds(data.y, 4, 1, 0))
    assert len(doc["thresholds"]) == 4 and len(seen) == 4 * thresholds.INNER_FOLDS


def test_a_planted_leak_is_caught(monkeypatch):
    """The inner folds made to include the outer test rows: the check fails."""
    data = load_dataset(str(ECOLI))
    everything = np.arange(len(data.y))
    real = thresholds.inner_folds

    def leaky(train, y, seed):
        outer_test = np.setdiff1d(everything, train)
        return [(np.r_[inner_train, outer_test], inner_test)
                for inner_train, inner_test in real(train, y, seed)]

    monkeypatch.setattr(thresholds, "inner_folds", leaky)
    seen = recording_auto_threshold(monkeypatch)
    evaluate_json("--threshold", "auto", "--cost", "FN=10,FP=1")
    with pytest.raises(AssertionError, match="outer test fold"):
        assert_no_leak(seen, repeat_folds(data.y, 4, 1, 0))


def test_the_threshold_is_chosen_by_the_named_measure():
    doc = evaluate_json("--threshold", "auto", "--threshold-metric", "f1")
    assert all(0 <= t <= 1 for t in doc["thresholds"]) and doc["threshold_metric"] == "f1"
    assert all(v is None for v in doc["expected_cost"]["values"])  # no costs: undefined
    # by hand: on these rows F1 of class 1 is best (1.0) at a threshold in (0.3, 0.6]
    y = np.array([0, 0, 1, 1])
    proba = np.array([[0.9, 0.1], [0.7, 0.3], [0.4, 0.6], [0.2, 0.8]])
    chosen = thresholds.choose_threshold(y, proba, 1, thresholds.Decision(
        threshold="auto", metric="f1"))
    assert chosen == 0.5  # 0.5 and 0.6 both give F1 = 1: the one nearer 0.5


@pytest.mark.parametrize("args, text", [
    (["--threshold", "auto"], "--threshold auto minimises the expected cost"),
    (["--threshold-metric", "f1"], "--threshold-metric applies to --threshold auto"),
    (["--cost", "FN=1,XX=2"], "--cost: 'XX'"),
    (["--cost", "FN=1"], "--cost needs FN and FP"),
    (["--threshold", "1.5"], "not a probability"),
])
def test_decision_mistakes_are_one_line(args, text):
    result = CliRunner().invoke(cli, ["evaluate", str(ECOLI), "--cv", "3", "-q", *args])
    assert result.exit_code != 0 and text in result.stderr
    assert "Traceback" not in result.stderr


def test_a_cost_matrix_puts_its_costs_in_each_datasets_class_order(tmp_path):
    path = tmp_path / "costs.csv"
    path.write_text("true,Iris-virginica,Iris-setosa,Iris-versicolor\n"
                    "Iris-setosa,1,0,1\nIris-versicolor,1,5,0\nIris-virginica,0,5,1\n")
    data = load_dataset(str(ROOT / "examples" / "iris.csv"))
    costs = thresholds.read_cost_matrix(str(path), list(data.classes), "iris")
    assert costs == ((0, 1, 1), (5, 0, 1), (5, 1, 0))
    path.write_text("true,Iris-setosa\nIris-setosa,0\n")
    with pytest.raises(Exception, match="no row or column for class 'Iris-versicolor'"):
        thresholds.read_cost_matrix(str(path), list(data.classes), "iris")
