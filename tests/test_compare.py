"""`dtree compare`: criteria over datasets, a user's table, spec files, reference figures."""
import csv
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from dtcli.cli import cli
from dtcli.criteria import CRITERIA
from dtcli.errors import ParameterError
from dtcli.reporting import reference
from dtcli.reporting.comparison import comparison_document, render_comparison
from dtcli.crossval.method_syntax import fixed_choices as parse_criteria
from dtcli.crossval.tasks import CriterionChoice
from dtcli.crossval.methods import check_distinct, method_identity
from dtcli.crossval.spec import dataset_name, default_criteria

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
TABLE3 = ROOT / "docs" / "reference" / "ihd_table3_accuracy_balanced.csv"
TABLE4 = ROOT / "docs" / "reference" / "ihd_table4_auc_imbalanced.csv"
SMALL = [EXAMPLES / "iris.csv", EXAMPLES / "imbalanced" / "new-thyroid1.dat",
         EXAMPLES / "imbalanced" / "ecoli-0-6-7_vs_5.dat"]
QUICK = ("--cv", 3, "--criteria", "gini,entropy,gain-ratio", "-q")


def dtree(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def ok_json(*args):
    result = dtree(*args, "-f", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def one_line_error(result, code, text):
    assert result.exit_code == code, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and text in errors[0], result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


def without_timing(doc):
    doc = dict(doc)
    del doc["timing"]
    return doc


# --------------------------------------------------------------------------
# --table: the papers' tables, published statistics
# --------------------------------------------------------------------------


def test_table3_gives_the_papers_statistics():
    doc = ok_json("compare", "--table", TABLE3, "--base", "iHDw")
    assert len(doc["datasets"]) == 20 and doc["criteria"][-1] == "iHDw"
    assert round(doc["friedman"]["chi2"], 2) == 35.77
    assert round(doc["iman_davenport"]["F"], 2) == 6.52
    assert round(doc["nemenyi"]["cd"], 2) == 2.35  # q = 3.031, k = 8, N = 20
    assert round(doc["average_ranks"]["iHDw"], 2) == 2.45
    assert doc["win_tie_loss"]["Gini"] == [19, 0, 1]
    assert ["Gini", "iHDw"] in doc["nemenyi"]["significant_pairs"]
    assert doc["scores"]["wine"]["HDDT"] == {"mean": 96.32, "std": None}
    assert doc["best"]["vowel"] == ["CCPDT", "iHDw"]
    assert any("do not all perform alike" in line for line in doc["conclusions"])


def test_table4_and_the_default_base():
    doc = ok_json("compare", "--table", TABLE4)
    assert doc["base"] == "iHDw"  # the last column
    assert round(doc["friedman"]["chi2"], 2) == 32.51
    assert round(doc["iman_davenport"]["F"], 2) == 5.75


def test_lower_is_better_reverses_the_ranks(tmp_path):
    higher = ok_json("compare", "--table", TABLE3)
    lower = ok_json("compare", "--table", TABLE3, "--lower-is-better")
    for method, rank in higher["average_ranks"].items():
        assert lower["average_ranks"][method] == pytest.approx(9 - rank)
    assert lower["friedman"]["chi2"] == pytest.approx(higher["friedman"]["chi2"])


def test_table_outputs_and_cd_diagram(tmp_path):
    svg = tmp_path / "cd.svg"
    result = dtree("compare", "--table", TABLE3, "--cd-diagram", svg)
    assert result.exit_code == 0, result.output
    assert "average rank" in result.stdout and "93.97 *" in result.stdout  # breast: best marked
    assert "Nemenyi test at alpha 0.05: critical difference CD = 2.35" in result.stdout
    assert svg.read_text().startswith("<svg") and "iHDw (2.45)" in svg.read_text()
    markdown = dtree("compare", "--table", TABLE3, "-f", "markdown").stdout
    assert "| breast | 92.24 | 92.24 | 93.10 | **93.97** |" in markdown
    assert "- Friedman chi2 = 35.77" in markdown
    rows = list(csv.reader(io.StringIO(dtree("compare", "--table", TABLE3, "-f", "csv").stdout)))
    assert rows[0] == ["dataset", "Entropy", "Gini", "GR", "DCSM", "HDDT", "CCPDT", "iHD", "iHDw"]
    assert rows[1][0] == "appendicitis" and float(rows[1][4]) == 80.83


@pytest.mark.parametrize("content, text", [
    ("dataset,a,b\nx,1,2\nAverage,1,2\n", "line 3: row 'Average' looks like a summary"),
    ("dataset,a,b\nx,1,two\n", "line 2, column 'b': 'two' is not a number"),
    ("dataset,a,b\nx,1\n", "line 2: 2 fields, the header has 3"),
    ("dataset,a,a\nx,1,2\n", "'a' appears twice"),
    ("dataset\n", "needs a header row"),
])
def test_bad_tables_are_one_line_errors(tmp_path, content, text):
    path = tmp_path / "t.csv"
    path.write_text(content)
    one_line_error(dtree("compare", "--table", path), 1, text)


def test_table_excludes_the_options_of_runs(tmp_path):
    one_line_error(dtree("compare", "--table", TABLE3, "--cv", 5), 2, "--cv does not apply to --table")
    one_line_error(dtree("compare", "--table", TABLE3, SMALL[0]), 2, "give no DATA")
    one_line_error(dtree("compare", SMALL[0], "--lower-is-better"), 2, "applies to --table")
    one_line_error(dtree("compare", "--table", TABLE3, "--base", "CART"), 2,
                   "--base 'CART' is not one of")


# --------------------------------------------------------------------------
# Criteria over datasets
# --------------------------------------------------------------------------


def test_compare_json_schema_and_consistency():
    doc = ok_json("compare", *SMALL, *QUICK, "--metric", "auc", "-j", 1, "--posthoc", "always")
    assert doc["posthoc"]["rule"] == "always" and doc["posthoc"]["shown"]
    assert doc["datasets"] == ["iris", "new-thyroid1", "ecoli-0-6-7_vs_5"]
    assert doc["criteria"] == ["gini", "entropy", "gain-ratio"] and doc["base"] == "gain-ratio"
    assert (doc["metric"], doc["cv"], doc["repeats"]) == ("auc", 3, 1)
    for key in ("average_ranks", "friedman", "iman_davenport", "nemenyi", "win_tie_loss"):
        assert doc[key], key
    assert set(doc["friedman"]) >= {"chi2", "p"} and set(doc["iman_davenport"]) >= {"F", "p"}
    assert set(doc["nemenyi"]) == {"q_alpha", "cd", "significant_pairs"}
    assert set(doc["win_tie_loss"]) == {"gini", "entropy"}
    assert all(sum(wtl) == 3 for wtl in doc["win_tie_loss"].values())
    means = np.array([[doc["scores"][d][c]["mean"] for c in doc["criteria"]] for d in doc["datasets"]])
    assert means.shape == (3, 3) and ((0.5 < means) & (means <= 1)).all()
    assert sum(doc["average_ranks"].values()) == pytest.approx(6.0)  # 1 + 2 + 3
    for d, best in doc["best"].items():
        assert {c for c in doc["criteria"] if doc["scores"][d][c]["mean"] == means[doc["datasets"].index(d)].max()} == set(best)
    single = ok_json("evaluate", SMALL[1], "--criterion", "entropy", "--cv", 3, "-j", 1)
    assert doc["scores"]["new-thyroid1"]["entropy"]["mean"] == single["auc"]["mean"]
    assert doc["scores"]["new-thyroid1"]["entropy"]["std"] == single["auc"]["std"]


def test_worker_processes_and_one_process_give_identical_json():
    one = dtree("compare", *SMALL[1:], *QUICK, "-f", "json", "-j", 1)
    two = dtree("compare", *SMALL[1:], *QUICK, "-f", "json", "-j", 2)
    assert one.exit_code == two.exit_code == 0
    first, second = json.loads(one.stdout), json.loads(two.stdout)
    assert set(first["timing"]) == {"gini", "entropy", "gain-ratio"}
    assert json.dumps(without_timing(first)) == json.dumps(without_timing(second))


def test_results_file_makes_a_rerun_free(tmp_path):
    results = tmp_path / "runs.jsonl"
    args = ("compare", SMALL[1], "--cv", 3, "--criteria", "gini,entropy", "-j", 1,
            "--results", results, "-f", "json")
    first = dtree(*args)
    assert "0 fold(s) taken from" in first.stderr and "6 computed" in first.stderr
    again = dtree(*args)
    assert "6 fold(s) taken from" in again.stderr and "0 computed" in again.stderr
    assert without_timing(json.loads(again.stdout)) == without_timing(json.loads(first.stdout))
    assert json.loads(again.stdout)["timing"] == json.loads(first.stdout)["timing"]
    wider = dtree("compare", SMALL[1], "--cv", 3, "--criteria", "gini,entropy,gain-ratio", "-j", 1,
                  "--results", results, "-f", "json")
    assert "6 fold(s) taken from" in wider.stderr and "3 computed" in wider.stderr
    leafier = dtree("compare", SMALL[1], "--cv", 3, "--criteria", "gini,entropy", "-j", 1,
                    "--results", results, "--min-samples-leaf", 3, "-q")
    assert leafier.exit_code == 0 and len(results.read_text().splitlines()) == 9 + 6


def test_class_weights_are_other_results_and_are_recorded(tmp_path):
    results = tmp_path / "runs.jsonl"
    args = ("compare", SMALL[1], "--cv", 3, "--criteria", "gini,entropy", "-j", 1,
            "--results", results, "-f", "json")
    plain = dtree(*args)
    weighted = dtree(*args, "--class-weight", "positive=5")
    assert "0 fold(s) taken from" in weighted.stderr and "6 computed" in weighted.stderr
    assert json.loads(plain.stdout)["options"]["class_weight"] is None
    assert json.loads(weighted.stdout)["options"]["class_weight"] == {"positive": 5.0}
    balanced = dtree(*args, "--class-weight", "balanced")
    assert "6 computed" in balanced.stderr
    assert json.loads(balanced.stdout)["options"]["class_weight"] == "balanced"
    again = dtree(*args, "--class-weight", "positive=5")
    assert "6 fold(s) taken from" in again.stderr and "0 computed" in again.stderr
    table = dtree("compare", SMALL[1], *QUICK, "-j", 1, "--class-weight", "balanced")
    assert "class weights balanced" in table.stdout
    one_line_error(dtree("compare", "--table", TABLE3, "--class-weight", "balanced"), 2,
                   "--class-weight does not apply to --table")


def test_table_marks_the_best_and_shows_sd():
    result = dtree("compare", *SMALL[1:], *QUICK, "--sd", "--metric", "accuracy", "-j", 1,
                   "--posthoc", "always")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "±" in out and " *" in out and "W/T/L of gain-ratio" in out
    assert "Friedman chi2" in out and "Nemenyi test" in out


def test_one_dataset_has_ranks_but_no_tests(tmp_path):
    doc = ok_json("compare", SMALL[1], *QUICK, "-j", 1)
    assert doc["friedman"] is None and doc["nemenyi"] is None
    assert "at least two datasets" in " ".join(doc["conclusions"])
    one_line_error(dtree("compare", SMALL[1], *QUICK, "-j", 1, "--cd-diagram", tmp_path / "x.svg"),
                   2, "needs at least two datasets")


@pytest.mark.parametrize("args, code, text", [
    (["--criteria", "gini,bogus"], 2, "unknown criterion 'bogus'"),
    (["--criteria", "gini:q=1"], 2, "has no parameter 'q'"),
    (["--criteria", "gini,entropy", "--base", "ihdw"], 2, "--base 'ihdw' is not one of"),
    (["--criteria", "gini"], 2, "at least two criteria"),
    (["--metric", "pr_auc"], 2, "--metric"),
    (["--cv", 300], 2, "more folds than dataset"),
    (["--criteria", "gini,tsallis:q=2"], 2, "'gini' and 'tsallis:q=2' are the same method"),
    (["--criteria", "renyi,entropy,pe:alpha=1"], 2, "'renyi' and 'entropy' are the same method"),
    (["--criteria", "gini,tsallis:q=2:q=3"], 2, "'tsallis:q=2:q=3' gives q twice"),
    (["--criteria", "gini,entropy", "--class-weight", "negative=2", "--class-weight", "sick=3"],
     2, "--class-weight: dataset 'new-thyroid1' has no class 'sick'"),
])
def test_usage_errors(args, code, text):
    one_line_error(dtree("compare", SMALL[1], "-j", 1, "-q", *args), code, text)


def test_no_datasets_and_duplicate_names():
    one_line_error(dtree("compare", "--criteria", "gini,entropy"), 2, "give DATA files")
    one_line_error(dtree("compare", SMALL[1], SMALL[1], "--criteria", "gini,entropy"), 2,
                   "two datasets are named 'new-thyroid1'")


@pytest.mark.skipif(not any(c.params for c in CRITERIA.values()),
                    reason="no registered criterion has parameters")
def test_one_criterion_with_two_parameter_values():
    criterion = next(c for c in CRITERIA.values() if c.params)
    param = criterion.params[0]
    values = [v for v in (0.5, 1.5, 2.5, 3.0, param.default + 1) if param.accepts(v)][:2]
    labels = [f"{criterion.name}:{param.name}={v:g}" for v in values]
    doc = ok_json("compare", *SMALL[1:], "--cv", 3, "-j", 1, "-q",
                  "--criteria", ",".join(["gini", *labels]))
    assert doc["criteria"] == ["gini", *labels]


def test_the_default_criteria_are_distinct_methods():
    # Of the 17 criteria, eight are at their defaults gini (tsallis q=2, pg, pt, abi),
    # entropy (renyi, pe, pr) or gain ratio (tsallis-gain-ratio q=1): docs/criteria.md.
    defaults = default_criteria()
    assert defaults == ["gini", "entropy", "gain-ratio", "ge", "dcsm", "hddt", "ccpdt", "ihd",
                        "ihdw"]
    identities = {method_identity(CriterionChoice(name)) for name in defaults}
    assert len(identities) == len(defaults)
    for name in set(CRITERIA) - set(defaults):
        assert method_identity(CriterionChoice(name)) in identities, name
    check_distinct(parse_criteria([",".join(defaults)]))


def test_other_parameters_make_other_methods():
    check_distinct(parse_criteria(["gini,tsallis:q=2.5,gain-ratio,gain-ratio:average_gain=1,"
                                   "tsallis-gain-ratio:q=2,pt:alpha=0.5"]))
    with pytest.raises(ParameterError, match="'pt:alpha=1:gamma=1' and 'pr' are the same"):
        check_distinct(parse_criteria(["pt:alpha=1:gamma=1,pr"]))


# --------------------------------------------------------------------------
# --spec files
# --------------------------------------------------------------------------


def test_spec_file_names_datasets_and_reads_them_with_their_options(tmp_path):
    spec = tmp_path / "sets.toml"
    spec.write_text(f"""
[datasets.glass]
path = "{(EXAMPLES / 'balanced' / 'glass.csv').as_posix()}"
target = "Type"
drop = "Id"

[datasets.thyroid]
path = "{(EXAMPLES / 'imbalanced' / 'new-thyroid1.dat').as_posix()}"
""")
    doc = ok_json("compare", "--spec", spec, SMALL[0], *QUICK, "-j", 1)
    assert doc["datasets"] == ["glass", "thyroid", "iris"]
    assert doc["sources"]["glass"].endswith("glass.csv")
    one = ok_json("evaluate", EXAMPLES / "balanced" / "glass.csv", "--target", "Type", "--drop",
                  "Id", "--cv", 3, "-j", 1, "-f", "json")
    assert doc["scores"]["glass"]["gini"]["mean"] == one["accuracy"]["mean"]


def test_spec_paths_are_relative_to_the_spec_file(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.csv").write_text(
        "x,y,c\n" + "".join(f"{i},{i % 3},{'p' if i % 2 else 'n'}\n" for i in range(30)))
    spec = tmp_path / "sub" / "sets.toml"
    spec.write_text('[datasets.first]\npath = "a.csv"\n[datasets.second]\npath = "a.csv"\n'
                    'drop = ["y"]\n')
    doc = ok_json("compare", "--spec", spec, *QUICK, "-j", 1)
    assert doc["datasets"] == ["first", "second"]


@pytest.mark.parametrize("content, text", [
    ('[datasets.a]\ntarget = "x"\n', "datasets.a.path: missing"),
    ('[datasets.a]\npath = "x.csv"\ncolour = 1\n', "datasets.a.colour: unknown key"),
    ('[datasets.a]\npath = "x.csv"\nformat = "xls"\n', "datasets.a.format: must be one of"),
    ('[datasets.a]\npath = "x.csv"\ndrop = [1.5]\n', "datasets.a.drop: must be a column name"),
    ('[datasets.a]\npath = "x.csv"\nheader = "no"\n', "datasets.a.header: must be true or false"),
    ('[other]\nx = 1\n', "other: unknown top-level key"),
    ('title = "x"\n', "title: unknown top-level key"),
    ('[datasets]\n', "datasets: no [datasets.NAME] tables"),
    ('[datasets.a\npath = 1\n', "not a valid TOML file"),
])
def test_spec_problems_name_the_file_and_key(tmp_path, content, text):
    spec = tmp_path / "bad.toml"
    spec.write_text(content)
    one_line_error(dtree("compare", "--spec", spec, *QUICK), 1, f"{spec}: ")
    one_line_error(dtree("compare", "--spec", spec, *QUICK), 1, text)


def test_missing_spec_file():
    one_line_error(dtree("compare", "--spec", "no/such.toml", *QUICK), 1, "no/such.toml: no such spec file")


# --------------------------------------------------------------------------
# --reference
# --------------------------------------------------------------------------


def test_reference_columns_match_by_name_and_initials():
    assert reference.match_columns(["gini", "entropy", "gain-ratio", "ihdw", "tsallis:q=2"],
                                ["Entropy", "Gini", "GR", "iHDw", "Tsallis"]) == {
        "gini": "Gini", "entropy": "Entropy", "gain-ratio": "GR", "ihdw": "iHDw",
        "tsallis:q=2": "Tsallis"}
    assert reference.match_columns(["tsallis:q=2", "tsallis:q=3"], ["Tsallis"]) == {}


def test_spearman():
    assert reference.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert reference.spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert reference.spearman([1.5, 1.5, 3], [1, 2, 3]) == pytest.approx(np.corrcoef([1.5, 1.5, 3], [1, 2, 3])[0, 1])


def test_reference_figures_beside_ours():
    data = [EXAMPLES / "imbalanced" / name for name in
            ("new-thyroid1.dat", "ecoli-0-6-7_vs_5.dat", "yeast-2_vs_4.dat")]
    result = dtree("compare", *data, *QUICK, "--metric", "auc", "-j", 1, "--reference", TABLE4,
                   "-f", "json")
    assert result.exit_code == 0, result.output
    ref = json.loads(result.stdout)["reference"]
    assert ref["scale"] == 100 and ref["datasets"] == ["new-thyroid1", "ecoli-0-6-7_vs_5",
                                                       "yeast-2_vs_4"]
    assert ref["columns"] == {"gini": "Gini", "entropy": "Entropy", "gain-ratio": "GR"}
    assert ref["scores"]["new-thyroid1"] == {"gini": 94.58, "entropy": 95.69, "gain-ratio": 93.61}
    assert -1 <= ref["spearman_rho"] <= 1 and set(ref["average_ranks"]) == {"ours", "reference"}
    table = dtree("compare", *data, *QUICK, "--metric", "auc", "-j", 1, "--reference", TABLE4).stdout
    assert "(94.58)" in table and "reference rank" in table and "Spearman's rho" in table


def test_a_reference_without_matching_datasets_says_so():
    doc = ok_json("compare", SMALL[0], SMALL[1], *QUICK, "-j", 1, "--reference", TABLE3)
    assert doc["reference"]["datasets"] == [] and doc["reference"]["missing_datasets"] == [
        "iris", "new-thyroid1"]


# --------------------------------------------------------------------------
# The table at the terminal's width
# --------------------------------------------------------------------------

IMBALANCED_NAMES = sorted(dataset_name(str(p)) for p in (EXAMPLES / "imbalanced").glob("*.dat"))
LONG_CRITERIA = ["gini", "entropy", "gain-ratio", "gain-ratio:average_gain=1", "tsallis:q=0.5",
                 "tsallis:q=3", "tsallis-gain-ratio:q=2", "renyi:gamma=0.5", "pe:alpha=0.5",
                 "pg:alpha=0.5", "pt:alpha=0.5:gamma=3", "pr:alpha=0.5:gamma=0.5",
                 "ge", "abi:alpha=0.5:beta=0.5", "dcsm", "hddt", "ccpdt", "ihd", "ihdw"]


def rendered(doc, width, show_sd=False):
    out = io.StringIO()
    render_comparison(doc, "table", out, width=width, show_sd=show_sd)
    return out.getvalue()


def cells_by_row(text):
    """Row label -> its cells, concatenated over the column groups (cells are separated by
    at least two spaces; a best-in-row mark is one space from its number)."""
    rows = {}
    for line in text.splitlines():
        fields = [f for f in re.split(r"\s{2,}", line.strip()) if f]
        if fields:
            rows.setdefault(fields[0], []).extend(fields[1:])
    return rows


@pytest.mark.parametrize("width", [80, 200])
@pytest.mark.parametrize("methods", [LONG_CRITERIA, ["gini", "entropy", "gain-ratio"]])
def test_table_cuts_no_name_and_no_number_at_the_width(width, methods):
    assert len(IMBALANCED_NAMES) == 13
    rng = np.random.default_rng(len(methods))
    means = rng.uniform(0.5, 1.0, (len(IMBALANCED_NAMES), len(methods)))
    stds = rng.uniform(0.0, 0.2, means.shape)
    doc = comparison_document(IMBALANCED_NAMES, methods, means, stds, base="gini",
                              about={"metric": "auc"})
    for show_sd in (False, True):
        text = rendered(doc, width, show_sd)
        assert max(len(line) for line in text.splitlines()) <= width
        rows = cells_by_row(text)
        for i, name in enumerate(IMBALANCED_NAMES):
            expected = [f"{means[i, j]:.4f}" + (f" ± {stds[i, j]:.4f}" if show_sd else "")
                        + (" *" if methods[j] in doc["best"][name] else "")
                        for j in range(len(methods))]
            assert rows[name] == expected, name
        assert rows["average rank"] == [f"{doc['average_ranks'][m]:.2f}" for m in methods]
        headers = [f for line in text.splitlines() for f in re.split(r"\s{2,}", line.strip())]
        assert all(m in headers for m in methods)


def test_a_table_too_narrow_for_two_columns_is_printed_plainly():
    doc = comparison_document(IMBALANCED_NAMES[:3], ["gini", "tsallis:q=0.5"],
                              [[0.8, 0.9], [0.7, 0.6], [0.75, 0.75]], about={"metric": "auc"})
    text = rendered(doc, 30)
    assert "ecoli-0-1-4-7_vs_2-3-5-6" in text.splitlines()
    assert "  tsallis:q=0.5: 0.9000 *" in text.splitlines()


# --------------------------------------------------------------------------
# one command per job: rank, sweep, frontier; compare's old spellings for one release
# --------------------------------------------------------------------------

def test_rank_prints_what_compare_table_printed_and_the_old_spelling_says_so():
    ranked = dtree("rank", TABLE3, "--base", "iHDw")
    old = dtree("compare", "--table", TABLE3, "--base", "iHDw")
    assert ranked.exit_code == old.exit_code == 0
    assert ranked.stdout == old.stdout and ranked.stderr == ""
    assert old.stderr.splitlines() == [
        "dtree: `compare --table TABLE` is deprecated and will be removed in the next "
        "release; use `dtree rank TABLE`"]


@pytest.mark.parametrize("command, absent", [
    ("compare", ("--table", "--lower-is-better", "--imbalance", "--minority", "--frontier",
                 "--plot")),
    ("rank", ("--criteria", "--cv", "--metric", "--pruning", "--results", "--target")),
    ("sweep", ("--table", "--base", "--grid", "--imbalance", "--frontier")),
    ("frontier", ("--pruning", "--ccp-alpha", "--confidence", "--significance", "--base",
                  "--minority", "--ratios", "--grid")),
])
def test_each_command_s_help_shows_only_what_it_takes(command, absent):
    shown = dtree(command, "--help").stdout
    options = set(re.findall(r"^  (?:-\w, )?(--[a-z][a-z-]*)", shown, re.MULTILINE))
    assert "--help" in options
    assert options.isdisjoint(absent), options & set(absent)


def test_rank_takes_no_data_options():
    result = dtree("rank", TABLE3, "--cv", 5)
    assert result.exit_code == 2 and "No such option '--cv'" in result.stderr
