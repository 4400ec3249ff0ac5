"""The documentation against the code: the command reference is every command's --help,
and the README stays a page a newcomer reads to the end."""
import runpy
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_command_reference_is_the_commands_help():
    made = runpy.run_path(str(ROOT / "docs" / "command_reference.py"))["reference"]()
    assert (ROOT / "docs" / "commands.md").read_text() == made, (
        "docs/commands.md is out of date: run docs/command_reference.py")
    for command in ("train", "rank", "sweep", "frontier", "reproduce"):
        assert f"\n## dtree {command}\n" in made


def test_the_readme_is_short_and_its_links_lead_somewhere():
    import re

    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) < 200
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", readme):
        assert (ROOT / target).exists(), target
