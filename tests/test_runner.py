"""dtcli.crossval.runner: criteria syntax, task keys, folds, parallel and resumed runs."""
import dataclasses
import json
import logging
import math
from pathlib import Path

import numpy as np
import pytest

from dtcli.criteria import CRITERIA
from dtcli.errors import DataError, DtreeError, ParameterError
from dtcli.estimator import DecisionTreeClassifier
from dtcli.crossval import runner, scoring, tasks
from dtcli.sampling.folds import repeat_folds, repeated_stratified_kfold
from dtcli.crossval.method_syntax import fixed_choices
from dtcli.reporting.report import METRICS, TIMING
from dtcli.crossval.results import ResultStore
from dtcli.io import load_dataset

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
GINI, ENTROPY = tasks.CriterionChoice("gini"), tasks.CriterionChoice("entropy")
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
    choices = fixed_choices(["gini, entropy", "gain-ratio"])
    assert [c.label for c in choices] == ["gini", "entropy", "gain-ratio"]
    assert all(c.params == () for c in choices)


@pytest.mark.skipif(WITH_PARAMS is None, reason="no registered criterion has parameters")
def test_parse_criteria_reads_parameters_and_labels_them():
    param = WITH_PARAMS.params[0]
    values = [v for v in (param.default + 0.5, param.default - 0.25, 0.5, 1.5, 2.5, 3.0)
              if param.accepts(v) and v != param.default][:2]
    entries = [f"{WITH_PARAMS.name}:{param.name}={v}" for v in values]
    choices = fixed_choices([",".join(entries)])
    assert [c.label for c in choices] == [f"{WITH_PARAMS.name}:{param.name}={v:g}" for v in values]
    assert choices[0].resolved()[param.name] == values[0]


@pytest.mark.parametrize("text, message", [
    ("gini,nonsense", "unknown criterion 'nonsense'"),
    ("gini:q=2", "has no parameter 'q'"),
    ("gini:q", "expected NAME:PARAM=VALUE"),
    ("gini:=3", "expected NAME:PARAM=VALUE"),
    ("gini,entropy,gini", "the same criterion"),
    ("tsallis:q=2:q=3", "'tsallis:q=2:q=3' gives q twice"),
    (" , ", "no criterion"),
])
def test_parse_criteria_errors(text, message):
    with pytest.raises(ParameterError, match=message):
        fixed_choices([text])


@pytest.mark.skipif(WITH_PARAMS is None, reason="no registered criterion has parameters")
def test_a_parameter_at_its_default_is_the_same_criterion():
    param = WITH_PARAMS.params[0]
    with pytest.raises(ParameterError, match="the same criterion"):
        fixed_choices([f"{WITH_PARAMS.name},{WITH_PARAMS.name}:{param.name}={param.default}"])


# --------------------------------------------------------------------------
# Keys and folds
# --------------------------------------------------------------------------


def test_task_key_changes_with_every_part_and_only_then(iris):
    digest = tasks.dataset_digest(iris)
    options = tasks.TreeOptions()
    base = tasks.task_key(digest, GINI, options, 10, 0, 0, 0)
    assert base == tasks.task_key(digest, tasks.CriterionChoice("gini"), tasks.TreeOptions(),
                                   10, 0, 0, 0)
    variants = [
        tasks.task_key("0" * 32, GINI, options, 10, 0, 0, 0),
        tasks.task_key(digest, ENTROPY, options, 10, 0, 0, 0),
        tasks.task_key(digest, GINI, tasks.TreeOptions(min_samples_leaf=2), 10, 0, 0, 0),
        tasks.task_key(digest, GINI, tasks.TreeOptions(max_depth=3), 10, 0, 0, 0),
        tasks.task_key(digest, GINI, options, 5, 0, 0, 0),
        tasks.task_key(digest, GINI, options, 10, 1, 0, 0),
        tasks.task_key(digest, GINI, options, 10, 0, 1, 0),
        tasks.task_key(digest, GINI, options, 10, 0, 0, 1),
    ]
    assert len({base, *variants}) == len(variants) + 1


