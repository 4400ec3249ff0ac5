"""Tuning pruning parameters together with criterion parameters (issue 21 with issue 20):
S-pruning's significance (the PIDT paper's grid {0.01, 0.05, 0.1}, section 4.1) and
alpha of parameterised entropy, against scikit-learn's GridSearchCV on the same folds,
nested honestly, and through tune / evaluate / compare.

iris, pe and gini, S-pruning with few permutations, in this process (jobs=1).
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from dtcli import DecisionTreeClassifier
from dtcli.cli import cli
from dtcli.errors import ParameterError
from dtcli.sampling.folds import repeat_folds
from dtcli.crossval.tasks import Protocol, TreeOptions
from dtcli.tuning.estimator import TunedClassifier
from dtcli.tuning.grid import default_grid
from dtcli.crossval.method_syntax import parse_methods
from dtcli.crossval.methods import Tuned
from dtcli.tuning.methods import method_grid
from dtcli.tuning.search import Search, grid_search, nested_many, subset

ALPHAS = (0.5, 1.0)
LEVELS = (0.01, 0.05, 0.1)  # PIDT section 4.1
PERMUTATIONS = 40
S_PRUNING = TreeOptions(pruning="s-pruning", permutations=PERMUTATIONS, min_samples_leaf=2)


@pytest.fixture(scope="module")
def iris(load_example):
    return load_example("iris.csv")


def _search():
    return Search("pe", {"alpha": ALPHAS, "significance": LEVELS}, options=S_PRUNING)


def test_significance_auto_takes_the_pidt_grid():
    assert default_grid("pe", ["alpha", "significance"]) == {
        "alpha": tuple(i / 20 for i in range(1, 21)), "significance": (0.01, 0.05, 0.1)}
    assert default_grid("gini", ["significance"]) == {"significance": (0.01, 0.05, 0.1)}


def test_a_pruning_parameter_needs_its_pruning_method():
    with pytest.raises(ParameterError, match="significance is a parameter of --pruning s-pruning"):
        Search("gini", {"significance": LEVELS})
    with pytest.raises(ParameterError, match="confidence is a parameter of --pruning pessimistic"):
        Search("gini", {"confidence": (0.1, 0.25)}, options=S_PRUNING)
    Search("gini", {"confidence": (0.1, 0.25)}, options=TreeOptions(pruning="pessimistic"))


def test_the_significance_changes_the_trees(iris):
    """The grid's significance reaches the pruning: the number of leaves falls as the
    level falls (a smaller s prunes more, PIDT section 3), and at s = 1 the trees are
    the unpruned ones (every p-value is at most 1)."""
    search = Search("gini", {"significance": (0.001, 1.0)}, options=S_PRUNING)
    result = grid_search("iris", iris, search, Protocol(4, 1, 0), jobs=1)
    unpruned = grid_search("iris", iris, Search("gini", {"min_samples_leaf": (2.0,)}),
                           Protocol(4, 1, 0), jobs=1)
    leaves = [[f["metrics"]["n_leaves"] for f in folds] for folds in result.folds]
    assert sum(leaves[0]) < sum(leaves[1])
    assert leaves[1] == [f["metrics"]["n_leaves"] for f in unpruned.folds[0]]


def test_gridsearchcv_tunes_alpha_and_significance_alike(iris):
    sklearn = pytest.importorskip("sklearn.model_selection")
    X, y = iris.X, np.array(iris.classes)[iris.y]
    tree = DecisionTreeClassifier(criterion="pe", criterion_params={"alpha": "auto"},
                                  pruning="s-pruning", significance="auto",
                                  permutations=PERMUTATIONS, min_samples_leaf=2, random_state=0)
    tuned = TunedClassifier(tree, grid={"alpha": list(ALPHAS)}, cv=4, seed=1).fit(X, y)
    reference = sklearn.GridSearchCV(
        DecisionTreeClassifier(criterion="pe", criterion_params={"alpha": 1.0},
                               pruning="s-pruning", permutations=PERMUTATIONS,
                               min_samples_leaf=2, random_state=0, n_jobs=1),
        {"criterion_params__alpha": list(ALPHAS), "significance": list(LEVELS)},
        cv=repeat_folds(iris.y, 4, 1, 0)).fit(X, y)
    assert tuned.best_params_ == {"alpha": reference.best_params_["criterion_params__alpha"],
                                  "significance": reference.best_params_["significance"]}
    # both grids list alpha slowest
    np.testing.assert_allclose(tuned.cv_results_["mean_test_score"],
                               reference.cv_results_["mean_test_score"], rtol=1e-12)
    best = tuned.best_estimator_
    assert best.pruning == "s-pruning" and best.significance in LEVELS
    assert (tuned.predict(X) == reference.predict(X)).all()


def test_nested_chooses_significance_inside_each_outer_training_fold(iris):
    sklearn = pytest.importorskip("sklearn.model_selection")
    nested = nested_many(["iris"], [iris], _search(), Protocol(3, 1, 2), Protocol(3, 1, 2),
                         jobs=1)[0]
    labels = np.array(iris.classes)[iris.y]
    for j, (train, test) in enumerate(repeat_folds(iris.y, 3, 2, 0)):
        part = subset(iris, train)
        reference = sklearn.GridSearchCV(
            DecisionTreeClassifier(criterion="pe", pruning="s-pruning",
                                   permutations=PERMUTATIONS, min_samples_leaf=2,
                                   random_state=0, n_jobs=1),
            {"criterion_params__alpha": list(ALPHAS), "significance": list(LEVELS)},
            cv=repeat_folds(part.y, 3, 2, 0)).fit(iris.X[train], labels[train])
        chosen = nested.outer.points[nested.chosen[j]]
        assert chosen == {"alpha": reference.best_params_["criterion_params__alpha"],
                          "significance": reference.best_params_["significance"]}
        assert nested.nested_folds()[j]["metrics"]["accuracy"] == pytest.approx(
            reference.score(iris.X[test], labels[test]), abs=1e-12)


def test_one_grid_serves_every_tuned_method_by_its_own_parameters():
    methods = parse_methods(["pe:alpha=auto,abi:alpha=auto:beta=auto:pruning=s-pruning"
                             ":significance=auto:permutations=50"])
    pe, abi = methods
    assert abi.options == (("pruning", "s-pruning"), ("permutations", 50))
    grid = {"alpha": (0.5, 1.0), "beta": (1.0,), "significance": (0.05,)}
    assert method_grid(pe, grid, TreeOptions()) == {"alpha": (0.5, 1.0)}
    assert method_grid(abi, grid, TreeOptions(pruning="s-pruning")) == grid
    fixed = Tuned("pe:alpha=0.5:significance=auto", "pe", (("alpha", 0.5),),
                  ("significance",))
    assert method_grid(fixed, {"alpha": (1.0,), "min_samples_leaf": (1.0, 5.0)},
                       TreeOptions(pruning="s-pruning")) == {
        "significance": LEVELS, "min_samples_leaf": (1.0, 5.0)}


# --- the commands ---------------------------------------------------------------------------

def _run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def test_tune_s_pruning_significance_with_alpha(examples):
    result = _run("tune", examples / "iris.csv", "-c", "pe", "--grid", "alpha=0.5,1",
                  "--pruning", "s-pruning", "--significance", "auto", "--permutations",
                  PERMUTATIONS, "--min-samples-leaf", 2, "--cv", 4, "-j", 1, "-q", "-f", "json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert [r["params"] for r in doc["results"]] == [
        {"significance": s, "alpha": a} for s in LEVELS for a in ALPHAS]
    assert doc["options"]["pruning"] == "s-pruning"


def test_compare_tunes_significance_in_an_entry(examples):
    pruned = "pe:alpha=auto:pruning=s-pruning:significance=auto"
    result = _run("compare", examples / "iris.csv", examples / "balanced/wine.csv", "--criteria",
                  f"gini,pe:alpha=auto,{pruned}", "--grid", "alpha=0.5,1", "--permutations",
                  PERMUTATIONS, "--cv", 3, "--inner-cv", 3, "-j", 1, "-q", "-f", "json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    chosen = doc["tuning"]["methods"][pruned]["iris"]["nested"]["chosen"]
    assert {c["params"]["significance"] for c in chosen} <= set(LEVELS)
    unpruned = doc["tuning"]["methods"]["pe:alpha=auto"]["iris"]["nested"]["chosen"]
    assert all(set(c["params"]) == {"alpha"} for c in unpruned)


@pytest.mark.parametrize("args, message", [
    (("tune", "-c", "pe", "--grid", "significance=0.01,0.1"), "trees are not pruned"),
    (("tune", "-c", "gini", "--significance", "2"), "in [0, 1] or auto"),
    (("compare", "--criteria", "gini", "--pruning", "s-pruning", "--significance", "auto"),
     "tune it in a --criteria entry"),
])
def test_pruning_tuning_mistakes_are_one_line_exit_2(examples, args, message):
    result = _run(args[0], examples / "iris.csv", *args[1:])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and message in result.stderr


def test_train_significance_auto_records_the_level_it_pruned_with(examples, tmp_path):
    model = tmp_path / "m.json"
    result = _run("train", examples / "iris.csv", "-c", "pe", "-p", "alpha=auto", "--grid",
                  "alpha=0.5,1", "--pruning", "s-pruning", "--significance", "auto",
                  "--permutations", PERMUTATIONS, "--tune-cv", 3, "-q", "-o", model)
    assert result.exit_code == 0, result.stderr
    doc = json.loads(model.read_text())
    assert len(doc["tuning"]["results"]) == len(ALPHAS) * len(LEVELS)
    assert doc["pruning"]["significance"] == doc["tuning"]["best_params"]["significance"]
    assert doc["criterion"]["params"]["alpha"] == doc["tuning"]["best_params"]["alpha"]
    assert _run("export", model).exit_code == 0  # the load check accepts the record
