"""Trees as pictures: the tidy layout (no two boxes or labels overlap, checked from the
coordinates), the SVG (parsed; golden file), escaping, the HTML page (parsed, nothing
from the network, folding in headless Chromium where installed), PNG rendering with
rsvg-convert where installed, and `export -f svg|html`, `to_svg`, `_repr_svg_`."""
import re
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
import zlib
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from dtcli import DecisionTreeClassifier
from dtcli.cli import cli
from dtcli.errors import ParameterError
from dtcli.export import cards, html, layout, svg
from dtcli.export.svgkit import text_width
from dtcli.model import save_model

GOLDEN = Path(__file__).resolve().parent / "data" / "golden"
SVG_NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def iris_depth2(load_example):
    return DecisionTreeClassifier(max_depth=2).fit_dataset(load_example("iris.csv"))


def saved(tmp_path, model, name="model.json"):
    path = tmp_path / name
    save_model(model, str(path))
    return str(path)


def rectangles(placement: svg.Placement) -> np.ndarray:
    """Every drawn box and edge label as (x0, y0, x1, y1)."""
    drawn = ~np.isnan(placement.boxes[:, 0])
    labels = [r for r in placement.labels if r is not None]
    return np.vstack([placement.boxes[drawn], np.array(labels).reshape(-1, 4)])


def overlapping_pairs(rects: np.ndarray) -> int:
    """Pairs of rectangles whose interiors intersect, by brute force over all pairs."""
    x0, y0, x1, y1 = (rects[:, i] for i in range(4))
    apart = ((x1[:, None] <= x0[None, :] + 1e-9) | (x1[None, :] <= x0[:, None] + 1e-9)
             | (y1[:, None] <= y0[None, :] + 1e-9) | (y1[None, :] <= y0[:, None] + 1e-9))
    np.fill_diagonal(apart, True)
    return int((~apart).sum() // 2)


def parse_svg(document: str) -> ET.Element:
    root = ET.fromstring(document)
    assert root.tag == SVG_NS + "svg"
    return root


def texts(root: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in root.iter(SVG_NS + "text")]


# --- layout ---------------------------------------------------------------------------------

@st.composite
def random_trees(draw):
    """A random tree of up to 60 nodes (ids in preorder) with random box sizes."""
    n = draw(st.integers(1, 60))
    parents = [draw(st.integers(0, i - 1)) for i in range(1, n)]
    children = [[] for _ in range(n)]
    for child, parent in enumerate(parents, start=1):
        children[parent].append(child)
    widths = draw(st.lists(st.floats(5, 200), min_size=n, max_size=n))
    heights = draw(st.lists(st.floats(5, 80), min_size=n, max_size=n))
    return children, widths, heights


@settings(max_examples=200, deadline=None)
@given(random_trees())
def test_tidy_layout_separates_boxes_and_centres_parents(tree):
    children, widths, heights = tree
    placed = layout.tidy(children, widths, heights, gap=10)
    x0 = placed.x - np.array(widths) / 2
    rects = np.column_stack([x0, placed.y, x0 + widths, placed.y + heights])
    assert overlapping_pairs(rects) == 0
    assert x0.min() == pytest.approx(10) and (x0 + widths).max() <= placed.width
    for node, kids in enumerate(children):
        if kids:  # a parent is centred over its first and last child, a row above them
            assert placed.x[node] == pytest.approx((placed.x[kids[0]] + placed.x[kids[-1]]) / 2)
            assert all(placed.y[k] >= placed.y[node] + heights[node] for k in kids)
        # siblings in order, left to right, at least the gap apart
        for a, b in zip(kids, kids[1:]):
            assert placed.x[b] - widths[b] / 2 >= placed.x[a] + widths[a] / 2 + 10 - 1e-9


def test_tidy_layout_of_a_small_tree_by_hand():
    # root (50 wide) over a (40) and b (30); a over two leaves of 20, 14 apart
    placed = layout.tidy([[1, 2], [3, 4], [], [], []], [50, 40, 30, 20, 20], [20] * 5,
                         gap=14, row_gap=40, margin=10)
    # leaves 3, 4 at 20 and 54 (20 wide, 14 apart); a between them at 37; b 14 right of
    # a's 20-wide half: 37 + 20 + 14 + 15 = 86; the root halfway, 61.5
    assert placed.x.tolist() == [61.5, 37.0, 86.0, 20.0, 54.0]
    assert placed.y.tolist() == [10.0, 70.0, 70.0, 130.0, 130.0]


def test_a_deep_chain_lays_out_without_recursion():
    n = 5000
    children = [[i + 1] for i in range(n - 1)] + [[]]
    placed = layout.tidy(children, [30.0] * n, [10.0] * n)
    assert np.all(placed.x == placed.x[0])


def random_class_data(n_rows, n_classes, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, 4))
    y = np.array([f"class {k}" for k in rng.integers(0, n_classes, n_rows)])
    return X, y