def test_task_key_without_class_weights_is_the_key_from_before_them(iris):
    """Stored results of runs without class weights stay valid (RESULTS_FORMAT unchanged)."""
    import hashlib

    from dtcli._version import __version__

    digest = tasks.dataset_digest(iris)
    before = {"format": 1, "dtree": __version__, "data": digest, "criterion": "gini",
              "params": {}, "options": {"max_depth": 3, "min_samples_split": 2,
                                        "min_samples_leaf": 1, "min_gain": 0.0},
              "cv": 10, "seed": 0, "repeat": 0, "fold": 0}
    expected = hashlib.sha256(json.dumps(before, sort_keys=True).encode()).hexdigest()[:32]
    assert tasks.task_key(digest, GINI, tasks.TreeOptions(max_depth=3), 10, 0, 0, 0) == expected


def test_task_key_follows_class_weights_not_their_order(iris):
    digest = tasks.dataset_digest(iris)

    def key(class_weight):
        return tasks.task_key(digest, GINI, tasks.TreeOptions(class_weight=class_weight),
                              10, 0, 0, 0)

    keys = {key(None), key("balanced"), key({"Iris-setosa": 2.0}), key({"Iris-setosa": 3.0})}
    assert len(keys) == 4
    assert (key({"Iris-setosa": 2.0, "Iris-virginica": 0.5})
            == key({"Iris-virginica": 0.5, "Iris-setosa": 2.0}))


def test_tree_options_give_the_estimator_its_class_weights():
    options = tasks.TreeOptions(max_depth=2, class_weight={"b": 0.5, "a": 2.0})
    assert options.class_weight == (("a", 2.0), ("b", 0.5))
    assert options.estimator_params() == {**tasks.TreeOptions().estimator_params(),
                                          "max_depth": 2, "min_samples_split": 2,
                                          "min_samples_leaf": 1, "min_gain": 0.0,
                                          "class_weight": {"a": 2.0, "b": 0.5}}
    balanced = tasks.TreeOptions(class_weight="balanced")
    assert balanced.estimator_params()["class_weight"] == "balanced"
    assert hash(options) == hash(tasks.TreeOptions(max_depth=2, class_weight={"a": 2.0, "b": 0.5}))


def test_check_class_weight_names_the_dataset_without_the_label(iris, thyroid):
    options = tasks.TreeOptions(class_weight={"positive": 4.0})
    tasks.check_class_weight(["thyroid"], [thyroid], options)
    with pytest.raises(ParameterError, match="dataset 'iris' has no class 'positive'"):
        tasks.check_class_weight(["thyroid", "iris"], [thyroid, iris], options)
    tasks.check_class_weight(["iris"], [iris], tasks.TreeOptions(class_weight="balanced"))


def test_dataset_digest_follows_content_not_name(iris):
    renamed = dataclasses.replace(iris, source="elsewhere.csv", target="species")
    assert tasks.dataset_digest(renamed) == tasks.dataset_digest(iris)
    X = iris.X.copy()
    X[0, 0] += 0.1
    assert tasks.dataset_digest(dataclasses.replace(iris, X=X)) != tasks.dataset_digest(iris)
    y = iris.y.copy()
    y[[0, -1]] = y[[-1, 0]]
    assert tasks.dataset_digest(dataclasses.replace(iris, y=y)) != tasks.dataset_digest(iris)


def test_one_repeat_of_folds_equals_the_repeated_split(iris):
    every = repeated_stratified_kfold(iris.y, 5, 3, 42)
    for repeat in range(3):
        for (a_train, a_test), (b_train, b_test) in zip(every[repeat],
                                                         repeat_folds(iris.y, 5, 42, repeat)):
            assert np.array_equal(a_train, b_train) and np.array_equal(a_test, b_test)


def test_check_protocol_warns_about_small_classes_and_rejects_too_many_folds(thyroid):
    counts = np.bincount(thyroid.y)
    warnings = tasks.check_protocol(["thyroid"], [thyroid], tasks.Protocol(cv=int(counts.min()) + 1))
    assert len(warnings) == 1 and "fewer than --cv" in warnings[0]
    assert tasks.check_protocol(["thyroid"], [thyroid], tasks.Protocol(cv=5)) == []
    with pytest.raises(ParameterError, match="more folds than dataset 'thyroid' has rows"):
        tasks.check_protocol(["thyroid"], [thyroid], tasks.Protocol(cv=len(thyroid.y) + 1))


# --------------------------------------------------------------------------
# One task
# --------------------------------------------------------------------------


