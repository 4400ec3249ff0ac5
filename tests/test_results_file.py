"""The --results file is never rewritten when it is not ours, a damaged last line is cut
off and kept, and each line is appended whole or not at all, by one writer or several
(issue 36, items 1 and 2). Records are made by hand: no tree is grown here."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from dtcli.crossval.appendfile import AppendFile
from dtcli.cli import cli
from dtcli.errors import DtreeError
from dtcli.reporting.report import METRICS
from dtcli.crossval.results import ResultStore

IRIS = Path(__file__).resolve().parent.parent / "examples" / "iris.csv"


def record(key: str) -> dict:
    """A result a task can produce: accuracy 3/4 from its confusion matrix."""
    metrics = {name: 0.0 for name in METRICS} | {"accuracy": 0.75, "auc": 0.5}
    return {"metrics": metrics, "confusion_matrix": [[2, 1], [0, 1]]}


def line(key: str) -> str:
    return json.dumps({"key": key, **record(key)})


@pytest.fixture()
def three(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(line(k) + "\n" for k in "abc"))
    return path


@pytest.mark.parametrize("content", [
    bytes(range(256)) * 3,
    b"id,value\n1,2\n3,4\n",
    b'{"not": "a result"}\n[1, 2]\n',
], ids=["binary", "csv", "other json"])
def test_a_file_with_no_results_line_is_refused_untouched(tmp_path, content):
    path = tmp_path / "binary.jsonl"
    path.write_bytes(content)
    with pytest.raises(DtreeError, match=r"binary.jsonl: not a results file .* left untouched"):
        ResultStore(str(path))
    assert path.read_bytes() == content
    assert list(tmp_path.iterdir()) == [path]


def test_compare_refuses_it_in_one_line_and_writes_nothing(tmp_path):
    path = tmp_path / "binary.jsonl"
    content = bytes(range(256)) * 4
    path.write_bytes(content)
    result = CliRunner().invoke(cli, ["compare", str(IRIS), "--criteria", "gini,entropy",
                                      "--cv", "2", "--results", str(path)])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "not a results file" in result.stderr
    assert path.read_bytes() == content and list(tmp_path.iterdir()) == [path]


@pytest.mark.parametrize("damaged", [1, 2], ids=["first line", "middle line"])
def test_damage_before_the_last_line_is_refused_untouched(three, damaged):
    lines = three.read_text().splitlines()
    lines[damaged - 1] = lines[damaged - 1].replace('"accuracy": 0.75', '"accuracy": 0.5')
    text = "\n".join(lines) + "\n"
    three.write_text(text)
    with pytest.raises(DtreeError, match=rf"line {damaged} is damaged and is not the last"):
        ResultStore(str(three))
    assert three.read_text() == text and not list(three.parent.glob("*.damaged*"))


@pytest.mark.parametrize("metric", ["fit_seconds", "predict_seconds", "n_nodes"])
def test_a_value_whose_square_overflows_is_damage(three, metric):
    """1e308 seconds (or nodes) is no fold's: the line is refused as damaged when read,
    never an OverflowError from the standard deviation over folds (issue 41)."""
    lines = three.read_text().splitlines()
    lines[1] = lines[1].replace(f'"{metric}": 0.0', f'"{metric}": 1e308')
    three.write_text("\n".join(lines) + "\n")
    with pytest.raises(DtreeError, match=r"line 2 is damaged and is not the last"):
        ResultStore(str(three))


def test_two_damaged_lines_at_the_end_are_refused(three):
    text = three.read_text() + "garbage\nmore garbage\n"
    three.write_text(text)
    with pytest.raises(DtreeError, match="line 4 is damaged"):
        ResultStore(str(three))
    assert three.read_text() == text


@pytest.mark.parametrize("tail, number", [
    (b'{"key": "d", "metr', 4), (b'{"key": "\xff\xfe\n', 4), (b"\n\n  junk \n\n", 6)],
    ids=["cut short", "not utf-8", "junk and blank lines"])
def test_a_damaged_last_line_is_cut_off_and_kept_in_a_copy(three, tail, number):
    good = three.read_bytes()
    three.write_bytes(good + tail)
    store = ResultStore(str(three))
    assert sorted(store.cells) == ["a", "b", "c"]
    copy = Path(f"{three}.damaged")
    assert three.read_bytes() == good and copy.read_bytes() == tail
    assert store.repair_note() == (f"{three}: removed its damaged last line {number} (an "
                                   f"interrupted write); the line is kept in {copy}")
    assert ResultStore(str(three)).repaired is None  # said once


def test_a_second_repair_never_overwrites_the_first_copy(three):
    good = three.read_bytes()
    for n, tail in enumerate([b"first half", b"second half"]):
        three.write_bytes(good + tail)
        assert ResultStore(str(three)).repaired[1].endswith(".damaged" if n == 0 else ".damaged.2")
    assert Path(f"{three}.damaged").read_bytes() == b"first half"
    assert Path(f"{three}.damaged.2").read_bytes() == b"second half"


def test_a_good_last_line_without_its_newline_gets_one_before_the_next(three):
    three.write_text(three.read_text().rstrip("\n"))
    store = ResultStore(str(three))
    store.add("d", record("d"))
    store.close()
    assert [json.loads(x)["key"] for x in three.read_text().splitlines()] == list("abcd")


def test_a_failed_write_leaves_no_half_line(three, monkeypatch):
    """A write that stops part way (a full disk) is undone: the file ends as it began."""
    good = three.read_bytes()
    real_write = os.write
    calls = []

    def full_disk(fd, data):
        calls.append(len(data))
        if len(calls) == 1:
            return real_write(fd, bytes(data[:10]))
        raise OSError(28, "No space left on device")

    store = ResultStore(str(three))
    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(DtreeError, match=r"No space left on device\); the folds written before"):
        store.add("d", record("d"))
    monkeypatch.undo()
    store.close()
    assert three.read_bytes() == good and calls[0] > 10


def test_a_file_size_limit_leaves_the_file_valid(three):
    """RLIMIT_FSIZE makes the kernel stop the write part way, as a full disk does."""
    good = three.read_bytes()
    script = textwrap.dedent(f"""
        import resource, signal, sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from test_results_file import record
        from dtcli.errors import DtreeError
        from dtcli.crossval.results import ResultStore
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        store = ResultStore({str(three)!r})
        resource.setrlimit(resource.RLIMIT_FSIZE, ({len(good) + 40}, resource.RLIM_INFINITY))
        try:
            store.add("d", record("d"))
        except DtreeError as exc:
            print(exc)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60)
    assert "cannot write the results file (File too large)" in done.stdout, done.stderr
    assert three.read_bytes() == good


def test_concurrent_writers_keep_every_line_whole(tmp_path):
    """Four processes append 200 lines each to one file: 800 whole lines, none lost."""
    path = tmp_path / "runs.jsonl"
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from test_results_file import record
        from dtcli.crossval.results import ResultStore
        store = ResultStore({str(path)!r})
        for i in range(200):
            store.add(f"{{sys.argv[1]}}-{{i}}", record(""), padding="x" * 5000)
        store.close()
    """)
    writers = [subprocess.Popen([sys.executable, "-c", script, str(w)]) for w in range(4)]
    assert [w.wait(timeout=120) for w in writers] == [0] * 4
    store = ResultStore(str(path))
    assert store.repaired is None and len(store.cells) == 800
    assert path.read_text().count("\n") == 800


def test_a_directory_is_refused():
    with pytest.raises(DtreeError, match="must be a regular file"):
        AppendFile(str(Path(__file__).parent), "results file").read(json.loads)
