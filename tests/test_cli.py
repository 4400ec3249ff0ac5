"""The `dtree` command line: end to end in a subprocess, and every error path in-process.

Error paths follow the issue's "Bad input" list: one line on stderr naming the
file or option, a non-zero exit code, no traceback, no output file left behind.
"""
import csv
import io
import json
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from dtcli.cli import cli

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
IRIS = EXAMPLES / "iris.csv"


def run(dtree_exe, *args, stdin=None, cwd=None):
    return subprocess.run([str(dtree_exe), *map(str, args)], input=stdin, capture_output=True,
                          text=True, timeout=120, cwd=cwd)


def invoke(*args, stdin=None):
    return CliRunner().invoke(cli, [str(a) for a in args], input=stdin)


def read_csv(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def tree_facts(model_path: Path) -> dict:
    """Nodes, leaves and depth of a model file, from its arrays."""
    tree = json.loads(model_path.read_text())["tree"]
    depth = {0: 0}
    for node, (left, right) in enumerate(zip(tree["children_left"], tree["children_right"])):
        if left != -1:
            depth[left] = depth[right] = depth[node] + 1
    return {"nodes": tree["node_count"], "leaves": tree["children_left"].count(-1),
            "depth": max(depth.values())}


# --- end to end, in a subprocess -----------------------------------------------------------------

def test_train_predict_export_end_to_end(dtree_exe, tmp_path):
    model = tmp_path / "iris.json"
    trained = run(dtree_exe, "train", IRIS, "-o", model)
    assert trained.returncode == 0, trained.stderr
    assert trained.stdout == ""  # the model went to the file; talk goes to stderr
    facts = tree_facts(model)
    summary = trained.stderr.strip()
    assert "\n" not in summary
    for piece in ("150 rows", "4 features", "3 classes", f"{facts['nodes']} nodes",
                  f"{facts['leaves']} leaves", f"depth {facts['depth']}",
                  "training accuracy 1.0000", str(model)):
        assert piece in summary, piece

    predicted = run(dtree_exe, "predict", model, IRIS, "--proba")
    assert predicted.returncode == 0, predicted.stderr
    assert predicted.stderr == ""
    rows = read_csv(predicted.stdout)
    assert list(rows[0]) == ["prediction", "proba_Iris-setosa", "proba_Iris-versicolor",
                             "proba_Iris-virginica"]
    truth = [r["class"] for r in read_csv(IRIS.read_text())]
    assert [r["prediction"] for r in rows] == truth  # iris has no contradicting duplicates
    for r in rows:
        probabilities = [float(v) for k, v in r.items() if k.startswith("proba_")]
        assert sum(probabilities) == pytest.approx(1.0)
        assert r["prediction"] == max(
            ((float(v), k[len("proba_"):]) for k, v in r.items() if k.startswith("proba_")),
            key=lambda pair: pair[0])[1]

    exported = run(dtree_exe, "export", model, "-f", "rules")
    assert exported.returncode == 0 and exported.stdout.count("\n") == facts["leaves"]


def test_train_reads_stdin_and_writes_the_model_to_stdout(dtree_exe):
    result = run(dtree_exe, "train", "-", "--max-depth", "1", stdin=IRIS.read_text())
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)  # the model itself on stdout, nothing else
    assert doc["format"] == "dtree-model" and doc["tree"]["node_count"] == 3
    assert doc["options"]["max_depth"] == 1 and "150 rows" in result.stderr


def test_missing_values_end_to_end(dtree_exe, tmp_path):
    model = tmp_path / "hepatitis.json"
    trained = run(dtree_exe, "train", EXAMPLES / "hepatitis.csv", "--target", "Class", "-o", model)
    assert trained.returncode == 0, trained.stderr
    out = tmp_path / "predictions.csv"
    predicted = run(dtree_exe, "predict", model, EXAMPLES / "hepatitis.csv", "-o", out)
    assert predicted.returncode == 0 and predicted.stdout == ""
    rows = read_csv(out.read_text())
    assert len(rows) == 155 and set(rows[0]) == {"prediction"}
    assert {r["prediction"] for r in rows} <= {"DIE", "LIVE"}


