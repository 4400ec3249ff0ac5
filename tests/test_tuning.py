"""Tuning by cross-validation: grids, grid search against scikit-learn's GridSearchCV,
nested cross-validation without leakage, the tuned estimator, and the commands.

Small grids on iris with gini / entropy / tsallis, in this process (jobs=1), except
one run of two worker processes that must give the same numbers.
"""
from __future__ import annotations

import json
from decimal import Decimal

import numpy as np
import pytest
from click.testing import CliRunner

from dtcli import DecisionTreeClassifier
from dtcli.cli import cli
from dtcli.errors import ParameterError
from dtcli.sampling.folds import repeat_folds
from dtcli.reporting.report import TIMING
from dtcli.crossval.runner import run_grid
from dtcli.crossval.tasks import CriterionChoice, Protocol, TreeOptions
from dtcli.tuning import search as search_module
from dtcli.tuning.estimator import TunedClassifier
from dtcli.tuning.grid import DEFAULT_GRIDS, parse_grid, points
from dtcli.tuning.search import Search, grid_search, nested_many, subset

Q_GRID = (0.5, 1.0, 2.0, 4.0)
LEAF = 3  # a minimum leaf size that makes q matter on iris


@pytest.fixture(scope="module")
def iris(load_example):
    return load_example("iris.csv")


def _search(metric="accuracy"):
    return Search("tsallis", {"q": Q_GRID}, options=TreeOptions(min_samples_leaf=LEAF),
                  metric=metric)


# --- grids ------------------------------------------------------------------------------

def test_a_range_is_counted_in_decimals_without_drift():
    values = parse_grid(["q=0.1:10:0.1"])["q"]
    assert len(values) == 100
    assert values == tuple(float(Decimal(i) / 10) for i in range(1, 101))
    assert values[2] == 0.3 and values[-1] == 10.0  # 0.1 + 2 * 0.1 would be 0.30000000000000004


def test_lists_and_products_first_entry_slowest():
    grid = parse_grid(["alpha=0.5,1", "gamma=1:2:0.5"])
    assert points(grid) == [{"alpha": a, "gamma": g} for a in (0.5, 1.0) for g in (1.0, 1.5, 2.0)]


def test_the_papers_default_grids():
    assert DEFAULT_GRIDS["q"][0] == 0.1 and len(DEFAULT_GRIDS["q"]) == 100  # Tsallis 5.1
    assert DEFAULT_GRIDS["alpha"] == tuple(i / 20 for i in range(1, 21))  # PIDT 4.1
    assert DEFAULT_GRIDS["gamma"] == (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9,
                                      1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0)


@pytest.mark.parametrize("entry, message", [
    ("q=1:0:0.1", "STEP > 0"), ("q=1:2:0", "STEP > 0"), ("q", "NAME=VALUES"),
    ("q=1,x", "not a number"), ("q=1,1", "twice"), ("q=1:2", "START:STOP:STEP"),
])
def test_grid_mistakes(entry, message):
    with pytest.raises(ParameterError, match=message):
        parse_grid([entry])


def test_a_grid_name_must_be_a_criterion_parameter_or_a_tree_option():
    with pytest.raises(ParameterError, match="neither a parameter of tsallis"):
        Search("tsallis", {"alpha": (0.5,)})
    with pytest.raises(ParameterError, match="out of range"):
        Search("tsallis", {"q": (-1.0,)})
    Search("tsallis", {"q": (1.5,), "min_samples_leaf": (1.0, 5.0)})


def _untimed(folds):
    return [{**f, "metrics": {k: v for k, v in f["metrics"].items() if k not in TIMING}}
            for f in folds]


# --- grid search --------------------------------------------------------------------------

def test_tsallis_at_q2_scores_exactly_what_gini_scores_on_the_same_folds(iris):
    result = grid_search("iris", iris, _search(), Protocol(5, 1, 3), jobs=1)
    gini = run_grid(["iris"], [iris], [CriterionChoice("gini")], TreeOptions(min_samples_leaf=LEAF),
                    Protocol(5, 1, 3), jobs=1)
    assert _untimed(result.folds[Q_GRID.index(2.0)]) == _untimed(gini.cells[(0, 0)])


