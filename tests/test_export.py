"""Exports: text diagram (golden file), if-then rules (checked as predicates on the
data), Graphviz DOT (parsed), JSON."""
import io
import json
import math
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from rich.console import Console

from dtcli import DecisionTreeClassifier
from dtcli.cli import cli
from dtcli.export import dot, rules, text
from dtcli.model import save_model

GOLDEN = Path(__file__).resolve().parent / "data" / "golden"


@pytest.fixture(scope="module")
def iris_depth2(load_example):
    return DecisionTreeClassifier(max_depth=2).fit_dataset(load_example("iris.csv"))


def saved(tmp_path, model, target="class"):
    path = tmp_path / "model.json"
    save_model(model, str(path), target=target)
    return path


def lines(text_: str) -> list[str]:
    return [line.rstrip() for line in text_.rstrip("\n").split("\n")]


# --- text -------------------------------------------------------------------------------------

def test_text_export_matches_the_golden_file(tmp_path, iris_depth2):
    out = tmp_path / "tree.txt"
    result = CliRunner().invoke(cli, ["export", str(saved(tmp_path, iris_depth2)), "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    assert lines(out.read_text()) == lines((GOLDEN / "iris_depth2.txt").read_text())
    assert "\x1b[" not in out.read_text()  # no colour codes in a file


def test_text_render_with_a_plain_console(iris_depth2):
    console = Console(color_system=None, width=120, record=True, file=io.StringIO())
    console.print(text.render(iris_depth2, "gini tree for class: 5 nodes"))
    assert lines(console.export_text()) == lines((GOLDEN / "iris_depth2.txt").read_text())


def test_text_wraps_on_a_narrow_console_without_losing_content(iris_depth2):
    console = Console(color_system=None, width=40, record=True, file=io.StringIO())
    console.print(text.render(iris_depth2, "header"))
    flat = " ".join(console.export_text().split())
    for piece in ("a3 <= 2.45", "a4 > 1.75", "Iris-versicolor: 49,", "Iris-virginica: 45]"):
        assert " ".join(piece.split()) in flat


def test_text_label_with_markup_characters_is_printed_literally():
    X = np.array([["[bold]x[/bold]"], ["[red]"], ["[bold]x[/bold]"], ["[red]"]], dtype=object)
    model = DecisionTreeClassifier(nominal_features=[0]).fit(X, ["[a]", "b", "[a]", "b"])
    model.features_[0] = type(model.features_[0])("col[1]", "nominal",
                                                  model.features_[0].categories)
    console = Console(color_system=None, width=200, record=True, file=io.StringIO())
    console.print(text.render(model, "[title]"))
    out = console.export_text()
    assert "[title]" in out and "col[1] in {[bold]x[/bold]}" in out and "[a]: 2" in out


def test_text_export_to_a_terminal_has_colour(tmp_path, iris_depth2):
    # CliRunner's stdout is not a tty: plain; `export` colours only a terminal
    result = CliRunner().invoke(cli, ["export", str(saved(tmp_path, iris_depth2))])
    assert result.exit_code == 0
    assert lines(result.stdout) == lines((GOLDEN / "iris_depth2.txt").read_text())


# --- rules ------------------------------------------------------------------------------------

RULE = re.compile(r"^if (?P<conditions>.+) then (?P<label>.+?)  \(coverage (?P<coverage>\d+), "
                  r"confidence (?P<confidence>[\d.]+)%\)  \[(?P<counts>.*)\]$")
NUMERIC = re.compile(r"^(?P<name>.+) (?P<op><=|>) (?P<value>\S+)(?P<missing> \(or missing\))?$")
NOMINAL = re.compile(r"^(?P<name>.+) in \{(?P<cats>.*)\}(?P<missing> \(or missing\))?$")
PRESENCE = re.compile(r"^(?P<name>.+) is (?P<state>present|missing)$")


def rule_predicate(condition: str):
    """A Python predicate on a row {name: float | str | None} from one rule condition.
    None is a missing value; a category the feature does not know counts as missing."""
    if m := PRESENCE.match(condition):
        name, present = m["name"], m["state"] == "present"
        return lambda row: (row[name] is not None) == present
    if m := NUMERIC.match(condition):
        name, value, missing = m["name"], float(m["value"]), bool(m["missing"])
        test = (lambda x: x <= value) if m["op"] == "<=" else (lambda x: x > value)
        return lambda row: missing if row[name] is None else test(row[name])
    m = NOMINAL.match(condition)
    assert m, f"cannot parse condition {condition!r}"
    name, cats, missing = m["name"], set(m["cats"].split(", ")), bool(m["missing"])
    return lambda row: missing if row[name] is None else row[name] in cats


def parse_rules(rendered: str):
    parsed = []
    for line in rendered.rstrip("\n").split("\n"):
        m = RULE.match(line)
        assert m, f"not a rule: {line!r}"
        conditions = [] if m["conditions"] == "true" else m["conditions"].split(" and ")
        counts = {k: float(v) for k, v in (item.rsplit(": ", 1)
                                            for item in m["counts"].split(", "))}
        assert all(counts.values())  # zero counts are left out
        total = sum(counts.values())
        assert float(m["confidence"]) == pytest.approx(100 * counts[m["label"]] / total, abs=0.05)
        parsed.append(([rule_predicate(c) for c in conditions], m["label"], counts,
                       int(m["coverage"])))
    return parsed


def rows_as_dicts(model, X):
    """Decode an encoded matrix into {feature name: number | category | None} rows; unseen
    category codes become "<unseen>"."""
    out = []
    for row in X:
        decoded = {}
        for v, f in zip(row, model.features_):
            if math.isnan(v):
                decoded[f.name] = None
            elif f.kind == "nominal":
                decoded[f.name] = f.categories[int(v)] if int(v) < len(f.categories) else "<unseen>"
            else:
                decoded[f.name] = float(v)
        out.append(decoded)
    return out


def check_rules_select_the_leaves(model, X, y=None):
    rendered = rules.render(model)
    parsed = parse_rules(rendered)
    tree = model.tree_
    leaves = np.flatnonzero(tree.children_left == -1)
    assert len(parsed) == len(leaves)  # one rule per leaf
    rows = rows_as_dicts(model, X)
    selected = np.array([[all(c(row) for c in conditions) for row in rows]
                         for conditions, _, _, _ in parsed])
    assert (selected.sum(axis=0) == 1).all()  # every row meets exactly one rule
    landed = model.tree_.apply(X, model._nominal_mask())
    rule_leaves = set()
    for (conditions, label, counts, coverage), chosen in zip(parsed, selected):
        leaf_of_rows = set(landed[chosen].tolist())
        assert len(leaf_of_rows) <= 1  # the rule's rows all share one leaf
        if y is not None:
            # the counts and coverage printed are those of the rows the rule selects
            expected = np.bincount(y[chosen], minlength=len(model.classes_))
            assert [counts.get(str(c), 0) for c in model.classes_] == expected.tolist()
            assert coverage == chosen.sum()
            assert label == str(model.classes_[int(np.argmax(expected))])
        rule_leaves |= leaf_of_rows
    return rule_leaves


def test_rules_match_the_golden_file(iris_depth2):
    assert lines(rules.render(iris_depth2)) == lines((GOLDEN / "iris_depth2.rules").read_text())


@pytest.mark.parametrize("name, params", [
    ("iris.csv", {}),
    ("crx.csv", {"max_depth": 6}),
    ("hepatitis.csv", {}),  # missing values
    ("balanced/german.csv", {"min_samples_leaf": 5}),  # nominal with many categories
])
def test_each_rule_selects_exactly_the_training_rows_of_its_leaf(load_example, name, params):
    d = load_example(name)
    model = DecisionTreeClassifier(**params).fit_dataset(d)
    reached = check_rules_select_the_leaves(model, d.X, d.y)
    assert reached == set(np.unique(model.tree_.apply(d.X, model._nominal_mask())).tolist())


def test_rules_route_missing_and_unseen_values_like_the_tree():
    rng = np.random.default_rng(5)
    n = 300
    colour = rng.choice(["red", "green", "blue", "grey"], n).astype(object)
    size = rng.normal(size=n).round(1)
    y = ((colour == "red") ^ (size > 0.3)).astype(int)
    colour[rng.random(n) < 0.15] = None
    size[rng.random(n) < 0.15] = np.nan
    X = np.column_stack([colour, size])
    model = DecisionTreeClassifier(nominal_features=[0], min_samples_leaf=3).fit(X, y)
    assert np.isnan(model.tree_.threshold).sum() > model.tree_.n_leaves  # nominal splits too
    check_rules_select_the_leaves(model, model._matrix(X), y)
    # new rows: every combination of missing / unseen / known values
    grid = np.array([[c, s] for c in ["red", "grey", "purple", None]
                     for s in [-2.0, 0.0, 0.3, 0.31, 5.0, np.nan]], dtype=object)
    check_rules_select_the_leaves(model, model._matrix(grid))


def test_single_leaf_rule():
    model = DecisionTreeClassifier(max_depth=0).fit([[0.0], [1.0], [2.0]], ["a", "b", "b"])
    assert rules.render(model) == "if true then b  (coverage 3, confidence 66.7%)  [a: 1, b: 2]\n"


# --- dot --------------------------------------------------------------------------------------

QUOTED = r'"(?:[^"\\]|\\.)*"'
NODE = re.compile(rf'^  n(\d+) \[label=({QUOTED})(?:, [a-z]+=(?:{QUOTED}|\w+))*\];$')
EDGE = re.compile(rf'^  n(\d+) -> n(\d+) \[label=({QUOTED})\];$')


def unquote(token: str) -> str:
    return re.sub(r"\\(.)", lambda m: "\n" if m[1] == "n" else m[1], token[1:-1])


def parse_dot(source: str):
    assert source.count("{") - source.count("}") == sum(
        token.count("{") - token.count("}") for token in re.findall(QUOTED, source))
    body = source.rstrip("\n").split("\n")
    assert body[0] == "digraph tree {" and body[-1] == "}"
    nodes, edges = {}, []
    for line in body[1:-1]:
        if m := NODE.match(line):
            assert int(m[1]) not in nodes
            nodes[int(m[1])] = unquote(m[2])
        elif m := EDGE.match(line):
            edges.append((int(m[1]), int(m[2]), unquote(m[3])))
        else:
            assert re.match(r"^  (node|edge) \[.*\];$", line), line
    return nodes, edges


@pytest.mark.parametrize("name", ["iris.csv", "crx.csv", "hepatitis.csv"])
def test_dot_has_one_node_statement_per_node_and_one_edge_per_child(load_example, name):
    d = load_example(name)
    model = DecisionTreeClassifier(max_depth=4).fit_dataset(d)
    tree = model.tree_
    nodes, edges = parse_dot(dot.render(model))
    assert sorted(nodes) == list(range(tree.node_count))
    expected = sorted((p, int(c)) for p in range(tree.node_count) if tree.children_left[p] >= 0
                      for c in (tree.children_left[p], tree.children_right[p]))
    assert sorted((a, b) for a, b, _ in edges) == expected
    for node, label in nodes.items():
        assert label.endswith(f"n = {tree.n_node_samples[node]}")


def test_dot_edge_labels_are_the_split_tests(iris_depth2):
    _, edges = parse_dot(dot.render(iris_depth2))
    # iris has no missing values: no test says where they would go (the larger child)
    assert [label for _, _, label in edges] == ["a3 <= 2.45", "a3 > 2.45", "a4 <= 1.75",
                                                "a4 > 1.75"]


def test_dot_escapes_quotes_backslashes_and_braces():
    X = np.array([['say "hi"'], ["back\\slash"], ['say "hi"'], ["{brace}"]], dtype=object)
    model = DecisionTreeClassifier(nominal_features=[0]).fit(X, ['"q"', "b", '"q"', "b"])
    nodes, edges = parse_dot(dot.render(model))
    assert len(nodes) == model.tree_.node_count
    assert any('say "hi"' in label for _, _, label in edges)
    assert any('"q"' in label for label in nodes.values())


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is not installed")
def test_dot_renders_with_graphviz(load_example):
    model = DecisionTreeClassifier(max_depth=3).fit_dataset(load_example("crx.csv"))
    result = subprocess.run(["dot", "-Tsvg"], input=dot.render(model), capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "<svg" in result.stdout


# --- json -------------------------------------------------------------------------------------

def test_json_export_is_the_model_file(tmp_path, iris_depth2):
    path = saved(tmp_path, iris_depth2)
    result = CliRunner().invoke(cli, ["export", str(path), "-f", "json"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == json.loads(path.read_text())


@pytest.mark.parametrize("fmt", ["text", "json", "dot", "rules"])
def test_export_to_a_file_writes_nothing_on_stdout(tmp_path, iris_depth2, fmt):
    out = tmp_path / f"out.{fmt}"
    result = CliRunner().invoke(cli, ["export", str(saved(tmp_path, iris_depth2)), "-f", fmt,
                                      "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "" and out.read_text().strip()


def test_present_versus_missing_split_in_every_format():
    X = np.array([[1.0], [2.0], [1.0], [np.nan], [np.nan]])
    model = DecisionTreeClassifier().fit(X, ["p", "p", "p", "m", "m"])
    assert rules.render(model) == (
        "if x0 is present then p  (coverage 3, confidence 100.0%)  [p: 3]\n"
        "if x0 is missing then m  (coverage 2, confidence 100.0%)  [m: 2]\n")
    _, edges = parse_dot(dot.render(model))
    assert [label for _, _, label in edges] == ["x0 is present", "x0 is missing"]
    check_rules_select_the_leaves(model, np.array([[5.0], [np.nan], [-1e300]]))


# --- deep trees: linear output, no recursion --------------------------------------------------

def chain(depth: int):
    """A valid tree built as arrays: a chain of `depth` splits alternating on x0 and x1,
    split k sending x <= k + 0.5 to a leaf of class k % 2 and the rest (and missing
    values) down the chain."""
    from dtcli.io.dataset import Feature
    from dtcli.engine.tree import Tree

    n = 2 * depth + 1
    left, right = np.full(n, -1, np.int64), np.full(n, -1, np.int64)
    feature, threshold = np.full(n, -2, np.int64), np.full(n, np.nan)
    value = np.zeros((n, 2))
    splits = np.arange(depth)
    left[2 * splits], right[2 * splits] = 2 * splits + 1, 2 * splits + 2
    feature[2 * splits], threshold[2 * splits] = splits % 2, splits + 0.5
    value[2 * splits + 1, splits % 2] = 1
    value[n - 1, 0] = 1
    for k in reversed(range(depth)):
        value[2 * k] = value[2 * k + 1] + value[2 * k + 2]
    model = DecisionTreeClassifier()
    model.tree_ = Tree(left, right, feature, threshold, np.zeros(n, np.uint8), value,
                       value.sum(axis=1).astype(np.int64), np.full(n, np.nan))
    model.features_ = [Feature("x0", "numeric", ()), Feature("x1", "numeric", ())]
    model.classes_ = np.array(["a", "b"], dtype=object)
    return model


def test_rules_of_a_20000_deep_chain_merge_the_tests_of_each_feature():
    depth = 20_000
    rendered = rules.render(chain(depth)).splitlines()
    assert len(rendered) == depth + 1
    # leaf 12345 (of x1's split 12345): right at split 12344 on x0 and 12343 on x1, where
    # missing values went too; left at 12345, where they do not
    leaf = "(coverage 1, confidence 100.0%)"
    assert rendered[0] == f"if x0 <= 0.5 then a  {leaf}  [a: 1]"
    assert rendered[12_345] == ("if x0 > 12344.5 (or missing) and x1 > 12343.5 "
                                f"and x1 <= 12345.5 then b  {leaf}  [b: 1]")
    assert rendered[-1] == ("if x0 > 19998.5 (or missing) and x1 > 19999.5 (or missing) "
                            f"then a  {leaf}  [a: 1]")
    assert max(map(len, rendered)) < 120


def test_rules_of_a_chain_route_rows_like_the_tree():
    model = chain(40)
    grid = np.array([[a, b] for a in (-1.0, 3.0, 17.2, 39.5, 99.0, np.nan)
                     for b in (0.0, 8.0, 21.5, 40.0, np.nan)])
    check_rules_select_the_leaves(model, grid)


def test_dot_of_a_20000_deep_chain_has_a_line_per_node_and_edge():
    depth = 20_000
    nodes, edges = parse_dot(dot.render(chain(depth)))
    assert len(nodes) == 2 * depth + 1 and len(edges) == 2 * depth
    assert edges[-1] == (2 * depth - 2, 2 * depth, "x1 > 19999.5 (or missing)")


def test_text_of_a_deep_chain_continues_in_sections_of_bounded_width():
    depth = 3_000
    console = Console(color_system=None, width=10_000, record=True, file=io.StringIO())
    console.print(text.render(chain(depth), "header"))
    out = lines(console.export_text())
    sections = -(-depth // text.SECTION_DEPTH)
    # every node once, a title per section, a "continued" line where each section ends
    assert len(out) == 2 * depth + 1 + sections + (sections - 1)
    assert max(map(len, out)) < 4 * text.SECTION_DEPTH + 80
    assert out[-1].strip() == "└── x1 > 2999.5 (or missing)  → a  [a: 1]"
    assert "node 100 at depth 50" in out
