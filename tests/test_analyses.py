"""The analyses of `dtree compare`: the skew sweep (--imbalance) and the pruning frontier
(--frontier), against direct fits, brute force and single compare entries."""
import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from dtcli.analyses.frontier import Point, pareto_front, path_alphas, swept
from dtcli.analyses.skew import parse_ratios, skew_sweep, within_slope
from dtcli.cli import cli
from dtcli.errors import ParameterError
from dtcli.sampling.folds import repeat_folds
from dtcli.crossval.resample import kept_minority, reachable, resampled_train
from dtcli.crossval.method_syntax import fixed_choices as parse_criteria
from dtcli.crossval.tasks import CriterionChoice, Protocol, TreeOptions

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
THYROID = EXAMPLES / "imbalanced" / "new-thyroid1.dat"  # 215 rows, 35 positive
ECOLI = EXAMPLES / "imbalanced" / "ecoli-0-6-7_vs_5.dat"  # 220 rows, 20 positive


def dtree(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def ok_json(*args):
    result = dtree(*args, "-f", "json", "-q")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), result.stderr


# --- resampling -------------------------------------------------------------------------


def test_resampled_counts_nesting_and_untouched_rest(load_example):
    data = load_example("imbalanced/new-thyroid1.dat")
    minority = int(np.argmin(np.bincount(data.y)))
    for fold, (train, test) in enumerate(repeat_folds(data.y, 5, 3, 1)):
        n_minority = int(np.sum(data.y[train] == minority))
        n_other = len(train) - n_minority
        kept = {}
        for ratio in (5.5, 10, 20, 50):
            rows = resampled_train(data.y, train, minority, ratio, 3, 1, fold)
            kept[ratio] = set(rows[data.y[rows] == minority].tolist())
            # every other row kept, floor(M / r + 1/2) minority rows (counted by hand)
            assert set(rows[data.y[rows] != minority].tolist()) == set(
                train[data.y[train] != minority].tolist())
            assert len(kept[ratio]) == min(n_minority, math.floor(n_other / ratio + 0.5))
            assert kept[ratio] <= set(train.tolist()) and not kept[ratio] & set(test.tolist())
        assert kept[50] <= kept[20] <= kept[10] <= kept[5.5]  # nested
    assert kept_minority(172, 20) == 9 and kept_minority(170, 20) == 9  # 8.6, 8.5 up


def test_resampling_is_a_function_of_the_key_not_of_the_call():
    y = np.array([0] * 90 + [1] * 30)
    train = np.arange(0, 120, 2)
    one = resampled_train(y, train, 1, 5, seed=7, repeat=0, fold=2)
    assert np.array_equal(one, resampled_train(y, train, 1, 5, seed=7, repeat=0, fold=2))
    assert not np.array_equal(one, resampled_train(y, train, 1, 5, seed=8, repeat=0, fold=2))
    assert not np.array_equal(one, resampled_train(y, train, 1, 5, seed=7, repeat=0, fold=3))


def test_reachable_ratios(load_example):
    data = load_example("imbalanced/new-thyroid1.dat")  # 180 : 35, natural ratio 5.1
    folds = repeat_folds(data.y, 5, 0, 0)
    minority = int(np.argmin(np.bincount(data.y)))
    assert not reachable(data.y, folds, minority, 2)
    assert reachable(data.y, folds, minority, 6) and reachable(data.y, folds, minority, 100)
    assert not reachable(data.y, folds, minority, 1000)  # no minority row left


def test_parse_ratios():
    assert parse_ratios("10, 1,2,2") == [1.0, 2.0, 10.0]
    for bad in ("0.5", "x", "inf", "1,,2"):
        with pytest.raises(ParameterError):
            parse_ratios(bad)


# --- the sweep ----------------------------------------------------------------------------


