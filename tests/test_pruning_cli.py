"""The pruning and leaf-estimate options on the command line."""
import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from dtcli.cli import cli

ECOLI2 = Path(__file__).resolve().parent.parent / "examples" / "ecoli2.dat"


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_train_prunes_records_and_export_names_it(tmp_path):
    unpruned, pruned = tmp_path / "u.json", tmp_path / "p.json"
    assert invoke("train", ECOLI2, "-c", "entropy", "-o", unpruned, "-q").exit_code == 0
    result = invoke("train", ECOLI2, "-c", "entropy", "--pruning", "pessimistic",
                    "--confidence", "0.1", "--no-subtree-raising", "--leaf-estimate", "laplace",
                    "-o", pruned)
    assert result.exit_code == 0, result.output
    assert "pruned (pessimistic)" in result.stderr
    doc = json.loads(pruned.read_text())
    assert doc["pruning"] == {"method": "pessimistic", "confidence": 0.1, "subtree_raising": False}
    assert doc["leaf_estimate"] == {"name": "laplace", "m": 2.0}
    assert doc["tree"]["node_count"] < json.loads(unpruned.read_text())["tree"]["node_count"]
    shown = invoke("export", pruned).stdout.splitlines()[0]
    assert shown.startswith("entropy tree for Class, pruned by pessimistic (confidence=0.1, "
                            "subtree_raising=False), laplace leaves: ")
    rows = csv.DictReader(io.StringIO(invoke("predict", pruned, ECOLI2, "--proba").stdout))
    shares = {float(row["proba_positive"]) for row in rows}
    assert len(shares) > 2 and 0.0 not in shares and 1.0 not in shares  # Laplace: never 0 or 1


def test_ccp_alpha_defaults_to_auto_and_the_path_is_csv():
    result = invoke("train", ECOLI2, "--pruning", "ccp", "-q")
    assert json.loads(result.stdout)["pruning"]["ccp_alpha"] == "auto"
    path = invoke("train", ECOLI2, "--pruning-path", "-q").stdout
    rows = list(csv.DictReader(io.StringIO(path)))
    alphas = np.array([float(r["ccp_alpha"]) for r in rows])
    assert rows[0]["ccp_alpha"] == "0.0" and rows[-1]["n_leaves"] == "1"
    assert (np.diff(alphas) >= 0).all() and float(rows[0]["impurity"]) == 0.0


@pytest.mark.parametrize("args, message", [
    (["--ccp-alpha", "big"], "--ccp-alpha"), (["--pruning", "cart"], "--pruning"),
    (["--confidence", "0.7"], "--confidence"), (["--leaf-estimate", "smooth"], "--leaf-estimate"),
    (["--pruning", "reduced-error", "--pruning-folds", "1"], "--pruning-folds"),
    (["--pruning", "ccp", "--cp", "-1"], "--cp"),
    (["--pruning", "ccp", "--cp", "0.01", "--ccp-alpha", "0.1"], "cp and ccp_alpha")])
def test_bad_pruning_options_are_one_line_and_exit_2(args, message):
    result = invoke("train", ECOLI2, *args, "-q")
    assert result.exit_code == 2 and message in result.stderr
    assert "Traceback" not in result.output


def test_rparts_cp_is_recorded_and_the_path_lists_it(tmp_path):
    """ecoli2: 336 rows, 52 positive: the root's risk R(root) = 52 / 336 (error risk)."""
    model = tmp_path / "m.json"
    result = invoke("train", ECOLI2, "--pruning", "ccp", "--ccp-risk", "error", "--cp", "0.01",
                    "-o", model, "-q")
    assert result.exit_code == 0, result.output
    pruning = json.loads(model.read_text())["pruning"]
    assert pruning["cp"] == 0.01 and pruning["ccp_alpha"] == 0.0
    assert pruning["chosen_alpha"] == pytest.approx(0.01 * 52 / 336, rel=1e-12)
    assert invoke("export", model).exit_code == 0  # the file loads
    path = invoke("train", ECOLI2, "--pruning-path", "--ccp-risk", "error", "-q").stdout
    rows = list(csv.DictReader(io.StringIO(path)))
    assert rows[-1]["n_leaves"] == "1" and float(rows[-1]["impurity"]) == 52 / 336
    for row in rows:
        assert float(row["cp"]) == pytest.approx(float(row["ccp_alpha"]) * 336 / 52, rel=1e-12)


