"""The command line as scikit-learn, Weka and rpart users expect it (issue 25): citations,
consistent option names, pipelines, what `train` shows on a terminal, the quick start.

In-process with click's CliRunner (stdout and stderr kept apart), except where a real
pipe or terminal is the point.
"""
from __future__ import annotations

from click.testing import CliRunner

from dtcli.cli import cli


def invoke(*args, stdin=None):
    return CliRunner().invoke(cli, [str(a) for a in args], input=stdin)


# --- dtree criteria cites papers, not file names -----------------------------------------------

# criterion -> what its citation must say: first author, venue and year, equation
CITATIONS = {
    "gini": ("Breiman", "1984", "IJCAI 2019, eq. (1), (3)"),
    "entropy": ("Quinlan", "1986", "IJCAI 2019, eq. (1)-(2)"),
    "tsallis": ("Wang", "ICASSP 2017", "eq. (1), (5)"),
    "pe": ("Stamate", "AIAI 2018", "eq. (5)"),
    "abi": ("Stamate", "AIAI 2018", "eq. (10)"),
    "hddt": ("Akash", "IJCAI 2019", "eq. (7)"),
    "ihdw": ("Akash", "IJCAI 2019", "eq. (15)-(16)"),
}


def test_criteria_cite_authors_venues_years_and_equations():
    result = invoke("criteria")
    assert result.exit_code == 0, result.stderr
    assert ".txt" not in result.stdout  # no file names of papers that do not ship
    rows = {line.split()[1]: line for line in result.stdout.splitlines()
            if line.startswith("│")}
    for name, pieces in CITATIONS.items():
        for piece in pieces:
            assert piece in rows[name], (name, piece)
