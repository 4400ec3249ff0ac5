"""The hostile-input suite on the newer commands: tune, warm, train --model forest|fdf,
--leaf-model naive-bayes, and several runs writing one results file at once (issue 36,
item 5). Every mistake is one line with its exit code, and nothing is left behind or
overwritten. Damaged model files of every kind: test_model_damage.py; counts and
ignored options: test_option_bounds.py; the results file itself: test_results_file.py."""
import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from dtcli.cli import cli

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
IRIS = EXAMPLES / "iris.csv"

NEWER = {
    "forest": ["train", "--model", "forest", "--trees", "3"],
    "fdf": ["train", "--model", "fdf"],
    "naive-bayes leaves": ["train", "--leaf-model", "naive-bayes"],
    "tune": ["tune", "--criterion", "gini", "--grid", "max_depth=1,2", "--cv", "2"],
}


def invoke(command, data, *extra):
    """`command` (a NEWER entry) on `data`, its first word first."""
    return CliRunner().invoke(cli, [command[0], str(data), *command[1:],
                                    *[str(e) for e in extra]])


def one_line(result, code: int) -> str:
    assert result.exit_code == code, (result.exit_code, result.stderr, result.exception)
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    return result.stderr


def write(tmp_path, content: str, name: str = "data.csv") -> Path:
    path = tmp_path / name
    path.write_text(content)
    return path


@pytest.mark.parametrize("content, expected", [
    ("x,y\n1,p\n2,q\nNULL,p\n4,q\n", ":4: column 'x' holds 'NULL'"),
    ("x,y\n1,p\n2\x00,q\n", ":3: NUL byte (0x00) in the text"),
    ("x,y\n" + "".join(f"{i},{i / 7}\n" for i in range(40)), "regression data rather than classes"),
], ids=["stray text", "NUL byte", "regression target"])
@pytest.mark.parametrize("command", NEWER.values(), ids=NEWER.keys())
def test_bad_data_is_one_line_exit_1(tmp_path, command, content, expected):
    path = write(tmp_path, content)
    message = one_line(invoke(command, path), 1)
    assert message.startswith(f"Error: {path}") and expected in message
    assert [p.name for p in tmp_path.iterdir()] == ["data.csv"]


@pytest.mark.parametrize("command", NEWER.values(), ids=NEWER.keys())
def test_an_unknown_target_is_exit_2(tmp_path, command):
    path = write(tmp_path, "a,b,y\n1,2,p\n2,1,q\n")
    assert "--target 'klass': no such column" in one_line(invoke(command, path, "--target",
                                                                 "klass"), 2)


@pytest.mark.parametrize("command", NEWER.values(), ids=NEWER.keys())
def test_an_output_over_the_data_is_refused(tmp_path, command):
    data = tmp_path / "data.csv"
    data.write_bytes(IRIS.read_bytes())
    assert "refusing to overwrite an input" in one_line(invoke(command, data, "-o", data), 2)
    assert data.read_bytes() == IRIS.read_bytes()


def test_tune_refuses_results_over_its_data_and_a_file_that_is_not_a_results_file(tmp_path):
    data = tmp_path / "data.csv"
    data.write_bytes(IRIS.read_bytes())
    tune = NEWER["tune"]
    assert "refusing to overwrite an input" in one_line(invoke(tune, data, "--results", data), 2)
    foreign = tmp_path / "notes.jsonl"
    foreign.write_bytes(b"my notes\n\x00\x01\x02\n")
    assert "not a results file" in one_line(invoke(tune, data, "--results", foreign), 1)
    assert foreign.read_bytes() == b"my notes\n\x00\x01\x02\n"
    assert data.read_bytes() == IRIS.read_bytes()


@pytest.mark.parametrize("args, code, expected", [
    (["--criteria", "nope"], 2, "unknown criterion 'nope'"),
    (["--criteria", "tsallis:q=-1"], 2, "q"),
    (["--jobs", "0"], 2, "--jobs"),
], ids=["unknown criterion", "parameter out of range", "no cores"])
def test_warm_mistakes_are_one_line(args, code, expected):
    result = CliRunner().invoke(cli, ["warm", *args, "-q"])
    assert expected in one_line(result, code)


@pytest.mark.parametrize("args, expected", [
    (["--leaf-model", "naive-bayes", "--nb-min-samples", "0"], "--nb-min-samples"),
    (["--model", "forest", "--max-samples", "2"], "--max-samples needs bootstrap"),
    (["--model", "forest", "--max-features", "0"], "--max-features"),
    (["--model", "fdf", "--criterion", "entropy"], "--criterion does not apply to --model fdf"),
    (["--model", "forest", "--pruning", "ccp"], "--pruning applies to --model tree only"),
], ids=["nb min samples", "max samples unbootstrapped", "max features 0", "fdf criterion",
        "forest pruning"])
def test_model_options_out_of_place_are_exit_2(tmp_path, args, expected):
    if "--max-samples" in args:
        args = args + ["--no-bootstrap"]
    output = tmp_path / "m.json"
    result = CliRunner().invoke(cli, ["train", str(IRIS), *args, "-o", str(output)])
    assert expected in one_line(result, 2) and not output.exists()


@pytest.mark.parametrize("command", [NEWER["forest"], NEWER["fdf"],
                                     NEWER["naive-bayes leaves"]],
                         ids=["forest", "fdf", "naive-bayes leaves"])
def test_a_model_written_to_a_directory_is_one_line_and_leaves_nothing(tmp_path, command):
    folder = tmp_path / "out"
    folder.mkdir()
    assert str(folder) in one_line(invoke(command, IRIS, "-o", folder), 1)
    assert list(folder.iterdir()) == [] and [p.name for p in tmp_path.iterdir()] == ["out"]


def test_concurrent_compares_share_one_results_file(dtree_exe, tmp_path):
    """Two runs append to one file at once: every line whole, and a third run takes every
    fold from it."""
    results = tmp_path / "runs.jsonl"
    args = [str(dtree_exe), "compare", str(IRIS), "--criteria", "gini,entropy", "--cv", "4",
            "--repeats", "3", "-j", "1", "--results", str(results)]
    runs = [subprocess.Popen(args + ["-q"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            for _ in range(2)]
    for run in runs:
        assert run.wait(timeout=600) == 0, run.stderr.read()
        run.stderr.close()
    lines = results.read_text().splitlines()
    keys = {json.loads(line)["key"] for line in lines}  # every line whole JSON
    assert len(keys) == 2 * 4 * 3 and len(lines) >= len(keys)
    third = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert third.returncode == 0 and "24 fold(s) taken from" in third.stderr, third.stderr


def test_tune_cuts_off_a_damaged_last_line_and_names_its_copy(tmp_path):
    results = tmp_path / "runs.jsonl"
    tune = NEWER["tune"]
    assert invoke(tune, IRIS, "--results", results, "-q").exit_code == 0
    good = results.read_text()
    results.write_text(good + '{"key": "cut sh')
    again = invoke(tune, IRIS, "--results", results)
    assert again.exit_code == 0, again.stderr
    assert (f"{results}: removed its damaged last line {good.count(chr(10)) + 1} (an "
            f"interrupted write); the line is kept in {results}.damaged") in again.stderr
    assert results.read_text() == good
    assert (tmp_path / "runs.jsonl.damaged").read_text() == '{"key": "cut sh'
