"""The command line as scikit-learn, Weka and rpart users expect it (issue 25): citations,
consistent option names, pipelines, what `train` shows on a terminal, the quick start.

In-process with click's CliRunner (stdout and stderr kept apart), except where a real
pipe or terminal is the point.
"""
from __future__ import annotations

import csv
import io
import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from dtcli.cli import cli
from dtcli.criteria import CRITERIA

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
IRIS = EXAMPLES / "iris.csv"
TABLE3 = ROOT / "docs" / "reference" / "ihd_table3_accuracy_balanced.csv"
# KEEL, with the class as the last attribute: x <= 2 is class a.
TINY_KEEL = ("@relation tiny\n@attribute x real [0.0, 9.0]\n@attribute class {a, b}\n"
             "@inputs x\n@outputs class\n@data\n1, a\n2, a\n3, b\n4, b\n")


def invoke(*args, stdin=None):
    return CliRunner().invoke(cli, [str(a) for a in args], input=stdin)


# --- dtree criteria cites papers, not file names -----------------------------------------------

# criterion -> what its citation must say: first author, venue and year, equation
CITATIONS = {
    "gini": ("Breiman", "1984", "IJCAI 2019, eq. (1), (3)"),
    "entropy": ("Quinlan", "1986", "IJCAI 2019, eq. (1)-(2)"),
    "tsallis": ("Wang", "ICASSP 2017", "eq. (1), (5)"),
    "pe": ("Stamate", "AIAI 2018", "eq. (5)"),
    "abi": ("Stamate", "AIAI 2018", "eq. (10)"),
    "hddt": ("Akash", "IJCAI 2019", "eq. (7)"),
    "ihdw": ("Akash", "IJCAI 2019", "eq. (15)-(16)"),
}


def test_criteria_cite_authors_venues_years_and_equations():
    table = invoke("criteria")
    assert table.exit_code == 0, table.stderr
    rows = {line.split()[0]: line for line in table.stdout.splitlines()[1:] if line[:1].strip()}
    for name, pieces in CITATIONS.items():
        assert f"{pieces[0]} " in rows[name], name  # the table's paper: first author and year
        entry = invoke("criteria", name)
        assert entry.exit_code == 0, entry.stderr
        assert ".txt" not in entry.stdout  # no file names of papers that do not ship
        text = " ".join(entry.stdout.split())  # the entry's lines wrap at 80 columns
        for piece in pieces:
            assert piece in text, (name, piece)


# --- one meaning per option name --------------------------------------------------------------

def options_of(command):
    """{flag: click option} of a command, every spelling of every option."""
    return {flag: param for param in cli.commands[command].params
            for flag in (*param.opts, *param.secondary_opts)}


@pytest.mark.parametrize("command", sorted(cli.commands))
def test_every_option_name_means_one_thing(command):
    options = options_of(command)
    assert options["-q"].name == "quiet"  # every command takes -q
    if command != "warm":  # warm writes no data, only the kernel cache
        assert options["-o"].name == "output" and options["-o"].metavar == "FILE"
    else:
        assert "-o" not in options
    if "-f" in options:
        assert options["-f"].name == "output_format" and "--output-format" in options["-f"].opts
    if "-j" in options:
        assert options["-j"].name == "jobs" and options["-j"].help.startswith("CPU cores to use")
    if "--input-format" in options:
        assert options["--input-format"].name == "data_format"
        assert "deprecated" in options["--input-format"].help
    if "--format" in options:  # the old name, kept where it meant one thing
        assert options["--format"] is options["--input-format" if command != "export" else "-f"]


def test_the_option_names_are_explained_in_the_top_level_help():
    text = invoke("--help").stdout
    for flag in ("-o, --output FILE", "-f, --output-format", "--input-format", "-j, --jobs N",
                 "-q, --quiet"):
        assert flag in text


@pytest.mark.parametrize("args", [["criteria", "-o", "json"],
                                  ["evaluate", IRIS, "-o", "json"],
                                  ["compare", "--table", TABLE3, "-o", "markdown"]])
def test_an_output_format_given_to_o_is_refused_with_the_new_spelling(tmp_path, monkeypatch,
                                                                      args):
    monkeypatch.chdir(tmp_path)
    result = invoke(*args)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and f"-f {args[-1]}" in result.stderr
    assert list(tmp_path.iterdir()) == []  # no file named "json"