def test_bad_input_in_a_subprocess_is_one_line_without_traceback(dtree_exe, tmp_path):
    result = run(dtree_exe, "train", tmp_path / "absent.csv", "-o", tmp_path / "m.json")
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "absent.csv" in result.stderr
    assert "Traceback" not in result.stderr and list(tmp_path.iterdir()) == []


# --- train, in-process ---------------------------------------------------------------------------

def test_train_summary_goes_to_stderr_and_quiet_silences_it(tmp_path):
    model = tmp_path / "m.json"
    result = invoke("train", IRIS, "-o", model, "--quiet")
    assert result.exit_code == 0 and result.stdout == "" and result.stderr == ""
    assert json.loads(model.read_text())["format"] == "dtree-model"


def test_train_options_reach_the_model(tmp_path):
    model = tmp_path / "m.json"
    result = invoke("train", EXAMPLES / "ecoli2.dat", "-c", "entropy", "--max-depth", "3",
                    "--min-samples-leaf", "4", "--min-samples-split", "9", "--min-gain", "0.01",
                    "-j", "1", "-o", model)
    assert result.exit_code == 0, result.stderr
    doc = json.loads(model.read_text())
    assert doc["criterion"]["name"] == "entropy"
    assert doc["options"] == {"max_depth": 3, "min_samples_split": 9, "min_samples_leaf": 4,
                              "min_gain": 0.01}
    assert doc["target"] == "Class"  # KEEL @outputs
    tree = doc["tree"]
    leaves = [i for i, left in enumerate(tree["children_left"]) if left == -1]
    assert min(tree["n_node_samples"][i] for i in leaves) >= 4
    assert tree_facts(model)["depth"] <= 3


def _haberman_class_counts() -> dict[str, int]:
    """Rows per class of the KEEL file, read as text."""
    text = (EXAMPLES / "imbalanced" / "haberman.dat").read_text()
    rows = [line.rsplit(",", 1)[-1].strip() for line in text.split("@data", 1)[1].splitlines()
            if line.strip()]
    return {label: rows.count(label) for label in set(rows)}


@pytest.mark.parametrize("weights", [["positive=3"], ["balanced"], ["negative=0.5",
                                                                    "positive=2"]])
def test_train_class_weight_reaches_the_tree(tmp_path, weights):
    model = tmp_path / "m.json"
    args = [a for w in weights for a in ("--class-weight", w)]
    result = invoke("train", EXAMPLES / "imbalanced" / "haberman.dat", "--max-depth", "0",
                    *args, "-o", model)
    assert result.exit_code == 0, result.stderr
    doc = json.loads(model.read_text())
    counts = _haberman_class_counts()
    if weights == ["balanced"]:
        factor = {label: sum(counts.values()) / (2 * n) for label, n in counts.items()}
    else:
        factor = {w.split("=")[0]: float(w.split("=")[1]) for w in weights}
    expected = [counts[c] * factor.get(c, 1.0) for c in doc["classes"]]
    assert doc["tree"]["value"][0] == pytest.approx(expected)
    assert doc["training"]["class_weight"] == ("balanced" if weights == ["balanced"] else factor)


@pytest.mark.parametrize("weights, words", [
    (["nope=2"], "nope"),
    (["positive=heavy"], "not a number"),
    (["positive=2", "positive=3"], "given twice"),
    (["balanced", "positive=2"], "cannot be combined"),
])
def test_train_bad_class_weight_is_a_usage_error(tmp_path, weights, words):
    args = [a for w in weights for a in ("--class-weight", w)]
    result = invoke("train", EXAMPLES / "imbalanced" / "haberman.dat", *args,
                    "-o", tmp_path / "m.json")
    assert result.exit_code == 2 and words in result.stderr
    assert not (tmp_path / "m.json").exists()


def test_train_overwrites_atomically(tmp_path):
    model = tmp_path / "m.json"
    model.write_text("previous model")
    assert invoke("train", IRIS, "-o", model, "-q").exit_code == 0
    assert json.loads(model.read_text())["format"] == "dtree-model"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json"]


