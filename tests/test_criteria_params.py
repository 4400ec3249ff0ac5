"""Criterion names and parameters: validation, the `dtree criteria` listing, the Python
API, the command line and the model file."""
from __future__ import annotations

import json
import math
import pickle
import subprocess
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from dtcli import DecisionTreeClassifier
from dtcli.cli import cli
from dtcli.criteria import CRITERIA, get
from dtcli.errors import ParameterError
from dtcli.model import model_to_dict

ROOT = Path(__file__).resolve().parent.parent
IRIS = ROOT / "examples" / "iris.csv"
# The papers the criteria cite (authors, title, venue and year in each `source`).
PAPERS = ("Akash, M. E. Kadir, A. A. Ali and M. Shoyaib, Inter-node Hellinger Distance based "
          "Decision Tree, IJCAI 2019",
          "Wang and S.-T. Xia, Unifying attribute splitting criteria of decision trees by Tsallis "
          "entropy, IEEE ICASSP 2017",
          "Stamate, W. Alghamdi, D. Stahl, D. Logofatu and A. Zamyatin, PIDT: a novel decision "
          "tree algorithm based on parameterised impurities and statistical pruning approaches, "
          "AIAI 2018")

# Every parameter's valid range, as the papers state it (1 is also accepted as the
# Shannon limit of the entropy orders).
RANGES = {"q": "(0, inf)", "gamma": "(0, inf)", "alpha": "(0, 1]", "beta": "(0, 1]",
          "average_gain": "0 or 1"}
REJECTED = {"q": [0.0, -1.0], "gamma": [0.0, -0.5], "alpha": [0.0, -0.1, 1.0000001, 2.0],
            "beta": [0.0, 1.5], "average_gain": [0.5, -1.0, 2.0]}
ACCEPTED = {"q": [1e-9, 1.0, 2.0, 1e6], "gamma": [1e-9, 1.0, 4.0], "alpha": [1e-9, 0.5, 1.0],
            "beta": [1e-9, 1.0], "average_gain": [0.0, 1.0]}
PARAMETERS = [(name, p.name) for name, c in CRITERIA.items() for p in c.params]


def test_every_criterion_cites_a_paper_and_equation():
    for criterion in CRITERIA.values():
        assert any(paper in criterion.source for paper in PAPERS), criterion.name
        assert "eq." in criterion.source or "section" in criterion.source
        assert criterion.summary.endswith(".")


def test_codes_are_distinct_ints():
    codes = [c.code for c in CRITERIA.values()]
    assert len(set(codes)) == len(codes)
    assert all(isinstance(code, int) for code in codes)


def test_each_code_is_alone_in_a_class_that_carries_its_entrys_kernel():
    """numba compiles the engine once per code class, with the class's kernel inlined;
    numba's cache index and worker processes find the class again by its name."""
    for criterion in CRITERIA.values():
        code_class = type(criterion.code)
        assert list(code_class) == [criterion.code]
        assert code_class.kernel is criterion.kernel
        assert pickle.loads(pickle.dumps(criterion.code)) is criterion.code
    assert len({type(c.code) for c in CRITERIA.values()}) == len(CRITERIA)


def test_every_entry_has_one_kernel_written_in_its_family():
    from dtcli.criteria.codes import KERNELS

    assert list(KERNELS) == list(CRITERIA)
    for name, kernel in KERNELS.items():
        assert kernel.node_term.__module__ == f"dtcli.criteria.{CRITERIA[name].family}", name


@pytest.mark.parametrize("name,param", PARAMETERS)
def test_out_of_range_values_name_the_valid_range(name, param):
    for value in REJECTED[param] + [math.inf, math.nan]:
        with pytest.raises(ParameterError) as error:
            get(name).param_vector({param: value})
        message = str(error.value)
        assert name in message and param in message and RANGES[param] in message


@pytest.mark.parametrize("name,param", PARAMETERS)
def test_in_range_values_are_accepted(name, param):
    for value in ACCEPTED[param]:
        vector = get(name).param_vector({param: value})
        assert vector[[p.name for p in CRITERIA[name].params].index(param)] == value


def test_defaults_reproduce_the_classic_criteria():
    defaults = {name: {p.name: p.default for p in c.params} for name, c in CRITERIA.items()}
    assert defaults["tsallis"] == {"q": 2.0}  # Gini (Theorem 2)
    assert defaults["tsallis-gain-ratio"] == {"q": 1.0}  # C4.5's gain ratio (Theorem 3)
    assert defaults["renyi"] == {"gamma": 1.0}  # Shannon
    assert defaults["pe"] == defaults["pg"] == {"alpha": 1.0}
    assert defaults["pt"] == {"alpha": 1.0, "gamma": 2.0}
    assert defaults["pr"] == {"alpha": 1.0, "gamma": 1.0}
    assert defaults["ge"] == defaults["abi"] == {"alpha": 1.0, "beta": 1.0}
    assert defaults["gain-ratio"] == {"average_gain": 0.0}  # the papers' plain gain ratio


def test_unknown_parameter_and_criterion_name_the_choices():
    with pytest.raises(ParameterError, match=r"no parameter 'gamma' \(parameters: q\)"):
        get("tsallis").param_vector({"gamma": 2.0})
    with pytest.raises(ParameterError, match=r"parameters: none"):
        get("ihdw").param_vector({"q": 2.0})
    with pytest.raises(ParameterError, match=r"ihdw"):
        get("ihd-w")
    with pytest.raises(ParameterError, match=r"not a number"):
        get("pe").param_vector({"alpha": "half"})


