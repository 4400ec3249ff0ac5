"""`dtree train --preset j48`, its model file (kind "c45"), predict, export, and j48 in
evaluate and compare, in-process. The trees themselves are checked against Weka's in
test_c45_weka.py; here, the wiring and the refusals."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from dtcli.cli import cli
from dtcli.errors import ModelError
from dtcli.model import load_model

WEKA = Path(__file__).parent / "golden" / "weka"
LABOR = Path(__file__).parent / "data" / "weka" / "labor.arff"
IRIS = Path(__file__).parent / "data" / "weka" / "iris.arff"


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.mark.parametrize("flags, weka", [((), "default"), (("--pruning", "none"), "U"),
                                          (("--no-subtree-raising",), "S"),
                                          (("--binary-splits",), "B")])
def test_train_preset_writes_j48s_tree(tmp_path, flags, weka):
    model = tmp_path / "labor.json"
    result = invoke("train", LABOR, "--preset", "j48", *flags, "-o", model)
    assert result.exit_code == 0, result.stderr
    doc = json.loads(model.read_text())
    assert doc["kind"] == "c45" and doc["preset"] == "j48"
    shown = invoke("export", model)
    assert shown.stdout.strip() == (WEKA / "trees" / f"labor.{weka}.txt").read_text().strip()


def test_predict_and_evaluate_a_j48_model(tmp_path):
    model = tmp_path / "labor.json"
    invoke("train", LABOR, "--preset", "j48", "--leaf-estimate", "laplace", "-o", model)
    rows = list(csv.DictReader(io.StringIO(invoke("predict", model, LABOR, "--proba").stdout)))
    assert len(rows) == 57
    weka = (WEKA / "predictions" / "labor.A.txt").read_text().splitlines()[1:]
    for row, line in zip(rows, weka):  # J48 -A: "... 0.061,*0.939"
        good = float(line.split()[-1].split(",")[1].lstrip("*"))
        assert abs(float(row["proba_good"]) - good) < 5e-4
    scored = invoke("evaluate", model, LABOR, "-f", "json")
    assert scored.exit_code == 0, scored.stderr


@pytest.mark.parametrize("args, message", [
    (("--max-depth", "3"), "--max-depth does not apply to --preset j48"),
    (("--pruning", "ccp"), "--pruning pessimistic or none"),
    (("--criterion", "gini"), "--criterion does not apply to --preset j48"),
])
def test_options_a_preset_does_not_use_are_refused(args, message):
    result = invoke("train", IRIS, "--preset", "j48", *args)
    assert result.exit_code == 2 and message in result.stderr
    assert "Traceback" not in result.stderr


def test_binary_splits_needs_the_preset():
    result = invoke("train", IRIS, "--binary-splits")
    assert result.exit_code == 2 and "--preset j48" in result.stderr


def test_damaged_j48_files_are_refused(tmp_path):
    model = tmp_path / "iris.json"
    invoke("train", IRIS, "--preset", "j48", "-o", model)
    doc = json.loads(model.read_text())
    for damage in (lambda d: d["tree"]["children"].__setitem__(0, 0),
                   lambda d: d["tree"]["child_offsets"].pop(),
                   lambda d: d["options"].__setitem__("confidence", 0.9),
                   lambda d: d["tree"]["threshold"].__setitem__(0, None)):
        broken = json.loads(json.dumps(doc))
        damage(broken)
        path = tmp_path / "broken.json"
        path.write_text(json.dumps(broken))
        with pytest.raises(ModelError):
            load_model(str(path))


def test_j48_is_a_method_of_compare():
    entries = "j48,j48:binary_splits=1,j48:unpruned=1:confidence=0.1"
    result = invoke("compare", IRIS, LABOR, "--criteria", entries, "--cv", "3", "-j", "1",
                    "-f", "json", "--quiet")
    assert result.exit_code == 0, result.stderr
    assert all(entry in result.stdout for entry in entries.split(","))
    bad = invoke("compare", IRIS, "--criteria", "j48:depth=3,gini", "--cv", "3", "-j", "1")
    assert bad.exit_code == 2 and "j48 has no parameter 'depth'" in bad.stderr


def test_an_entrys_settings_reach_j48():
    from dtcli.crossval.methods import Preset
    from dtcli.crossval.tasks import TreeOptions

    model = Preset("j48", {"unpruned": 1.0, "min_samples_leaf": 3.0}).estimator(
        TreeOptions(confidence=0.1, subtree_raising=False, leaf_estimate="laplace"))
    assert model.options() == {"min_samples_leaf": 3, "pruning": None, "confidence": 0.1,
                               "subtree_raising": False, "leaf_estimate": "laplace",
                               "binary_splits": False}


def _weka_rules(name: str, opts: str) -> list[str]:
    """The rules of J48's printed tree (golden): per leaf, its path's tests joined by
    'and', then its label, in the printout's (depth-first) order."""
    out, path = [], []
    for line in (WEKA / "trees" / f"{name}.{opts}.txt").read_text().splitlines():
        if not line.strip() or line.startswith(("Number of", "Size of")):
            continue
        depth = line.count("|   ")
        test, _, label = line[4 * depth:].partition(": ")
        path[depth:] = [test.strip()]
        if label:
            out.append(f"if {' and '.join(path)} then {label}")
    return out