@pytest.mark.parametrize("class_weight", ["balanced", {"positive": 5.0}])
def test_run_task_fits_with_the_class_weights(thyroid, class_weight):
    options = tasks.TreeOptions(max_depth=3, class_weight=class_weight)
    result = runner.run_task(thyroid, tasks.Task(0, "gini", (), options, 5, 0, 0, 2))
    train, test = repeat_folds(thyroid.y, 5, 0, 0)[2]
    for weights, same in ((class_weight, True), (None, False)):
        model = DecisionTreeClassifier(max_depth=3, class_weight=weights)
        model.fit_dataset(dataclasses.replace(thyroid, X=thyroid.X[train], y=thyroid.y[train]))
        proba = model.proba_from_matrix(thyroid.X[test])
        expected = scoring.score_predictions(thyroid.y[test], proba)["metrics"]["log_loss"]
        assert (result["metrics"]["log_loss"] == pytest.approx(expected)) == same


def test_run_task_is_a_fit_on_the_training_fold(iris):
    task = tasks.Task(0, "entropy", (), tasks.TreeOptions(min_samples_leaf=2), 5, 7, 1, 3)
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
    scores = scoring.score_predictions(np.array([0, 0]), proba)
    assert math.isnan(scores["metrics"]["auc"])
    assert scores["metrics"]["accuracy"] == 1.0
    assert scores["metrics"]["log_loss"] == pytest.approx(-math.log(0.8) / 2)


def test_evaluate_model_maps_labels_and_rejects_unknown_ones(iris):
    model = DecisionTreeClassifier().fit_dataset(iris)
    labels = np.array([iris.classes[k] for k in iris.y] + [None], dtype=object)
    X = np.vstack([iris.X, iris.X[:1]])
    result, n_rows = scoring.evaluate_model(model, 0.5, X, labels, "iris.csv")
    assert n_rows == 150 and result["metrics"]["accuracy"] == 1.0
    assert result["metrics"]["fit_seconds"] == 0.5
    labels[0] = "Iris-nova"
    with pytest.raises(DataError, match="'Iris-nova' are not among the model's classes"):
        scoring.evaluate_model(model, 0.5, X, labels, "iris.csv")


def test_mean_std_is_the_sample_std_over_finite_values():
    assert runner.mean_std([1.0, 2.0, 3.0]) == (2.0, 1.0)
    assert runner.mean_std([4.0]) == (4.0, 0.0)
    assert runner.mean_std([1.0, None, float("nan"), 3.0]) == (2.0, math.sqrt(2.0))
    assert all(math.isnan(x) for x in runner.mean_std([None]))


# --------------------------------------------------------------------------
# Whole runs: parallel, resumed
# --------------------------------------------------------------------------


def run(datasets, criteria, protocol=tasks.Protocol(3, 1, 0), **kwargs):
    names = [f"d{i}" for i in range(len(datasets))]
    return runner.run_grid(names, datasets, criteria, tasks.TreeOptions(), protocol, **kwargs)


def test_worker_processes_give_the_same_results_as_one_process(iris, thyroid, monkeypatch):
    from dtcli.crossval import workers

    criteria = [GINI, ENTROPY]
    here = run([iris, thyroid], criteria, jobs=1)
    monkeypatch.setenv(runner.START_VARIABLE, "0")  # workers for this small run all the same
    started, run_pool = [], workers.run_pool
    monkeypatch.setattr(workers, "run_pool", lambda *a: started.append(1) or run_pool(*a))
    with workers.shared_workers():  # one pool for both runs
        pool = run([iris, thyroid], criteria, jobs=2)
        again = run([iris, thyroid], criteria, jobs=2)
        assert workers.pool_running()
    assert started == [1, 1] and not workers.pool_running()
    assert pool.computed == here.computed == 2 * 2 * 3
    assert without_timing(pool) == without_timing(here) == without_timing(again)


def test_a_small_run_stays_in_this_process_whatever_jobs_says(iris, monkeypatch, caplog):
    from dtcli.crossval import workers

    monkeypatch.delenv(runner.START_VARIABLE, raising=False)
    monkeypatch.setattr(workers, "run_pool", lambda *a: pytest.fail("started workers"))
    planned, _ = runner.plan([iris], [GINI], tasks.TreeOptions(), tasks.Protocol(10, 1, 0))
    # 10 folds of iris: about 5 ms of work against 0.77 s to start a worker
    assert runner.work_seconds([iris], planned) < 0.01 < runner.start_seconds([iris], planned)
    with caplog.at_level(logging.INFO, logger="dtcli"):
        grid = run([iris], [GINI, ENTROPY], jobs=2)
    assert grid.computed == 6
    said = [r.getMessage() for r in caplog.records if r.name == "dtcli"]
    assert len(said) == 1 and "run in this process" in said[0]


