"""Exports of a hand-built tree whose every line is known: reachable categories only,
where missing values go, non-zero counts (or a summary), leaf marks, --max-depth, class
colours on a terminal, rule coverage and confidence, and DOT fill colours by
scikit-learn's rule."""
import io
import re

import numpy as np
import pytest
from click.testing import CliRunner
from rich.console import Console

from dtcli import DecisionTreeClassifier
from dtcli.cli import cli
from dtcli.export import dot, rules, text
from dtcli.io.dataset import Feature
from dtcli.model import save_model
from dtcli.engine.tree import Tree
from category_sets import sets_listing_every_category

COLOURS = ("red", "green", "blue", "grey")


NOMINAL_SPLITS = (0, 1, 6)


def hand_built(node_6=(1, 1, 1, 0)):
    """Five classes a..e; colour is split at the root, again at node 1 below its left side
    and at node 6 below its right side; missing values go right at the root and at node 2,
    left at nodes 1 and 6. The nominal left sets also hold the categories absent from the
    node (sent where missing values go, as the engine stores them): node 1 sends
    {red, blue, grey} left but only red and green can reach it; node 6 sends
    {red, green, blue} left but only blue and grey can reach it."""
    left = np.array([1, 3, 5, -1, -1, -1, 7, -1, -1])
    right = np.array([2, 4, 6, -1, -1, -1, 8, -1, -1])
    feature = np.array([0, 0, 1, -2, -2, -2, 0, -2, -2])
    threshold = np.array([np.nan, np.nan, 2.5] + [np.nan] * 6)
    missing_left = np.array([0, 1, 0, 0, 0, 0, 1, 0, 0], np.uint8)
    category_left = np.zeros((9, 4), np.uint8)
    category_left[0] = [1, 1, 0, 0]
    category_left[1] = [1, 0, 1, 1]
    category_left[6] = node_6
    value = np.array([[6, 5, 7, 3, 8], [5, 5, 0, 0, 0], [1, 0, 7, 3, 8], [5, 1, 0, 0, 0],
                      [0, 4, 0, 0, 0], [0, 0, 6, 1, 1], [1, 0, 1, 2, 7], [0, 0, 1, 0, 6],
                      [1, 0, 0, 2, 1]], float)
    model = DecisionTreeClassifier()
    model.tree_ = Tree(left, right, feature, threshold, missing_left, value,
                       value.sum(axis=1).astype(np.int64), np.full(9, np.nan),
                       **sets_listing_every_category(category_left, NOMINAL_SPLITS))
    model.features_ = [Feature("colour", "nominal", COLOURS), Feature("size", "numeric", ())]
    model.classes_ = np.array(list("abcde"), dtype=object)
    model.n_classes_, model.n_features_in_ = 5, 2
    return model


TEXT = """\
t
└── root  [n = 29, e: 27.6%]
    ├── colour in {red, green}  [a: 5, b: 5]
    │   ├── colour in {red}  → a  [a: 5, b: 1]
    │   └── colour in {green}  → b  [b: 4]
    └── colour in {blue, grey} (or missing)  [a: 1, c: 7, d: 3, e: 8]
        ├── size <= 2.5  → c  [c: 6, d: 1, e: 1]
        └── size > 2.5 (or missing)  [a: 1, c: 1, d: 2, e: 7]
            ├── colour in {blue} (or missing)  → e  [c: 1, e: 6]
            └── colour in {grey}  → d  [a: 1, d: 2, e: 1]"""


def plain(renderable, width=200) -> list[str]:
    console = Console(color_system=None, width=width, record=True, file=io.StringIO())
    console.print(renderable)
    return [line.rstrip() for line in console.export_text().rstrip("\n").split("\n")]


def test_text_lists_reachable_categories_nonzero_counts_and_missing_sides():
    assert plain(text.render(hand_built(), "t")) == TEXT.split("\n")


def test_text_with_max_depth_gives_the_size_of_each_cut_subtree():
    assert plain(text.render(hand_built(), "t", max_depth=1)) == [
        "t",
        "└── root  [n = 29, e: 27.6%]",
        "    ├── colour in {red, green}  [a: 5, b: 5]",
        "    │   └── ... 2 more nodes (2 leaves)",
        "    └── colour in {blue, grey} (or missing)  [a: 1, c: 7, d: 3, e: 8]",
        "        └── ... 4 more nodes (3 leaves)"]
    assert plain(text.render(hand_built(), "t", max_depth=0))[1:] == [
        "└── root  [n = 29, e: 27.6%]", "    └── ... 8 more nodes (5 leaves)"]
    assert plain(text.render(hand_built(), "t", max_depth=3)) == TEXT.split("\n")


def test_text_on_a_terminal_gives_each_class_its_own_colour():
    console = Console(force_terminal=True, color_system="standard", width=200,
                      file=io.StringIO())
    console.print(text.render(hand_built(), "t"))
    styled = console.file.getvalue()
    codes = {}
    for code, name in re.findall(r"\x1b\[([0-9;]+)m([a-e])\x1b\[0m", styled):
        codes.setdefault(name, set()).add(code)
    assert sorted(codes) == list("abcde")
    assert all(len(found) == 1 for found in codes.values())  # one colour per class
    assert len({found.pop() for found in codes.values()}) == 5  # five different colours


