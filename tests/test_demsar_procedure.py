"""Demsar's procedure (2006, section 3.2): the post-hoc tests (Nemenyi, and
Bonferroni-Dunn and Holm against a control) follow the omnibus test only when
it rejects. `compare` reports them, and draws the CD diagram's groups, only
then, unless `--posthoc always` asks for them regardless, labelled so.

The table below (4 methods on 7 datasets) is the trap of issue 35: the
Iman-Davenport test does not reject (p = 0.050046, just above 0.05), while
Nemenyi's critical difference (2.5 x sqrt(4 x 5 / (6 x 7)) = 1.7728 with
q = 2.569) separates m0's average rank from m3's by more than it, and Holm
rejects m3 against m0.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from dtcli.cli import cli
from dtcli.reporting.comparison import comparison_document
from dtcli.stats.rank_tests import compare_table

SCORES = [[5, 1, 0, 0], [3, 1, 1, 0], [6, 5, 8, 1], [8, 4, 1, 5], [3, 8, 1, 0], [8, 2, 8, 2],
          [7, 6, 6, 7]]
METHODS = ["m0", "m1", "m2", "m3"]
DATASETS = [f"d{i}" for i in range(len(SCORES))]


def dtree(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("dataset," + ",".join(METHODS) + "\n" + "".join(
        f"{d}," + ",".join(map(str, row)) + "\n" for d, row in zip(DATASETS, SCORES)))
    return path


def test_the_table_is_the_trap():
    """Independently of the renderer: the omnibus p is just above 0.05, and Nemenyi and
    Holm would still call a pair significant."""
    tests = compare_table(np.array(SCORES, float), METHODS, DATASETS, base="m0")
    assert tests["iman_davenport"]["p"] == pytest.approx(0.050046, abs=1e-6)
    assert tests["nemenyi"]["significant_pairs"] == [["m0", "m3"]]
    assert tests["nemenyi"]["cd"] == pytest.approx(2.569 * np.sqrt(4 * 5 / (6 * 7)), abs=1e-3)
    assert [c["method"] for c in tests["holm"]["comparisons"] if c["rejected"]] == ["m3"]


def test_no_posthoc_after_no_rejection():
    doc = comparison_document(DATASETS, METHODS, SCORES, base="m0")
    assert doc["posthoc"] == {"rule": "after-rejection", "omnibus_rejected": False,
                              "shown": False}
    assert doc["nemenyi"] is doc["bonferroni_dunn"] is doc["holm"] is None
    text = " ".join(doc["conclusions"])
    assert "Post-hoc tests (Nemenyi, Bonferroni-Dunn, Holm) not run" in text
    assert "Nemenyi test at" not in text and "m0 is significantly" not in text
    assert "no significant difference among the methods" in text
    assert doc["wilcoxon"]  # a test of two methods, not a post-hoc test of the omnibus one
    assert "p not adjusted for the comparisons)" in text  # no Holm's test to point to


def test_posthoc_always_is_labelled():
    doc = comparison_document(DATASETS, METHODS, SCORES, base="m0", posthoc="always")
    assert doc["posthoc"] == {"rule": "always", "omnibus_rejected": False, "shown": True}
    assert doc["nemenyi"]["significant_pairs"] == [["m0", "m3"]]
    lines = doc["conclusions"]
    label = next(i for i, line in enumerate(lines) if "regardless of the omnibus test" in line)
    nemenyi = next(i for i, line in enumerate(lines) if line.startswith("Nemenyi test"))
    assert label < nemenyi and "did not reject at alpha 0.05 (p = 0.05005)" in lines[label]


def test_posthoc_after_a_rejection_is_unlabelled():
    strong = [[4, 3, 2, 1]] * 6 + [[3, 4, 2, 1]]
    doc = comparison_document(DATASETS, METHODS, strong, base="m0")
    assert doc["posthoc"]["omnibus_rejected"] and doc["posthoc"]["shown"]
    assert doc["nemenyi"]["significant_pairs"]
    assert not any("regardless" in line or "not run" in line for line in doc["conclusions"])


def test_unknown_posthoc_rule():
    from dtcli.errors import ParameterError

    with pytest.raises(ParameterError, match="posthoc must be one of"):
        comparison_document(DATASETS, METHODS, SCORES, posthoc="never")


def test_compare_table_and_cd_diagram(table, tmp_path):
    svg = tmp_path / "cd.svg"
    result = dtree("compare", "--table", table, "--base", "m0", "--cd-diagram", svg)
    assert result.exit_code == 0, result.output
    assert "not run" in result.stdout and "Nemenyi test at" not in result.stdout
    drawing = svg.read_text()
    assert "no post-hoc test" in drawing and "CD =" not in drawing and "Nemenyi" not in drawing
    assert drawing.count('class="clique"') == 1  # one group: every method, best first
    assert "not significantly different: m0, m1, m2, m3" in drawing

    result = dtree("compare", "--table", table, "--base", "m0", "--cd-diagram", svg,
                   "--posthoc", "always", "-f", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["posthoc"]["shown"] and not doc["posthoc"]["omnibus_rejected"]
    drawing = svg.read_text()
    assert "groups shown regardless (--posthoc always)" in drawing and "CD = 1.77" in drawing
    assert drawing.count('class="clique"') == 2  # m0 and m3 differ: two groups