def test_within_slope_matches_least_squares_with_one_intercept_per_group():
    rng = np.random.default_rng(0)
    group = [g for g in range(6) for _ in range(4)]
    x = np.tile(np.log([5, 10, 20, 50]), 6)
    y = 0.9 - 0.03 * x + rng.normal(0, 0.02, 24) + np.repeat(rng.normal(0, 0.1, 6), 4)
    design = np.column_stack([x] + [np.array(group) == g for g in range(6)]).astype(float)
    coef, residual, *_ = np.linalg.lstsq(design, y, rcond=None)
    se = math.sqrt(residual[0] / (24 - 7) * np.linalg.inv(design.T @ design)[0, 0])
    slope, slope_se = within_slope(x, y, group)
    assert slope == pytest.approx(coef[0]) and slope_se == pytest.approx(se)


def test_sweep_folds_are_fits_on_the_resampled_rows(load_example):
    """A sweep cell equals a tree fitted on the resampled training rows alone, scored
    with scikit-learn's AUC on the untouched test rows."""
    from sklearn.metrics import roc_auc_score

    from dtcli.estimator import DecisionTreeClassifier

    data = load_example("imbalanced/new-thyroid1.dat")
    protocol = Protocol(3, 1, 5)
    sweep = skew_sweep(["thyroid"], [data], parse_criteria(["gini"]), TreeOptions(), protocol,
                       [2, 8, 20], jobs=1)
    assert sweep.skipped == {"thyroid": [2.0]}
    minority = int(np.argmin(np.bincount(data.y)))
    for ratio in (8.0, 20.0):
        for fold, (train, test) in enumerate(repeat_folds(data.y, 3, 5, 0)):
            rows = resampled_train(data.y, train, minority, ratio, 5, 0, fold)
            model = DecisionTreeClassifier(criterion="gini").fit(data.X[rows], data.y[rows])
            auc = roc_auc_score(data.y[test], model.predict_proba(data.X[test])[:, 1])
            assert sweep.scores[("thyroid", ratio, "gini")][fold] == pytest.approx(auc)


def test_sweep_json_plot_and_the_same_numbers_with_two_jobs(tmp_path):
    args = ("compare", THYROID, ECOLI, "--criteria", "gini,entropy", "--cv", 3,
            "--imbalance", "1,6,12,24")
    doc, _ = ok_json(*args, "--plot", tmp_path / "sweep.svg", "-j", 1)
    assert doc["metric"] == "auc" and doc["skipped"] == {"new-thyroid1": [1.0],
                                                         "ecoli-0-6-7_vs_5": [1.0, 6.0]}
    assert set(doc["imbalance"]) == {"6", "12", "24"}
    cell = doc["imbalance"]["12"]["gini"]
    assert len(cell["folds"]) == 6 and cell["mean"] == pytest.approx(np.mean(cell["folds"]))
    assert doc["imbalance"]["6"]["gini"]["folds"] == doc["by_dataset"]["new-thyroid1"]["6"][
        "gini"]["folds"]
    assert set(doc["slope"]) == set(doc["slope_se"]) == {"gini", "entropy"}
    assert doc["tests"]["12"]["friedman"] is not None and doc["tests"]["6"]["friedman"] is None
    root = ET.parse(tmp_path / "sweep.svg").getroot()
    # ratio 6 pools one dataset, 12 and 24 both: a line per method joins 12 and 24 only
    lines = root.findall(".//{*}polyline")
    assert root.tag.endswith("svg") and len(lines) == 2
    assert all(len(line.get("points").split()) == 2 for line in lines)
    assert len(root.findall(".//{*}circle")) == 6
    again, _ = ok_json(*args, "-j", 2)
    assert again["imbalance"] == doc["imbalance"]


def test_sweep_says_what_it_skips_and_refuses_mistakes(tmp_path):
    result = dtree("compare", ECOLI, "--criteria", "gini,entropy", "--cv", 3,
                   "--imbalance", "2,15", "-q")
    assert result.exit_code == 0 and "'ecoli-0-6-7_vs_5' cannot reach ratio(s) 2" in result.stderr
    iris = EXAMPLES / "iris.csv"
    for args, text in [((iris,), "name the one to resample against the rest with --minority"),
                       ((iris, "--minority", "nope"), "has no class 'nope'"),
                       ((ECOLI, "--base", "gini"), "--base does not apply to --imbalance")]:
        result = dtree("compare", *args, "--criteria", "gini,entropy", "--imbalance", "2", "-q")
        assert result.exit_code == 2 and text in result.stderr, result.output
    result = dtree("compare", ECOLI, "--criteria", "gini,entropy", "--minority", "x", "-q")
    assert result.exit_code == 2 and "applies to --imbalance or --frontier" in result.stderr


