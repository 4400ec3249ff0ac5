"""What a library user sees of an experiment's result: print() and the REPL's echo give
the command's table, and a notebook's view gives the command's numbers as the command
formats them, with the per-class table and the confusion matrix."""
from __future__ import annotations

import io

import pytest

import dtcli


@pytest.fixture(scope="module")
def evaluation(examples):
    return dtcli.evaluate(str(examples / "iris.csv"), "gini", cv=3, jobs=1, quiet=True)


def test_an_evaluation_prints_as_the_command_table(evaluation):
    doc = evaluation.document
    text = str(evaluation)
    assert " at 0x" not in text and repr(evaluation) == text
    assert f"{doc['accuracy']['mean']:.4f}" in text
    assert "confusion matrix" in text
    for label, row in zip(doc["classes"], doc["confusion_matrix"]):
        assert any(line.split()[:1] == [label] and line.split()[1:] == [str(n) for n in row]
                   for line in text.splitlines()), (label, row)


def test_an_evaluation_renders_every_format_of_the_command(evaluation):
    out = io.StringIO()
    evaluation.render(out, "json")
    assert out.getvalue() == evaluation.to_json()


def test_the_notebook_view_formats_counts_and_times_as_the_command(evaluation):
    doc = evaluation.document
    page = evaluation._repr_html_()
    assert f"<td>{doc['n_nodes']['mean']:.2f}</td>" in page  # a count: two decimals
    assert f"<td>{doc['fit_seconds']['mean']:.3g}</td>" in page  # seconds: 3 digits
    assert "0.0000</td>" not in page.split("fit_seconds")[1].split("</tr>")[0]
    assert "precision" in page and "confusion matrix" in page


def test_a_comparison_and_a_tuning_print_as_their_tables(examples):
    iris = str(examples / "iris.csv")
    comparison = dtcli.compare([iris], ["gini", "entropy"], cv=3, jobs=1, quiet=True)
    text = str(comparison)
    assert " at 0x" not in text and "iris" in text
    means = comparison.means["iris"]
    assert f"{means['gini']:.4f}" in text and f"{means['entropy']:.4f}" in text
    tuning = dtcli.tune(iris, "tsallis", {"q": [1.5, 2.0]}, cv=3, jobs=1, quiet=True)
    assert " at 0x" not in repr(tuning)
    assert f"best: q={tuning.best_params['q']:g}" in str(tuning)
