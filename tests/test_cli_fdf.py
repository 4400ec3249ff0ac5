"""`dtree train --model fdf`, `--leaf-model naive-bayes`, and FDF / Naive Bayes leaves in
predict, export, evaluate and compare, in-process."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
from click.testing import CliRunner

from dtcli.cli import cli

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
HEPATITIS = EXAMPLES / "hepatitis.csv"
IRIS = EXAMPLES / "iris.csv"


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_fdf_trains_predicts_and_exports(tmp_path):
    model = tmp_path / "fdf.json"
    result = invoke("train", HEPATITIS, "--target", "Class", "--model", "fdf", "-o", model)
    assert result.exit_code == 0, result.stderr
    assert "trained FDF" in result.stderr and "rules" in result.stderr
    assert json.loads(model.read_text())["kind"] == "fdf"
    predicted = invoke("predict", model, HEPATITIS, "--proba")
    rows = list(csv.DictReader(io.StringIO(predicted.stdout)))
    assert len(rows) == 155 and {r["prediction"] for r in rows} <= {"DIE", "LIVE"}
    assert all(abs(float(r["proba_DIE"]) + float(r["proba_LIVE"]) - 1) < 1e-5 for r in rows)
    rules = invoke("export", model, "-f", "rules").stdout.splitlines()
    assert rules and all(line.startswith("if ") and "(support " in line for line in rules)
    assert "tree 1: " in invoke("export", model).stdout
    scored = invoke("evaluate", model, HEPATITIS, "-f", "json")
    assert scored.exit_code == 0 and json.loads(scored.stdout)["accuracy"]["mean"] > 0.8


def test_fdf_refuses_what_does_not_apply(tmp_path):
    refused = invoke("train", IRIS, "--model", "fdf", "--criterion", "entropy")
    assert refused.exit_code == 2 and "--criterion does not apply to --model fdf" in refused.stderr
    model = tmp_path / "fdf.json"
    invoke("train", IRIS, "--model", "fdf", "-o", model)
    dot = invoke("export", model, "-f", "dot")
    assert dot.exit_code == 2 and "FDF" in dot.stderr


def test_naive_bayes_leaves_from_the_command_line(tmp_path):
    model = tmp_path / "nb.json"
    result = invoke("train", IRIS, "--max-depth", "2", "--leaf-model", "naive-bayes",
                    "--nb-numeric", "gaussian", "--nb-min-samples", "3", "-o", model)
    assert result.exit_code == 0, result.stderr
    options = json.loads(model.read_text())["leaf_model"]["options"]
    assert options["numeric"] == "gaussian" and options["min_samples"] == 3
    assert "naive bayes: priors" in invoke("export", model, "-f", "rules").stdout


def test_compare_runs_fdf_and_naive_bayes_leaves_beside_criteria():
    result = invoke("compare", IRIS, EXAMPLES / "balanced" / "wine.csv", "--criteria",
                    "gini,gini+nb,fdf:min_samples_leaf=2", "--cv", "3", "-m", "log_loss",
                    "-f", "json", "-q", "-j", "1")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    text = json.dumps(doc)
    assert "gini+nb" in text and "fdf:min_samples_leaf=2" in text
    refused = invoke("compare", IRIS, "--criteria", "gini,fdf:depth=2", "--cv", "3", "-q")
    assert refused.exit_code == 2 and "fdf has no parameter 'depth'" in refused.stderr
    same = invoke("compare", IRIS, "--criteria", "fdf,fdf:min_samples_leaf=1", "--cv", "3", "-q")
    assert same.exit_code == 2


def test_the_paper_table_i_through_files(tmp_path):
    train = tmp_path / "table1.csv"
    train.write_text("A,B,C\na0,b0,c1\na0,b1,c1\na0,b2,c1\na1,b0,c2\na1,b1,c1\na1,b2,c2\n"
                     "a2,b0,c2\n")
    test = tmp_path / "s8.csv"
    test.write_text("A,B\na2,b1\n")
    model = tmp_path / "m.json"
    assert invoke("train", train, "--model", "fdf", "-o", model).exit_code == 0
    out = invoke("predict", model, test, "--proba").stdout
    assert out.splitlines()[1].split(",")[0] == "c1"
    assert np.isclose(float(out.splitlines()[1].split(",")[1]), 0.75)
