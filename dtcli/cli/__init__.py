"""The `dtree` command line: a thin Click layer over the library.

No numerics here. Heavy modules (numpy, numba, pyarrow) are imported inside
the commands so that `dtree --help` starts instantly. Data goes to stdout,
talk and progress to stderr. Exit codes: 0 success, 1 bad data or files,
2 wrong usage (Click's convention).
"""
from __future__ import annotations

import os
import sys

import click

from dtcli._version import __version__
from dtcli.cli import evaluate_commands, tree_commands
from dtcli.cli.options import CONTEXT
from dtcli.errors import DtreeError, ParameterError


class _BadOption(click.ClickException):
    exit_code = 2  # a usage error, said in one line


class _Group(click.Group):
    """Turns every error, library or Click usage error, into one line on stderr and the
    right exit code."""

    def main(self, *args, standalone_mode: bool = True, **kwargs):
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        try:
            super().main(*args, standalone_mode=False, **kwargs)
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
            result = super().invoke(ctx)
            sys.stdout.flush()  # a closed pipe shows here, not at exit
            return result
        except BrokenPipeError:  # `dtree predict ... | head`: the reader has all it wants
            _discard_stdout()
            raise click.exceptions.Exit(0) from None
        except ParameterError as exc:
            raise _BadOption(str(exc)) from None
        except DtreeError as exc:
            raise click.ClickException(str(exc)) from None


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
def cli():
    """Train, evaluate and compare decision trees with the split criteria of the literature.

    Reads CSV, ARFF and KEEL .dat files (optionally .gz, or - for stdin).
    Run `dtree COMMAND --help` for a command's options and an example.

    \b
    An option means the same in every command that takes it:
      -o, --output FILE      where to write (- for stdout, the default)
      -f, --output-format    what to write (text, json, csv, ...)
      --input-format         how to read DATA (csv, arff, keel; default: by extension)
      -j, --jobs N           CPU cores to use (default: all)
      -q, --quiet            no notes or progress on stderr
    Old spellings: `-o json` is refused (write -f json); --format still works,
    deprecated, for --input-format (in export, for -f).
    """


for command in (tree_commands.train, tree_commands.predict, tree_commands.export,
                tree_commands.criteria, evaluate_commands.evaluate, evaluate_commands.compare):
    cli.add_command(command)


def main():
    cli(prog_name="dtree")