def test_rules_give_coverage_confidence_and_only_reachable_categories():
    assert rules.render(hand_built()).split("\n") == [
        "if colour in {red} then a  (coverage 6, confidence 83.3%)  [a: 5, b: 1]",
        "if colour in {green} then b  (coverage 4, confidence 100.0%)  [b: 4]",
        "if colour in {blue, grey} (or missing) and size <= 2.5 then c  "
        "(coverage 8, confidence 75.0%)  [c: 6, d: 1, e: 1]",
        "if colour in {blue} (or missing) and size > 2.5 (or missing) then e  "
        "(coverage 7, confidence 85.7%)  [c: 1, e: 6]",
        "if colour in {grey} and size > 2.5 (or missing) then d  "
        "(coverage 4, confidence 50.0%)  [a: 1, d: 2, e: 1]",
        ""]


def test_a_nominal_side_no_category_can_reach_takes_only_missing_values():
    model = hand_built(node_6=[1, 1, 0, 0])  # left: red and green, which cannot get there
    assert plain(text.render(model, "t"))[-2:] == [
        "            ├── colour is missing  → e  [c: 1, e: 6]",
        "            └── colour in {blue, grey}  → d  [a: 1, d: 2, e: 1]"]
    assert rules.render(model).split("\n")[-3:-1] == [
        "if colour is missing and size > 2.5 (or missing) then e  "
        "(coverage 7, confidence 85.7%)  [c: 1, e: 6]",
        "if colour in {blue, grey} and size > 2.5 (or missing) then d  "
        "(coverage 4, confidence 50.0%)  [a: 1, d: 2, e: 1]"]


def test_rule_confidence_never_rounds_up_to_a_pure_leaf():
    model = DecisionTreeClassifier(max_depth=0).fit(np.zeros((2000, 1)), [0] * 1999 + [1])
    assert "(coverage 2000, confidence 99.9%)  [0: 1999, 1: 1]" in rules.render(model)


# --- dot --------------------------------------------------------------------------------------

def dot_statements(source: str):
    nodes = {int(m[1]): (m[2], m[3]) for m in re.finditer(
        r'^  n(\d+) \[label="((?:[^"\\]|\\.)*)", fillcolor="(#[0-9a-f]{6})"\];$', source, re.M)}
    edges = re.findall(r'^  n(\d+) -> n(\d+) \[label="((?:[^"\\]|\\.)*)"\];$', source, re.M)
    return nodes, [(int(a), int(b), label) for a, b, label in edges]


def sklearn_fill(shares, n_classes):
    """scikit-learn's rule, written out here: the majority's colour from its palette,
    alpha = (p1 - p2) / (1 - p2) against white, rounded."""
    from sklearn.tree._export import _color_brew

    colour = _color_brew(n_classes)[int(np.argmax(shares))]
    p1, p2 = sorted(shares, reverse=True)[:2]
    alpha = (p1 - p2) / (1 - p2)
    return "#" + "".join(f"{int(round(alpha * c + (1 - alpha) * 255)):02x}" for c in colour)


def test_dot_labels_edges_and_fill_colours_of_the_hand_built_tree():
    model = hand_built()
    nodes, edges = dot_statements(dot.render(model))
    assert edges == [(0, 1, "colour in {red, green}"),
                     (0, 2, "colour in {blue, grey} (or missing)"),
                     (1, 3, "colour in {red}"), (1, 4, "colour in {green}"),
                     (2, 5, "size <= 2.5"), (2, 6, "size > 2.5 (or missing)"),
                     (6, 7, "colour in {blue} (or missing)"), (6, 8, "colour in {grey}")]
    assert nodes[0][0] == r"e\n[a: 6, b: 5, c: 7, d: 3, e: 8]\nn = 29"  # every class listed
    assert nodes[1][1] == "#ffffff"  # a tie: no colour
    for node, (_, fill) in nodes.items():
        value = model.tree_.counts[node]
        assert fill == sklearn_fill(value / value.sum(), 5)


def test_dot_fill_colours_match_scikit_learn_export_graphviz(load_example):
    sklearn_tree = pytest.importorskip("sklearn.tree")
    d = load_example("balanced/glass.csv")
    ours = DecisionTreeClassifier(max_depth=3).fit_dataset(d)
    theirs = sklearn_tree.DecisionTreeClassifier(max_depth=3, random_state=0).fit(d.X, d.y)
    source = sklearn_tree.export_graphviz(theirs, filled=True)
    # their fill colour by their node's sample count and class proportions
    fills = {}
    for samples, fill in re.findall(r'samples = (\d+).*?fillcolor="(#[0-9a-f]{6})"', source):
        fills.setdefault(int(samples), set()).add(fill)
    nodes, _ = dot_statements(dot.render(ours))
    tree = ours.tree_
    compared = 0
    for node, (_, fill) in nodes.items():
        if len(fills.get(int(tree.n_node_samples[node]), ())) == 1:
            assert fill == next(iter(fills[int(tree.n_node_samples[node])]))
            compared += 1
    assert compared >= 5
    assert nodes[0][1] == fills[len(d.y)].pop()  # the root, whatever the trees' splits


