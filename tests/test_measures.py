"""The measures of dtcli/measures/__init__.py against scikit-learn (to 1e-12, on hypothesis inputs
with tied scores, constant probabilities, absent classes and sample weights) or, where
scikit-learn has none (G-mean, ECE), against the definition computed by hand."""
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dtcli import measures
from dtcli.measures import metrics, probabilities
from dtcli.cli import cli
from dtcli.crossval.results import check_record
from dtcli.crossval.scoring import score_predictions

sk = pytest.importorskip("sklearn.metrics")
ROOT = Path(__file__).resolve().parent.parent
IMBALANCED = ROOT / "examples" / "imbalanced"


@st.composite
def folds(draw, min_classes=2, max_classes=4, weighted=False):
    """A test fold: labels (a class may be absent), tree-like probabilities (small counts
    over their total: ties abound, constant rows too) and, if `weighted`, sample weights."""
    k = draw(st.integers(min_classes, max_classes))
    n = draw(st.integers(2, 30))
    y = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    if draw(st.booleans()):  # every row alike: constant probabilities
        counts = np.tile(draw(st.lists(st.integers(0, 3), min_size=k, max_size=k)), (n, 1))
    else:
        row = st.lists(st.integers(0, 3), min_size=k, max_size=k)
        counts = np.array(draw(st.lists(row, min_size=n, max_size=n)))
    counts = counts.astype(float)
    counts[counts.sum(axis=1) == 0] = 1.0
    weights = (np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), float)
               if weighted else None)
    if weighted:
        assume(weights.sum() > 0)
    return y, counts / counts.sum(axis=1, keepdims=True), weights


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def weighted_matrix(y, y_pred, k, weights):
    matrix = np.zeros((k, k))
    np.add.at(matrix, (y, y_pred), 1.0 if weights is None else weights)
    return matrix


