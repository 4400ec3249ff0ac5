"""What an experiment says while it runs, on stderr: warnings (always), notes and a
progress bar (unless quiet), and on Ctrl-C which finished folds were kept."""
from __future__ import annotations

from collections.abc import Callable


def stderr_console():
    """Where talk and progress go; rich is imported only when something is said."""
    from dtcli.reporting.tables import console_class

    # markup off: file names and class labels such as "[high]" or "[/x]" are printed as they are
    return console_class()(stderr=True, highlight=False, soft_wrap=True, markup=False)


class Notes:
    """Talk of one experiment; `quiet` silences notes and progress, not warnings."""

    def __init__(self, quiet: bool = False):
        self.quiet = quiet

    def warn(self, lines) -> None:
        console = stderr_console()
        for line in lines:
            console.print(f"warning: {line}", style="yellow")

    def say(self, line: str) -> None:
        if not self.quiet:
            stderr_console().print(line)

    def run(self, description: str, call: Callable, kept: Callable[[], str]):
        """call(progress=) under a progress bar; on Ctrl-C (SIGTERM, SIGHUP), one line
        'interrupted; ' + kept(), then the interruption goes on."""
        from dtcli.errors import signals_as_interrupts
        from dtcli.reporting.report import progress_bar

        try:
            with signals_as_interrupts(), progress_bar(description,
                                                       enabled=not self.quiet) as progress:
                return call(progress=progress)
        except KeyboardInterrupt as exc:
            stderr_console().print(f"interrupted; {kept()}", markup=False, highlight=False,
                                   soft_wrap=True)
            exc.said = True  # the command line says nothing more (cli._Stopped)
            raise


def saved(store) -> str:
    """What an interrupted run kept, truthfully: the folds written to its results file."""
    if store is None or not store.path:
        return "nothing was saved (use --results FILE to keep finished folds)"
    if store.written == 0:
        kept = (f"; {store.path} still holds the {len(store.cells)} folds of earlier runs"
                if store.cells else "")
        return f"no fold finished in this run, none was saved{kept}"
    plural = "s" if store.written != 1 else ""
    return (f"{store.written} finished fold{plural} of this run saved in {store.path} "
            f"({len(store.cells)} in all); rerun to continue")


def open_store(path: str | None, notes: Notes):
    """The results store (in memory without a path), saying once, even when quiet, that
    it cut off a damaged last line (kept in a .damaged copy: crossval/results.py)."""
    from dtcli.crossval.results import ResultStore

    store = ResultStore(path)
    if store.repaired:
        notes.warn([store.repair_note()])
    return store