def test_dot_pure_and_tied_nodes_have_scikit_learns_known_colours(load_example):
    model = DecisionTreeClassifier(max_depth=2).fit_dataset(load_example("iris.csv"))
    nodes, _ = dot_statements(dot.render(model))
    # the root is a three-way tie (white); node 1 is pure setosa: class 0's colour,
    # hue 25 degrees at saturation 0.75 and value 0.9, as every filled scikit-learn tree shows
    assert nodes[0][1] == "#ffffff" and nodes[1][1] == "#e58139"


# --- command line -----------------------------------------------------------------------------

def test_export_max_depth_on_the_command_line(tmp_path):
    path = tmp_path / "model.json"
    save_model(hand_built(), str(path), target="class")
    result = CliRunner().invoke(cli, ["export", str(path), "--max-depth", "1"])
    assert result.exit_code == 0, result.stderr
    assert [line.rstrip() for line in result.stdout.splitlines()[1:]] == plain(
        text.render(hand_built(), "t", max_depth=1))[1:]


@pytest.mark.parametrize("args", [["--max-depth", "-1"], ["-f", "rules", "--max-depth", "2"],
                                  ["-f", "dot", "--max-depth", "0"]])
def test_export_max_depth_mistakes_are_usage_errors(tmp_path, args):
    path = tmp_path / "model.json"
    save_model(hand_built(), str(path), target="class")
    result = CliRunner().invoke(cli, ["export", str(path), *args])
    assert result.exit_code == 2 and "--max-depth" in result.stderr


# --- large trees ------------------------------------------------------------------------------

def test_a_category_bomb_shows_what_reaches_each_node_written_line_by_line(tmp_path):
    """Issue 47 §6: a 100,001-node tree of 1,000-category splits took minutes and GBs to
    print. A small one (tests/category_bomb.py): each edge of the text shows the
    categories that reach its node (brute force over the paths), and the file written
    line by line is the diagram a terminal shows."""
    import json

    from category_bomb import bomb_document
    from dtcli.model import load_model

    doc = bomb_document(nodes=127, categories=24)
    path = tmp_path / "bomb.json"
    path.write_text(json.dumps(doc))
    result = CliRunner().invoke(cli, ["export", str(path), "-o", str(tmp_path / "bomb.txt")])
    assert result.exit_code == 0, result.stderr
    written = (tmp_path / "bomb.txt").read_text().splitlines()
    model, _ = load_model(str(path))
    assert written == plain(text.render(model, written[0]), width=10_000)
    tree = doc["tree"]
    offsets, sides = tree["category_offsets"], tree["category_goes_left"]
    reaching, shown, stack = {0: set(range(24))}, [], [0]
    while stack:  # preorder, left child first, as the diagram lists nodes
        node = stack.pop()
        if node:
            shown.append(sorted(reaching[node]))
        if tree["children_left"][node] >= 0:
            side = sides[offsets[node]:offsets[node + 1]]
            for child, left in ((tree["children_right"][node], False),
                                (tree["children_left"][node], True)):
                reaching[child] = {c for c in reaching[node] if side[c] == left}
                stack.append(child)
    labels = [re.search(r"colour in \{([^}]*)\}|colour is missing|colour: no value", line)
              for line in written[2:]]
    assert [sorted(int(c[-5:]) for c in m[1].split(", ")) if m[1] else [] for m in labels] \
        == shown


def test_a_picture_too_big_to_draw_is_refused_with_the_depth_that_fits(tmp_path, monkeypatch,
                                                                       load_example):
    from dtcli.c45.estimator import J48Classifier
    from dtcli.errors import ParameterError
    from dtcli.export import pictures

    monkeypatch.setattr(pictures, "MAX_PICTURE_NODES", 7)  # hand_built: 1, 3, 7, 9 to depths 0-3
    path = tmp_path / "model.json"
    save_model(hand_built(), str(path), target="class")
    result = CliRunner().invoke(cli, ["export", str(path), "-f", "html"])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.strip().splitlines()[-1] == (
        "Error: a picture of 9 nodes is too big to draw (at most 7): limit its depth "
        "(--max-depth 2, or max_depth=2: 7 nodes) or export the tree as text, rules or dot")
    assert CliRunner().invoke(cli, ["export", str(path), "-f", "svg", "--max-depth", "2"]
                              ).exit_code == 0
    with pytest.raises(ParameterError, match="max_depth=2"):
        hand_built().to_svg()
    assert hand_built()._repr_svg_() is None
    j48 = tmp_path / "j48.json"  # 9 nodes too; J48 has no --max-depth
    save_model(J48Classifier().fit_dataset(load_example("iris.csv")), str(j48), target="class")
    result = CliRunner().invoke(cli, ["export", str(j48), "-f", "svg"])
    assert result.exit_code == 2 and result.stderr.strip().endswith(
        "a picture of 9 nodes is too big to draw (at most 7): export the J48 tree as text, "
        "rules or dot")
