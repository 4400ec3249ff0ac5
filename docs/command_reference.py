"""Write docs/commands.md, the command reference, from the Click commands themselves:
each command's `--help` as an 80-column terminal shows it. tests/test_docs.py fails
when the file and the commands differ; run this after changing an option:

    .venv/bin/python docs/command_reference.py
"""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from dtcli.cli import cli

TARGET = Path(__file__).resolve().parent.parent / "docs" / "commands.md"


def help_text(command: str | None) -> str:
    result = CliRunner().invoke(cli, [*([command] if command else []), "--help"],
                                terminal_width=80, prog_name="dtree")
    assert result.exit_code == 0, result.output
    return result.stdout


def reference() -> str:
    """The whole reference: dtree's own --help, then each command's, in --help's order."""
    parts = ["# Command reference\n\n",
             "Generated from the commands by `docs/command_reference.py`; do not edit by hand.\n",
             "What each command does, by task and with examples: [usage.md](usage.md).\n\n",
             "## dtree\n\n```text\n", help_text(None), "```\n"]
    for name in sorted(cli.commands):
        parts += [f"\n## dtree {name}\n\n```text\n", help_text(name), "```\n"]
    return "".join(parts)


if __name__ == "__main__":
    TARGET.write_text(reference())
    print(f"wrote {TARGET}")
