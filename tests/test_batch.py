"""The batch path of cross-validation (dtcli.crossval.batch): every fold grown on one presort
of its dataset gives what a fit on the fold's training rows gives, and `compare` writes,
timings aside, exactly what it wrote before the batch path (recorded on main at b3e9ac5;
run "a", which reads examples/crx.csv, recorded again when issue 35 replaced that file
with a copy whose real-valued columns have their decimal points)."""
from __future__ import annotations

import dataclasses
import hashlib
import io
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from dtcli.cli import cli
from dtcli.estimator import DecisionTreeClassifier
from dtcli.crossval import batch, runner, scoring
from dtcli.crossval.batch import PreparedDataset, run_tasks
from dtcli.sampling.folds import repeat_folds
from dtcli.reporting.report import plain_progress
from dtcli.crossval.tasks import Task, TreeOptions

ROOT = Path(__file__).resolve().parent.parent
RECORDED = json.loads((ROOT / "tests" / "data" / "compare_before_batch.json").read_text())
TIMINGS = ("timing", "fit_seconds", "predict_seconds")


def without_timings(value):
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def fit_on_the_fold(dataset, task):
    """The fold as cross-validation ran it before the batch path: a fit on the training
    rows alone, then the test rows' probabilities and scores."""
    train, test = repeat_folds(dataset.y, task.cv, task.seed, task.repeat)[task.fold]
    subset = dataclasses.replace(dataset, X=np.ascontiguousarray(dataset.X[train]),
                                 y=dataset.y[train], warnings=[])
    model = DecisionTreeClassifier(criterion=task.criterion, n_jobs=1,
                                   **task.options.estimator_params()).fit_dataset(subset)
    result = scoring.score_predictions(dataset.y[test], model.proba_from_matrix(dataset.X[test]))
    result["metrics"].update(scoring.tree_facts(model))
    return result


@pytest.mark.parametrize("example, options", [
    ("imbalanced/new-thyroid1.dat", TreeOptions()),
    ("imbalanced/new-thyroid1.dat", TreeOptions(class_weight="balanced")),
    ("imbalanced/new-thyroid1.dat", TreeOptions(class_weight={"positive": 3.0})),
    ("crx.csv", TreeOptions(min_samples_leaf=3)),  # nominal features, missing values
    # unpruned folds are grown and predicted together (engine.folds), with any estimate
    ("crx.csv", TreeOptions(leaf_estimate="m-estimate", m=5.0)),
    ("imbalanced/new-thyroid1.dat", TreeOptions(leaf_estimate="laplace")),
    # pruned as the estimator prunes, with the leaf estimate's probabilities
    ("imbalanced/new-thyroid1.dat", TreeOptions(pruning="pessimistic", leaf_estimate="laplace")),
    ("crx.csv", TreeOptions(pruning="ccp", pruning_folds=3)),
    ("crx.csv", TreeOptions(pruning="reduced-error", leaf_estimate="m-estimate")),
    ("imbalanced/new-thyroid1.dat", TreeOptions(pruning="s-pruning", permutations=100)),
])
def test_every_fold_on_one_presort_is_the_fit_on_its_training_rows(example, options,
                                                                   load_example):
    dataset = load_example(example)
    tasks = [Task(0, criterion, (), options, 5, 7, repeat, fold)
             for criterion in ("gini", "entropy") for repeat in range(2) for fold in range(5)]
    prepared = PreparedDataset.of(dataset)
    results = list(run_tasks(prepared, tasks[:7])) + list(run_tasks(prepared, tasks[7:]))
    assert len(results) == len(tasks)
    for task, result in zip(tasks, results):
        assert without_timings(result) == without_timings(fit_on_the_fold(dataset, task))
        assert result["metrics"]["fit_seconds"] >= 0 and result["metrics"]["predict_seconds"] >= 0


def test_run_task_is_the_batch_path_for_one_task(load_example):
    dataset = load_example("imbalanced/ecoli2.dat")
    task = Task(0, "entropy", (), TreeOptions(), 10, 0, 1, 4)
    assert without_timings(runner.run_task(dataset, task)) == without_timings(
        fit_on_the_fold(dataset, task))


def test_task_groups_are_runs_of_one_dataset_cut_to_the_chunk():
    tasks = [Task(d, "gini", (), TreeOptions(), 10, 0, 0, f) for d, f in
             [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (0, 3)]]
    assert batch.task_groups(tasks) == [[0, 1, 2], [3, 4], [5]]
    assert batch.task_groups(tasks, lambda task: 2) == [[0, 1], [2], [3, 4], [5]]


@pytest.mark.parametrize("name, arguments", [
    ("a", ["examples/imbalanced/ecoli2.dat", "examples/imbalanced/new-thyroid1.dat",
           "examples/crx.csv", "--criteria", "gini,entropy", "--repeats", "2"]),
    ("b", ["examples/imbalanced/ecoli2.dat", "examples/imbalanced/new-thyroid1.dat",
           "examples/iris.csv", "--criteria", "gini,entropy", "--class-weight", "balanced",
           "--min-samples-leaf", "2", "--cv", "5"]),
])
def test_compare_writes_what_it_wrote_before_the_batch_path(name, arguments, tmp_path,
                                                            monkeypatch):
    # worker processes give what one process gives: test_runner.py
    monkeypatch.chdir(ROOT)  # the report names the files as given
    results = tmp_path / "runs.jsonl"
    recorded = RECORDED[name]
    output, lines = compare_output(arguments, results, recorded["output"]["options"])
    assert len(lines) == recorded["results_lines"]
    assert hashlib.sha256("\n".join(lines).encode()).hexdigest() == recorded["results_sha256"]
    assert output == recorded["output"]


