"""The Bayesian comparisons (dtcli/stats/bayes.py) against the `baycomp` package: the
correlated t-test exactly (a closed form), the signed-rank test within Monte Carlo error;
and `compare --bayes` end to end: seeded, in the table, the JSON, `Comparison.bayes` and
the HTML report."""
import json
import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from dtcli.cli import cli
from dtcli.stats import bayes
from dtcli.stats.distributions import t_cdf

baycomp = pytest.importorskip("baycomp")
stats = pytest.importorskip("scipy.stats")
ROOT = Path(__file__).resolve().parent.parent
IMBALANCED = ROOT / "examples" / "imbalanced"


@settings(max_examples=60, deadline=None)
@given(st.floats(-30, 30), st.integers(1, 200))
def test_student_cdf_is_scipys(x, df):
    assert t_cdf(x, df) == pytest.approx(stats.t.cdf(x, df), abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 10), st.integers(1, 3), st.sampled_from([0.0, 0.01, 0.05]),
       st.data())
def test_correlated_t_test_is_baycomps(k, runs, rope, data):
    n = k * runs
    first = np.array(data.draw(st.lists(st.integers(0, 20), min_size=n, max_size=n))) / 20
    second = np.array(data.draw(st.lists(st.integers(0, 20), min_size=n, max_size=n))) / 20
    ours = bayes.correlated_t_test(first - second, k, rope)
    # baycomp's (left, rope, right) for y - x: left is "x better"
    theirs = baycomp.CorrelatedTTest.probs(first, second, rope=rope, runs=runs)
    if rope == 0:
        assert ours["better"] == pytest.approx(theirs[0], abs=1e-12)
        assert ours["worse"] == pytest.approx(theirs[1], abs=1e-12)
        return
    assert ours["better"] == pytest.approx(theirs[0], abs=1e-12)
    assert ours["equivalent"] == pytest.approx(theirs[1], abs=1e-12)
    assert ours["worse"] == pytest.approx(theirs[2], abs=1e-12)


@pytest.mark.parametrize("shift, rope", [(0.0, 0.01), (0.02, 0.01), (0.005, 0.01),
                                         (-0.03, 0.0), (0.01, 0.02)])
def test_signed_rank_test_is_baycomps_within_monte_carlo_error(shift, rope):
    rng = np.random.default_rng(7)
    first = rng.uniform(0.6, 0.9, 25)
    second = first - shift + rng.normal(0, 0.02, 25)
    samples = 20000
    ours = bayes.signed_rank_test(first - second, rope, rng=np.random.default_rng(1),
                                  samples=samples)
    theirs = baycomp.SignedRankTest.probs(first, second, rope=rope, nsamples=samples,
                                          random_state=2)
    if rope == 0:  # baycomp gives (left, right) without a rope
        theirs = (theirs[0], 0.0, theirs[1])
    # two independent Monte Carlo estimates of each probability: 5 standard errors apart
    for p_ours, p_theirs in zip((ours["better"], ours["equivalent"], ours["worse"]), theirs):
        error = math.sqrt(max(p_theirs * (1 - p_theirs), 1 / samples) * 2 / samples)
        assert abs(p_ours - p_theirs) <= 5 * error + 1e-9


def test_the_posterior_masses_are_baycomps_for_the_same_weights():
    """The masses of one posterior sample, given the same Dirichlet weights: exact."""
    rng = np.random.default_rng(3)
    first, second = rng.uniform(0.5, 1, 12), rng.uniform(0.5, 1, 12)
    ours = bayes.signed_rank_samples(first - second, 0.02, rng=np.random.default_rng(5),
                                     samples=50)
    weights = np.random.default_rng(5).dirichlet(np.r_[0.5, np.ones(12)], 50)
    diff = np.r_[0.0, first - second]
    sums = diff[:, None] + diff[None, :]
    for w, masses in zip(weights, ours):
        outer = np.outer(w, w)
        better = (outer * ((sums > 0.04) + 0.5 * (sums == 0.04))).sum()
        worse = (outer * ((-sums > 0.04) + 0.5 * (-sums == 0.04))).sum()
        assert masses == pytest.approx([worse, 1 - worse - better, better], abs=1e-12)


def compare_json(*args):
    result = CliRunner().invoke(cli, ["compare", str(IMBALANCED / "new-thyroid1.dat"),
                                      str(IMBALANCED / "ecoli-0-6-7_vs_5.dat"),
                                      str(IMBALANCED / "haberman.dat"), "--criteria",
                                      "gini,entropy", "--cv", "3", "--repeats", "2", "-q",
                                      "--bayes", *map(str, args)])
    assert result.exit_code == 0, result.output + result.stderr
    return result


