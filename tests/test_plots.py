"""Curves: `tune --plot` (score against a parameter with a one-std band; a heat map for
two), `train --pruning-path --plot` (impurity and leaves against alpha), the ticks,
and the fold-score strips of the comparison report; every picture parsed."""
import csv
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner

from dtcli.cli import cli
from dtcli.export import plots

SVG_NS = "{http://www.w3.org/2000/svg}"


def parse(document: str) -> ET.Element:
    root = ET.fromstring(document)
    assert root.tag == SVG_NS + "svg"
    return root


def texts(root) -> list[str]:
    return ["".join(t.itertext()) for t in root.iter(SVG_NS + "text")]


@pytest.mark.parametrize("low, high, expected", [
    (0.0, 1.0, [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]),
    (0.81, 0.97, [0.85, 0.9, 0.95]),
    (3.0, 47.0, [10.0, 20.0, 30.0, 40.0]),
    (-0.013, 0.0, [-0.01, -0.005, 0.0]),  # steps of 0.002 would be more than 5
])
def test_nice_ticks(low, high, expected):
    assert plots.nice_ticks(low, high) == pytest.approx(expected)


def test_score_curve_puts_points_band_and_best_where_the_scores_say():
    xs, means, stds = [2.0, 0.5, 1.0], [0.8, 0.9, 0.7], [0.05, 0.0, 0.1]
    root = parse(plots.score_curve(xs, means, stds, "q", "accuracy", "t", best=0.5))
    dots = [c for c in root.iter(SVG_NS + "circle") if c.get("r") == "2.5"]
    cx = [float(c.get("cx")) for c in dots]
    cy = [float(c.get("cy")) for c in dots]
    assert cx == sorted(cx)  # drawn in parameter order: 0.5, 1, 2
    # y grows downwards: 0.9 highest, then 0.8, then 0.7; equal spacing of 0.1 steps
    assert cy[0] < cy[2] < cy[1]
    assert cy[1] - cy[2] == pytest.approx(cy[2] - cy[0], abs=0.2)  # SVG keeps 0.1 px
    # x is linear: 1 is a third of the way from 0.5 to 2
    assert (cx[1] - cx[0]) / (cx[2] - cx[0]) == pytest.approx(1 / 3, abs=1e-3)
    band = root.find(f".//{SVG_NS}polygon").get("points").split()
    assert len(band) == 2 * len(xs)
    assert "best 0.5" in texts(root)
    marker = [c for c in root.iter(SVG_NS + "circle") if c.get("r") == "5"][0]
    assert float(marker.get("cx")) == pytest.approx(cx[0])


def test_score_curve_uses_a_log_axis_over_a_wide_range():
    root = parse(plots.score_curve([0.001, 0.01, 0.1, 1.0], [0.5, 0.6, 0.7, 0.6], [0] * 4,
                                   "alpha", "auc", "t"))
    cx = [float(c.get("cx")) for c in root.iter(SVG_NS + "circle")]
    steps = [b - a for a, b in zip(cx, cx[1:])]
    assert steps == pytest.approx([steps[0]] * 3, abs=0.2)  # decades equally spaced
    assert {"0.001", "0.01", "0.1", "1"} <= set(texts(root))


def test_heat_map_cells_and_best():
    scores = [[0.5, 0.6], [0.7, None], [0.9, 0.8]]  # rows: y = 1, 2, 3
    root = parse(plots.heat_map([10.0, 20.0], [1.0, 2.0, 3.0], scores, "a", "b", "t",
                                best=(10.0, 3.0)))
    cells = [r for r in root.iter(SVG_NS + "rect") if r.find(SVG_NS + "title") is not None]
    assert len(cells) == 6
    titles = [r.find(SVG_NS + "title").text for r in cells]
    assert "a=20, b=2: -" in titles and "a=10, b=3: 0.900" in titles
    best = [r for r in cells if r.get("stroke")]
    assert len(best) == 1 and best[0].find(SVG_NS + "title").text == "a=10, b=3: 0.900"
    # better is darker: the 0.9 cell is darker than the 0.5 cell
    fills = {r.find(SVG_NS + "title").text: r.get("fill") for r in cells}
    darkness = {k: -sum(int(v[i:i + 2], 16) for i in (1, 3, 5)) for k, v in fills.items()}
    assert darkness["a=10, b=3: 0.900"] > darkness["a=10, b=1: 0.500"]
    # the first y at the bottom
    y_of = {r.find(SVG_NS + "title").text: float(r.get("y")) for r in cells}
    assert y_of["a=10, b=1: 0.500"] > y_of["a=10, b=3: 0.900"]