@pytest.mark.parametrize("source, options, leaves", [
    ("iris.csv", {"max_depth": 0}, (1, 1)),
    ("iris.csv", {}, (9, 9)),
    ("balanced/vowel.csv", {}, (100, 300)),  # 11 classes
    ("balanced/optdigits.csv", {}, (300, 500)),
    ("random-26", {"min_samples_leaf": 2}, (300, 500)),
])
def test_no_boxes_or_labels_overlap_on_trees_of_1_to_500_leaves(load_example, source, options,
                                                                leaves):
    if source == "random-26":
        model = DecisionTreeClassifier(**options).fit(*random_class_data(1150, 26, 0))
    else:
        model = DecisionTreeClassifier(**options).fit_dataset(load_example(source))
    assert leaves[0] <= model.tree_.n_leaves <= leaves[1]
    diagram = cards.tree_diagram(model)
    placement = svg.place(diagram)
    assert overlapping_pairs(rectangles(placement)) == 0
    for card, box in zip(diagram.cards, placement.boxes):  # every line fits its box
        widest = max(text_width(t, svg.SIZE, style == "test") for style, t in card.lines)
        assert box[2] - box[0] >= widest + 2 * svg.PAD - 1e-6
    root = parse_svg(svg.render(diagram, placement))
    assert len(root.findall(f".//{SVG_NS}g[@class='nodes']/{SVG_NS}g")) == model.tree_.node_count
    legend = root.find(f".//{SVG_NS}g[@class='legend']")
    assert [t.text for t in legend.iter(SVG_NS + "text")] == [str(c) for c in model.classes_]


# --- content --------------------------------------------------------------------------------

def test_svg_of_a_small_tree_matches_the_golden_file(iris_depth2):
    # regenerate after a deliberate change of the drawing: write cards/svg output over
    # tests/data/golden/iris_depth2.svg and look at the diff and the picture
    drawn = svg.render(cards.tree_diagram(iris_depth2, "gini tree for class: 5 nodes"))
    assert drawn == (GOLDEN / "iris_depth2.svg").read_text()


def test_split_and_leaf_cards_say_what_the_text_export_says(iris_depth2):
    root = parse_svg(iris_depth2.to_svg())
    shown = texts(root)
    assert "a3 <= 2.45" in shown and "a4 <= 1.75" in shown
    assert "→ Iris-setosa" in shown and "n = 50 · p(Iris-setosa) = 1" in shown
    # the node with 49 versicolor and 5 virginica: counts and the leaf's probability 49/54
    assert "Iris-versicolor: 49, Iris-virginica: 5" in shown
    assert f"n = 54 · p(Iris-versicolor) = {49 / 54:.3g}" in shown
    edges = [t for t in shown if t in ("yes", "no")]
    assert edges == ["yes", "no", "yes", "no"]
    bars = root.findall(f".//{SVG_NS}g[@data-node='0']/{SVG_NS}rect")
    widths = [float(r.get("width")) for r in bars[2:]]  # box, bar background, three classes
    assert widths[0] == pytest.approx(widths[1]) == pytest.approx(widths[2])  # 50/50/50


def test_leaf_estimate_gives_the_leaf_probability(load_example):
    model = DecisionTreeClassifier(max_depth=1, leaf_estimate="laplace").fit_dataset(
        load_example("iris.csv"))
    shown = texts(parse_svg(model.to_svg()))
    assert "n = 50 · p(Iris-setosa) = 0.962" in shown  # (50 + 1) / (50 + 3)
    assert any("laplace leaves" in t for t in shown)


