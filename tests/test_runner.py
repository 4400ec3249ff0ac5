"""dtcli.evaluate.runner: criteria syntax, task keys, folds, parallel and resumed runs."""
import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest

from dtcli.criteria import CRITERIA
from dtcli.errors import DataError, ParameterError
from dtcli.estimator import DecisionTreeClassifier
from dtcli.evaluate import runner
from dtcli.evaluate.folds import repeat_folds, repeated_stratified_kfold
from dtcli.evaluate.report import METRICS, TIMING
from dtcli.io import load_dataset

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
GINI, ENTROPY = runner.CriterionChoice("gini"), runner.CriterionChoice("entropy")
# a criterion whose first parameter takes a range of values (not a 0/1 switch)
WITH_PARAMS = next((c for c in CRITERIA.values() if c.params and not c.params[0].choices), None)


@pytest.fixture(scope="module")
def iris():
    return load_dataset(str(EXAMPLES / "iris.csv"))


@pytest.fixture(scope="module")
def thyroid():
    return load_dataset(str(EXAMPLES / "imbalanced" / "new-thyroid1.dat"))


def without_timing(grid):
    return {cell: [{**fold, "metrics": {k: v for k, v in fold["metrics"].items() if k not in TIMING}}
                   for fold in folds] for cell, folds in grid.cells.items()}


# --------------------------------------------------------------------------
# --criteria syntax
# --------------------------------------------------------------------------


def test_parse_criteria_splits_commas_and_repeats():
    choices = runner.parse_criteria(["gini, entropy", "gain-ratio"])
    assert [c.label for c in choices] == ["gini", "entropy", "gain-ratio"]
    assert all(c.params == () for c in choices)


@pytest.mark.skipif(WITH_PARAMS is None, reason="no registered criterion has parameters")
def test_parse_criteria_reads_parameters_and_labels_them():
    param = WITH_PARAMS.params[0]
    values = [v for v in (param.default + 0.5, param.default - 0.25, 0.5, 1.5, 2.5, 3.0)
              if param.accepts(v) and v != param.default][:2]
    entries = [f"{WITH_PARAMS.name}:{param.name}={v}" for v in values]
    choices = runner.parse_criteria([",".join(entries)])
    assert [c.label for c in choices] == [f"{WITH_PARAMS.name}:{param.name}={v:g}" for v in values]
    assert choices[0].resolved()[param.name] == values[0]


@pytest.mark.parametrize("text, message", [
    ("gini,nonsense", "unknown criterion 'nonsense'"),
    ("gini:q=2", "has no parameter 'q'"),
    ("gini:q", "expected NAME:PARAM=VALUE"),
    ("gini:=3", "expected NAME:PARAM=VALUE"),
    ("gini,entropy,gini", "the same criterion"),
    (" , ", "no criterion"),
])
def test_parse_criteria_errors(text, message):
    with pytest.raises(ParameterError, match=message):
        runner.parse_criteria([text])


@pytest.mark.skipif(WITH_PARAMS is None, reason="no registered criterion has parameters")
def test_a_parameter_at_its_default_is_the_same_criterion():
    param = WITH_PARAMS.params[0]
    with pytest.raises(ParameterError, match="the same criterion"):
        runner.parse_criteria([f"{WITH_PARAMS.name},{WITH_PARAMS.name}:{param.name}={param.default}"])


# --------------------------------------------------------------------------
# Keys and folds
# --------------------------------------------------------------------------


def test_task_key_changes_with_every_part_and_only_then(iris):
    digest = runner.dataset_digest(iris)
    options = runner.TreeOptions()
    base = runner.task_key(digest, GINI, options, 10, 0, 0, 0)
    assert base == runner.task_key(digest, runner.CriterionChoice("gini"), runner.TreeOptions(),
                                   10, 0, 0, 0)
    variants = [
        runner.task_key("0" * 32, GINI, options, 10, 0, 0, 0),
        runner.task_key(digest, ENTROPY, options, 10, 0, 0, 0),
        runner.task_key(digest, GINI, runner.TreeOptions(min_samples_leaf=2), 10, 0, 0, 0),
        runner.task_key(digest, GINI, runner.TreeOptions(max_depth=3), 10, 0, 0, 0),
        runner.task_key(digest, GINI, options, 5, 0, 0, 0),
        runner.task_key(digest, GINI, options, 10, 1, 0, 0),
        runner.task_key(digest, GINI, options, 10, 0, 1, 0),
        runner.task_key(digest, GINI, options, 10, 0, 0, 1),
    ]
    assert len({base, *variants}) == len(variants) + 1