def test_minority_names_one_class_against_the_rest():
    doc, _ = ok_json("compare", EXAMPLES / "iris.csv", "--criteria", "gini,entropy", "--cv", 3,
                     "--imbalance", "4,8", "--minority", "Iris-setosa")
    assert doc["minority"] == {"iris": "Iris-setosa"} and set(doc["imbalance"]) == {"4", "8"}


# --- the frontier -------------------------------------------------------------------------


def test_frontier_points_are_single_compare_entries():
    doc, _ = ok_json("compare", THYROID, ECOLI, "--criteria", "gini", "--cv", 3, "--frontier")
    alphas = [p["value"] for p in doc["points"] if p["pruning"] == "ccp"]
    assert len(doc["points"]) == len(swept(CriterionChoice("gini"), alphas)) == 16 + len(alphas)
    assert len(alphas) >= 5 and alphas == sorted(alphas)
    for entry in ("gini:pruning=none", "gini:pruning=pessimistic:confidence=0.1",
                  f"gini:pruning=ccp:ccp_alpha={alphas[3]:g}",
                  "gini:pruning=reduced-error:pruning_folds=3"):
        point = next(p for p in doc["points"] if p["entry"] == entry)
        for metric, key in (("accuracy", "score"), ("n_leaves", "leaves")):
            single, _ = ok_json("compare", THYROID, ECOLI, "--criteria", f"{entry},entropy",
                                "--cv", 3, "--metric", metric)
            means = [single["scores"][d][entry]["mean"] for d in single["datasets"]]
            assert point[key] == pytest.approx(np.mean(means))
    by_entry = {p["entry"]: p for p in doc["points"]}
    brute = [p["entry"] for p in doc["points"] if not any(
        q["leaves"] <= p["leaves"] and q["score"] >= p["score"]
        and (q["leaves"] < p["leaves"] or q["score"] > p["score"]) for q in doc["points"])]
    assert sorted(doc["front"]) == sorted(brute) and doc["reading"]
    assert [by_entry[e]["leaves"] for e in doc["front"]] == sorted(
        by_entry[e]["leaves"] for e in doc["front"])


def test_path_alphas_span_the_paths(load_example):
    """From the 10th percentile of the path's alphas to its largest (one dataset: the
    median of one), log-spaced (checked against scikit-learn's path, in bits for
    entropy: ours are in nats, docs/pruning.md)."""
    from sklearn.tree import DecisionTreeClassifier as SkTree

    data = load_example("imbalanced/new-thyroid1.dat")
    sk = SkTree(criterion="gini", random_state=0).cost_complexity_pruning_path(data.X, data.y)
    positive = sk.ccp_alphas[sk.ccp_alphas > 0]
    alphas = path_alphas([data], CriterionChoice("gini"), TreeOptions(), points=4)
    ratio = (positive[-1] / np.quantile(positive, 0.1)) ** (1 / 3)
    expected = np.quantile(positive, 0.1) * ratio ** np.arange(4)
    assert alphas == pytest.approx([float(f"{a:.2g}") for a in expected], rel=1e-9)
    with pytest.raises(ParameterError):
        path_alphas([data], CriterionChoice("gini", trees=5), TreeOptions())


points = st.lists(st.tuples(st.integers(1, 30), st.integers(0, 20)), min_size=1, max_size=25)