def test_tune_plot_one_and_two_parameters_and_too_many(tmp_path, examples):
    runner = CliRunner()
    iris = str(examples / "iris.csv")
    curve = tmp_path / "curve.svg"
    result = runner.invoke(cli, ["tune", iris, "--grid", "min_samples_leaf=1,5,20", "--cv", "3",
                                 "-q", "-f", "json", "--plot", str(curve)])
    assert result.exit_code == 0, result.stderr
    root = parse(curve.read_text())
    assert "min_samples_leaf" in texts(root)
    assert len([c for c in root.iter(SVG_NS + "circle") if c.get("r") == "2.5"]) == 3
    heat = tmp_path / "heat.svg"
    result = runner.invoke(cli, ["tune", iris, "--grid", "min_samples_leaf=1,5",
                                 "--grid", "max_depth=1,2,3", "--cv", "3", "-q",
                                 "--plot", str(heat)])
    assert result.exit_code == 0, result.stderr
    cells = [r for r in parse(heat.read_text()).iter(SVG_NS + "rect")
             if r.find(SVG_NS + "title") is not None]
    assert len(cells) == 6
    result = runner.invoke(cli, ["tune", iris, "--grid", "min_samples_leaf=1,5", "--grid",
                                 "max_depth=1,2", "--grid", "min_samples_split=2,4", "-q",
                                 "--plot", str(tmp_path / "x.svg")])
    assert result.exit_code == 2 and "one or two parameters" in result.stderr
    assert not (tmp_path / "x.svg").exists()


def test_train_pruning_path_plot(tmp_path, examples):
    runner = CliRunner()
    path_csv, path_svg = tmp_path / "path.csv", tmp_path / "path.svg"
    result = runner.invoke(cli, ["train", str(examples / "iris.csv"), "--pruning-path", "-q",
                                 "-o", str(path_csv), "--plot", str(path_svg)])
    assert result.exit_code == 0, result.stderr
    rows = list(csv.DictReader(path_csv.open()))
    root = parse(path_svg.read_text())
    dots = [c for c in root.iter(SVG_NS + "circle")]
    assert len(dots) == 2 * len(rows)  # a dot per step in each panel
    leaves_panel = dots[len(rows):]
    cy = [float(c.get("cy")) for c in leaves_panel]
    n_leaves = [int(r["n_leaves"]) for r in rows]
    assert sorted(range(len(cy)), key=lambda i: cy[i]) == sorted(
        range(len(n_leaves)), key=lambda i: -n_leaves[i])  # more leaves, higher up
    result = runner.invoke(cli, ["train", str(examples / "iris.csv"), "--plot", "x.svg"])
    assert result.exit_code == 2 and "--pruning-path" in result.stderr


def test_fold_strips_draw_a_dot_per_fold_and_a_mean_bar():
    root = parse(plots.fold_strips(["a", "b"], {"a": [0.5, 0.7], "b": [0.6, 0.6, 0.9]},
                                   {"a": 0.6, "b": 0.7}, ["b"], "data", "auc"))
    assert len(list(root.iter(SVG_NS + "circle"))) == 5
    bars = [line for line in root.iter(SVG_NS + "line") if line.get("stroke-width") == "2.5"]
    assert [b.find(SVG_NS + "title").text for b in bars] == ["a: mean 0.6000", "b: mean 0.7000"]


def test_a_curve_renders_to_png(tmp_path):
    if shutil.which("rsvg-convert") is None:
        pytest.skip("rsvg-convert (librsvg2-bin) is not installed")
    drawing = plots.score_curve([1.0, 2.0, 3.0], [0.5, 0.7, 0.6], [0.1, 0.1, 0.1], "q",
                                "accuracy", "t", 2.0)
    (tmp_path / "c.svg").write_text(drawing)
    subprocess.run(["rsvg-convert", str(tmp_path / "c.svg"), "-o", str(tmp_path / "c.png")],
                   check=True, timeout=60)
    data = (tmp_path / "c.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(data[16:20], "big") == 560 and int.from_bytes(data[20:24], "big") == 330