def test_evaluate_records_the_pruning_and_refuses_it_for_a_saved_model(tmp_path):
    result = invoke("evaluate", ECOLI2, "--pruning", "reduced-error", "--leaf-estimate",
                    "m-estimate", "--m", "4", "--cv", "3", "-q", "-f", "json")
    assert result.exit_code == 0, result.output
    options = json.loads(result.stdout)["options"]
    assert (options["pruning"], options["leaf_estimate"], options["m"]) == \
        ("reduced-error", "m-estimate", 4.0)
    model = tmp_path / "m.json"
    invoke("train", ECOLI2, "-o", model, "-q")
    refused = invoke("evaluate", model, ECOLI2, "--leaf-estimate", "laplace")
    assert refused.exit_code == 2 and "--leaf-estimate" in refused.stderr


def test_criteria_entries_set_their_own_pruning():
    from dtcli.errors import ParameterError
    from dtcli.crossval.method_syntax import fixed_choices as parse_criteria
    from dtcli.crossval.tasks import TreeOptions

    gini, pruned = parse_criteria(["gini,gini:pruning=ccp:ccp_alpha=auto-1se:leaf_estimate=laplace"])
    assert pruned.label == "gini:pruning=ccp:ccp_alpha=auto-1se:leaf_estimate=laplace"
    own = pruned.tree_options(TreeOptions(max_depth=3, leaf_estimate="m-estimate"))
    assert (own.max_depth, own.pruning, own.ccp_alpha, own.leaf_estimate) == \
        (3, "ccp", "auto-1se", "laplace")
    assert gini.tree_options(TreeOptions()).estimator_params()["ccp_alpha"] == 0.0
    assert parse_criteria(["gini:pruning=ccp"])[0].tree_options(TreeOptions()) \
        .estimator_params()["ccp_alpha"] == "auto"  # as --pruning ccp alone
    for bad in ["gini:pruning=cart", "gini:confidence=high", "gini:m=1:m=2",
                "gini:pruning=ccp,gini:pruning=ccp"]:
        with pytest.raises(ParameterError):
            parse_criteria([bad])


def test_an_entrys_pruning_scores_as_the_global_option_does():
    data = [Path(__file__).resolve().parent.parent / "examples" / "imbalanced" / name
            for name in ("haberman.dat", "new-thyroid1.dat")]
    common = ["--metric", "auc", "--cv", "3", "-q", "-j", "1", "-f", "json"]
    entries = json.loads(invoke("compare", *data, "--criteria",
                                "gini,gini:pruning=pessimistic:leaf_estimate=laplace",
                                *common).stdout)
    both = json.loads(invoke("compare", *data, "--criteria", "gini,entropy", "--pruning",
                             "pessimistic", "--leaf-estimate", "laplace", *common).stdout)
    for name in entries["datasets"]:
        scores = entries["scores"][name]
        assert scores["gini:pruning=pessimistic:leaf_estimate=laplace"] == both["scores"][name]["gini"]
        assert scores["gini"] != both["scores"][name]["gini"]


def test_dot_export_names_the_pruning_only_of_a_pruned_tree(tmp_path):
    pruned, plain = tmp_path / "p.json", tmp_path / "u.json"
    invoke("train", ECOLI2, "--pruning", "reduced-error", "--leaf-estimate", "laplace",
           "-o", pruned, "-q")
    invoke("train", ECOLI2, "-o", plain, "-q")
    dot = invoke("export", pruned, "-f", "dot").stdout.splitlines()
    assert '  label="pruned by reduced-error (pruning_folds=3), laplace leaves";' in dot
    assert not any(line.startswith("  label=") for line in
                   invoke("export", plain, "-f", "dot").stdout.splitlines())


def test_train_s_prunes_and_export_shows_each_tested_nodes_p_value(tmp_path):
    model = tmp_path / "s.json"
    result = invoke("train", ECOLI2, "--pruning", "s-pruning", "--significance", "0.01",
                    "--permutations", "200", "-o", model)
    assert result.exit_code == 0, result.output
    doc = json.loads(model.read_text())
    assert {k: doc["pruning"][k] for k in ("method", "significance", "permutations",
                                           "pruning_mode")} == {
        "method": "s-pruning", "significance": 0.01, "permutations": 200,
        "pruning_mode": "default"}
    shown = invoke("export", model).stdout.splitlines()
    assert shown[0].startswith("gini tree for Class, pruned by s-pruning (significance=0.01, "
                               "permutations=200, pruning_mode=default): ")
    root_p = doc["pruning"]["p_values"][0]
    assert shown[1].endswith(f"p={root_p:.3g}") and root_p <= 0.01