def test_max_depth_cuts_and_marks_the_hidden_subtree(load_example):
    model = DecisionTreeClassifier().fit_dataset(load_example("iris.csv"))
    root = parse_svg(model.to_svg(max_depth=1))
    cut = root.findall(f".//{SVG_NS}g[@class='node cut']")
    assert len(cut) == 1 and cut[0].get("data-node") == "2"
    assert "14 more nodes (8 leaves) not shown" in texts(cut[0])
    assert cut[0].find(SVG_NS + "rect").get("stroke-dasharray")
    assert len(root.findall(f".//{SVG_NS}g[@class='nodes']/{SVG_NS}g")) == 3


def test_names_with_markup_characters_are_escaped():
    X = np.array([["a<b"], ['"q" & \'r\''], ["a<b"], ['"q" & \'r\'']], dtype=object)
    model = DecisionTreeClassifier(nominal_features=[0]).fit(X, ["<x>", "&y", "<x>", "&y"])
    document = model.to_svg()
    assert "a<b" not in document and "<x>" not in document
    shown = texts(parse_svg(document))
    assert "→ <x>" in shown and "→ &y" in shown
    assert "x0 in {\"q\" & 'r'}" in shown and "&y: 2, <x>: 2" in shown
    page = html.page(cards.tree_diagram(model))
    assert ET.fromstring(page[page.index("<svg"):page.index("</svg>") + 6]) is not None


def test_missing_values_side_and_s_pruning_p_values(load_example):
    model = DecisionTreeClassifier(pruning="s-pruning").fit_dataset(load_example("hepatitis.csv"))
    p_values = model.pruning_["p_values"]
    root = parse_svg(model.to_svg())
    shown = texts(root)
    assert f"n = 155 · p-value {p_values[0]:.3g}" in shown
    assert any("s-pruning" in t for t in shown)  # the title names the pruning
    assert any(t.endswith("(or missing)") for t in shown if t.startswith(("yes", "no")))
    node0 = root.find(f".//{SVG_NS}g[@data-node='0']/{SVG_NS}title").text
    assert f"S-pruning p-value: {p_values[0]:.4g}" in node0


def test_naive_bayes_leaves_show_a_model_and_its_priors(load_example):
    model = DecisionTreeClassifier(max_depth=1, leaf_model="naive-bayes").fit_dataset(
        load_example("iris.csv"))
    root = parse_svg(model.to_svg())
    leaves = root.findall(f".//{SVG_NS}g[@class='node model']")
    assert len(leaves) == 2
    shown = texts(leaves[1])
    assert "naive bayes model" in shown
    prior = np.exp(model.leaf_model_.log_prior()[1])
    assert any(t.startswith("priors: ") and f"{prior.max():.2f}" in t for t in shown)


def test_cli_export_svg_html_forest_tree_and_fdf(tmp_path, load_example, iris_depth2):
    runner = CliRunner()
    path = saved(tmp_path, iris_depth2)
    result = runner.invoke(cli, ["export", path, "-f", "svg"])
    assert result.exit_code == 0, result.stderr
    assert "gini tree for class: 5 nodes" in texts(parse_svg(result.stdout))
    out = tmp_path / "tree.html"
    assert runner.invoke(cli, ["export", path, "-f", "html", "-o", str(out)]).exit_code == 0
    assert out.read_text().startswith("<!DOCTYPE html>")
    result = runner.invoke(cli, ["export", path, "-f", "dot", "--max-depth", "1"])
    assert result.exit_code == 2 and "text, svg and html" in result.stderr


