"""`dtree criteria`: a table of the registry that fits 80 columns, one criterion's full
entry, and JSON."""
import json

from click.testing import CliRunner

from dtcli.cli import cli
from dtcli.criteria import CRITERIA
from dtcli.reporting.criteria import short_paper


def invoke(*args):
    return CliRunner().invoke(cli, list(args))


def test_the_table_has_one_row_per_criterion_within_80_columns():
    result = invoke("criteria")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert lines[0].split() == ["criterion", "family", "paper", "use"]
    rows = [line.split()[:2] for line in lines[1:] if line and line[0] != " "][:-1]
    assert [name for name, _ in rows] == list(CRITERIA)
    families = dict(rows)
    assert families["gini"] == "impurity" and families["ihd"] == "hellinger"
    assert families["dcsm"] == "dcsm"
    assert len(lines) < 3 * len(CRITERIA) + 3  # was 248 lines on a terminal


def test_a_criterion_s_entry_within_80_columns_has_its_parameters_and_sources():
    for args in (("criteria", "pt"), ("criteria", "--long")):
        result = invoke(*args)
        assert result.exit_code == 0, result.stderr
        assert max(len(line) for line in result.stdout.splitlines()) <= 80
    text = invoke("criteria", "pt").stdout
    assert text.startswith("pt (impurity, Stamate et al. 2018)\n")
    assert "alpha = 1 (default), in (0, 1]" in " ".join(text.split())
    assert "gamma" in text and "AIAI 2018" in text
    long_form = invoke("criteria", "--long").stdout
    assert all(f"\n{name} (" in "\n" + long_form for name in CRITERIA)


def test_json_keeps_the_old_keys_and_adds_family_and_paper():
    listed = json.loads(invoke("criteria", "-f", "json").stdout)
    assert [c["name"] for c in listed] == list(CRITERIA)
    gini = listed[0]
    assert list(gini) == ["name", "params", "source", "summary", "family", "paper"]
    assert gini["source"] == CRITERIA["gini"].source and gini["paper"] == "Breiman et al. 1984"
    one = json.loads(invoke("criteria", "tsallis", "-f", "json").stdout)
    assert one["params"] == [{"name": "q", "default": 2.0, "range": "(0, inf)"}]


def test_an_unknown_name_is_one_usage_line():
    result = invoke("criteria", "gnii")
    assert result.exit_code == 2 and result.stdout == ""
    assert "unknown criterion 'gnii'" in result.stderr and "Traceback" not in result.stderr


def test_short_paper_reads_authors_and_year():
    assert short_paper("J. R. Quinlan, Induction of decision trees, Machine Learning 1, "
                       "1986; as in X") == "Quinlan 1986"
    assert short_paper("Y. Wang and S.-T. Xia, Unifying attribute splitting criteria, "
                       "IEEE ICASSP 2017, eq. (4)") == "Wang & Xia 2017"
    assert short_paper("L. Breiman, J. H. Friedman, R. A. Olshen and C. J. Stone, "
                       "Classification and Regression Trees, Wadsworth 1984") == "Breiman et al. 1984"