def test_a_tree_option_in_the_grid_is_tuned_too(iris):
    search = Search("gini", {"min_samples_leaf": (1.0, 20.0)})
    result = grid_search("iris", iris, search, Protocol(4, 1, 0), jobs=1)
    assert [f["metrics"]["n_leaves"] for f in result.folds[1]] < [
        f["metrics"]["n_leaves"] for f in result.folds[0]]


def test_gridsearchcv_on_the_same_folds_picks_the_same_point(iris):
    sklearn = pytest.importorskip("sklearn.model_selection")
    X, y = iris.X, np.array(iris.classes)[iris.y]
    tuned = TunedClassifier(DecisionTreeClassifier(criterion="tsallis", min_samples_leaf=LEAF),
                            grid={"q": list(Q_GRID)}, cv=5, seed=1).fit(X, y)
    reference = sklearn.GridSearchCV(
        DecisionTreeClassifier(criterion="tsallis", min_samples_leaf=LEAF, n_jobs=1),
        {"criterion_params__q": list(Q_GRID)}, cv=repeat_folds(iris.y, 5, 1, 0)).fit(X, y)
    assert tuned.best_params_ == {"q": reference.best_params_["criterion_params__q"]}
    np.testing.assert_allclose(tuned.cv_results_["mean_test_score"],
                               reference.cv_results_["mean_test_score"], rtol=1e-12)
    assert list(tuned.cv_results_["rank_test_score"]) == list(reference.cv_results_["rank_test_score"])
    assert (tuned.predict(X) == reference.predict(X)).all()


def test_nested_matches_gridsearchcv_inside_each_outer_fold(iris):
    sklearn = pytest.importorskip("sklearn.model_selection")
    outer, inner = Protocol(4, 1, 2), Protocol(3, 1, 2)
    nested = nested_many(["iris"], [iris], _search(), outer, inner, jobs=1)[0]
    labels = np.array(iris.classes)[iris.y]
    for j, (train, test) in enumerate(repeat_folds(iris.y, 4, 2, 0)):
        part = subset(iris, train)
        reference = sklearn.GridSearchCV(
            DecisionTreeClassifier(criterion="tsallis", min_samples_leaf=LEAF, n_jobs=1),
            {"criterion_params__q": list(Q_GRID)}, cv=repeat_folds(part.y, 3, 2, 0)
        ).fit(iris.X[train], labels[train])
        assert nested.outer.points[nested.chosen[j]]["q"] == reference.best_params_[
            "criterion_params__q"]
        assert nested.nested_folds()[j]["metrics"]["accuracy"] == pytest.approx(
            reference.score(iris.X[test], labels[test]), abs=1e-12)


def test_outer_test_labels_never_choose(iris, monkeypatch):
    """Permuting the labels of one outer test fold (the outer folds held fixed) changes
    that fold's outer score but not the parameters chosen for it."""
    outer, inner = Protocol(4, 1, 0), Protocol(3, 1, 0)
    folds = repeat_folds(iris.y, 4, 0, 0)
    honest = nested_many(["iris"], [iris], _search(), outer, inner, jobs=1)[0]
    fold = 1
    test = folds[fold][1]
    permuted = subset(iris, np.arange(len(iris.y)))
    permuted.y[test] = np.roll(iris.y[test], 7)  # every test row gets another row's label
    assert (permuted.y[test] != iris.y[test]).any()
    original = search_module.repeat_folds

    def outer_folds_held(labels, k, seed, repeat, scheme="dtree"):
        return folds if len(labels) == len(iris.y) else original(labels, k, seed, repeat,
                                                                  scheme)

    from dtcli.crossval import batch

    monkeypatch.setattr(search_module, "repeat_folds", outer_folds_held)
    monkeypatch.setattr(batch, "repeat_folds", outer_folds_held)
    shuffled = nested_many(["iris"], [permuted], _search(), outer, inner, jobs=1)[0]
    assert shuffled.chosen[fold] == honest.chosen[fold]
    assert shuffled.nested_folds()[fold]["confusion_matrix"] != honest.nested_folds()[fold][
        "confusion_matrix"]