def test_forest_tree_and_fdf_pictures(tmp_path, load_example):
    from dtcli import FDFClassifier
    from dtcli.ensemble.forest import RandomForestClassifier

    iris = load_example("iris.csv")
    forest = RandomForestClassifier(n_estimators=3, random_state=0).fit_dataset(iris)
    runner = CliRunner()
    path = saved(tmp_path, forest, "forest.json")
    result = runner.invoke(cli, ["export", path, "-f", "svg", "--tree", "1"])
    assert result.exit_code == 0, result.stderr
    root = parse_svg(result.stdout)
    assert texts(root)[0].startswith("tree 1 of the forest of 3 gini trees")
    assert len(root.findall(f".//{SVG_NS}g[@class='nodes']/{SVG_NS}g")) == \
        forest.estimators_[1].tree_.node_count
    # each box says what its numbers are: rows, and the bootstrap weight its counts sum to
    tree = forest.estimators_[1].tree_
    shown = texts(root)
    assert any(t.startswith("n: the training rows that reached a node") for t in shown)
    for node in range(tree.node_count):
        line = (f"n = {tree.n_node_samples[node]} rows · weight "
                f"{tree.counts[node].sum():g}")
        assert any(t.startswith(line) for t in shown), line
    assert (tree.counts[0].sum() == len(iris.y)) and tree.n_node_samples[0] < len(iris.y)
    dot = runner.invoke(cli, ["export", path, "-f", "dot", "--tree", "1"]).stdout
    assert f"n = {tree.n_node_samples[0]} rows · weight {tree.counts[0].sum():g}" in dot
    plain = runner.invoke(cli, ["export", saved(tmp_path, DecisionTreeClassifier(
        max_depth=2).fit_dataset(iris), "plain.json"), "-f", "svg"]).stdout
    assert "rows · weight" not in plain and "n = 150" in plain  # unweighted: rows only
    result = runner.invoke(cli, ["export", path, "-f", "svg"])
    assert result.exit_code == 2 and "--tree I" in result.stderr
    assert forest._repr_svg_() is None
    assert texts(parse_svg(forest.to_svg(tree=2)))[0] == "tree 2 of a forest of 3 gini trees"
    with pytest.raises(ParameterError, match="tree=I, 0 to 2"):
        forest.to_svg()
    fdf = FDFClassifier().fit_dataset(iris)
    result = runner.invoke(cli, ["export", saved(tmp_path, fdf, "fdf.json"), "-f", "svg"])
    assert result.exit_code == 0, result.stderr
    root = parse_svg(result.stdout)
    facts = fdf.facts()
    assert texts(root)[0] == f"FDF forest: {facts['n_trees']} trees, {facts['n_nodes']} conditions"
    placement = svg.place(cards.fdf_diagram(fdf))
    assert overlapping_pairs(rectangles(placement)) == 0


def test_repr_svg_of_a_fitted_and_an_unfitted_tree(iris_depth2):
    assert DecisionTreeClassifier()._repr_svg_() is None
    assert iris_depth2._repr_svg_() == iris_depth2.to_svg()


# --- html -----------------------------------------------------------------------------------

class _Tags(HTMLParser):
    """Start and end tags in order, and every attribute seen."""

    VOID = {"meta", "br"}  # HTML elements without an end tag; SVG ones close with />

    def __init__(self):
        super().__init__()
        self.open, self.attributes = [], []

    def handle_starttag(self, tag, attrs):
        self.attributes += attrs
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.attributes += attrs

    def handle_endtag(self, tag):
        assert self.open and self.open.pop() == tag, f"</{tag}> closes nothing open"


def test_html_page_parses_and_loads_nothing_from_the_network(iris_depth2):
    page = html.page(cards.tree_diagram(iris_depth2))
    tags = _Tags()
    tags.feed(page)
    assert tags.open == []  # every element closed
    names = {name for name, _ in tags.attributes}
    assert not names & {"src", "href", "srcset", "action", "data", "poster"}
    without_namespace = page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert not re.search(r"https?:|url\(|@import|//[a-z]", without_namespace)
    parse_svg(page[page.index("<svg"):page.index("</svg>") + 6])


def test_html_folding_in_headless_chromium(tmp_path, iris_depth2, load_example):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("chromium is not installed")
    model = DecisionTreeClassifier().fit_dataset(load_example("iris.csv"))
    page = tmp_path / "tree.html"
    page.write_text(html.page(cards.tree_diagram(model)))
    dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                          "--dump-dom", page.as_uri() + "#fold=2"],
                         capture_output=True, text=True, timeout=120).stdout
    state = {int(node): cls for cls, node in
             re.findall(r'class="(node [^"]*)" data-node="(\d+)"', dom)}
    tree = model.tree_
    below = set()
    stack = [int(tree.children_left[2]), int(tree.children_right[2])]
    while stack:
        node = stack.pop()
        below.add(node)
        if tree.children_left[node] >= 0:
            stack += [int(tree.children_left[node]), int(tree.children_right[node])]
    assert len(state) == tree.node_count and "folded" in state[2]
    assert {n for n, cls in state.items() if "hidden" in cls} == below


# --- png ------------------------------------------------------------------------------------