def test_train_with_target_and_drop(tmp_path):
    model = tmp_path / "m.json"
    result = invoke("train", EXAMPLES / "balanced" / "glass.csv", "--target", "Type",
                    "--drop", "Id", "-o", model)
    assert result.exit_code == 0, result.stderr
    doc = json.loads(model.read_text())
    assert doc["target"] == "Type" and "Id" not in [f["name"] for f in doc["features"]]
    assert len(doc["features"]) == 9


# --- predict ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def crx_model(tmp_path_factory):
    model = tmp_path_factory.mktemp("crx") / "crx.json"
    result = invoke("train", EXAMPLES / "crx.csv", "-o", model, "-q")
    assert result.exit_code == 0, result.stderr
    return model


def predictions(model, data, *options):
    result = invoke("predict", model, data, *options)
    assert result.exit_code == 0, result.stderr
    return read_csv(result.stdout)


def test_predict_matches_columns_by_name(tmp_path, crx_model):
    expected = predictions(crx_model, EXAMPLES / "crx.csv", "--proba")
    rows = read_csv((EXAMPLES / "crx.csv").read_text())
    names = [n for n in rows[0] if n != "class"]
    shuffled = list(reversed(names))
    path = tmp_path / "shuffled.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["extra", *shuffled])  # no class column, one extra column
        writer.writerows([["zzz", *(r[n] for n in shuffled)] for r in rows])
    assert predictions(crx_model, path, "--proba") == expected


def test_predict_handles_unseen_categories_like_missing_values(tmp_path, crx_model):
    rows = read_csv((EXAMPLES / "crx.csv").read_text())
    nominal = [f["name"] for f in json.loads(crx_model.read_text())["features"]
               if f["kind"] == "nominal"]

    def write(path, value):
        with path.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows([{**r, **{n: value for n in nominal}} for r in rows[:50]])

    write(tmp_path / "unseen.csv", "never-seen")
    write(tmp_path / "blank.csv", "")
    unseen = predictions(crx_model, tmp_path / "unseen.csv", "--proba")
    assert unseen == predictions(crx_model, tmp_path / "blank.csv", "--proba")
    assert len(unseen) == 50


def test_predict_output_file_and_proba_columns_follow_class_order(tmp_path):
    model = tmp_path / "m.json"
    assert invoke("train", EXAMPLES / "ecoli2.dat", "-o", model, "-q").exit_code == 0
    out = tmp_path / "p.csv"
    result = invoke("predict", model, EXAMPLES / "ecoli2.dat", "--proba", "-o", out)
    assert result.exit_code == 0 and result.stdout == ""
    classes = json.loads(model.read_text())["classes"]
    rows = read_csv(out.read_text())
    assert list(rows[0]) == ["prediction"] + [f"proba_{c}" for c in classes]
    assert len(rows) == 336


# --- help ------------------------------------------------------------------------------------

@pytest.mark.parametrize("command", sorted(cli.commands))
def test_every_command_help_shows_an_example(command):
    for flag in ("--help", "-h"):
        result = invoke(command, flag)
        assert result.exit_code == 0
        assert "Example" in result.stdout and f"dtree {command}" in result.stdout


def test_top_level_help_and_version():
    result = invoke("--help")
    assert result.exit_code == 0 and all(c in result.stdout for c in cli.commands)
    assert invoke("--version").stdout.startswith("dtree, version ")


def help_examples(command):
    """The example command lines of a command's --help (lines ending in a backslash
    joined to the next), without pipes or comments."""
    text = invoke(command, "--help").stdout
    block = text.split("Example", 1)[1].split("Options:", 1)[0]
    lines = []
    for line in (line.split("#")[0].strip() for line in block.splitlines()):
        if lines and lines[-1].endswith("\\"):
            lines[-1] = lines[-1][:-1] + line
        elif line.startswith("dtree "):
            lines.append(line)
    return [line for line in lines if "|" not in line]