def test_the_papers_selection_and_the_optimism(iris):
    nested = nested_many(["iris"], [iris], _search(), Protocol(4, 1, 0), Protocol(3, 1, 0),
                         jobs=1)[0]
    accuracy = [[f["metrics"]["accuracy"] for f in folds] for folds in nested.outer.folds]
    means = [sum(a) / len(a) for a in accuracy]
    paper = means.index(max(means))  # the first of the best on the folds it is scored on
    honest = sum(accuracy[i][j] for j, i in enumerate(nested.chosen)) / 4
    summary = nested.summary()
    assert summary["paper"]["params"] == {"q": Q_GRID[paper]}
    assert summary["paper"]["mean"] == pytest.approx(means[paper])
    assert summary["nested"]["mean"] == pytest.approx(honest)
    assert summary["optimism"] == pytest.approx(means[paper] - honest)


# --- the estimator API --------------------------------------------------------------------

def test_criterion_params_keys_in_get_params_and_set_params():
    tree = DecisionTreeClassifier(criterion="tsallis", criterion_params={"q": 1.5})
    assert tree.get_params()["criterion_params__q"] == 1.5
    assert "criterion_params__q" not in tree.get_params(deep=False)
    original = tree.criterion_params
    tree.set_params(criterion_params__q=3.0)
    assert tree.criterion_params == {"q": 3.0} and original == {"q": 1.5}
    with pytest.raises(ParameterError, match="no parameter 'gamma'"):
        tree.set_params(criterion_params__gamma=1.0)


def test_tuned_classifier_auto_takes_the_default_grid():
    tuned = TunedClassifier(DecisionTreeClassifier(criterion="tsallis",
                                                   criterion_params={"q": "auto"}))
    assert tuned.search_grid() == {"q": DEFAULT_GRIDS["q"]}


# --- the commands ---------------------------------------------------------------------------