def test_o_writes_a_report_to_a_file_and_f_chooses_its_format(tmp_path):
    out = tmp_path / "table3.csv"
    to_file = invoke("compare", "--table", TABLE3, "-f", "csv", "-o", out)
    assert to_file.exit_code == 0 and to_file.stdout == ""
    to_stdout = invoke("compare", "--table", TABLE3, "--output-format", "csv")
    assert out.read_text() == to_stdout.stdout
    with TABLE3.open(newline="") as handle:
        expected = [row[0] for row in csv.reader(handle)][1:]
    assert [row[0] for row in csv.reader(io.StringIO(out.read_text()))][1:] == expected

    criteria_file = tmp_path / "criteria.json"
    assert invoke("criteria", "-f", "json", "-o", criteria_file).exit_code == 0
    assert [c["name"] for c in json.loads(criteria_file.read_text())] == list(CRITERIA)


@pytest.mark.parametrize("command", ["train", "evaluate"])
def test_a_repeated_param_is_an_error(tmp_path, command):
    result = invoke(command, IRIS, "-c", "tsallis", "-p", "q=1", "--param", "q=3",
                    "-o", tmp_path / "out")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert "--param" in result.stderr and "q is given twice" in result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("spelling", ["--input-format", "--format"])
def test_input_format_and_its_deprecated_name_read_stdin_as_keel(spelling):
    result = invoke("train", "-", spelling, "keel", "--max-depth", "1", stdin=TINY_KEEL)
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["target"] == "class" and [f["name"] for f in doc["features"]] == ["x"]


# --- pipelines --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def iris_model(tmp_path_factory):
    model = tmp_path_factory.mktemp("iris") / "iris.json"
    assert invoke("train", IRIS, "-o", model, "-q").exit_code == 0
    return model


def iris_rows() -> list[list[str]]:
    with IRIS.open(newline="") as handle:
        return list(csv.reader(handle))