def test_the_help_examples_of_the_tree_commands_run(tmp_path, monkeypatch):
    (tmp_path / "examples").symlink_to(EXAMPLES)
    monkeypatch.chdir(tmp_path)
    ran = 0
    for command in ("train", "predict", "export", "criteria"):
        for line in help_examples(command):
            args = shlex.split(line)[1:]
            result = invoke(*args)
            assert result.exit_code == 0, (line, result.stderr)
            ran += 1
    assert ran >= 6 and (tmp_path / "predictions.csv").exists()


def test_criteria_lists_the_registry_as_json():
    from dtcli.criteria import CRITERIA

    result = invoke("criteria", "-f", "json")
    assert result.exit_code == 0
    listed = json.loads(result.stdout)
    assert [c["name"] for c in listed] == list(CRITERIA)
    assert {"gini", "entropy", "gain-ratio"} <= {c["name"] for c in listed}


# --- bad input -------------------------------------------------------------------------------

KEEL_TEXT = ("@relation t\n@attribute x real [0.0, 1.0]\n@attribute class {a, b}\n"
             "@inputs x\n@outputs class\n@data\n0.5, a\nabc, b\n")
ARFF_TEXT = "@relation t\n@attribute x numeric\n@attribute class {a,b}\n@data\n0.5,a\nabc,b\n"

# name -> (file name, content, extra options, words the message must contain)
TRAIN_ERRORS = {
    "missing file": ("absent.csv", None, [], "absent.csv"),
    "empty file": ("empty.csv", "", [], "empty.csv"),
    "header only": ("header.csv", "a,b,class\n", [], "header.csv"),
    "ragged row": ("ragged.csv", "a,b,class\n1,2,x\n3,4\n5,6,y\n", [], "ragged.csv:3"),
    "text in a numeric KEEL attribute": ("t.dat", KEEL_TEXT, [], "t.dat:8"),
    "text in a numeric ARFF attribute": ("t.arff", ARFF_TEXT, [], "t.arff:6"),
    "fraction in a KEEL integer attribute": (
        "i.dat", "@relation t\n@attribute x integer [1, 9]\n@attribute c {a, b}\n@data\n"
        "1, a\n1.7, b\n", [], "i.dat:6"),
    "unknown target": ("ok.csv", "a,b,class\n1,2,x\n3,4,y\n", ["--target", "nope"], "nope"),
    "unknown drop": ("ok.csv", "a,b,class\n1,2,x\n3,4,y\n", ["--drop", "nope"], "nope"),
    "single-class target": ("one.csv", "a,b,class\n1,2,x\n3,4,x\n", [], "one class"),
    "infinite value": ("inf.csv", "a,b,class\n1,inf,x\n3,4,y\n", [], "inf.csv:2"),
    "duplicate column names": ("dup.csv", "a,a,class\n1,2,x\n3,4,y\n", [], "'a'"),
    "unknown criterion": ("ok.csv", "a,b,class\n1,2,x\n3,4,y\n", ["-c", "nope"], "nope"),
    "unknown criterion parameter": ("ok.csv", "a,b,class\n1,2,x\n3,4,y\n", ["-p", "q=1"], "q"),
    "bad --param value": ("ok.csv", "a,b,class\n1,2,x\n3,4,y\n", ["-p", "q=abc"], "--param"),
    "bad --param syntax": ("ok.csv", "a,b,class\n1,2,x\n3,4,y\n", ["-p", "q"], "--param"),
    "negative --max-depth": ("ok.csv", "a,b,class\n1,2,x\n3,4,y\n", ["--max-depth", "-1"],
                             "--max-depth"),
}

# Click's own usage errors print "Usage: ... Try ... Error: ..." (four lines)


def assert_one_line_error(result, words, exit_codes=(1, 2)):
    assert result.exit_code in exit_codes, (result.exit_code, result.stderr)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.stderr
    assert words in result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: "), result.stderr