def test_compare_bayes_is_seeded_and_agrees_with_the_fold_scores(tmp_path):
    doc = json.loads(compare_json("-f", "json", "--metric", "brier", "--rope", "0.005").stdout)
    again = json.loads(compare_json("-f", "json", "--metric", "brier", "--rope",
                                    "0.005").stdout)
    assert doc["bayes"] == again["bayes"]
    section = doc["bayes"]
    assert section["base"] == "entropy" and section["rope"] == 0.005
    # lower is better: "entropy better" is a lower Brier score
    for d in doc["datasets"]:
        folds = doc["fold_scores"][d]
        theirs = baycomp.CorrelatedTTest.probs(np.array(folds["gini"]),
                                               np.array(folds["entropy"]), rope=0.005, runs=2)
        # y - x = entropy - gini; baycomp's left: entropy's Brier lower, i.e. entropy better
        ours = section["correlated_t"][d]["gini"]
        assert (ours["better"], ours["equivalent"], ours["worse"]) == pytest.approx(
            theirs, abs=1e-12)
    p = section["signed_rank"]["gini"]
    assert p["better"] + p["equivalent"] + p["worse"] == pytest.approx(1.0)


def test_compare_bayes_in_the_table_the_library_and_the_report(tmp_path):
    import dtcli

    table = compare_json().stdout
    assert "Bayesian signed-rank test" in table and "Correlated Bayesian t-test" in table
    result = dtcli.compare([str(IMBALANCED / "new-thyroid1.dat"),
                            str(IMBALANCED / "haberman.dat")], "gini,entropy", cv=3, seed=4,
                           bayes=True, rope=0.02, quiet=True)
    assert set(result.bayes["signed_rank"]) == {"gini"}
    assert result.bayes["seed"] == 4 and result.bayes["rope"] == 0.02
    report = tmp_path / "r.html"
    compare_json("--report", report)
    page = report.read_text()
    assert "Bayesian comparisons" in page and page.count("<polygon") == 1
    assert page.count("<circle") >= 1500  # the posterior samples of the triangle


def test_rope_without_bayes_is_refused():
    result = CliRunner().invoke(cli, ["compare", str(IMBALANCED / "haberman.dat"),
                                      str(IMBALANCED / "new-thyroid1.dat"), "--rope", "0.1"])
    assert result.exit_code != 0 and "--rope" in result.stderr and "Traceback" not in result.stderr


def test_a_table_of_scores_gets_the_signed_rank_test_only():
    from dtcli.experiments.comparison import compare_scores

    table = ROOT / "docs" / "reference" / "ihd_table3_accuracy_balanced.csv"
    doc = compare_scores(str(table), base="iHDw", bayes=True, rope=1, seed=3).document
    section = doc["bayes"]
    assert "correlated_t" not in section and section["seed"] == 3
    scores = doc["scores"]
    base = np.array([scores[d]["iHDw"]["mean"] for d in doc["datasets"]])
    other = np.array([scores[d]["Gini"]["mean"] for d in doc["datasets"]])
    theirs = baycomp.SignedRankTest.probs(base, other, rope=1, nsamples=50000, random_state=0)
    ours = section["signed_rank"]["Gini"]
    # baycomp's y - x = Gini - iHDw: its left is "iHDw better"
    for p_ours, p_theirs in zip((ours["better"], ours["equivalent"], ours["worse"]), theirs):
        assert abs(p_ours - p_theirs) <= 5 * math.sqrt(max(p_theirs * (1 - p_theirs),
                                                           1 / 50000) * 2 / 50000) + 1e-9


def test_rank_bayes_prints_the_checked_signed_rank_probabilities():
    """`dtree rank TABLE --bayes`: the probabilities of compare_scores (checked against
    baycomp above), seeded; a table has no fold scores, so no correlated t-test."""
    from dtcli.experiments.comparison import compare_scores

    table = str(ROOT / "docs" / "reference" / "ihd_table3_accuracy_balanced.csv")
    expected = compare_scores(table, base="iHDw", bayes=True, rope=1, seed=3).document["bayes"]
    runs = [CliRunner().invoke(cli, ["rank", table, "--base", "iHDw", "--bayes", "--rope", "1",
                                     "--seed", "3", "-f", "json"]) for _ in range(2)]
    assert all(run.exit_code == 0 for run in runs), runs[0].stderr
    section = json.loads(runs[0].stdout)["bayes"]
    assert section == expected and runs[0].stdout == runs[1].stdout
    assert "correlated_t" not in section
    text = CliRunner().invoke(cli, ["rank", table, "--base", "iHDw", "--bayes", "--rope", "1"])
    assert text.exit_code == 0 and "Bayesian signed-rank test" in text.stdout
    assert "no correlated t-test" in text.stdout
    refused = CliRunner().invoke(cli, ["rank", table, "--rope", "1"])
    assert refused.exit_code != 0 and "--rope" in refused.stderr