def test_predict_into_a_closed_pipe_exits_0_silently(dtree_exe, iris_model, tmp_path):
    data = tmp_path / "big.csv"
    header, *rows = iris_rows()
    with data.open("w", newline="") as handle:
        csv.writer(handle).writerows([header] + rows * 400)  # far more than a pipe holds
    process = subprocess.Popen([str(dtree_exe), "predict", str(iris_model), str(data)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout.readline() == b"prediction\n"
    process.stdout.close()  # as `| head -1` does
    assert process.wait(timeout=120) == 0
    assert process.stderr.read() == b""


def test_predict_no_header_matches_columns_by_position(tmp_path, iris_model):
    header, *rows = iris_rows()
    features = [f["name"] for f in json.loads(iris_model.read_text())["features"]]
    order = [header.index(name) for name in features] + [header.index("class")]
    data = tmp_path / "no-header.csv"
    with data.open("w", newline="") as handle:
        csv.writer(handle).writerows([[row[i] for i in order] for row in rows])
    result = invoke("predict", iris_model, data, "--no-header")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == ["prediction"] + [row[-1] for row in rows]


def test_predict_keeps_an_input_column_and_can_leave_out_the_header(iris_model):
    header, *rows = iris_rows()
    with_header = invoke("predict", iris_model, IRIS, "--keep", "a1", "--proba")
    assert with_header.exit_code == 0, with_header.stderr
    lines = list(csv.reader(io.StringIO(with_header.stdout)))
    classes = json.loads(iris_model.read_text())["classes"]
    assert lines[0] == ["a1", "prediction"] + [f"proba_{c}" for c in classes]
    at = header.index("a1")
    assert [float(line[0]) for line in lines[1:]] == [float(row[at]) for row in rows]
    assert [line[1] for line in lines[1:]] == [row[-1] for row in rows]

    bare = invoke("predict", iris_model, IRIS, "--keep", "a1", "--proba",
                  "--no-output-header")
    assert bare.exit_code == 0 and list(csv.reader(io.StringIO(bare.stdout))) == lines[1:]


def test_predict_keeps_several_columns_in_the_order_given(iris_model):
    header, *rows = iris_rows()
    result = invoke("predict", iris_model, IRIS, "--keep", "class", "--keep", "a3")
    assert result.exit_code == 0, result.stderr
    lines = list(csv.reader(io.StringIO(result.stdout)))
    assert lines[0] == ["class", "a3", "prediction"]
    at = header.index("a3")
    assert [(line[0], float(line[1])) for line in lines[1:]] == [(row[-1], float(row[at]))
                                                                for row in rows]


def test_predict_keep_of_an_unknown_column_is_an_option_error(iris_model):
    result = invoke("predict", iris_model, IRIS, "--keep", "nope")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "--keep 'nope'" in result.stderr


@pytest.mark.parametrize("command", ["predict", "train", "evaluate"])
def test_keel_on_stdin_read_as_csv_says_to_give_the_input_format(iris_model, command):
    args = {"predict": ["predict", iris_model, "-"], "train": ["train", "-"],
            "evaluate": ["evaluate", "-"]}[command]
    stdin = TINY_KEEL if command != "evaluate" else "% an ARFF comment\n\n" + TINY_KEEL
    result = invoke(*args, stdin=stdin)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert "@relation" in result.stderr and "--input-format keel" in result.stderr


# --- train without -o: the tree on a terminal, JSON in a pipe; the summary ---------------------

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def run_on_a_terminal(*args) -> tuple[str, str, int]:
    """Run dtree with stdout on a pseudo-terminal; (stdout without colours, stderr, code)."""
    import pty

    master, slave = pty.openpty()
    process = subprocess.Popen([*map(str, args)], stdout=slave, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # Linux: EIO once the process has closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    code = process.wait(timeout=120)
    return ANSI.sub("", out.decode()), process.stderr.read().decode(), code


def test_train_on_a_terminal_shows_the_tree_and_how_to_save_it(dtree_exe, tmp_path):
    saved = tmp_path / "iris.json"
    assert invoke("train", IRIS, "-o", saved, "-q").exit_code == 0
    tree = json.loads(saved.read_text())["tree"]

    shown, talk, code = run_on_a_terminal(dtree_exe, "train", IRIS)
    assert code == 0, talk
    lines = shown.strip().splitlines()
    assert lines[0] == f"gini tree for class: {tree['node_count']} nodes"
    assert not shown.lstrip().startswith("{")  # no JSON
    # every node is either drawn (with its non-zero class counts, one bracket, which the
    # terminal's width may wrap onto a line of its own) or counted under a cut branch
    drawn = shown.count("[Iris-")
    hidden = sum(int(m) for m in re.findall(r"\.\.\. (\d+) more nodes", shown))
    assert drawn + hidden == tree["node_count"] and drawn < tree["node_count"]
    assert "target column 'class'" in talk and "-o MODEL.json" in talk
    assert list(tmp_path.iterdir()) == [saved]


def test_train_summary_names_the_target_column(tmp_path):
    result = invoke("train", EXAMPLES / "balanced" / "glass.csv", "--target", "Type",
                    "--drop", "Id", "-o", tmp_path / "m.json")
    assert result.exit_code == 0, result.stderr
    assert "target column 'Type'" in result.stderr
    assert "row identifier" not in result.stderr


def test_train_warns_about_a_column_that_looks_like_a_row_identifier(tmp_path):
    with (EXAMPLES / "balanced" / "glass.csv").open(newline="") as handle:
        ids = [row["Id"] for row in csv.DictReader(handle)]
    assert len(set(ids)) == len(ids) and all(i.isdigit() for i in ids)  # what makes it one
    result = invoke("train", EXAMPLES / "balanced" / "glass.csv", "--target", "Type",
                    "-o", tmp_path / "m.json")
    assert result.exit_code == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "row identifier" in line]
    assert len(warnings) == 1 and "'Id'" in warnings[0] and "--drop Id" in warnings[0]


def test_row_identifier_warning_for_text_but_not_for_measurements(tmp_path):
    data = tmp_path / "people.csv"
    rows = [[f"person{i}", f"{i + 0.5}", f"{i % 3}", "yes" if i % 2 else "no"]
            for i in range(30)]
    with data.open("w", newline="") as handle:
        csv.writer(handle).writerows([["name", "height", "group", "label"], *rows])
    result = invoke("train", data, "-o", tmp_path / "m.json")
    assert result.exit_code == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "row identifier" in line]
    assert len(warnings) == 1 and "'name'" in warnings[0]  # height has fractions, group repeats
    assert f"{data}: column 'name'" in warnings[0]


GLASS = EXAMPLES / "balanced" / "glass.csv"


def test_evaluate_warns_once_about_a_row_identifier_naming_the_file():
    result = invoke("evaluate", GLASS, "--target", "Type", "--cv", 3, "-j", 1, "-q")
    assert result.exit_code == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "row identifier" in line]
    assert warnings == [f"warning: {GLASS}: column 'Id' looks like a row identifier (a "
                        "different whole number in every row); drop it with --drop Id unless "
                        "it means something"]
    dropped = invoke("evaluate", GLASS, "--target", "Type", "--drop", "Id", "--cv", 3, "-j", 1)
    assert dropped.exit_code == 0 and "row identifier" not in dropped.stderr