def _run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def test_tune_json(examples):
    result = _run("tune", examples / "iris.csv", "-c", "tsallis", "--grid", "q=0.5,2,4", "--cv", 4,
                  "--min-samples-leaf", LEAF, "-j", 1, "-q", "-f", "json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert [r["params"] for r in doc["results"]] == [{"q": 0.5}, {"q": 2.0}, {"q": 4.0}]
    best = max(doc["results"], key=lambda r: r["mean"])
    assert doc["best_params"] == best["params"] and doc["best_score"] == best["mean"]


@pytest.mark.parametrize("args, message", [
    (("tune", "-c", "tsallis", "--grid", "q=2:1:0.5"), "--grid"),
    (("tune", "-c", "gini"), "no parameter to tune"),
    (("train", "-c", "gini", "-p", "q=auto"), "criterion 'gini' has no parameter 'q'"),
    (("evaluate", "-c", "gini", "--grid", "q=1,2"), "apply to a --param given as auto"),
    (("compare", "--criteria", "tsallis-gain-ratio:q=@tsallis"), "must be exactly one tuned"),
])
def test_tuning_mistakes_are_one_line_exit_2(examples, args, message):
    result = _run(args[0], examples / "iris.csv", *args[1:])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and message in result.stderr


def test_evaluate_auto_reports_the_nested_folds_and_both_selections(examples):
    result = _run("evaluate", examples / "iris.csv", "-c", "tsallis", "-p", "q=auto", "--grid",
                  "q=0.5,2,4", "--cv", 3, "--inner-cv", 3, "--min-samples-leaf", LEAF, "-j", 1,
                  "-q", "-f", "json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    report = doc["tuning"]["methods"]["tsallis:q=auto"]["iris"]
    assert doc["accuracy"]["mean"] == pytest.approx(report["nested"]["mean"])
    assert report["optimism"] == pytest.approx(report["paper"]["mean"] - report["nested"]["mean"])
    assert len(doc["accuracy"]["values"]) == 3


def test_train_auto_records_the_search_and_load_checks_it(examples, tmp_path):
    model = tmp_path / "m.json"
    result = _run("train", examples / "iris.csv", "-c", "tsallis", "-p", "q=auto", "--grid",
                  "q=0.5,2,4", "--tune-cv", 4, "--min-samples-leaf", LEAF, "-q", "-o", model)
    assert result.exit_code == 0, result.stderr
    doc = json.loads(model.read_text())
    assert doc["criterion"]["params"] == doc["tuning"]["best_params"]
    assert len(doc["tuning"]["results"]) == 3
    doc["tuning"]["best_params"]["q"] = 4.0 if doc["tuning"]["best_params"]["q"] != 4.0 else 0.5
    model.write_text(json.dumps(doc))
    result = _run("export", model)
    assert result.exit_code == 1 and "not the value the tree was trained with" in result.stderr


def test_compare_reports_a_tuned_method_beside_a_fixed_one(examples):
    result = _run("compare", examples / "iris.csv", examples / "balanced/wine.csv", "--criteria",
                  "gini,tsallis:q=auto", "--grid", "q=0.5,2,4", "--cv", 3, "--inner-cv", 3,
                  "--min-samples-leaf", LEAF, "-j", 1, "-q", "-f", "json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["criteria"] == ["gini", "tsallis:q=auto"]
    report = doc["tuning"]["methods"]["tsallis:q=auto"]["iris"]
    assert len(report["nested"]["chosen"]) == 3
    assert doc["scores"]["iris"]["tsallis:q=auto"]["mean"] == pytest.approx(
        report["nested"]["mean"])


def test_nested_is_the_same_in_worker_processes(iris, monkeypatch):
    monkeypatch.setenv("DTREE_WORKER_START_SECONDS", "0")  # workers for these small runs

    def run(jobs):
        nested = nested_many(["iris"], [iris], _search(), Protocol(3, 1, 0), Protocol(3, 1, 0),
                             jobs=jobs)[0]
        return nested.chosen, [_untimed(folds) for folds in nested.outer.folds]

    assert run(2) == run(1)


def test_a_nested_run_resumes_from_its_results_file(iris, tmp_path, monkeypatch):
    from dtcli.crossval import runner
    from dtcli.crossval.results import ResultStore

    path = str(tmp_path / "runs.jsonl")
    two = [iris, subset(iris, np.arange(0, 150, 2))]

    def run():
        return [(n.chosen, n.outer.scores(0)) for n in nested_many(
            ["iris", "half"], two, _search(), Protocol(3, 1, 0), Protocol(3, 1, 0), jobs=1,
            store=ResultStore(path))]

    first = run()

    def no_task(*args):
        raise AssertionError("a task ran again")

    monkeypatch.setattr(runner, "run_tasks", no_task)  # what runs tasks in this process
    assert run() == first


def test_evaluate_auto_resumes_from_results(examples, tmp_path):
    runs = tmp_path / "runs.jsonl"
    args = ("evaluate", examples / "iris.csv", "-c", "tsallis", "-p", "q=auto", "--grid", "q=1,3",
            "--cv", 3, "--inner-cv", 2, "-j", 1, "-q", "-f", "json", "--results", runs)
    first = _run(*args)
    assert first.exit_code == 0, first.stderr
    assert len(runs.read_text().splitlines()) == 2 * 3 + 3 * 2 * 2  # outer, then inner folds
    again = _run(*args)
    assert json.loads(again.stdout)["tuning"] == json.loads(first.stdout)["tuning"]
    assert len(runs.read_text().splitlines()) == 2 * 3 + 3 * 2 * 2
