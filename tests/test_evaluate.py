"""`dtree evaluate`: cross-validation of a criterion and metrics of a saved model."""
import csv
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from dtcli.cli import cli
from dtcli.reporting.report import METRICS

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
IRIS = str(EXAMPLES / "iris.csv")
THYROID = str(EXAMPLES / "imbalanced" / "new-thyroid1.dat")


def dtree(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def one_line_error(result, code, text):
    """The error is said in one line (after Click's usage lines, for Click's own checks)."""
    assert result.exit_code == code, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and text in errors[0], result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_cross_validation_json_has_one_object_per_metric():
    result = dtree("evaluate", THYROID, "--criterion", "entropy", "--cv", 3, "--repeats", 2,
                   "--seed", 5, "-j", 1, "-f", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["classes"] == ["negative", "positive"]
    assert doc["criterion"] == {"name": "entropy", "params": {}}
    assert (doc["cv"], doc["repeats"], doc["seed"], doc["n_rows"]) == (3, 2, 5, 215)
    for name in METRICS:
        entry = doc[name]
        assert len(entry["values"]) == 6
        if name == "expected_cost":  # no --cost: undefined
            assert entry["values"] == [None] * 6 and entry["mean"] is None
            continue
        assert entry["mean"] == pytest.approx(np.mean(entry["values"]))
        assert entry["std"] == pytest.approx(np.std(entry["values"], ddof=1))
    matrix = np.array(doc["confusion_matrix"])
    assert matrix.sum() == 2 * 215  # every row tested once per repeat
    assert matrix.sum(axis=1).tolist() == [2 * 180, 2 * 35]
    # the pooled scores against scikit-learn, on the labels the summed matrix stands for
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    y_true = np.repeat([0, 0, 1, 1], matrix.ravel())
    y_pred = np.repeat([0, 1, 0, 1], matrix.ravel())
    precision, recall, f1, support = sklearn_metrics.precision_recall_fscore_support(y_true, y_pred)
    for c, label in enumerate(doc["classes"]):
        assert doc["per_class"][label] == pytest.approx(
            {"precision": precision[c], "recall": recall[c], "f1": f1[c], "support": support[c]})
    assert doc["pooled"]["g_mean"] == pytest.approx(np.sqrt(recall[0] * recall[1]))
    assert doc["pooled"]["mcc"] == pytest.approx(
        sklearn_metrics.matthews_corrcoef(y_true, y_pred))
    assert doc["pooled"]["kappa"] == pytest.approx(
        sklearn_metrics.cohen_kappa_score(y_true, y_pred))


def test_tree_options_reach_the_trees():
    shallow = json.loads(dtree("evaluate", IRIS, "--cv", 3, "--max-depth", 1, "-j", 1,
                               "-f", "json").stdout)
    assert shallow["depth"]["values"] == [1, 1, 1]
    assert shallow["options"]["max_depth"] == 1


def test_saved_model_is_scored_once(tmp_path):
    model = tmp_path / "iris.json"
    assert dtree("train", IRIS, "-o", model, "-q").exit_code == 0
    result = dtree("evaluate", model, IRIS, "-f", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["accuracy"] == {"mean": 1.0, "std": 0.0, "values": [1.0]}
    assert doc["n_rows"] == 150 and doc["model"] == str(model)
    assert np.trace(doc["confusion_matrix"]) == 150
    assert doc["n_nodes"]["values"][0] > 1


def test_saved_model_with_an_unknown_label_or_no_target(tmp_path):
    model = tmp_path / "iris.json"
    dtree("train", IRIS, "-o", model, "-q")
    data = tmp_path / "new.csv"
    text = Path(IRIS).read_text().splitlines()
    data.write_text("\n".join(text[:5] + [text[5].rsplit(",", 1)[0] + ",Iris-nova"]) + "\n")
    one_line_error(dtree("evaluate", model, data), 1, "'Iris-nova' are not among the model's classes")
    one_line_error(dtree("evaluate", model, data, "--target", "nothere"), 1,
                   "no class column 'nothere'")


def test_options_of_cross_validation_do_not_apply_to_a_model(tmp_path):
    model = tmp_path / "iris.json"
    dtree("train", IRIS, "-o", model, "-q")
    one_line_error(dtree("evaluate", model, IRIS, "--cv", 3), 2, "--cv applies to cross-validating")
    one_line_error(dtree("evaluate", model, IRIS, "-c", "entropy"), 2, "--criterion applies")


@pytest.mark.parametrize("args, code, text", [
    (["--criterion", "nonsense"], 2, "unknown criterion 'nonsense'"),
    (["--param", "q=2"], 2, "has no parameter 'q'"),
    (["--cv", 1], 2, "--cv"),
    (["--cv", 151], 2, "more folds than dataset 'iris' has rows"),
    (["-f", "yaml"], 2, "--output-format"),
])
def test_usage_errors_are_one_line(args, code, text):
    one_line_error(dtree("evaluate", IRIS, *args), code, text)


def test_too_many_arguments_and_missing_files():
    assert dtree("evaluate", IRIS, IRIS, IRIS).exit_code == 2
    one_line_error(dtree("evaluate", "no/such.csv"), 1, "no/such.csv")


def test_every_format_says_the_same_and_holds_the_confusion_matrix():
    args = ("evaluate", IRIS, "--cv", 3, "-j", 1)
    doc = json.loads(dtree(*args, "-f", "json").stdout)
    setosa = doc["per_class"]["Iris-setosa"]
    matrix_rows = [[label, *map(str, row)] for label, row in zip(doc["classes"],
                                                                 doc["confusion_matrix"])]
    sections = [[]]
    for row in csv.reader(io.StringIO(dtree(*args, "-f", "csv").stdout)):
        if row:
            sections[-1].append(row)
        else:
            sections.append([])
    metric_rows, class_rows, overall_rows, matrix_csv = sections
    assert metric_rows[0] == ["metric", "mean", "std", "fold_1", "fold_2", "fold_3"]
    assert [r[0] for r in metric_rows[1:]] == list(METRICS)
    assert float(metric_rows[1][1]) == doc["accuracy"]["mean"]
    assert class_rows[0] == ["class", "precision", "recall", "f1", "support"]
    assert class_rows[1] == ["Iris-setosa", *(repr(setosa[k]) for k in ("precision", "recall",
                                                                          "f1")), "50"]
    assert overall_rows[1:] == [[name, repr(doc["pooled"][name])]
                                for name in ("g_mean", "mcc", "kappa")]
    assert matrix_csv == [["true \\ predicted", *doc["classes"]], *matrix_rows]
    markdown = dtree(*args, "-f", "markdown").stdout
    assert f"| accuracy | {doc['accuracy']['mean']:.4f} |" in markdown
    assert f"| mcc | {doc['pooled']['mcc']:.4f} |" in markdown
    assert "| Iris-setosa | 50 | 0 | 0 |" in markdown
    assert f"| Iris-virginica | {doc['per_class']['Iris-virginica']['precision']:.4f} |" in markdown
    table = dtree(*args).stdout
    assert "stratified 3-fold cross-validation" in table
    assert f"{doc['accuracy']['mean']:.4f}" in table and f"{doc['pooled']['kappa']:.4f}" in table
    for row in matrix_rows:
        assert re.search(r"\s+".join(map(re.escape, row)), table), row


def test_a_class_smaller_than_the_folds_is_a_warning(tmp_path):
    data = tmp_path / "small.csv"
    rows = ["x,y"] + [f"{i},a" for i in range(20)] + ["100,b", "101,b"]
    data.write_text("\n".join(rows) + "\n")
    result = dtree("evaluate", data, "--cv", 3, "-j", 1, "-f", "json")
    assert result.exit_code == 0, result.output
    assert "class 'b' has 2 rows, fewer than --cv 3" in result.stderr
    doc = json.loads(result.stdout)
    assert None in doc["auc"]["values"]  # the fold without a 'b'
    assert doc["auc"]["mean"] is not None


def test_cross_validation_with_class_weights_records_them():
    args = ("evaluate", THYROID, "--cv", 3, "-j", 1, "--max-depth", 2)
    plain = json.loads(dtree(*args, "-f", "json").stdout)
    weighted = json.loads(dtree(*args, "--class-weight", "positive=20", "-f", "json").stdout)
    assert plain["options"]["class_weight"] is None
    assert weighted["options"]["class_weight"] == {"positive": 20.0}
    # a heavy minority class is predicted more often
    assert (np.array(weighted["confusion_matrix"])[:, 1].sum()
            > np.array(plain["confusion_matrix"])[:, 1].sum())
    table = dtree(*args, "--class-weight", "balanced")
    # the title is wrapped at 80 columns in a pipe
    assert table.exit_code == 0 and "class weights balanced" in " ".join(table.stdout.split())


def test_class_weight_errors_are_one_line(tmp_path):
    one_line_error(dtree("evaluate", THYROID, "--class-weight", "sick=2"), 2,
                   "dataset 'new-thyroid1' has no class 'sick'")
    one_line_error(dtree("evaluate", THYROID, "--class-weight", "positive=x"), 2, "is not a number")
    model = tmp_path / "m.json"
    assert dtree("train", THYROID, "-o", model, "-q").exit_code == 0
    one_line_error(dtree("evaluate", model, THYROID, "--class-weight", "balanced"), 2,
                   "--class-weight applies to cross-validating DATA")
