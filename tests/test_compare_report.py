"""The comparison report (`compare --report`, `compare_report_html`): a self-contained page
that parses, marks the best per dataset, draws the CD diagram and each dataset's fold
scores, says the tests in words and the tuned methods' optimism; and the fold scores
that `compare -f json` now carries."""
import html
import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest
from click.testing import CliRunner

from dtcli.cli import cli
from dtcli.reporting.comparison import comparison_document
from dtcli.export.compare_report import compare_report_html

SVG_NS = "{http://www.w3.org/2000/svg}"


class _Page(HTMLParser):
    """Checks that every element closes; keeps the cells of each table row and every
    attribute name."""

    VOID = {"meta", "br"}  # HTML elements without an end tag; SVG ones close with />

    def __init__(self):
        super().__init__()
        self.open, self.attributes, self.cells = [], set(), []

    def handle_starttag(self, tag, attrs):
        self.attributes |= {name for name, _ in attrs}
        if tag == "td":
            self.cells.append(["", dict(attrs).get("class")])
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.attributes |= {name for name, _ in attrs}

    def handle_endtag(self, tag):
        assert self.open and self.open.pop() == tag, f"</{tag}> closes nothing open"

    def handle_data(self, data):
        if self.open and self.open[-1] in ("td", "span") and self.cells:
            self.cells[-1][0] += data


def parsed(page: str) -> _Page:
    parser = _Page()
    parser.feed(page)
    assert parser.open == []
    return parser


def svgs(page: str) -> list[ET.Element]:
    return [ET.fromstring(m) for m in re.findall(r"<svg .*?</svg>", page, re.S)]


def hand_document(folds=True):
    # three methods on four datasets; A wins twice, C once, a tie on d3
    datasets, methods = ["d1", "d<2>", "d3", "d4"], ["A", "B & co", "C"]
    means = [[0.9, 0.8, 0.7], [0.8, 0.7, 0.75], [0.6, 0.6, 0.5], [0.7, 0.72, 0.8]]
    # four datasets cannot reject the omnibus test: the post-hoc tests shown regardless
    doc = comparison_document(datasets, methods, means, [[0.01] * 3] * 4,
                              about={"metric": "accuracy", "cv": 2, "repeats": 1, "seed": 0,
                                     "options": {}, "sources": {d: f"{d}.csv" for d in datasets}},
                              posthoc="always")
    if folds:  # two folds around each mean
        doc["fold_scores"] = {d: {m: [means[i][j] - 0.05, means[i][j] + 0.05]
                                  for j, m in enumerate(methods)}
                              for i, d in enumerate(datasets)}
    return json.loads(json.dumps(doc))  # as a JSON document is read back


def test_page_parses_marks_the_best_and_loads_nothing():
    page = compare_report_html(hand_document())
    parser = parsed(page)
    assert not parser.attributes & {"src", "href", "srcset", "action"}
    without_namespace = page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert not re.search(r"https?:|url\(|@import", without_namespace)
    best = [text.split(" ±")[0] for text, cls in parser.cells if cls == "best"]
    assert best == ["0.9000", "0.8000", "0.6000", "0.6000", "0.8000"]  # d3: A and B tie
    assert "d&lt;2&gt;" in page and "B &amp; co" in page and "d<2>" not in page


def test_page_without_a_rejection_draws_one_group_and_says_why():
    doc = json.loads(json.dumps(comparison_document(
        ["d1", "d2", "d3"], ["A", "B"], [[0.9, 0.8], [0.7, 0.8], [0.6, 0.5]], [[0.01] * 2] * 3)))
    cd = svgs(compare_report_html(doc))[0]
    texts = ["".join(t.itertext()) for t in cd.iter(SVG_NS + "text")]
    assert not any(text.startswith("CD = ") for text in texts)
    assert any("no post-hoc test" in text for text in texts)


def test_page_holds_the_cd_diagram_the_tests_and_a_plot_per_dataset():
    doc = hand_document()
    page = compare_report_html(doc)
    drawings = svgs(page)
    cd = drawings[0]
    assert f"CD = {doc['nemenyi']['cd']:.2f}" in ["".join(t.itertext())
                                                 for t in cd.iter(SVG_NS + "text")]
    for line in doc["conclusions"]:
        assert line in html.unescape(page)
    strips = drawings[1:]
    assert len(strips) == 4
    for strip in strips:  # a dot per fold and method
        assert len(strip.findall(f".//{SVG_NS}circle")) == 2 * 3


def test_page_without_fold_scores_leaves_the_plots_out():
    page = compare_report_html(hand_document(folds=False))
    assert "Fold scores" not in page and len(svgs(page)) == 1


def test_tuned_methods_show_nested_paper_and_optimism():
    doc = hand_document()
    doc["tuning"] = {"selection": "nested", "inner_cv": 3, "tune_metric": "accuracy",
                     "methods": {"C": {d: {"nested": {"chosen": [
                         {"repeat": 1, "fold": 1, "params": {"q": 0.5}},
                         {"repeat": 1, "fold": 2, "params": {"q": 2.0}}]},
                         "paper": {"params": {"q": 2.0}},
                         "reported": {"metric": "accuracy", "nested": 0.7, "paper": 0.75}}
                         for d in doc["datasets"]}}}
    page = compare_report_html(doc)
    parser = parsed(page)
    rows = [text for text, _ in parser.cells]
    at = rows.index("d1", 12)  # the optimism table's first row, after the means table
    assert rows[at:at + 6] == ["d1", "0.7000", "0.7500", "0.0500", "q=2",
                               "q=0.5 (1 fold), q=2 (1 fold)"]


def test_compare_table_report_from_the_cli(tmp_path):
    table = tmp_path / "scores.csv"
    table.write_text("dataset,A,B,C\nx,1,2,3\ny,2,3,1\nz,1,3,2\n")
    report = tmp_path / "report.html"
    result = CliRunner().invoke(cli, ["compare", "--table", str(table), "--report", str(report)])
    assert result.exit_code == 0, result.stderr
    page = report.read_text()
    parsed(page)
    assert "scores.csv" in page and "Fold scores" not in page
    result = CliRunner().invoke(cli, ["compare", "--table", str(table), "--report", str(table)])
    assert result.exit_code != 0 and "--report" in result.stderr


def test_compare_json_carries_fold_scores_and_the_report_plots_them(tmp_path, examples):
    data = [str(examples / "iris.csv"), str(examples / "balanced" / "wine.csv")]
    report = tmp_path / "report.html"
    result = CliRunner().invoke(cli, ["compare", *data, "--criteria", "gini,entropy", "--cv",
                                      "3", "-f", "json", "-q", "--report", str(report)])
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    for d in doc["datasets"]:
        for m in doc["criteria"]:
            folds = doc["fold_scores"][d][m]
            assert len(folds) == 3
            assert sum(folds) / 3 == pytest.approx(doc["scores"][d][m]["mean"])
    page = report.read_text()
    parsed(page)
    assert len(svgs(page)) == 1 + 2  # the CD diagram and a plot per dataset
