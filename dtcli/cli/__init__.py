"""The `dtree` command line: a thin Click layer over the library.

No numerics here. Heavy modules (numpy, numba, pyarrow) are imported inside
the commands so that `dtree --help` starts instantly. Data goes to stdout,
talk and progress to stderr. Exit codes: 0 success, 1 bad data or files,
2 wrong usage (Click's convention).
"""
from __future__ import annotations

import errno
import os
import signal
import sys

import click

from dtcli._version import __version__
from dtcli.cli import (analysis_commands, evaluate_commands, export_options, reproduce_command,
                       tree_commands, tune_command, warm_command)
from dtcli.cli.options import CONTEXT
from dtcli.errors import (DtreeError, Interrupted, ParameterError, interrupt_exit_code,
                          signals_as_interrupts)


class _BadOption(click.ClickException):
    exit_code = 2  # a usage error, said in one line


class _Stopped(click.ClickException):
    """Ctrl-C, SIGTERM or SIGHUP: one line, exit code 128 + the signal (none when the run
    said what it kept in its own `interrupted; ...` line: experiments.notes)."""

    def __init__(self, exit_code: int, said: bool = False):
        super().__init__("interrupted")
        self.exit_code = exit_code
        self.said = said

    def show(self, file=None):
        if not self.said:
            click.echo("interrupted", err=True)


class _Group(click.Group):
    """Turns every error, library or Click usage error, into one line on stderr and the
    right exit code."""

    def main(self, *args, standalone_mode: bool = True, **kwargs):
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        try:
            super().main(*args, standalone_mode=False, **kwargs)
            sys.stdout.flush()  # a full disk under stdout shows here, not at exit
        except OSError as exc:
            _output_failed(exc)
        except click.UsageError as exc:  # Click would add Usage/Try lines around it
            where = f"{exc.ctx.command_path}: " if exc.ctx else ""
            click.echo(f"Error: {where}{exc.format_message()}", err=True)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except click.exceptions.Abort:
            click.echo("Aborted.", err=True)
            sys.exit(1)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        sys.exit(0)

    def invoke(self, ctx):
        try:
            with signals_as_interrupts():
                result = super().invoke(ctx)
            sys.stdout.flush()  # a closed pipe shows here, not at exit
            return result
        except BrokenPipeError as exc:  # Click would exit 1 for it
            _output_failed(exc)
        except ParameterError as exc:
            raise _BadOption(str(exc)) from None
        except DtreeError as exc:
            raise click.ClickException(str(exc)) from None
        except KeyboardInterrupt as exc:
            raise _Stopped(interrupt_exit_code(exc), getattr(exc, "said", False)) from None
        except MemoryError as exc:  # numpy's ArrayMemoryError too: one line, not 49
            raise click.ClickException(_out_of_memory(exc)) from None


def _out_of_memory(exc: MemoryError) -> str:
    """The line for an allocation that failed: what it asked for, when numpy says."""
    import numpy as np

    shape, dtype = getattr(exc, "shape", None), getattr(exc, "dtype", None)
    asked = ""
    if shape is not None and dtype is not None:
        size = int(np.prod(shape, dtype=np.float64) * dtype.itemsize)
        asked = f" ({size / 2**30:.1f} GiB for an array of shape {tuple(shape)})"
    return (f"out of memory{asked}: the data is too large for this machine's memory; "
            "use fewer rows, features or classes")


def _output_failed(exc: OSError):
    """Writing stdout failed. A closed pipe (`dtree predict ... | head`) ends quietly with
    exit 0, the reader has all it wants; anything else (a full disk) is one line, exit 1."""
    _discard_stdout()  # stdout can take nothing more: keep the exit flush quiet
    if exc.errno == errno.EPIPE:
        sys.exit(0)
    click.echo(f"Error: cannot write the output ({exc.strerror or exc})", err=True)
    sys.exit(1)


def _raise_interrupted(signum, frame):
    raise Interrupted(signum)


def _discard_stdout() -> None:
    """Point stdout at /dev/null, so that flushing it at exit cannot raise again (Python's
    documented handling of SIGPIPE, but with exit code 0)."""
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError):  # not a file descriptor (e.g. in tests)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


@click.group(cls=_Group, context_settings=CONTEXT)
@click.version_option(__version__, "-V", "--version", prog_name="dtree")
@click.option("-v", "--verbose", is_flag=True,
              help="Say how the work is run (e.g. in this process though --jobs asks for "
                   "more), on stderr.")
def cli(verbose):
    """Train, evaluate and compare decision trees with the split criteria of the literature.

    Reads CSV, ARFF and KEEL .dat files (optionally .gz, or - for stdin).
    Run `dtree COMMAND --help` for a command's options and an example.

    \b
    An option means the same in every command that takes it:
      -o, --output FILE      where to write (- for stdout, the default)
      -f, --output-format    what to write (text, json, csv, ...)
      --input-format         how to read DATA: csv, arff, keel (default: by name)
      -j, --jobs N           CPU cores to use (default: all)
      -q, --quiet            no notes or progress on stderr
    `dtree -v COMMAND` also says how the work is run (workers or not).
    Old spellings: `-o json` is refused (write -f json); --format still works,
    deprecated, for --input-format (in export, for -f).
    """
    if verbose:
        _say_how_work_runs()


def _say_how_work_runs() -> None:
    """The library's "dtcli" logger (e.g. runner.workers_for) as lines on stderr."""
    import logging

    logger = logging.getLogger("dtcli")
    logger.setLevel(logging.INFO)
    if not any(getattr(h, "dtree_verbose", False) for h in logger.handlers):  # once
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("dtree: %(message)s"))
        handler.dtree_verbose = True
        logger.addHandler(handler)


for command in (tree_commands.train, tree_commands.predict, tree_commands.export,
                tree_commands.criteria, evaluate_commands.evaluate, evaluate_commands.compare,
                evaluate_commands.metrics,
                analysis_commands.rank, analysis_commands.sweep, analysis_commands.frontier,
                tune_command.tune, warm_command.warm, reproduce_command.reproduce,
                export_options.verify):
    cli.add_command(command)


def stop_on_signals():
    """SIGTERM and SIGHUP stop like Ctrl-C: the exception unwinds, temporary files go."""
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), _raise_interrupted)


def main():
    stop_on_signals()
    cli(prog_name="dtree")
