"""The `dtree` command line: a thin Click layer over the library.

No numerics here. Heavy modules (numpy, numba, pyarrow) are imported inside
the commands so that `dtree --help` starts instantly. Data goes to stdout,
talk and progress to stderr. Exit codes: 0 success, 1 bad data or files,
2 wrong usage (Click's convention).
"""
from __future__ import annotations

import click

from dtcli._version import __version__
from dtcli.cli import tree_commands
from dtcli.cli.options import CONTEXT
from dtcli.errors import DtreeError, ParameterError


class _BadOption(click.ClickException):
    exit_code = 2  # a usage error, said in one line


class _Group(click.Group):
    """Turns library errors into one line on stderr and the right exit code."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except ParameterError as exc:
            raise _BadOption(str(exc)) from None
        except DtreeError as exc:
            raise click.ClickException(str(exc)) from None


@click.group(cls=_Group, context_settings=CONTEXT)
@click.version_option(__version__, "-V", "--version", prog_name="dtree")
def cli():
    """Train, evaluate and compare decision trees with the split criteria of the literature.

    Reads CSV, ARFF and KEEL .dat files (optionally .gz, or - for stdin).
    Run `dtree COMMAND --help` for a command's options and an example.
    """


for command in (tree_commands.train, tree_commands.predict, tree_commands.export,
                tree_commands.criteria):
    cli.add_command(command)


def main():
    cli(prog_name="dtree")
