"""Outputs never destroy anything, never land on an input, and every failure or signal is
one line with the right exit code (issue 24: outputs, signals, option mistakes, faults)."""
import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from dtcli.atomic import open_output, refuse_output_over_input
from dtcli.cli import cli
from dtcli.errors import DtreeError, ParameterError

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
IRIS = EXAMPLES / "iris.csv"

# A valid one-split model, written by hand: no training (and no numba) needed.
MODEL = {
    "format": "dtree-model", "format_version": 1, "dtree_version": "0",
    "features": [{"name": "x", "kind": "numeric", "categories": []}],
    "target": "class", "classes": ["a", "b"], "criterion": {"name": "gini", "params": {}},
    "options": {"max_depth": None, "min_samples_split": 2, "min_samples_leaf": 1,
                "min_gain": 0.0},
    "training": {"source": None, "n_samples": 3, "fit_seconds": 0.0},
    "tree": {"node_count": 3, "children_left": [1, -1, -1], "children_right": [2, -1, -1],
             "feature": [0, -2, -2], "threshold": [1.5, None, None],
             "missing_left": [True, False, False], "left_categories": [[], [], []],
             "value": [[1.0, 2.0], [1.0, 0.0], [0.0, 2.0]], "n_node_samples": [3, 1, 2],
             "score": [0.4, None, None]},
}


@pytest.fixture()
def model_file(tmp_path):
    path = tmp_path / "model.json"
    path.write_text(json.dumps(MODEL))
    return path