def test_dataset_digest_follows_content_not_name(iris):
    renamed = dataclasses.replace(iris, source="elsewhere.csv", target="species")
    assert runner.dataset_digest(renamed) == runner.dataset_digest(iris)
    X = iris.X.copy()
    X[0, 0] += 0.1
    assert runner.dataset_digest(dataclasses.replace(iris, X=X)) != runner.dataset_digest(iris)
    y = iris.y.copy()
    y[[0, -1]] = y[[-1, 0]]
    assert runner.dataset_digest(dataclasses.replace(iris, y=y)) != runner.dataset_digest(iris)


def test_one_repeat_of_folds_equals_the_repeated_split(iris):
    every = repeated_stratified_kfold(iris.y, 5, 3, 42)
    for repeat in range(3):
        for (a_train, a_test), (b_train, b_test) in zip(every[repeat],
                                                         repeat_folds(iris.y, 5, 42, repeat)):
            assert np.array_equal(a_train, b_train) and np.array_equal(a_test, b_test)


def test_check_protocol_warns_about_small_classes_and_rejects_too_many_folds(thyroid):
    counts = np.bincount(thyroid.y)
    warnings = runner.check_protocol(["thyroid"], [thyroid], runner.Protocol(cv=int(counts.min()) + 1))
    assert len(warnings) == 1 and "fewer than --cv" in warnings[0]
    assert runner.check_protocol(["thyroid"], [thyroid], runner.Protocol(cv=5)) == []
    with pytest.raises(ParameterError, match="more folds than dataset 'thyroid' has rows"):
        runner.check_protocol(["thyroid"], [thyroid], runner.Protocol(cv=len(thyroid.y) + 1))


# --------------------------------------------------------------------------
# One task
# --------------------------------------------------------------------------


def test_run_task_is_a_fit_on_the_training_fold(iris):
    task = runner.Task(0, "entropy", (), runner.TreeOptions(min_samples_leaf=2), 5, 7, 1, 3)
    result = runner.run_task(iris, task)
    assert set(result["metrics"]) == set(METRICS)
    train, test = repeat_folds(iris.y, 5, 7, 1)[3]
    model = DecisionTreeClassifier(criterion="entropy", min_samples_leaf=2)
    model.fit(iris.X[train], iris.y[train])
    expected = np.mean(model.predict(iris.X[test]) == iris.y[test])
    assert result["metrics"]["accuracy"] == pytest.approx(expected)
    assert result["metrics"]["n_nodes"] == model.tree_.node_count
    matrix = np.array(result["confusion_matrix"])
    assert matrix.shape == (3, 3) and matrix.sum() == len(test)


def test_score_predictions_handles_a_single_class_fold():
    proba = np.array([[0.8, 0.2], [1.0, 0.0]])
    scores = runner.score_predictions(np.array([0, 0]), proba)
    assert math.isnan(scores["metrics"]["auc"])
    assert scores["metrics"]["accuracy"] == 1.0
    assert scores["metrics"]["log_loss"] == pytest.approx(-math.log(0.8) / 2)


def test_evaluate_model_maps_labels_and_rejects_unknown_ones(iris):
    model = DecisionTreeClassifier().fit_dataset(iris)
    labels = np.array([iris.classes[k] for k in iris.y] + [None], dtype=object)
    X = np.vstack([iris.X, iris.X[:1]])
    result, n_rows = runner.evaluate_model(model, 0.5, X, labels, "iris.csv")
    assert n_rows == 150 and result["metrics"]["accuracy"] == 1.0
    assert result["metrics"]["fit_seconds"] == 0.5
    labels[0] = "Iris-nova"
    with pytest.raises(DataError, match="'Iris-nova' are not among the model's classes"):
        runner.evaluate_model(model, 0.5, X, labels, "iris.csv")


