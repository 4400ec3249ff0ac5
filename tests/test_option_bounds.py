"""Count options are bounded by what can run, and options the chosen model, pruning or leaf
estimate would ignore are refused: one line naming the option (and the limit), exit code 2,
before any data is read or tree grown (issue 36, item 4; issue 35, item 5)."""
from pathlib import Path

import pytest
from click.testing import CliRunner

from dtcli.cli import cli
from dtcli.errors import ParameterError
from dtcli.params import MAX_PERMUTATIONS, MAX_REPEATS, MAX_TREES

IRIS = str(Path(__file__).resolve().parent.parent / "examples" / "iris.csv")
HUGE = "9223372036854775808"  # 2^63: beyond an int64


def refused(args, *words):
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, (result.exit_code, result.stderr, result.exception)
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    for word in words:
        assert word in result.stderr, result.stderr
    return result


@pytest.mark.parametrize("args, words", [
    (["train", IRIS, "--pruning", "s-pruning", "--permutations", HUGE],
     ["--permutations", str(MAX_PERMUTATIONS)]),
    (["train", IRIS, "--pruning", "s-pruning", "--permutations", "2147483648"],
     ["--permutations", str(MAX_PERMUTATIONS)]),
    (["train", IRIS, "--model", "forest", "--trees", "2147483647"], ["--trees", str(MAX_TREES)]),
    (["evaluate", IRIS, "--repeats", HUGE], ["--repeats", str(MAX_REPEATS)]),
    (["compare", IRIS, "--criteria", "gini,entropy", "--repeats", str(MAX_REPEATS + 1)],
     ["--repeats", str(MAX_REPEATS)]),
    (["tune", IRIS, "--criterion", "tsallis", "--repeats", HUGE], ["--repeats"]),
    (["compare", IRIS, "--criteria", "gini*" + "9" * 20], ["NAME*TREES", str(MAX_TREES)]),
    (["compare", IRIS, "--criteria", "gini:pruning=s-pruning:permutations=" + HUGE],
     ["permutations", str(MAX_PERMUTATIONS)]),
    (["evaluate", IRIS, "--cv", HUGE], ["--cv", "rows (150)"]),
    (["compare", IRIS, "--criteria", "tsallis:q=auto", "--inner-cv", HUGE],
     ["--inner-cv", "rows (135)"]),
    (["train", IRIS, "--model", "fdf", "--nb-min-samples", HUGE], ["nb_min_samples", "2^63"]),
], ids=["permutations 2^63", "permutations 2^31", "trees", "evaluate repeats", "compare repeats",
        "tune repeats", "forest entry", "entry permutations", "cv", "inner cv", "fdf nb-min"])
def test_a_count_beyond_what_can_run_is_one_line(args, words):
    refused(args, *words)


def test_the_library_takes_no_more_than_the_command_line():
    from dtcli import DecisionTreeClassifier, RandomForestClassifier

    with pytest.raises(ParameterError, match=f"at most {MAX_PERMUTATIONS}"):
        DecisionTreeClassifier(pruning="s-pruning", permutations=MAX_PERMUTATIONS + 1).fit(
            [[0.0], [1.0]], [0, 1])
    with pytest.raises(ParameterError, match=f"at most {MAX_TREES}"):
        RandomForestClassifier(n_estimators=MAX_TREES + 1).fit([[0.0], [1.0]], [0, 1])
    with pytest.raises(ParameterError, match="at most 9223372036854775807"):
        DecisionTreeClassifier(min_samples_leaf=2**63).fit([[0.0], [1.0]], [0, 1])