@settings(max_examples=200, deadline=None)
@given(points, st.booleans())
def test_pareto_front_by_brute_force(pairs, higher):
    made = [Point("c", "m", None, None, f"e{i}", float(leaves), 0.0, score / 20, 0.0)
            for i, (leaves, score) in enumerate(pairs)]
    sign = 1 if higher else -1
    expected = {p.entry for p in made if not any(
        q.leaves <= p.leaves and sign * q.score >= sign * p.score
        and (q.leaves, q.score) != (p.leaves, p.score) for q in made)}
    assert {p.entry for p in pareto_front(made, higher)} == expected


def test_analysis_refusals_and_csv():
    iris = EXAMPLES / "iris.csv"
    for args, text in [(("--frontier", "--pruning", "ccp"), "--pruning does not apply to --frontier"),
                       (("--frontier", "--imbalance", "2"), "separate analyses"),
                       (("--frontier", "--criteria", "tsallis:q=auto,gini"),
                        "tune parameters in a separate run")]:
        result = dtree("compare", iris, *args, "-q")
        assert result.exit_code == 2 and text in result.stderr and "Traceback" not in result.output
    result = dtree("compare", THYROID, "--criteria", "gini,entropy", "--cv", 3, "--imbalance",
                   "6,12", "-q", "-f", "csv")
    means, slopes = result.stdout.split("\n\n")
    rows = [line.split(",") for line in means.splitlines()]
    assert rows[0] == ["ratio", "datasets", "method", "mean", "std", "folds"] and len(rows) == 5
    assert slopes.splitlines()[0] == "method,slope,slope_se"


# --- the library calls ------------------------------------------------------------------------


def test_analyses_as_library_calls_are_what_the_commands_print():
    import dtcli

    sweep = dtcli.skew_sweep([THYROID, ECOLI], "gini,entropy", ratios=[24, 6, 12, 1], cv=3,
                             quiet=True)
    doc, _ = ok_json("compare", THYROID, ECOLI, "--criteria", "gini,entropy", "--cv", 3,
                     "--imbalance", "1,6,12,24")
    assert json.loads(sweep.to_json()) == doc
    assert ET.fromstring(sweep.plot()).tag.endswith("svg")
    assert "<pre>" in sweep._repr_html_() and "<svg" in sweep._repr_html_()
    front = dtcli.frontier([THYROID, ECOLI], "gini", cv=3, quiet=True)
    doc, _ = ok_json("compare", THYROID, ECOLI, "--criteria", "gini", "--cv", 3, "--frontier")
    assert json.loads(front.to_json()) == doc
    with pytest.raises(ParameterError, match="--frontier: tune parameters in a separate run"):
        dtcli.frontier(THYROID, "tsallis:q=auto", quiet=True)
    paper = dtcli.reproduce("ihd", quick=True, quiet=True)
    assert all(isinstance(t.holds["holds"], bool) and t.holds["quick"] for t in paper.tables)
    assert json.loads(paper.to_json())["tables"][1]["comparison"]["datasets"] == [
        "liver", "sonar", "wine"]
    assert paper._repr_html_().startswith("<!DOCTYPE html>")


def test_the_sweep_plot_joins_only_means_over_the_same_datasets():
    """Ratio 2 pools dataset a, 5 and 10 pool a and b, 20 pools a, b and c: each method's
    only line joins 5 and 10; 2 and 20 are markers alone."""
    from dtcli.analyses.report import sweep_svg

    reached = {"2": ["a"], "5": ["a", "b"], "10": ["a", "b"], "20": ["a", "b", "c"]}
    cell = {"mean": 0.8, "std": 0.1, "folds": [0.7, 0.9]}
    doc = {"metric": "auc", "methods": ["gini", "hddt"], "datasets": ["a", "b", "c"],
           "imbalance": {r: {"gini": cell, "hddt": cell} for r in reached},
           "by_dataset": {d: {r: {} for r, ds in reached.items() if d in ds}
                          for d in "abc"}}
    root = ET.fromstring(sweep_svg(doc))
    lines = root.findall(".//{*}polyline")
    assert len(lines) == 2 and all(len(line.get("points").split()) == 2 for line in lines)
    assert len(root.findall(".//{*}circle")) == 8
    legend = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert legend.count("gini") == 1 and legend.count("hddt") == 1