def test_results_file_resumes_and_reruns_only_what_changed(tmp_path, iris, thyroid):
    path = str(tmp_path / "results.jsonl")
    seen = []
    first = run([iris], [GINI], tasks.Protocol(3, 2, 0), jobs=1, store=ResultStore(path),
                progress=lambda done, total: seen.append((done, total)))
    assert (first.computed, first.reused) == (6, 0)
    assert seen[0] == (0, 6) and seen[-1] == (6, 6)
    lines = [json.loads(line) for line in open(path)]
    assert len(lines) == 6 and {"key", "dataset", "criterion", "repeat", "fold"} <= set(lines[0])

    again = run([iris], [GINI], tasks.Protocol(3, 2, 0), jobs=1, store=ResultStore(path))
    assert (again.computed, again.reused) == (0, 6)
    assert again.cells == first.cells  # the same numbers, timings included

    more = run([iris, thyroid], [GINI, ENTROPY], tasks.Protocol(3, 3, 0), jobs=1,
               store=ResultStore(path))
    assert (more.computed, more.reused) == (2 * 2 * 9 - 6, 6)
    assert more.cells[(0, 0)][:6] == first.cells[(0, 0)]

    other_seed = run([iris], [GINI], tasks.Protocol(3, 2, 1), jobs=1, store=ResultStore(path))
    assert other_seed.reused == 0


def test_an_interrupted_line_is_cut_off_and_the_next_one_starts_afresh(tmp_path, iris):
    path = tmp_path / "results.jsonl"
    run([iris], [GINI], jobs=1, store=ResultStore(str(path)))
    text = path.read_text()
    path.write_text(text[: len(text) - 40])  # the last line loses its end
    store = ResultStore(str(path))
    assert store.repaired == (3, f"{path}.damaged") and len(store.cells) == 2
    assert path.read_text() == "".join(text.splitlines(keepends=True)[:2])  # cut off in place
    grid = run([iris], [GINI], jobs=1, store=store)
    assert grid.computed == 1
    reread = ResultStore(str(path))
    assert reread.repaired is None and len(reread.cells) == 3


@pytest.fixture()
def results_file(tmp_path, iris):
    """A results file of three good lines, as a run writes it."""
    path = tmp_path / "results.jsonl"
    run([iris], [GINI], jobs=1, store=ResultStore(str(path)))
    return path


def _tamper(line: str, **metrics) -> str:
    record = json.loads(line)
    record["metrics"].update(metrics)
    return json.dumps(record)


@pytest.mark.parametrize("damage", [
    lambda line: _tamper(line, auc="abc"),
    lambda line: _tamper(line, auc=None),  # a fold of three iris classes has an AUC
    lambda line: _tamper(line, accuracy=1.5),
    lambda line: _tamper(line, accuracy=0.123),  # not what the confusion matrix says
    lambda line: _tamper(line, depth=2.5),
    lambda line: json.dumps({**json.loads(line), "metrics": {}}),
    lambda line: json.dumps({**json.loads(line), "confusion_matrix": [[1, 2], [3]]}),
    lambda line: json.dumps(json.loads(line)["metrics"]),
    lambda line: "[1, 2]",
], ids=["auc text", "auc null", "accuracy > 1", "accuracy off its matrix", "depth not whole",
        "metrics empty", "matrix ragged", "no key", "not an object"])
def test_a_damaged_line_is_refused_inside_and_cut_off_at_the_end(results_file, damage):
    lines = results_file.read_text().splitlines()
    kept = ResultStore(str(results_file)).cells
    inside = "\n".join([lines[0], damage(lines[1]), lines[2]]) + "\n"
    results_file.write_text(inside)
    with pytest.raises(DtreeError, match="line 2 is damaged and is not the last line"):
        ResultStore(str(results_file))
    assert results_file.read_text() == inside
    results_file.write_text("\n".join([lines[0], lines[1], damage(lines[2])]) + "\n")
    store = ResultStore(str(results_file))
    assert store.repaired == (3, f"{results_file}.damaged")
    assert store.cells == {k: v for i, (k, v) in enumerate(kept.items()) if i != 2}
    assert results_file.read_text().splitlines() == lines[:2]
    assert ResultStore(str(results_file)).repaired is None  # no warning on the next run