@pytest.mark.parametrize("name, flags, opts", [("breast-cancer", ("--pruning", "none"), "U"),
                                               ("vote", (), "default"),
                                               ("labor", ("--binary-splits",), "B")])
def test_export_draws_j48s_multiway_tree(tmp_path, name, flags, opts):
    """rules, DOT, SVG and HTML of a J48 model: the rules are J48's printed tree read
    leaf by leaf (tests, class, weight/errors: fractions where missing values were
    shared, as on vote and labor), and every picture has a box per node and an edge
    per branch, labelled with J48's test."""
    model_path = tmp_path / "j48.json"
    data = Path(__file__).parent / "data" / "weka" / f"{name}.arff"
    assert invoke("train", data, "--preset", "j48", *flags, "-q", "-o", model_path).exit_code == 0
    model, _ = load_model(str(model_path))
    tree = model.tree_
    out = {}
    for fmt in ("rules", "dot", "svg", "html"):
        result = invoke("export", model_path, "-f", fmt)
        assert result.exit_code == 0, result.stderr
        out[fmt] = result.stdout
    assert out["rules"].splitlines() == _weka_rules(name, opts)
    tests = [line.split("then")[0] for line in out["rules"].splitlines()]
    branch_tests = {t.strip() for rule in tests for t in rule.removeprefix("if ").split(" and ")}
    assert out["dot"].count("fillcolor=") == tree.node_count
    assert out["dot"].count(" -> ") == tree.node_count - 1
    for svg_text in (out["svg"], out["html"]):
        assert svg_text.count('<g class="node ') == tree.node_count
        assert svg_text.count('<g class="edge"') == tree.node_count - 1
    for test in branch_tests:  # each edge label is the test without its feature's name
        feature = next(f.name for f in model.features_ if test.startswith(f.name + " "))
        assert f'label="{test.removeprefix(feature).strip()}"' in out["dot"]
    assert out["svg"].count("<svg") == 1 and out["html"].count("<svg") == 1
    assert model.to_svg() == out["svg"] and model._repr_svg_() == out["svg"]  # a notebook's


def test_evaluate_takes_the_preset_as_train_does():
    """`evaluate --preset j48` with train's option names is the j48 method with their
    entry parameters (--criterion j48 --param ...); rpart's too."""
    def folds(*args):
        result = invoke("evaluate", LABOR, *args, "--cv", "5", "-j", "1", "-f", "json", "-q")
        assert result.exit_code == 0, result.stderr
        return json.loads(result.stdout)["accuracy"]["values"]

    assert folds("--preset", "j48", "--pruning", "none", "--binary-splits") == folds(
        "--criterion", "j48", "--param", "unpruned=1", "--param", "binary_splits=1")
    assert folds("--preset", "rpart", "--min-samples-leaf", "3") == folds(
        "--criterion", "rpart", "--param", "minbucket=3")
    refused = invoke("evaluate", LABOR, "--preset", "j48", "--criterion", "gini")
    assert refused.exit_code == 2 and "give no --criterion" in refused.stderr
    refused = invoke("evaluate", LABOR, "--preset", "j48", "--max-depth", "3")
    assert refused.exit_code == 2 and "--max-depth does not apply to --preset j48" in refused.stderr
    assert invoke("evaluate", LABOR, "--binary-splits").exit_code == 2