def test_mean_std_is_the_sample_std_over_finite_values():
    assert runner.mean_std([1.0, 2.0, 3.0]) == (2.0, 1.0)
    assert runner.mean_std([4.0]) == (4.0, 0.0)
    assert runner.mean_std([1.0, None, float("nan"), 3.0]) == (2.0, math.sqrt(2.0))
    assert all(math.isnan(x) for x in runner.mean_std([None]))


# --------------------------------------------------------------------------
# Whole runs: parallel, resumed
# --------------------------------------------------------------------------


def run(datasets, criteria, protocol=runner.Protocol(3, 1, 0), **kwargs):
    names = [f"d{i}" for i in range(len(datasets))]
    return runner.run_grid(names, datasets, criteria, runner.TreeOptions(), protocol, **kwargs)


def test_worker_processes_give_the_same_results_as_one_process(iris, thyroid):
    criteria = [GINI, ENTROPY]
    here = run([iris, thyroid], criteria, jobs=1)
    pool = run([iris, thyroid], criteria, jobs=2)
    assert pool.computed == here.computed == 2 * 2 * 3
    assert without_timing(pool) == without_timing(here)


def test_results_file_resumes_and_reruns_only_what_changed(tmp_path, iris, thyroid):
    path = str(tmp_path / "results.jsonl")
    seen = []
    first = run([iris], [GINI], runner.Protocol(3, 2, 0), jobs=1, store=runner.ResultStore(path),
                progress=lambda done, total: seen.append((done, total)))
    assert (first.computed, first.reused) == (6, 0)
    assert seen[0] == (0, 6) and seen[-1] == (6, 6)
    lines = [json.loads(line) for line in open(path)]
    assert len(lines) == 6 and {"key", "dataset", "criterion", "repeat", "fold"} <= set(lines[0])

    again = run([iris], [GINI], runner.Protocol(3, 2, 0), jobs=1, store=runner.ResultStore(path))
    assert (again.computed, again.reused) == (0, 6)
    assert again.cells == first.cells  # the same numbers, timings included

    more = run([iris, thyroid], [GINI, ENTROPY], runner.Protocol(3, 3, 0), jobs=1,
               store=runner.ResultStore(path))
    assert (more.computed, more.reused) == (2 * 2 * 9 - 6, 6)
    assert more.cells[(0, 0)][:6] == first.cells[(0, 0)]

    other_seed = run([iris], [GINI], runner.Protocol(3, 2, 1), jobs=1, store=runner.ResultStore(path))
    assert other_seed.reused == 0


def test_an_interrupted_line_is_skipped_and_the_next_one_starts_afresh(tmp_path, iris):
    path = tmp_path / "results.jsonl"
    run([iris], [GINI], jobs=1, store=runner.ResultStore(str(path)))
    text = path.read_text()
    path.write_text(text[: len(text) - 40])  # the last line loses its end
    store = runner.ResultStore(str(path))
    assert store.damaged == 1 and len(store.cells) == 2
    grid = run([iris], [GINI], jobs=1, store=store)
    assert grid.computed == 1
    reread = runner.ResultStore(str(path))
    assert reread.damaged == 1 and len(reread.cells) == 3


def test_grid_table_means_and_repeat_spread(iris):
    grid = run([iris], [GINI, ENTROPY], runner.Protocol(3, 2, 0), jobs=1)
    means, stds, repeat_stds = grid.table("accuracy")
    folds = grid.cells[(0, 1)]
    values = [f["metrics"]["accuracy"] for f in folds]
    assert means[0][1] == pytest.approx(np.mean(values))
    assert stds[0][1] == pytest.approx(np.std(values, ddof=1))
    per_repeat = [np.mean(values[:3]), np.mean(values[3:])]
    assert repeat_stds[0][1] == pytest.approx(np.std(per_repeat, ddof=1))
    assert set(grid.timing()) == {"gini", "entropy"}


def test_small_runs_stay_in_one_process_by_default(iris):
    tasks, _ = runner.plan([iris], [GINI], runner.TreeOptions(), runner.Protocol(10, 1, 0))
    assert runner.default_jobs([iris], tasks) == 1
    big = dataclasses.replace(iris, X=np.zeros((200_000, 4)), y=np.zeros(200_000, dtype=np.int64))
    assert runner.default_jobs([big], tasks) == runner.default_jobs()