@pytest.mark.parametrize("case", list(TRAIN_ERRORS))
def test_train_bad_input_is_one_line_and_leaves_no_file(tmp_path, case):
    file_name, content, options, words = TRAIN_ERRORS[case]
    data = tmp_path / file_name
    if content is not None:
        data.write_text(content)
    out = tmp_path / "out" / "model.json"
    out.parent.mkdir()
    result = invoke("train", data, *options, "-o", out)
    assert_one_line_error(result, words)
    assert list(out.parent.iterdir()) == []  # no model, no temporary file
    assert result.stdout == ""


@pytest.mark.parametrize("case, code", [("missing file", 1), ("unknown criterion", 2),
                                        ("single-class target", 1), ("ragged row", 1),
                                        ("unknown target", 2), ("unknown drop", 2)])
def test_exit_codes_separate_data_from_usage_errors(tmp_path, case, code):
    file_name, content, options, _ = TRAIN_ERRORS[case]
    if content is not None:
        (tmp_path / file_name).write_text(content)
    assert invoke("train", tmp_path / file_name, *options).exit_code == code


@pytest.fixture(scope="module")
def iris_model(tmp_path_factory):
    model = tmp_path_factory.mktemp("iris") / "iris.json"
    assert invoke("train", IRIS, "-o", model, "-q").exit_code == 0
    return model


def model_variant(tmp_path, iris_model, change):
    doc = json.loads(iris_model.read_text())
    change(doc)
    path = tmp_path / "variant.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("command", ["predict", "export"])
@pytest.mark.parametrize("kind", ["not json", "foreign json", "newer version", "damaged",
                                  "absent"])
def test_bad_model_files(tmp_path, iris_model, command, kind):
    if kind == "not json":
        path = tmp_path / "m.json"
        path.write_text("PK\x03\x04 a zip file maybe")
    elif kind == "foreign json":
        path = tmp_path / "m.json"
        path.write_text(json.dumps({"learner": {"gradient_booster": {}}}))
    elif kind == "newer version":
        path = model_variant(tmp_path, iris_model, lambda d: d.update(format_version=99))
    elif kind == "damaged":
        path = model_variant(tmp_path, iris_model,
                             lambda d: d["tree"]["children_left"].__setitem__(0, 0))
    else:
        path = tmp_path / "absent.json"
    args = [path, IRIS] if command == "predict" else [path]
    out = tmp_path / "out" / "result.txt"
    out.parent.mkdir()
    result = invoke(command, *args, "-o", out)
    assert_one_line_error(result, path.name, exit_codes=(1,))
    assert {"newer version": "newer", "not json": "not a dtree model",
            "foreign json": "not a dtree model", "damaged": "damaged",
            "absent": "no such"}[kind] in result.stderr
    assert list(out.parent.iterdir()) == []


def test_predict_with_a_missing_feature_column(tmp_path, iris_model):
    data = tmp_path / "partial.csv"
    data.write_text("a1,a2,a3,class\n5.1,3.5,1.4,x\n")
    out = tmp_path / "out" / "p.csv"
    out.parent.mkdir()
    result = invoke("predict", iris_model, data, "-o", out)
    assert_one_line_error(result, "'a4'", exit_codes=(1,))
    assert "partial.csv" in result.stderr
    assert list(out.parent.iterdir()) == []


def test_predict_with_text_in_a_numeric_feature(tmp_path, iris_model):
    data = tmp_path / "text.csv"
    data.write_text("a1,a2,a3,a4\n5.1,3.5,1.4,wide\n")
    assert_one_line_error(invoke("predict", iris_model, data), "a4", exit_codes=(1,))


def test_predict_without_the_target_column(tmp_path, iris_model):
    data = tmp_path / "new.csv"
    data.write_text("a4,a3,a2,a1\n0.2,1.4,3.5,5.1\n2.3,5.9,3.0,6.8\n")
    rows = predictions(iris_model, data)
    assert [r["prediction"] for r in rows] == ["Iris-setosa", "Iris-virginica"]