# --------------------------------------------------------------------------
# From probabilities
# --------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(folds(weighted=True), st.integers(0, 3))
def test_average_precision_of_a_class_is_scikit_learns(fold, column):
    y, proba, weights = fold
    column = column % proba.shape[1]
    positive = y == column
    ours = probabilities.average_precision_binary(positive, proba[:, column], weights)
    if weights[positive].sum() == 0:
        assert math.isnan(ours)
        return
    theirs = sk.average_precision_score(positive, proba[:, column], sample_weight=weights)
    assert ours == pytest.approx(theirs, abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(folds(min_classes=2), st.integers(0, 3))
def test_average_precision_averages_are_scikit_learns(fold, positive):
    y, proba, _ = fold
    k = proba.shape[1]
    present = np.unique(y)
    macro = probabilities.average_precision(y, proba, positive=positive % k)
    weighted = probabilities.average_precision(y, proba, average="weighted")
    if len(present) < 2:
        assert math.isnan(macro) and math.isnan(weighted)
        return
    if k == 2:
        expected = sk.average_precision_score(y == positive % k, proba[:, positive % k])
    else:  # one-vs-rest over the classes the fold holds
        expected = sk.average_precision_score(np.eye(k)[y][:, present], proba[:, present])
    assert macro == pytest.approx(expected, abs=1e-12)
    # an absent class has support 0: scikit-learn's weighted mean over all K gives it no weight
    expected = quiet(sk.average_precision_score, np.eye(k)[y], proba, average="weighted")
    assert weighted == pytest.approx(expected, abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(folds(weighted=True))
def test_brier_is_scikit_learns(fold):
    y, proba, weights = fold
    k = proba.shape[1]
    if k == 2:
        expected = sk.brier_score_loss(y, proba[:, 1], sample_weight=weights, labels=[0, 1])
    else:
        expected = sk.brier_score_loss(y, proba, sample_weight=weights, labels=list(range(k)))
    assert probabilities.brier_score(y, proba, weights) == pytest.approx(expected, abs=1e-12)


def ece_by_hand(y, proba, bins=15):
    """Guo et al. (2017), eq. (3), one row at a time: bin m holds (m-1)/M < conf <= m/M."""
    edges = np.linspace(0, 1, bins + 1)
    members = [[] for _ in range(bins)]
    for label, row in zip(y, proba):
        confidence, predicted = max(row), int(np.argmax(row))
        m = next((m for m in range(1, bins + 1) if edges[m - 1] < confidence <= edges[m]), 1)
        members[m - 1].append((confidence, predicted == label))
    total = 0.0
    for rows in members:
        if rows:
            accuracy = sum(correct for _, correct in rows) / len(rows)
            confidence = sum(c for c, _ in rows) / len(rows)
            total += len(rows) / len(y) * abs(accuracy - confidence)
    return total


@settings(max_examples=150, deadline=None)
@given(folds(max_classes=5))
def test_ece_is_its_definition(fold):
    y, proba, _ = fold
    assert probabilities.expected_calibration_error(y, proba) == pytest.approx(
        ece_by_hand(y, proba), abs=1e-12)


def test_ece_of_a_known_case():
    # two rows at confidence 0.9 (one right), one at 0.6 (right): bins 14 and 9
    y = np.array([0, 1, 0])
    proba = np.array([[0.9, 0.1], [0.9, 0.1], [0.6, 0.4]])
    assert probabilities.expected_calibration_error(y, proba) == pytest.approx(
        2 / 3 * abs(0.5 - 0.9) + 1 / 3 * abs(1 - 0.6), abs=1e-15)
    bins = probabilities.calibration_bins(y, proba)
    assert bins["count"].tolist() == [0] * 8 + [1] + [0] * 4 + [2, 0]


# --------------------------------------------------------------------------
# From the confusion matrix, weighted rows as scikit-learn takes them
# --------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(folds(weighted=True), st.integers(0, 3))
def test_confusion_measures_are_scikit_learns(fold, positive):
    y, proba, weights = fold
    k = proba.shape[1]
    positive %= k
    y_pred = np.argmax(proba, axis=1)
    matrix = weighted_matrix(y, y_pred, k, weights)
    assert metrics.matthews_corrcoef(matrix) == pytest.approx(
        quiet(sk.matthews_corrcoef, y, y_pred, sample_weight=weights), abs=1e-12)
    assert metrics.cohen_kappa(matrix) == pytest.approx(
        quiet(sk.cohen_kappa_score, y, y_pred, sample_weight=weights), abs=1e-12, nan_ok=True)
    scores = metrics.class_scores(matrix, positive)
    for name, function, zero_division in (("precision", sk.precision_score, 0.0),
                                          ("recall", sk.recall_score, np.nan),
                                          ("f1", sk.f1_score, 0.0)):
        expected = function(y, y_pred, labels=[positive], average=None, sample_weight=weights,
                            zero_division=zero_division)[0]
        assert scores[name] == pytest.approx(expected, abs=1e-12, nan_ok=True), name


def g_mean_by_hand(y, y_pred):
    recalls = [np.mean(y_pred[y == c] == c) for c in np.unique(y)]
    return float(np.prod(recalls) ** (1 / len(recalls)))


@settings(max_examples=100, deadline=None)
@given(folds(max_classes=5))
def test_g_mean_is_its_definition(fold):
    y, proba, _ = fold
    y_pred = np.argmax(proba, axis=1)
    matrix = metrics.confusion_matrix(y, y_pred, proba.shape[1])
    assert metrics.g_mean(matrix) == pytest.approx(g_mean_by_hand(y, y_pred), abs=1e-12)


# --------------------------------------------------------------------------
# A fold's record: every measure, the positive class, the results file
# --------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(folds())
def test_a_fold_records_every_measure(fold):
    y, proba, _ = fold
    k = proba.shape[1]
    positive = measures.positive_class(y, k)
    result = score_predictions(y, proba)
    scores = result["metrics"]
    assert set(scores) == {m.name for m in measures.MEASURES if m.compute is not None}
    y_pred = np.argmax(proba, axis=1)
    assert scores["precision"] == pytest.approx(sk.precision_score(
        y, y_pred, labels=[positive], average=None, zero_division=0)[0], abs=1e-12)
    assert scores["brier"] == pytest.approx(probabilities.brier_score(y, proba), abs=1e-15)
    record = {"key": "k", "metrics": {**scores, "n_nodes": 3, "n_leaves": 2, "depth": 1,
                                      "fit_seconds": 0.1, "predict_seconds": 0.1},
              "confusion_matrix": result["confusion_matrix"]}
    record["metrics"] = {n: None if isinstance(v, float) and math.isnan(v) else v
                         for n, v in record["metrics"].items()}
    assert check_record(record) is not None  # what a task writes, the file takes back


def test_the_positive_class_is_the_rarest_present():
    assert measures.positive_class(np.array([0, 0, 2, 2, 2, 1, 1, 1]), 4) == 0
    assert measures.positive_class(np.array([1, 1, 0, 0]), 2) == 0  # first of ties


def test_an_older_results_line_is_kept_but_runs_again(tmp_path):
    from dtcli.crossval.results import ResultStore

    old = {"key": "a", "metrics": {"accuracy": 0.5, "balanced_accuracy": 0.5, "auc": 0.5,
                                   "log_loss": 0.7, "f1_macro": 0.5, "n_nodes": 1,
                                   "n_leaves": 1, "depth": 0, "fit_seconds": 0.0,
                                   "predict_seconds": 0.0},
           "confusion_matrix": [[1, 0], [1, 0]]}
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(old) + "\n")
    store = ResultStore(str(path))
    assert store.get("a") is None and store.repaired is None
    store.close()
    bad = dict(old, metrics={**old["metrics"], "mcc": 1.5})
    assert check_record(bad) is None  # out of its range


def test_metrics_command_fits_80_columns():
    result = CliRunner().invoke(cli, ["metrics"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert max(map(len, lines)) <= 80
    for m in measures.MEASURES:
        line = next(line for line in lines if line.split()[:1] == [m.name])
        assert line.split()[1] == ("higher" if m.higher_is_better else "lower")
    listed = json.loads(CliRunner().invoke(cli, ["metrics", "-f", "json"]).stdout)
    assert [m["name"] for m in listed] == list(measures.BY_NAME)


# --------------------------------------------------------------------------
# End to end: a compare's folds against scikit-learn on the same probabilities
# --------------------------------------------------------------------------


def test_compare_average_precision_is_scikit_learns_on_each_fold():
    import dtcli
    from dtcli.sampling.folds import repeat_folds
    from dtcli.io import load_dataset

    path = IMBALANCED / "ecoli-0-6-7_vs_5.dat"
    result = dtcli.compare([str(path)], "gini,entropy", cv=5, repeats=2, seed=3,
                           metric="average_precision", quiet=True)
    doc = result.document
    data = load_dataset(str(path))
    positive = measures.positive_class(data.y, len(data.classes))
    assert doc["positive"] == {"ecoli-0-6-7_vs_5": data.classes[positive]}
    for criterion in ("gini", "entropy"):
        expected = []
        for repeat in range(2):
            for train, test in repeat_folds(data.y, 5, 3, repeat):
                model = dtcli.DecisionTreeClassifier(criterion=criterion).fit(
                    data.X[train], data.y[train])
                proba = model.predict_proba(data.X[test])
                expected.append(sk.average_precision_score(data.y[test] == positive,
                                                           proba[:, positive]))
        assert doc["fold_scores"]["ecoli-0-6-7_vs_5"][criterion] == pytest.approx(
            expected, abs=1e-12)


def test_a_lower_is_better_measure_ranks_low_first():
    runner = CliRunner()
    args = ["compare", str(IMBALANCED / "new-thyroid1.dat"),
            str(IMBALANCED / "ecoli-0-6-7_vs_5.dat"), str(IMBALANCED / "haberman.dat"),
            "--criteria", "gini,entropy", "--cv", "3", "-q", "-f", "json", "--metric", "brier"]
    doc = json.loads(runner.invoke(cli, args).stdout)
    assert doc["higher_is_better"] is False
    names, methods = doc["datasets"], doc["criteria"]
    table = np.array([[doc["scores"][d][m]["mean"] for m in methods] for d in names])
    lower_first = np.where(table[:, 0] < table[:, 1], 1.0,
                           np.where(table[:, 0] > table[:, 1], 2.0, 1.5))
    ranks = doc["average_ranks"]
    ranks = [ranks[m] for m in methods] if isinstance(ranks, dict) else ranks
    assert ranks[0] == pytest.approx(lower_first.mean())
    assert doc["best"] == {d: [methods[int(np.argmin(row))]] for d, row in zip(names, table)
                           if row[0] != row[1]} | {d: methods for d, row in zip(names, table)
                                                  if row[0] == row[1]}


def test_positive_names_a_class_every_dataset_has():
    runner = CliRunner()
    result = runner.invoke(cli, ["evaluate", str(IMBALANCED / "new-thyroid1.dat"), "--cv", "3",
                                 "-q", "--positive", "nope"])
    assert result.exit_code != 0 and "--positive" in result.stderr
    assert "Traceback" not in result.stderr
    doc = json.loads(runner.invoke(cli, ["evaluate", str(IMBALANCED / "new-thyroid1.dat"),
                                         "--cv", "3", "-q", "-f", "json"]).stdout)
    named = json.loads(runner.invoke(cli, ["evaluate", str(IMBALANCED / "new-thyroid1.dat"),
                                           "--cv", "3", "-q", "-f", "json", "--positive",
                                           doc["classes"][0]
                                           if doc["positive"] != doc["classes"][0]
                                           else doc["classes"][1]]).stdout)
    assert named["positive"] != doc["positive"]
    assert named["recall"]["values"] != doc["recall"]["values"]
    assert named["accuracy"] == doc["accuracy"]


# --------------------------------------------------------------------------
# Calibration: the reliability diagram of pooled out-of-fold probabilities
# --------------------------------------------------------------------------


def out_of_fold(path, cv, seed, **params):
    import dtcli
    from dtcli.sampling.folds import repeat_folds
    from dtcli.io import load_dataset

    data = load_dataset(str(path))
    ys, probas = [], []
    for train, test in repeat_folds(data.y, cv, seed, 0):
        model = dtcli.DecisionTreeClassifier(**params).fit(data.X[train], data.y[train])
        ys.append(data.y[test])
        probas.append(model.predict_proba(data.X[test]))
    return np.concatenate(ys), np.vstack(probas)


def test_evaluate_plots_the_pooled_out_of_fold_reliability_diagram(tmp_path):
    import xml.etree.ElementTree as ElementTree

    path = IMBALANCED / "ecoli2.dat"
    plot = tmp_path / "calibration.svg"
    result = CliRunner().invoke(cli, ["evaluate", str(path), "--cv", "4", "--seed", "2",
                                      "--leaf-estimate", "laplace", "--min-samples-leaf", "5",
                                      "-q", "-f", "json", "--plot", str(plot)])
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    y, proba = out_of_fold(path, 4, 2, leaf_estimate="laplace", min_samples_leaf=5)
    confidence, correct = proba.max(axis=1), np.argmax(proba, axis=1) == y
    count = [0] * 15
    for c in confidence:  # bin m holds (m-1)/15 < c <= m/15
        count[next(m for m in range(15) if c <= np.linspace(0, 1, 16)[m + 1])] += 1
    assert doc["calibration"]["count"] == count and doc["calibration"]["bins"] == 15
    used = [m for m in range(15) if count[m]]
    assert [doc["calibration"]["accuracy"][m] for m in used] == pytest.approx(
        [correct[(confidence > m / 15) & (confidence <= (m + 1) / 15)].mean() for m in used])
    svg = ElementTree.parse(plot).getroot()
    bars = [r for r in svg.iter("{http://www.w3.org/2000/svg}rect") if r.find(
        "{http://www.w3.org/2000/svg}title") is not None]
    assert len(bars) == len(used)  # one bar per bin with rows


def test_a_compare_on_one_dataset_reports_each_methods_calibration(tmp_path):
    report = tmp_path / "r.html"
    result = CliRunner().invoke(cli, ["compare", str(IMBALANCED / "new-thyroid1.dat"),
                                      "--criteria", "gini,entropy", "--cv", "3", "-q", "-f",
                                      "json", "--report", str(report)])
    doc = json.loads(result.stdout)
    assert set(doc["calibration"]) == {"gini", "entropy"}
    assert sum(doc["calibration"]["gini"]["count"]) == 215  # every row once
    page = report.read_text()
    assert "<h2>Calibration</h2>" in page and page.count("confidence (largest class") == 2
    import dtcli

    compared = dtcli.compare([str(IMBALANCED / "new-thyroid1.dat")], "gini,entropy", cv=3,
                             quiet=True)
    assert compared.calibration_plot("gini") in page


def test_a_tampered_calibration_line_is_refused():
    y = np.array([0, 1, 1])
    result = score_predictions(y, np.array([[0.8, 0.2], [0.3, 0.7], [0.5, 0.5]]))
    scores = {n: None if v != v else v for n, v in result["metrics"].items()}  # NaN as stored
    record = {"key": "k", "metrics": {**scores, "n_nodes": 1, "n_leaves": 1,
                                      "depth": 0, "fit_seconds": 0.0, "predict_seconds": 0.0},
              "confusion_matrix": result["confusion_matrix"],
              "calibration": result["calibration"]}
    assert check_record(record) is not None
    record["calibration"] = dict(result["calibration"], count=[0] * 14 + [4])
    assert check_record(record) is None