@pytest.mark.parametrize("args, message", [
    (["train", IRIS, "--trees", "5"], "--trees applies to --model forest"),
    (["train", IRIS, "--ccp-alpha", "0.1"], "--ccp-alpha applies to --pruning ccp"),
    (["train", IRIS, "--pruning", "ccp", "--ccp-alpha", "0.5", "--confidence", "0.1"],
     "--confidence applies to --pruning pessimistic, not ccp"),
    (["train", IRIS, "--pruning", "pessimistic", "--ccp-risk", "error"],
     "--ccp-risk applies to --pruning ccp, not pessimistic"),
    (["train", IRIS, "--pruning", "ccp", "--ccp-alpha", "0.5", "--pruning-folds", "5"],
     "--pruning-folds applies to --ccp-alpha auto or auto-1se"),
    (["train", IRIS, "--pruning", "ccp", "--cp", "0.01", "--pruning-folds", "5"],
     "--pruning-folds applies to --ccp-alpha auto or auto-1se (the folds choose alpha), not "
     "to a given alpha or cp"),
    (["train", IRIS, "--cp", "0.01"], "--cp applies to --pruning ccp"),
    (["train", IRIS, "--preset", "rpart", "--pruning", "none", "--cp", "0.01"],
     "--cp applies to --pruning ccp"),
    (["train", IRIS, "--pruning-folds", "5"],
     "--pruning-folds applies to --pruning ccp or reduced-error"),
    (["train", IRIS, "--pruning", "pessimistic", "--permutations", "10"],
     "--permutations applies to --pruning s-pruning, not pessimistic"),
    (["train", IRIS, "--m", "3"], "--m applies to --leaf-estimate m-estimate"),
    (["train", IRIS, "--nb-min-samples", "3"], "--nb-min-samples applies to --leaf-model naive"),
    (["train", IRIS, "--nb-numeric", "gaussian"], "--nb-numeric applies to --leaf-model naive"),
    (["train", IRIS, "--model", "forest", "--significance", "0.1"],
     "--significance applies to --pruning s-pruning"),
    (["evaluate", IRIS, "--pruning-mode", "exact"], "--pruning-mode applies to --pruning s-"),
    (["compare", IRIS, "--criteria", "gini,entropy", "--no-subtree-raising"],
     "--subtree-raising/--no-subtree-raising applies to --pruning pessimistic"),
    (["tune", IRIS, "--criterion", "tsallis", "--pruning", "ccp", "--confidence", "0.1"],
     "--confidence applies to --pruning pessimistic, not ccp"),
], ids=["trees on a tree", "ccp-alpha unpruned", "confidence with ccp", "ccp-risk pessimistic",
        "folds with a given alpha", "folds with a cp", "cp unpruned", "rpart's cp unpruned",
        "folds unpruned", "permutations pessimistic", "m frequency",
        "nb-min-samples counts", "nb-numeric counts", "forest significance", "evaluate mode",
        "compare raising", "tune confidence"])
def test_an_option_the_model_would_ignore_is_refused(args, message):
    refused(args, message)


def test_options_a_criteria_entry_may_use_are_taken():
    """An entry that sets its own pruning may be what --confidence is for."""
    result = CliRunner().invoke(cli, ["compare", IRIS, "--criteria",
                                      "gini:pruning=pessimistic,entropy", "--confidence", "0.1",
                                      "--cv", "2", "-q", "-j", "1"])
    assert result.exit_code == 0, result.stderr


def test_permutations_are_bounded_by_the_work_they_imply():
    """Issue 47: a constant maximum let 10^6 permutations run for half an hour, and then
    rows x permutations <= 3x10^10 was a round number. A test whose estimated work on
    one core (significance's measured costs) exceeds an hour is refused, saying the
    estimate and the most permutations that fit, which do fit: the default mode's
    stopping table grows as s x t^2, the shuffles as t x rows."""
    import numpy as np

    from dtcli import DecisionTreeClassifier
    from dtcli.pruning import significance

    def hours(t, rows, classes, s, exact):
        return sum(significance._work_seconds(t, rows, classes, s, exact)) / 3600

    result = refused(["train", IRIS, "--pruning", "s-pruning", "--significance", "1",
                      "--permutations", "1000000"],
                     "permutations=1000000 on 150 rows of 3 classes", "11.1 hours for the "
                     "sequential stopping table", "or mode exact")
    most = int(result.stderr.split("at most ")[1].split()[0])
    assert hours(most, 150, 3, 1.0, False) <= 1 < hours(most + 1, 150, 3, 1.0, False)
    rows = 100_000
    X = np.arange(rows, dtype=float)[:, None]
    with pytest.raises(ParameterError, match="on 100000 rows of 2 classes could take "
                       "S-pruning's test about 67 minutes a level of the tree") as refusal:
        DecisionTreeClassifier(pruning="s-pruning", pruning_mode="exact",
                               permutations=1_000_000).fit(X, np.arange(rows) % 2)
    most = int(str(refusal.value).split("at most ")[1].split()[0])
    assert hours(most, rows, 2, 0.05, True) <= 1 < hours(most + 1, rows, 2, 0.05, True)