def test_compare_warns_once_per_file_about_a_row_identifier(tmp_path):
    other = tmp_path / "glass2.csv"
    other.write_bytes(GLASS.read_bytes())
    result = invoke("compare", GLASS, other, "--target", "Type", "--cv", 3, "-j", 1, "-q",
                    "--criteria", "gini,entropy")
    assert result.exit_code == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "row identifier" in line]
    assert len(warnings) == 2
    assert f"{GLASS}: column 'Id'" in warnings[0] and f"{other}: column 'Id'" in warnings[1]


# --- the README's quick start -----------------------------------------------------------------

README = (ROOT / "README.md").read_text()


def shell_blocks(text: str) -> list[str]:
    return re.findall(r"```sh\n(.*?)```", text, flags=re.S)


def test_quick_start_is_one_command_that_writes_only_into_an_ignored_directory(tmp_path,
                                                                              monkeypatch):
    quick_start = README.split("## Quick start", 1)[1]
    command = shell_blocks(quick_start)[0].strip()
    assert "\n" not in command
    steps = command.split(" && ")
    assert steps[:2] == ["python3 -m venv .venv", ".venv/bin/pip install -e ."]
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    (tmp_path / "examples").symlink_to(EXAMPLES)
    monkeypatch.chdir(tmp_path)
    for step in steps[2:]:  # the steps after the installation, here
        words = shlex.split(step)
        if words[:2] == ["mkdir", "-p"]:
            assert f"/{words[2]}/" in ignored
            Path(words[2]).mkdir()
            continue
        assert words[0] == ".venv/bin/dtree"
        result = invoke(*words[1:])
        assert result.exit_code == 0, (step, result.stderr)
    assert "Iris-setosa" in result.stdout  # the last step shows the tree
    assert [p.name for p in tmp_path.iterdir() if p.name != "examples"] == ["out"]
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["iris.json"]
    assert ". .venv/bin/activate" in quick_start.split("## ", 1)[0]


def test_readme_examples_write_into_the_ignored_directory():
    lines = [line for block in shell_blocks(README) for line in block.splitlines()
             if line.lstrip().startswith(("dtree ", "--")) and "[" not in line]
    targets = [words[i + 1] for words in map(shlex.split, (line.rstrip("\\") for line in lines))
               for i, word in enumerate(words[:-1])
               if word in ("-o", "--cd-diagram")]
    assert len(targets) >= 4 and all(t.startswith("out/") for t in targets), targets


def test_readme_test_command_is_what_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text()
    command = shell_blocks(README.split("Run the tests", 1)[1])[0].strip()
    assert command == ('python3 -m venv .venv && .venv/bin/pip install -e ".[test]" && '
                       ".venv/bin/python -m pytest -q -n auto")
    for step in ("python3 -m venv .venv", '.venv/bin/pip install --quiet -e ".[test]"',
                 ".venv/bin/python -m pytest -q -n auto"):
        assert step in ci


@pytest.mark.parametrize("command", ["train", "evaluate", "compare", "tune", "sweep", "frontier"])
def test_help_lists_every_option_once_under_a_heading(command):
    from dtcli.cli import cli

    result = invoke(command, "--help")
    assert result.exit_code == 0
    shown, heading, headings = [], None, []
    for line in result.stdout.splitlines():
        if line.endswith(":") and not line.startswith(" "):
            heading = line
            headings.append(line)
        elif line.startswith("  -") and heading is not None:
            flags_column = line.strip().split("  ")[0]  # flags, then two spaces, then help
            shown += re.findall(r"(?<![\w-])--?[A-Za-z][\w-]*", flags_column)
    assert len(headings) >= 4 and len(headings) == len(set(headings))
    for param in cli.commands[command].params:
        if param.param_type_name == "option":  # compare's old spellings are hidden
            assert shown.count(max(param.opts, key=len)) == (0 if param.hidden else 1), param.name