def test_a_null_auc_is_kept_for_a_single_class_fold(tmp_path):
    matrix = [[3, 1], [0, 0]]  # every row of the fold is of the first class
    metrics = {name: 0.0 for name in METRICS} | {"accuracy": 0.75, "auc": None}
    path = tmp_path / "results.jsonl"
    path.write_text(json.dumps({"key": "k", "metrics": metrics, "confusion_matrix": matrix}) + "\n")
    store = ResultStore(str(path))
    assert store.repaired is None and store.get("k")["metrics"]["auc"] is None


def test_a_full_disk_stops_the_run_and_keeps_every_complete_line(tmp_path, iris, monkeypatch):
    """The third line's write stops part way, as on a full disk: it is undone."""
    import os

    path = tmp_path / "results.jsonl"
    store = ResultStore(str(path))
    real_write, writes = os.write, []

    def full_disk(fd, data):
        writes.append(fd)
        if len(writes) < 3:
            return real_write(fd, data)
        if len(writes) == 3:
            return real_write(fd, bytes(data[:10]))
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(DtreeError, match="No space left on device"):
        run([iris], [GINI], jobs=1, store=store)
    monkeypatch.undo()
    reread = ResultStore(str(path))
    assert len(reread.cells) == 2 and reread.repaired is None


def test_grid_table_means_and_repeat_spread(iris):
    grid = run([iris], [GINI, ENTROPY], tasks.Protocol(3, 2, 0), jobs=1)
    means, stds, repeat_stds = grid.table("accuracy")
    folds = grid.cells[(0, 1)]
    values = [f["metrics"]["accuracy"] for f in folds]
    assert means[0][1] == pytest.approx(np.mean(values))
    assert stds[0][1] == pytest.approx(np.std(values, ddof=1))
    per_repeat = [np.mean(values[:3]), np.mean(values[3:])]
    assert repeat_stds[0][1] == pytest.approx(np.std(per_repeat, ddof=1))
    assert set(grid.timing()) == {"gini", "entropy"}


def test_small_runs_stay_in_one_process_by_default(iris, monkeypatch):
    from dtcli.processes import available_cores

    monkeypatch.delenv(runner.START_VARIABLE, raising=False)
    monkeypatch.setattr(runner.os, "getloadavg", lambda: (1.0, 1.0, 1.0))  # only this process
    planned, _ = runner.plan([iris], [GINI], tasks.TreeOptions(), tasks.Protocol(10, 1, 0))
    assert runner.workers_for(None, [iris], planned) == 1
    big = dataclasses.replace(iris, X=np.zeros((200_000, 4)), y=np.zeros(200_000, dtype=np.int64))
    repeated, _ = runner.plan([big], [GINI], tasks.TreeOptions(), tasks.Protocol(10, 10, 0))
    assert runner.workers_for(None, [big], repeated) == available_cores()
    # many small fits: their fixed costs add up too
    many, _ = runner.plan([iris], [GINI], tasks.TreeOptions(), tasks.Protocol(10, 3000, 0))
    assert runner.workers_for(None, [iris], many) == available_cores()


def test_workers_go_only_to_the_cores_other_processes_leave_idle(monkeypatch):
    for load, idle in [((0.2, 0, 0), 4), ((1.0, 0, 0), 4), ((2.6, 0, 0), 2), ((3.5, 0, 0), 2),
                       ((9.0, 0, 0), 1)]:
        monkeypatch.setattr(runner.os, "getloadavg", lambda load=load: load)
        assert runner.idle_cores(4) == idle


def test_ctrl_c_keeps_every_fold_the_workers_finished(iris):
    """The workers send each result as they finish it: a Ctrl-C in the parent still takes
    every result already sent. The first result's handler waits until the workers must
    be done (20 folds of iris take milliseconds) and then interrupts."""
    import time

    from dtcli.crossval.workers import run_pool

    plan_tasks, _ = runner.plan([iris], [GINI, ENTROPY], tasks.TreeOptions(),
                                tasks.Protocol(10, 1, 0))
    taken = []

    def on_done(j, result):
        taken.append(j)
        if len(taken) == 1:
            time.sleep(3.0)
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_pool([iris], plan_tasks, 2, on_done, str)
    assert sorted(taken) == list(range(len(plan_tasks)))
