"""How compiling and a run's folds show their progress: a line per compiled part in a log
or pipe, and in a notebook one line of output updated in place (stderr there reads as
an error), on a terminal a row of the run's own bar (jit/notice.py)."""
from __future__ import annotations

import io
import sys
import types

import pytest

from dtcli.jit import notice


@pytest.fixture
def notices_on(monkeypatch):
    monkeypatch.setenv("DTREE_COMPILE_NOTICE", "1")


def test_compiling_in_a_pipe_is_a_line_first_then_one_per_part(notices_on, monkeypatch, capsys):
    with notice.compile_progress(3, "the engine", "/cache") as step:
        first = capsys.readouterr().err  # said before anything compiles
        for part in ("drivers", "search-a", "search-b"):
            step(part)
    lines = capsys.readouterr().err.splitlines()
    assert first.startswith("dtree: compiling the engine") and "3 parts" in first
    assert [line.split(" (")[0] for line in lines] == [
        "dtree: compiled 1/3", "dtree: compiled 2/3", "dtree: compiled 3/3"]
    assert "search-b" in lines[-1]


def test_quiet_says_nothing(monkeypatch, capsys):
    monkeypatch.setenv("DTREE_COMPILE_NOTICE", "0")
    with notice.compile_progress(2, "the engine", "/cache") as step:
        step("drivers")
    assert capsys.readouterr() == ("", "")


class _Handle:
    def __init__(self, shown: list):
        self.shown = shown

    def update(self, content) -> None:
        self.shown.append(content.data)


@pytest.fixture
def notebook(monkeypatch):
    """A stand-in Jupyter kernel: an IPython whose shell is a ZMQInteractiveShell, and a
    display that records what it shows."""
    shown: list = []
    shell = type("ZMQInteractiveShell", (), {})()
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: shell
    display = types.ModuleType("IPython.display")
    display.HTML = lambda data: types.SimpleNamespace(data=data)

    def show(content, display_id=False):
        shown.append(content.data)
        return _Handle(shown)

    display.display = show
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "IPython.display", display)
    return shown


def test_in_a_notebook_compiling_updates_one_output_line_not_stderr(notices_on, notebook,
                                                                     capsys):
    with notice.compile_progress(2, "the engine", "/cache") as step:
        step("drivers")
        step("search")
    out, err = capsys.readouterr()
    assert err == "" and out.startswith("dtree: compiling the engine")
    assert "<progress value='2' max='2'>" in notebook[-1] and "2/2 parts" in notebook[-1]


def test_in_a_notebook_the_folds_progress_is_an_output_line(notebook, capsys):
    from dtcli.reporting.report import progress_bar

    with progress_bar("cross-validating", enabled=True) as update:
        update(3, 10)
    assert capsys.readouterr().err == ""
    assert "cross-validating: 3/10" in notebook[-1]


def test_on_a_terminal_compiling_is_a_row_of_the_live_bar(notices_on, monkeypatch):
    from rich.console import Console
    from rich.progress import Progress

    monkeypatch.setattr(sys, "stderr", type("Tty", (io.StringIO,), {"isatty": lambda s: True})())
    with Progress(console=Console(file=io.StringIO())) as bar, notice.sharing(bar):
        with notice.compile_progress(2, "the engine", "/cache") as step:
            step("drivers")
            (row,) = [task for task in bar.tasks if task.description.startswith("compiling")]
            assert (row.completed, row.total) == (1, 2)
        assert not [task for task in bar.tasks if task.description.startswith("compiling")]