def dtree(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def one_line_error(result, code, text):
    assert result.exit_code == code, result.output
    assert result.stderr.count("\n") == 1 and text in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def no_temporary_files(directory: Path) -> bool:
    return not list(directory.glob(".dtree-*.tmp"))


# --- what -o writes to ------------------------------------------------------------------------

def test_a_regular_file_is_replaced_whole_and_keeps_its_mode(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("old and longer")
    path.chmod(0o640)
    with open_output(str(path)) as handle:
        handle.write("new")
    assert path.read_text() == "new" and stat.S_IMODE(path.stat().st_mode) == 0o640
    assert no_temporary_files(tmp_path)


def test_a_symlink_stays_and_its_target_is_replaced(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "out.txt"
    target.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    with open_output(str(link)) as handle:
        handle.write("new")
    assert link.is_symlink() and target.read_text() == "new"
    assert no_temporary_files(tmp_path) and no_temporary_files(tmp_path / "real")


def test_a_fifo_is_written_in_place(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    with open_output(str(fifo)) as handle:
        handle.write("through the pipe\n")
    reader.join(10)
    assert received == ["through the pipe\n"]
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # still a FIFO, not a regular file
    assert no_temporary_files(tmp_path)


def test_a_character_device_is_written_in_place():
    with open_output(os.devnull) as handle:
        handle.write("nothing\n")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_a_directory_is_one_error_and_stays_as_it_was(tmp_path):
    (tmp_path / "d").mkdir()
    with pytest.raises(DtreeError, match="it is a directory"):
        with open_output(str(tmp_path / "d")) as handle:
            handle.write("x")
    assert list((tmp_path / "d").iterdir()) == [] and no_temporary_files(tmp_path)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_a_full_device_is_one_error():
    with pytest.raises(DtreeError, match="/dev/full: cannot write.*No space left"):
        with open_output("/dev/full") as handle:
            handle.write("x" * 100_000)


def test_a_failed_write_leaves_neither_a_partial_file_nor_a_temporary_one(tmp_path):
    path = tmp_path / "out.txt"
    with pytest.raises(DtreeError, match="out.txt: cannot write"):
        with open_output(str(path)) as handle:
            handle.write("half")
            raise OSError(28, "No space left on device")
    assert not path.exists() and no_temporary_files(tmp_path)


# --- an output that is an input ---------------------------------------------------------------

@pytest.mark.parametrize("command", [
    lambda data, model: ["train", data, "-o", data],
    lambda data, model: ["predict", model, data, "-o", data],
    lambda data, model: ["predict", model, data, "-o", model],
    lambda data, model: ["export", model, "-o", model],
    lambda data, model: ["compare", data, data.parent / "copy.csv", "--results", data],
    lambda data, model: ["compare", data, data.parent / "copy.csv", "-o", data],
    lambda data, model: ["evaluate", data, "-o", data],
    lambda data, model: ["evaluate", model, data, "-o", model],
], ids=["train", "predict over data", "predict over model", "export", "compare --results",
        "compare -o", "evaluate over data", "evaluate over model"])
def test_an_output_over_an_input_is_refused(tmp_path, model_file, command):
    data = tmp_path / "data.csv"
    data.write_bytes(IRIS.read_bytes())
    (tmp_path / "copy.csv").write_bytes(IRIS.read_bytes())
    before = data.read_bytes(), model_file.read_bytes()
    one_line_error(dtree(*command(data, model_file)), 2, "refusing to overwrite an input")
    assert (data.read_bytes(), model_file.read_bytes()) == before


def test_the_same_file_by_another_name_is_refused(tmp_path):
    data = tmp_path / "data.csv"
    data.write_text("x\n")
    (tmp_path / "alias.csv").symlink_to(data)
    os.link(data, tmp_path / "hard.csv")
    for other in ("alias.csv", "hard.csv", "./data.csv"):
        with pytest.raises(ParameterError, match="is the training data"):
            refuse_output_over_input(str(tmp_path / other), "--output",
                                     {"training data": str(data)})
    refuse_output_over_input(str(tmp_path / "new.json"), "--output", {"data": str(data)})
    refuse_output_over_input("-", "--output", {"data": "-"})


# --- option mistakes, said before any work ----------------------------------------------------

def test_a_depth_beyond_any_integer_is_an_option_error(tmp_path):
    one_line_error(dtree("train", IRIS, "--max-depth", 10**30, "-o", tmp_path / "m.json"), 2,
                   "--max-depth")
    assert not (tmp_path / "m.json").exists()


def test_a_scheduler_that_is_not_an_address_is_an_option_error():
    one_line_error(dtree("compare", IRIS, EXAMPLES / "imbalanced" / "new-thyroid1.dat",
                         "--scheduler", "not a url"), 2, "not a scheduler address")


def test_a_cd_diagram_of_one_dataset_is_refused_before_cross_validating(tmp_path):
    results = tmp_path / "runs.jsonl"
    one_line_error(dtree("compare", IRIS, "--cd-diagram", tmp_path / "cd.svg", "--results",
                         results), 2, "--cd-diagram needs at least two datasets")
    assert not results.exists() and not (tmp_path / "cd.svg").exists()


# --- rich markup in what the user gave --------------------------------------------------------

def test_markup_in_labels_and_paths_is_printed_as_it_is(tmp_path):
    (tmp_path / "[").mkdir()
    data = tmp_path / "[" / "x]data.csv"  # the path holds "[/x]", a closing tag
    rows = [f"{i},{'[/x]' if i % 2 else 'plain'}" for i in range(40)] + ["99,[high]"] * 2
    data.write_text("v,label\n" + "\n".join(rows) + "\n")
    trained = dtree("train", data, "-o", tmp_path / "m.json")
    assert trained.exit_code == 0, trained.output
    assert f"on {data}, target column 'label':" in trained.stderr
    evaluated = dtree("evaluate", data, "--cv", 3)
    assert evaluated.exit_code == 0, evaluated.output
    assert "class '[high]' has 2 rows" in evaluated.stderr  # the warning keeps the label
    assert "Traceback" not in trained.stderr + evaluated.stderr


# --- real processes: stdout, signals ----------------------------------------------------------

def run_dtree(dtree_exe, *args, **kwargs):
    return subprocess.run([str(dtree_exe), *map(str, args)], capture_output=True, text=True,
                          timeout=120, **kwargs)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_stdout_on_a_full_device_is_one_line(dtree_exe, model_file):
    with open("/dev/full", "w") as full:
        result = subprocess.run([str(dtree_exe), "export", str(model_file), "-f", "rules"],
                                stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert result.returncode == 1
    assert result.stderr == "Error: cannot write the output (No space left on device)\n"


def test_an_output_to_a_pipe_path_is_written_in_place(dtree_exe, model_file):
    # `-o >(gzip > m.gz)`: the shell passes /dev/fd/N, a pipe
    read_end, write_end = os.pipe()
    result = subprocess.run([str(dtree_exe), "export", str(model_file), "-f", "rules", "-o",
                             f"/dev/fd/{write_end}"], pass_fds=[write_end],
                            capture_output=True, text=True, timeout=120)
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        written = pipe.read()
    assert result.returncode == 0, result.stderr
    assert written == ("if x <= 1.5 (or missing) then a  (coverage 1, confidence 100.0%)  [a: 1]\n"
                       "if x > 1.5 then b  (coverage 2, confidence 100.0%)  [b: 2]\n")


def test_a_signal_during_an_output_write_leaves_no_temporary_file(tmp_path):
    script = (
        "import os, signal, sys, time\n"
        "from dtcli.cli import stop_on_signals\n"
        "from dtcli.atomic import open_output\n"
        "stop_on_signals()\n"
        "try:\n"
        "    with open_output(sys.argv[1]) as handle:\n"
        "        handle.write('partial')\n"
        "        os.kill(os.getpid(), int(sys.argv[2]))\n"
        "        time.sleep(30)\n"
        "except KeyboardInterrupt as exc:\n"
        "    print(exc.signum)\n")
    for signum in (signal.SIGTERM, signal.SIGHUP):
        out = tmp_path / "out.json"
        result = subprocess.run([sys.executable, "-c", script, str(out), str(int(signum))],
                                capture_output=True, text=True, timeout=60)
        assert result.stdout.strip() == str(int(signum)), result.stderr
        assert not out.exists() and no_temporary_files(tmp_path)


def wait_for(condition, seconds=60.0):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_stop_like_ctrl_c(dtree_exe, tmp_path, signum):
    fifo = tmp_path / "data.csv"
    os.mkfifo(fifo)
    keep_open = os.open(fifo, os.O_RDWR)  # dtree's read then waits for data, not for a writer
    try:
        process = subprocess.Popen([str(dtree_exe), "train", str(fifo), "-o",
                                    str(tmp_path / "m.json")],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for(lambda: any(os.path.realpath(f"/proc/{process.pid}/fd/{fd}") == str(fifo)
                             for fd in os.listdir(f"/proc/{process.pid}/fd")))
        process.send_signal(signum)
        _, stderr = process.communicate(timeout=60)
    finally:
        os.close(keep_open)
    assert process.returncode == 128 + signum
    assert stderr == "interrupted\n"


def children(pid: int) -> set[int]:
    """The processes whose parent is `pid`, from each of its threads' lists."""
    found = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                found |= {int(p) for p in handle.read().split()}
        except FileNotFoundError:
            # the thread ended after the listing (dtree starts short-lived threads as its
            # pool starts); the kernel gives any child of it to another thread
            continue
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
def test_compare_workers_die_with_their_parent(dtree_exe, tmp_path, signum, monkeypatch):
    monkeypatch.setenv("DTREE_WORKER_START_SECONDS", "0")  # a second of folds: workers all the same
    rows = (f"{i % 97},{(i * 7) % 89},{(i * 13) % 83},{i % 2}" for i in range(40_000))
    text = "a,b,c,y\n" + "\n".join(rows) + "\n"
    (tmp_path / "one.csv").write_text(text)
    (tmp_path / "two.csv").write_text(text)
    # one criterion: the kernels it compiles before the workers start are few (a cold
    # cache compiles every criterion of the default list otherwise)
    process = subprocess.Popen([str(dtree_exe), "compare", str(tmp_path / "one.csv"),
                                str(tmp_path / "two.csv"), "--jobs", "2", "--criteria", "gini",
                                "--cv", "10", "--repeats", "5", "-q"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        workers = set()

        def started() -> bool:  # every child seen alive is one that must die with dtree
            workers.update(p for p in children(process.pid) if alive(p))
            return len(workers) >= 2

        wait_for(started)
        process.send_signal(signum)
        _, stderr = process.communicate(timeout=60)
        wait_for(lambda: not any(alive(p) for p in workers), seconds=20)
    finally:
        if process.poll() is None:
            process.kill()
    if signum == signal.SIGTERM:
        assert process.returncode == 128 + signum
        assert stderr.startswith("interrupted") and "Traceback" not in stderr


@pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="needs POSIX threads")
def test_a_stop_signal_waits_until_the_workers_have_started():
    # A worker whose parent stops writing its start-up data prints EOFError. Blocking the
    # signal in the main thread is not enough: another thread can take it (as pyarrow's or
    # numba's did, under load), and Python then runs the handler in the main thread.
    from dtcli.errors import Interrupted
    from dtcli.processes import _stop_signals_held

    def stop(signum, frame):
        raise Interrupted(signum)

    release = threading.Event()
    other = threading.Thread(target=release.wait)  # started before the hold: takes signals
    other.start()
    previous = signal.signal(signal.SIGTERM, stop)
    held = False
    try:
        with pytest.raises(Interrupted):
            with _stop_signals_held():
                signal.pthread_kill(other.ident, signal.SIGTERM)
                time.sleep(0.2)  # where the handler would interrupt
                held = True
        assert held
        assert signal.getsignal(signal.SIGTERM) is stop
    finally:
        signal.signal(signal.SIGTERM, previous)
        release.set()
        other.join()


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_ctrl_c_during_a_compare_keeps_what_it_says_it_kept(dtree_exe, tmp_path):
    """Ctrl-C (SIGINT to the terminal's whole process group) while workers fold: exit
    130, no worker left, and the count of saved folds it prints is the file's."""
    # small data: the kernels of small nodes, which other tests compile too
    rows = (f"{i % 97},{(i * 7) % 89},{(i * 13) % 83},{i % 2}" for i in range(2_000))
    (tmp_path / "one.csv").write_text("a,b,c,y\n" + "\n".join(rows) + "\n")
    results = tmp_path / "runs.jsonl"
    # dtree as a shell starts it: Ctrl-C neither ignored nor blocked, whatever earlier
    # tests in this process left of either (subprocesses inherit both)
    as_from_a_terminal = [sys.executable, "-c",
                          "import os, signal, sys; "
                          "print('inherited: SIGINT', signal.getsignal(signal.SIGINT), "
                          "signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, []), "
                          "file=sys.stderr); signal.signal(signal.SIGINT, signal.SIG_DFL); "
                          "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}); "
                          "os.execv(sys.argv[1], sys.argv[1:])"]
    process = subprocess.Popen([*as_from_a_terminal, str(dtree_exe), "compare",
                                str(tmp_path / "one.csv"),
                                "--criteria", "gini,entropy", "--jobs", "2", "--cv", "10",
                                # minutes of folds: the first are saved long before the end
                                "--repeats", "1000", "--results", str(results)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        workers = set()

        def folds_saved() -> bool:
            workers.update(p for p in children(process.pid) if alive(p))
            return results.exists() and results.read_text().count("\n") >= 1

        wait_for(folds_saved, seconds=180)  # an empty kernel cache compiles first
        os.killpg(process.pid, signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
        wait_for(lambda: not any(alive(p) for p in workers), seconds=20)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130 and "Traceback" not in stderr
    saved = results.read_text().count("\n")
    assert f"{saved} finished fold{'s' if saved != 1 else ''} of this run saved in " \
           f"{results}" in stderr
