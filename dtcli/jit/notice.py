"""What compiling says: one line before the first compilation, then progress.

Compiling the engine for a new machine takes seconds to minutes, once. A user who
sees nothing meanwhile thinks dtree hangs, so every compilation says what it does
and how far it is: parts done of parts to do with the time so far, as a progress
bar on a terminal, as a line that updates itself in a notebook (an HTML display, no
widget library needed: stderr there reads as an error), and as one line per part
elsewhere (a log, a pipe). DTREE_COMPILE_NOTICE=0 silences all of it (the command
line's -q sets it, for its worker processes too).
"""
from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager
from typing import Callable, Iterator


def enabled() -> bool:
    """Whether compiling is announced: yes, unless DTREE_COMPILE_NOTICE=0."""
    return os.environ.get("DTREE_COMPILE_NOTICE", "1") != "0"


def in_notebook() -> bool:
    """Whether this process is a Jupyter kernel (whose stderr shows as red boxes)."""
    shell = sys.modules.get("IPython")
    try:
        ip = shell.get_ipython() if shell is not None else None
    except Exception:  # an IPython too old or too new: no notebook display then
        return False
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


def say(line: str) -> None:
    """One line of talk about compiling: in a notebook as output, elsewhere on stderr."""
    if in_notebook():
        print(line)
    else:
        print(line, file=sys.stderr, flush=True)


_LIVE: list = []  # rich Progress bars live on stderr now (`sharing`): compiling adds a row


@contextmanager
def sharing(bar) -> Iterator[None]:
    """While a rich Progress `bar` is live on stderr (a run's folds), compiling shows as a
    row of its own in it: two live displays on one terminal would overwrite each other."""
    _LIVE.append(bar)
    try:
        yield
    finally:
        _LIVE.remove(bar)


@contextmanager
def compile_progress(total: int, what: str, where: str) -> Iterator[Callable[[str], None]]:
    """Announce compiling `what` (`total` parts, cached in `where`) and yield a callback
    step(part name) to call as each part is done; on leaving, on a terminal, the time it
    took. Silent when not `enabled`."""
    if not enabled():
        yield lambda part: None
        return
    start = time.perf_counter()
    say(f"dtree: compiling {what} for this machine, once: {total} part"
        f"{'s' if total != 1 else ''} (cached in {where}; `dtree warm` compiles ahead)")
    if in_notebook():
        with notebook_progress("compiling", "parts") as update:
            update(0, total)
            done = 0

            def step(part: str) -> None:
                nonlocal done
                done += 1
                update(done, total)

            yield step
    elif sys.stderr.isatty():
        with _terminal_bar(total) as step:
            yield step
        print(f"dtree: compiled in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    else:
        done = 0

        def step(part: str) -> None:
            nonlocal done
            done += 1
            print(f"dtree: compiled {done}/{total} ({part}), "
                  f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)

        yield step


@contextmanager
def _terminal_bar(total: int):
    if _LIVE:
        bar = _LIVE[-1]
        task = bar.add_task("compiling (parts)", total=total)
        try:
            yield lambda part: bar.advance(task)
        finally:
            bar.remove_task(task)
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, \
        TimeElapsedColumn

    with Progress(TextColumn("compiling"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("parts"), TimeElapsedColumn(), console=Console(stderr=True),
                  transient=True) as bar:
        task = bar.add_task("compiling", total=total)
        yield lambda part: bar.advance(task)


@contextmanager
def notebook_progress(description: str, unit: str = "") -> Iterator[Callable[[int, int], None]]:
    """In a notebook: a (done, total) callback that updates one line of output in place,
    a progress bar with the time so far (HTML, no widget library)."""
    import html

    from IPython.display import HTML, display

    start = time.perf_counter()

    def text(done: int, total: int) -> HTML:
        return HTML(f"<progress value='{done}' max='{max(total, 1)}'></progress> "
                    f"{html.escape(description)}: {done}/{total} {unit}, "
                    f"{time.perf_counter() - start:.0f} s")

    handle = display(text(0, 0), display_id=True)
    yield lambda done, total: handle.update(text(done, total))
