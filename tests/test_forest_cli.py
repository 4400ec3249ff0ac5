"""`dtree train --model forest`, predict and export of forests, and `--scheduler` on a
real loopback Dask cluster of two worker processes."""
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from dtcli.cli import cli
from test_distributed import cluster  # noqa: F401 - the loopback Dask cluster fixture

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
DATA = EXAMPLES / "ecoli2.dat"


def dtree(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def forest_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("forest") / "forest.json"
    result = dtree("train", DATA, "--model", "forest", "--trees", 12, "--max-features", 3,
                   "--oob", "--seed", 4, "-o", path)
    assert result.exit_code == 0, result.output
    assert "forest of 12 gini trees" in result.stderr and "out-of-bag accuracy" in result.stderr
    return path


def test_train_predict_and_export_a_forest(forest_file):
    doc = json.loads(forest_file.read_text())
    assert doc["kind"] == "forest" and doc["forest"]["max_features"] == 3
    predicted = dtree("predict", forest_file, DATA, "--proba")
    assert predicted.exit_code == 0
    rows = predicted.stdout.splitlines()
    assert rows[0] == "prediction,proba_negative,proba_positive" and len(rows) == 337
    summary = dtree("export", forest_file)
    assert summary.stdout.startswith("forest of 12 gini trees for Class")
    one = dtree("export", forest_file, "--tree", 11, "-f", "rules")
    assert one.exit_code == 0 and "if " in one.stdout.lower()


@pytest.mark.parametrize("args, words", [
    (("export", "{forest}", "--tree", 12), "the forest has 12 trees"),
    (("export", "{forest}", "-f", "dot"), "choose one of the forest's with --tree I"),
    (("train", DATA, "--oob"), "--oob applies to --model forest only"),
    (("train", DATA, "--model", "forest", "--max-features", "x"), "--max-features"),
    (("train", DATA, "--model", "forest", "--max-samples", "1.5"), "--max-samples"),
])
def test_forest_option_mistakes_are_one_line(forest_file, args, words):
    result = dtree(*[str(forest_file) if a == "{forest}" else a for a in args])
    assert result.exit_code == 2 and words in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 or "Usage" in result.stderr


def test_a_forest_grown_on_a_cluster_is_the_local_forest(tmp_path, cluster, forest_file):
    remote = tmp_path / "remote.json"
    result = dtree("train", DATA, "--model", "forest", "--trees", 12, "--max-features", 3,
                   "--oob", "--seed", 4, "--scheduler", cluster.scheduler_address, "-o", remote)
    assert result.exit_code == 0, result.output
    ours, theirs = json.loads(remote.read_text()), json.loads(forest_file.read_text())
    assert ours["trees"] == theirs["trees"] and ours["forest"] == theirs["forest"]


def test_compare_runs_forests_beside_single_trees():
    from dtcli.crossval.method_syntax import fixed_choices as parse_criteria
    from dtcli.crossval.tasks import CriterionChoice

    assert parse_criteria(["gini,gini*20,tsallis:q=2.5*20"]) == [
        CriterionChoice("gini"), CriterionChoice("gini", trees=20),
        CriterionChoice("tsallis", (("q", 2.5),), trees=20)]
    result = dtree("compare", DATA, EXAMPLES / "imbalanced" / "haberman.dat", "--criteria",
                   "gini,gini*20", "--cv", 3, "--metric", "auc", "-q", "-f", "json", "-j", 1)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["criteria"] == ["gini", "gini*20"]
    # a forest of 20 trees beats the single tree's AUC on both (leaf probabilities of one
    # unpruned tree are mostly 0 or 1)
    assert all(doc["scores"][d]["gini*20"]["mean"] > doc["scores"][d]["gini"]["mean"]
               for d in doc["scores"])


@pytest.mark.parametrize("entry", ["gini*0", "gini*x", "gini*"])
def test_a_bad_forest_size_is_one_line(entry):
    result = dtree("compare", DATA, "--criteria", entry)
    assert result.exit_code == 2 and "NAME*TREES" in result.stderr


def test_forest_results_are_kept_for_a_resumed_run(tmp_path):
    results = tmp_path / "runs.jsonl"
    args = ("compare", DATA, "--criteria", "gini,gini*5", "--cv", 3, "-q", "-j", 1,
            "--results", results)
    assert dtree(*args).exit_code == 0
    again = CliRunner().invoke(cli, [str(a) for a in args if a != "-q"])
    assert again.exit_code == 0 and "damaged" not in again.stderr
    assert "6 fold(s) taken from" in again.stderr


def test_evaluate_scores_a_saved_forest(forest_file):
    from dtcli.io import load_dataset
    from dtcli.model import load_model

    result = dtree("evaluate", forest_file, DATA, "-f", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    data = load_dataset(str(DATA))
    forest, _ = load_model(str(forest_file))
    accuracy = float((forest.proba_from_matrix(data.X).argmax(1) == data.y).mean())
    assert doc["accuracy"]["mean"] == pytest.approx(accuracy, abs=1e-12)
    assert doc["n_nodes"]["mean"] == sum(e.tree_.node_count for e in forest.estimators_)


def test_export_reads_a_format_1_tree(tmp_path):
    from dtcli import DecisionTreeClassifier
    from dtcli.io import load_dataset
    from dtcli.model import model_to_dict

    doc = model_to_dict(DecisionTreeClassifier(max_depth=1).fit_dataset(load_dataset(str(DATA))))
    old = tmp_path / "old.json"
    old.write_text(json.dumps({k: v for k, v in doc.items() if k != "kind"}
                              | {"format_version": 1}))
    result = dtree("export", old)
    assert result.exit_code == 0 and result.stdout.startswith("gini tree for class: 3 nodes")
    assert dtree("export", old, "--tree", 0).exit_code == 2


@pytest.mark.parametrize("args, message", [
    (["--model", "forest", "--pruning", "ccp"], "--pruning applies to --model tree only"),
    (["--model", "forest", "--leaf-estimate", "laplace"], "--leaf-estimate applies to --model tree"),
    (["--model", "forest", "-p", "q=auto", "-c", "tsallis"], "tune a single tree"),
    (["--model", "fdf", "--trees", "5"], "--trees does not apply to --model fdf"),
])
def test_options_of_another_model_are_one_line_and_exit_2(args, message, tmp_path):
    result = dtree("train", DATA, *args, "-o", tmp_path / "m.json")
    assert result.exit_code == 2 and message in result.stderr
    assert result.stderr.count("\n") == 1 and not (tmp_path / "m.json").exists()


def test_evaluate_names_the_forest_in_its_title():
    result = dtree("evaluate", EXAMPLES / "iris.csv", "--criterion", "gini*5", "--cv", 3, "-q")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0].startswith("gini*5 on iris: stratified 3-fold")