def png_pixels(data: bytes) -> np.ndarray:
    """The pixels of an 8-bit RGB or RGBA PNG, not interlaced (what rsvg-convert writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0
    channels = 3 if colour == 2 else 4
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(height, 1 + width * channels)
    out = np.zeros((height, width * channels), np.int64)
    for r in range(height):
        kind, line = raw[r, 0], raw[r, 1:].astype(np.int64)
        up = out[r - 1] if r else np.zeros_like(line)
        for i in range(line.shape[0]):
            left = out[r, i - channels] if i >= channels else 0
            upleft = up[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] += left
            elif kind == 2:
                line[i] += up[i]
            elif kind == 3:
                line[i] += (left + up[i]) // 2
            elif kind == 4:
                p = left + up[i] - upleft
                pa, pb, pc = abs(p - left), abs(p - up[i]), abs(p - upleft)
                line[i] += left if pa <= pb and pa <= pc else up[i] if pb <= pc else upleft
            out[r, i] = line[i] & 0xFF
    return out.reshape(height, width, channels)


def test_svg_renders_to_a_png_of_its_size_with_content(tmp_path, iris_depth2):
    if shutil.which("rsvg-convert") is None:
        pytest.skip("rsvg-convert (librsvg2-bin) is not installed")
    drawn = iris_depth2.to_svg()
    (tmp_path / "tree.svg").write_text(drawn)
    subprocess.run(["rsvg-convert", str(tmp_path / "tree.svg"), "-o", str(tmp_path / "t.png")],
                   check=True, timeout=60)
    pixels = png_pixels((tmp_path / "t.png").read_bytes())
    root = parse_svg(drawn)
    assert pixels.shape[:2] == (int(root.get("height")), int(root.get("width")))
    coloured = (pixels[:, :, :3] < 250).any(axis=2)
    assert 0.03 < coloured.mean() < 0.6  # drawn on, not a blank or a filled page
    # the root's class bar shows up in the first class's colour (#4e79a7)
    assert ((pixels[:, :, :3] == (0x4e, 0x79, 0xa7)).all(axis=2)).sum() > 100


def _run_node(script: str) -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    return subprocess.run([node, "-e", script], capture_output=True, text=True,
                          timeout=60, check=True).stdout


def test_html_relayout_is_the_tidy_layout_of_what_stays(load_example):
    """The page's JavaScript layout (html._LAYOUT, run by node) gives the centres
    layout.tidy gives, on a whole tree and on the tree left when subtrees fold: folding
    closes the gap a subtree leaves, and an unfolded tree stays where the SVG put it."""
    import json

    model = DecisionTreeClassifier(min_samples_leaf=3).fit_dataset(load_example("iris.csv"))
    diagram = cards.tree_diagram(model)
    placement = svg.place(diagram)
    children = [card.children for card in diagram.cards]
    folded = {1, 5} & {i for i, kids in enumerate(children) if kids}
    assert folded
    shown = [[] if i in folded else kids for i, kids in enumerate(children)]
    script = html._LAYOUT + "var kids = %s, slot = %s;" % (
        json.dumps(children), json.dumps(placement.slots.tolist())) + """
    var folded = %s;
    function all(n) { return kids[n]; }
    function shown(n) { return folded.indexOf(+n) >= 0 ? [] : kids[n]; }
    console.log(JSON.stringify([tidyX(0, all, slot, 14), tidyX(0, shown, slot, 14)]));
    """ % json.dumps(sorted(folded))
    whole, left = json.loads(_run_node(script))
    for got, kids in ((whole, children), (left, shown)):
        expected = layout.tidy(kids, placement.slots, np.ones(len(kids)), gap=14.0)
        nodes = [i for i in range(len(kids)) if not np.isnan(expected.x[i])]
        assert sorted(int(n) for n in got) == nodes
        xs = np.array([got[str(n)] for n in nodes])
        np.testing.assert_allclose(xs - xs[0], expected.x[nodes] - expected.x[0], atol=1e-9)
    width = lambda xs: max(xs[n] + placement.slots[int(n)] / 2 for n in xs) - min(  # noqa: E731
        xs[n] - placement.slots[int(n)] / 2 for n in xs)
    assert width(left) < width(whole)


def test_html_shows_the_title_and_legend_once(iris_depth2):
    page = html.page(cards.tree_diagram(iris_depth2))
    drawing = page[page.index("<svg"):page.index("</svg>")]
    title = cards.default_title(iris_depth2)
    assert title not in drawing and 'class="legend"' not in drawing
    assert page.count(f"<b>{title}</b>") == 1
    boxes = re.findall(r'data-x="([0-9.]+)" data-slot="([0-9.]+)"', drawing)
    assert len(boxes) == iris_depth2.tree_.node_count
