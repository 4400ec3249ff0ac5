"""Tests of dtcli.reporting.cd_diagram: well-formed SVG with the right labels and bars."""

import xml.etree.ElementTree as ET

import pytest

from dtcli.reporting.cd_diagram import critical_difference_svg, nonsignificant_groups
from dtcli.stats.posthoc import nemenyi

SVG = "{http://www.w3.org/2000/svg}"

# Hand example: sorted ranks A 1.0, B 1.5, C 2.8, D 3.0, E 4.5 with CD 1.4.
# Differences above 1.4: A-C, A-D, A-E, B-D, B-E, C-E, D-E. Maximal runs without
# one: {A, B}, {B, C}, {C, D}; E stands alone.
NAMES = ["E", "C", "A", "D", "B"]
RANKS = [4.5, 2.8, 1.0, 3.0, 1.5]
CD = 1.4


def parse(svg):
    return ET.fromstring(svg)


def elements(root, tag, css_class):
    return [element for element in root.iter(SVG + tag) if element.get("class") == css_class]


def test_groups_of_the_hand_example():
    pairs = [(i, j) for i in range(5) for j in range(i + 1, 5) if abs(RANKS[i] - RANKS[j]) > CD]
    groups = nonsignificant_groups(RANKS, pairs)
    assert [[NAMES[i] for i in group] for group in groups] == [["A", "B"], ["B", "C"], ["C", "D"]]


def test_groups_of_demsar_figure_1a():
    # Demsar 2006, Figure 1(a), Nemenyi at alpha = 0.10: C4.5+cf joins both groups.
    ranks = [3.143, 2.000, 2.893, 1.964]  # C4.5, C4.5+m, C4.5+cf, C4.5+m+cf
    at_10 = nemenyi(ranks, 14, alpha=0.10).significant_pairs
    assert nonsignificant_groups(ranks, at_10) == [[3, 1, 2], [2, 0]]
    at_05 = nemenyi(ranks, 14, alpha=0.05).significant_pairs
    assert nonsignificant_groups(ranks, at_05) == [[3, 1, 2, 0]]


def test_no_groups_when_every_pair_differs():
    assert nonsignificant_groups([1.0, 2.0, 3.0], [(0, 1), (0, 2), (1, 2)]) == []


def test_svg_is_well_formed_with_one_label_per_method():
    root = parse(critical_difference_svg(NAMES, RANKS, CD, title="hand example"))
    assert root.tag == SVG + "svg"
    labels = elements(root, "text", "method")
    assert len(labels) == len(NAMES)
    assert sorted(label.text.split(" (")[0] for label in labels) == sorted(NAMES)
    assert [tick.text for tick in elements(root, "text", "tick")] == ["1", "2", "3", "4", "5"]
    assert elements(root, "text", "cd")[0].text == "CD = 1.40"


def test_svg_clique_bars_span_their_methods():
    root = parse(critical_difference_svg(NAMES, RANKS, CD))
    method_x = {}
    lines, labels = elements(root, "polyline", "method-line"), elements(root, "text", "method")
    for line, label in zip(lines, labels):
        method_x[label.text.split(" (")[0]] = float(line.get("points").split(",")[0])
    bars = elements(root, "line", "clique")
    spans = [(float(bar.get("x1")), float(bar.get("x2"))) for bar in bars]
    expected = [("A", "B"), ("B", "C"), ("C", "D")]
    assert len(spans) == len(expected)
    for (x1, x2), (first, last) in zip(spans, expected):
        assert x1 == pytest.approx(method_x[first] - 4, abs=0.11)
        assert x2 == pytest.approx(method_x[last] + 4, abs=0.11)
    assert [bar.find(SVG + "title").text for bar in bars][0] == "not significantly different: A, B"


def test_explicit_significant_pairs_override_the_cd():
    svg = critical_difference_svg(["a", "b", "c"], [1.0, 2.0, 3.0], 5.0, [(0, 2)])
    root = parse(svg)
    assert len(elements(root, "line", "clique")) == 2


def test_names_are_escaped():
    svg = critical_difference_svg(['<b>&"x"', "plain"], [1.2, 1.8], 0.5, title="a < b & c")
    root = parse(svg)
    assert "<b>&" not in svg
    labels = {label.text for label in elements(root, "text", "method")}
    assert labels == {'<b>&"x" (1.20)', "plain (1.80)"}
    assert elements(root, "text", "title")[0].text == "a < b & c"


def test_needs_a_rank_per_name():
    with pytest.raises(ValueError, match="average rank"):
        critical_difference_svg(["a", "b"], [1.0], 0.5)
