"""Output in a pipe (issue 41, section 3): every table command ends quietly with exit 0 when
its reader stops early, and writes tables no wider than 80 columns (or COLUMNS) when
stdout is not a terminal, falling back to column groups or a list as on a terminal."""
import io
import os
import subprocess
from pathlib import Path

import pytest

from dtcli.reporting.tables import console, piped_width, print_table

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
IRIS = EXAMPLES / "iris.csv"
ECOLI = EXAMPLES / "imbalanced" / "ecoli-0-6-7_vs_5.dat"
THYROID = EXAMPLES / "imbalanced" / "new-thyroid1.dat"

# Each table command, small (criteria and forms other tests compile too: gini, entropy,
# tsallis; ihd's quick reproduction is test_reproduce's).
TABLE_COMMANDS = {
    "compare": ["compare", IRIS, ECOLI, "--criteria", "gini,entropy", "--cv", 2, "-j", 1],
    "imbalance sweep": ["compare", THYROID, ECOLI, "--criteria", "gini,entropy", "--cv", 3,
                        "--imbalance", "6,12", "-j", 1],
    "evaluate": ["evaluate", IRIS, "-c", "gini", "--cv", 2, "-j", 1],
    "evaluate, nested tuning": ["evaluate", IRIS, "-c", "tsallis", "-p", "q=auto", "--grid",
                                "q=0.5,2", "--cv", 2, "--inner-cv", 2, "-j", 1],
    "tune": ["tune", IRIS, "-c", "tsallis", "--grid", "q=0.5,2", "--cv", 2, "-j", 1],
    "reproduce": ["reproduce", "ihd", "--quick"],
    "pruning frontier": ["compare", THYROID, "--criteria", "gini", "--frontier", "--cv", 2,
                         "-j", 1],
}


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    return {**env, **extra}


def _run(dtree_exe, args, **env):
    return subprocess.run([str(dtree_exe), *map(str, args)], capture_output=True, text=True,
                          env=_env(**env), timeout=600)


def _widest(text: str) -> int:
    return max(len(line.rstrip()) for line in text.splitlines())


@pytest.mark.parametrize("name", TABLE_COMMANDS)
def test_a_table_command_in_a_pipe(dtree_exe, name):
    """Its output in a pipe fits 80 columns; a reader that has gone before the first line
    (the pipe closed) ends it with exit 0 and nothing on stderr but its warnings."""
    args = TABLE_COMMANDS[name]
    full = _run(dtree_exe, [*args, "-q"])
    assert full.returncode == 0, full.stderr
    assert _widest(full.stdout) <= 80, full.stdout
    process = subprocess.Popen([str(dtree_exe), *map(str, args), "-q"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=_env())
    process.stdout.close()  # the reader stops before dtree writes anything
    stderr = process.stderr.read()
    assert process.wait(timeout=600) == 0, stderr
    assert "Traceback" not in stderr and "Error" not in stderr, stderr


def test_head_1_gets_the_first_line_and_compare_exits_0(dtree_exe):
    args = " ".join(str(a) for a in TABLE_COMMANDS["compare"])
    result = subprocess.run(["bash", "-c", f"'{dtree_exe}' {args} -q | head -1; "
                                           "echo \"exit ${PIPESTATUS[0]}\""],
                            capture_output=True, text=True, env=_env(), timeout=600)
    first, status = result.stdout.splitlines()
    assert first.startswith("accuracy, mean over stratified 2-fold CV") and status == "exit 0"
    assert result.stderr.startswith("warning: with 2 datasets") and result.stderr.count("\n") == 1


def test_compare_honours_columns_and_warns_once_on_a_line_of_its_own(dtree_exe):
    result = _run(dtree_exe, TABLE_COMMANDS["compare"], COLUMNS="50")
    assert result.returncode == 0 and _widest(result.stdout) <= 50, result.stdout
    warning = "warning: with 2 datasets and 2 methods no outcome can be significant"
    lines = result.stderr.splitlines()
    assert result.stderr.count("warning:") == 1
    assert sum(line.startswith(warning) for line in lines) == 1, result.stderr


def test_a_table_too_wide_for_the_pipe_falls_back_as_on_a_terminal(monkeypatch):
    """Column groups repeating the first column, then, when one column beside it does not
    fit, a list of `name: cell` lines; no line wider than the console."""
    monkeypatch.delenv("COLUMNS", raising=False)
    header = ["dataset", *(f"method{i}" for i in range(12))]
    rows = [["iris", *(f"0.{i:04d}" for i in range(12))]]
    stream = io.StringIO()
    print_table(console(stream), header, rows, title="t")
    text = stream.getvalue()
    assert "columns 1-" in text and _widest(text) <= 80
    stream = io.StringIO()
    print_table(console(stream), ["dataset", "x" * 90], [["iris", "1"]], title="t")
    text = stream.getvalue()
    assert text.splitlines()[1] == "iris" and "x" * 70 in text and _widest(text) <= 80
    monkeypatch.setenv("COLUMNS", "120")
    assert piped_width() == 120
    monkeypatch.setenv("COLUMNS", "wide")
    assert piped_width() == 80


def test_a_keel_file_without_its_header_says_how_to_read_it(tmp_path, dtree_exe):
    data = tmp_path / "bare.dat"
    data.write_text("0.49,0.29,a\n0.5,0.3,b\n")
    result = _run(dtree_exe, ["train", data, "-o", tmp_path / "m.json"])
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert "--input-format csv --no-header" in result.stderr