def test_python_api_takes_a_params_dict_and_clones(load_example):
    iris = load_example("iris.csv")
    from sklearn.base import clone

    model = DecisionTreeClassifier(criterion="tsallis", criterion_params={"q": 2.5})
    assert clone(model).get_params()["criterion_params"] == {"q": 2.5}
    model.fit(iris.X, iris.y)
    assert model.score(iris.X, iris.y) == 1.0
    with pytest.raises(ParameterError, match=r"\(0, inf\)"):
        DecisionTreeClassifier(criterion="tsallis", criterion_params={"q": -1}).fit(
            iris.X, iris.y)


def test_grid_search_varies_the_params_dict(load_example):
    from sklearn.model_selection import GridSearchCV

    iris = load_example("iris.csv")
    grid = GridSearchCV(DecisionTreeClassifier(criterion="tsallis", max_depth=3),
                        {"criterion_params": [{"q": 0.5}, {"q": 2.0}, {"q": 5.0}]}, cv=3)
    grid.fit(iris.X, iris.y)
    assert grid.best_params_["criterion_params"] in ({"q": 0.5}, {"q": 2.0}, {"q": 5.0})


# --- command line ------------------------------------------------------------------------

def test_cli_rejects_an_out_of_range_parameter_in_one_line(dtree_exe, tmp_path):
    out = tmp_path / "m.json"
    done = subprocess.run([str(dtree_exe), "train", str(IRIS), "--criterion", "tsallis",
                           "--param", "q=-1", "-o", str(out)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "q=-1" in lines[0] and "(0, inf)" in lines[0]
    assert not out.exists()


@pytest.mark.parametrize("args,needle", [
    (["-c", "pe", "-p", "alpha=1.5"], "(0, 1]"),
    (["-c", "abi", "-p", "gamma=1"], "parameters: alpha, beta"),
    (["-c", "renyi", "-p", "gamma=0"], "(0, inf)")])
def test_cli_parameter_errors(args, needle, tmp_path):
    result = CliRunner().invoke(cli, ["train", str(IRIS), *args, "-o", str(tmp_path / "m.json")])
    assert result.exit_code == 2
    assert needle in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_criteria_json_lists_every_criterion():
    result = CliRunner().invoke(cli, ["criteria", "--output-format", "json"])
    assert result.exit_code == 0
    rows = json.loads(result.stdout)
    assert [row["name"] for row in rows] == list(CRITERIA)
    for row in rows:
        criterion = CRITERIA[row["name"]]
        assert row["source"] == criterion.source and row["summary"] == criterion.summary
        assert [(p["name"], p["default"], p["range"]) for p in row["params"]] == [
            (p.name, p.default, RANGES[p.name]) for p in criterion.params]


def test_criteria_long_shows_every_criterion_and_parameter():
    result = CliRunner().invoke(cli, ["criteria", "--long"])
    assert result.exit_code == 0
    entries = {block.split(" ", 1)[0]: " ".join(block.split())
               for block in result.stdout.split("\n\n")}
    assert list(entries) == list(CRITERIA)
    for name, criterion in CRITERIA.items():
        for p in criterion.params:
            assert f"parameter {p.name} = {p.default:g} (default), in {RANGES[p.name]}" in \
                entries[name]


def test_model_file_and_text_export_record_the_parameters(tmp_path):
    model = tmp_path / "m.json"
    result = CliRunner().invoke(cli, ["train", str(IRIS), "-c", "pt", "-p", "alpha=0.5",
                                      "-p", "gamma=1.5", "-o", str(model), "-q"])
    assert result.exit_code == 0, result.stderr
    doc = json.loads(model.read_text())
    assert doc["criterion"] == {"name": "pt", "params": {"alpha": 0.5, "gamma": 1.5}}
    text = CliRunner().invoke(cli, ["export", str(model)]).stdout
    assert text.splitlines()[0].startswith("pt(alpha=0.5, gamma=1.5) tree")
    predicted = CliRunner().invoke(cli, ["predict", str(model), str(IRIS)])
    assert predicted.exit_code == 0
    assert len(predicted.stdout.splitlines()) == 151  # header + one line per row


@pytest.mark.parametrize("name,params,classic", [
    ("tsallis", {"q": 2.0}, "gini"), ("tsallis", {"q": 1.0}, "entropy"),
    ("renyi", {}, "entropy"), ("pe", {}, "entropy"), ("pg", {}, "gini"), ("pt", {}, "gini"),
    ("pt", {"gamma": 1.0}, "entropy"), ("pr", {}, "entropy"), ("abi", {}, "gini"),
    ("tsallis-gain-ratio", {}, "gain-ratio")])
def test_special_parameters_run_the_classic_criterion(name, params, classic):
    engine, vector = get(name).for_engine(params)
    assert engine.name == classic and np.array_equal(vector, get(classic).param_vector())


@pytest.mark.parametrize("name,params", [
    ("tsallis", {"q": 1.5}), ("pt", {"alpha": 0.5}), ("pt", {"gamma": 1.5}), ("ge", {}),
    ("abi", {"beta": 0.5}), ("renyi", {"gamma": 1.0 + 1e-9})])
def test_other_parameters_run_the_criterion_itself(name, params):
    engine, vector = get(name).for_engine(params)
    assert engine.name == name and np.array_equal(vector, get(name).param_vector(params))


def test_a_special_case_keeps_its_own_name_in_the_model():
    model = DecisionTreeClassifier(criterion="tsallis", criterion_params={"q": 2.0})
    X, y = np.array([[0.0], [1.0], [2.0], [3.0]]), np.array([0, 0, 1, 1])
    doc = model_to_dict(model.fit(X, y))
    assert doc["criterion"] == {"name": "tsallis", "params": {"q": 2.0}}