@pytest.mark.parametrize("command", ["train", "predict", "export"])
def test_output_into_a_missing_directory_is_a_one_line_error(tmp_path, iris_model, command):
    args = {"train": [IRIS], "predict": [iris_model, IRIS], "export": [iris_model]}[command]
    out = tmp_path / "no" / "such" / "dir" / "out.txt"
    result = invoke(command, *args, "-o", out)
    assert_one_line_error(result, str(out.parent), exit_codes=(1,))


def test_no_traceback_for_a_directory_as_data(tmp_path):
    result = invoke("train", tmp_path)
    assert result.exit_code != 0 and "Traceback" not in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)


NO_KERNEL = """
import sys
from click.testing import CliRunner
from dtcli.cli import cli
for args in ({calls}):
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, (args, result.output)
print('numba' in sys.modules, 'numpy' in sys.modules)
"""


def test_numba_is_not_imported_for_help():
    code = NO_KERNEL.format(calls="['--help'], ['train', '--help'], ['compare', '--help']")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60)
    assert result.stdout.split() == ["False", "False"], result.stdout + result.stderr


def test_commands_that_run_no_kernel_import_no_numba(iris_model, tmp_path):
    """Listing the criteria and loading, checking and exporting a model run no kernel:
    numba (half a second of start-up) stays out (issue 46 section 5)."""
    calls = [["criteria"], ["criteria", "tsallis"], ["export", str(iris_model)],
             ["export", str(iris_model), "-f", "json"],
             ["export", str(iris_model), "-f", "c", "-o", str(tmp_path / "tree.c")]]
    code = NO_KERNEL.format(calls=", ".join(map(repr, calls)))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60)
    assert result.stdout.split()[:1] == ["False"], result.stdout + result.stderr


def test_verbose_says_in_one_line_that_a_small_compare_stays_in_this_process(dtree_exe):
    """-j 2 asks for workers, but 3 folds of iris would not pay for starting them."""
    done = run(dtree_exe, "-v", "compare", IRIS, "--criteria", "gini,entropy", "--cv", "3",
               "-j", "2", "-f", "json")
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "in this process" in line]
    assert len(said) == 1 and said[0].startswith("dtree: 6 folds"), done.stderr
    quiet = run(dtree_exe, "compare", IRIS, "--criteria", "gini,entropy", "--cv", "3", "-j", "2",
                "-f", "json")
    assert "in this process" not in quiet.stderr


def test_predictions_equal_the_library(tmp_path, load_example, iris_model):
    from dtcli.model import load_model

    model, _ = load_model(str(iris_model))
    d = load_example("iris.csv")
    rows = predictions(iris_model, IRIS, "--proba")
    proba = np.array([[float(v) for k, v in r.items() if k.startswith("proba_")] for r in rows])
    np.testing.assert_allclose(proba, model.proba_from_matrix(d.X), atol=5e-7)


def _loaded_kernel_forms() -> int:
    """How many compiled forms the engine's dispatchers hold in this process."""
    import sys as _sys

    from numba.core.registry import CPUDispatcher

    seen, total = set(), 0
    for name, module in list(_sys.modules.items()):
        if not name.startswith(("dtcli.engine", "dtcli.criteria")):
            continue
        for value in vars(module).values():
            for each in value.values() if isinstance(value, dict) else (value,):
                if isinstance(each, CPUDispatcher) and id(each) not in seen:
                    seen.add(id(each))
                    total += len(each.signatures)
    return total


@pytest.mark.parametrize("example, criterion, class_weight", [
    ("iris.csv", "gini", None),
    # weights that are not whole numbers run other kernels than unweighted rows
    ("imbalanced/haberman.dat", "entropy", "balanced"),
])
def test_train_loads_its_kernels_before_the_fit_it_times(example, criterion, class_weight,
                                                          load_example):
    """What train times loads no kernel: load_kernels loaded them all before."""
    from dtcli.estimator import DecisionTreeClassifier
    from dtcli.experiments.training import load_kernels

    dataset = load_example(example)
    model = DecisionTreeClassifier(criterion=criterion, class_weight=class_weight)
    load_kernels(model, dataset)
    before = _loaded_kernel_forms()
    model.fit_dataset(dataset)
    assert _loaded_kernel_forms() == before