def compare_output(arguments, results, recorded_options):
    """compare's JSON as it was recorded (with `recorded_options`), and the results file's
    lines, timings aside. The
    post-hoc tests, now shown only after the omnibus test rejects, are asked for
    regardless (the recording always had them), without the line that labels them so."""
    done = CliRunner().invoke(cli, ["compare", *arguments, "-f", "json", "-q", "--jobs", "1",
                                    "--results", str(results), "--posthoc", "always"],
                              catch_exceptions=False)
    assert done.exit_code == 0, done.output
    output = without_timings(json.loads(done.stdout))
    output.pop("positive")  # the positive class of the measures of issue 44
    # each fold's score, added since the recording: the means are the table's
    for dataset, by_method in output.pop("fold_scores").items():
        for method, folds in by_method.items():
            assert np.mean(folds) == pytest.approx(output["scores"][dataset][method]["mean"])
    posthoc = output.pop("posthoc")
    assert posthoc["shown"] and posthoc["rule"] == "always"
    output["conclusions"] = [line for line in output["conclusions"]
                             if not line.startswith("Post-hoc tests shown regardless")]
    # options added since the recording (pruning, leaf estimate) must be at their defaults
    defaults = TreeOptions().estimator_params()
    added = {k: v for k, v in output["options"].items() if k not in recorded_options}
    assert added and added == {k: defaults[k] for k in added}
    output["options"] = {k: v for k, v in output["options"].items() if k not in added}
    lines = sorted(json.dumps(without_added_measures(without_timings(json.loads(line))),
                              sort_keys=True)
                   for line in results.read_text().splitlines())
    return output, lines


ADDED_MEASURES = ("average_precision", "average_precision_weighted", "mcc", "g_mean", "kappa",
                  "brier", "ece", "precision", "recall", "f1", "expected_cost")


def without_added_measures(line: dict) -> dict:
    """A results line without what issue 44 added since the recording: the measures beyond
    the first five and the reliability bins."""
    assert set(ADDED_MEASURES) <= set(line["metrics"]) and "calibration" in line
    return {**{k: v for k, v in line.items() if k != "calibration"},
            "metrics": {k: v for k, v in line["metrics"].items() if k not in ADDED_MEASURES}}


def test_plain_progress_writes_a_line_at_most_every_ten_seconds():
    now = [100.0]
    stream = io.StringIO()
    update = plain_progress("cross-validating", stream, clock=lambda: now[0])
    for done, seconds in [(1, 3.0), (2, 9.9), (3, 10.0), (4, 15.0), (5, 20.5)]:
        now[0] = 100.0 + seconds
        update(done, 8)
    assert stream.getvalue().splitlines() == ["cross-validating: 3/8 (37%), 10 s",
                                              "cross-validating: 5/8 (62%), 20 s"]


def test_an_interrupted_run_says_what_it_saved(tmp_path):
    from dtcli.experiments.notes import saved as _saved
    from dtcli.crossval.results import ResultStore

    from dtcli.reporting.report import METRICS

    fold = {"metrics": {name: 1.0 for name in METRICS}, "confusion_matrix": [[1, 0], [0, 1]]}
    assert "nothing was saved" in _saved(None)
    assert "nothing was saved" in _saved(ResultStore())
    path = tmp_path / "runs.jsonl"
    store = ResultStore(str(path))
    assert _saved(store) == "no fold finished in this run, none was saved"
    assert not path.exists()
    store.add("k1", fold)
    store.add("k2", fold)
    store.close()
    assert _saved(store) == f"2 finished folds of this run saved in {path} (2 in all); " \
                            "rerun to continue"
    again = ResultStore(str(path))
    assert _saved(again) == ("no fold finished in this run, none was saved; "
                             f"{path} still holds the 2 folds of earlier runs")


def test_a_runs_plain_folds_are_grown_and_predicted_together(load_example, monkeypatch):
    """Unpruned folds without class weights take engine.folds (one grower call per
    criterion), never builder.grow fold by fold, and give the fits' results."""
    from dtcli.engine import builder

    dataset = load_example("crx.csv")
    tasks = [Task(0, criterion, (), TreeOptions(leaf_estimate="m-estimate"), 5, 7, 0, fold)
             for criterion in ("gini", "entropy") for fold in range(5)]
    expected = [without_timings(fit_on_the_fold(dataset, task)) for task in tasks]

    def one_by_one(*args, **kwargs):
        raise AssertionError("a fold grown on its own")

    monkeypatch.setattr(builder, "grow", one_by_one)
    assert [without_timings(r) for r in run_tasks(dataset, tasks)] == expected
