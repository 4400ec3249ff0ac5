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
        with _notebook_line(total, start) as step:
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
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, \
        TimeElapsedColumn

    with Progress(TextColumn("compiling"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("parts"), TimeElapsedColumn(), console=Console(stderr=True),
                  transient=True) as bar:
        task = bar.add_task("compiling", total=total)
        yield lambda part: bar.advance(task)


@contextmanager
def _notebook_line(total: int, start: float):
    from IPython.display import HTML, display

    def text(done: int) -> HTML:
        return HTML(f"<progress value='{done}' max='{total}'></progress> compiling: "
                    f"{done}/{total} parts, {time.perf_counter() - start:.0f} s")

    handle = display(text(0), display_id=True)
    done = 0

    def step(part: str) -> None:
        nonlocal done
        done += 1
        handle.update(text(done))

    yield step
