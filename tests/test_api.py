"""The library API for experiments (dtcli.train, dtcli.evaluate, dtcli.compare,
dtcli.tune) and the commands over it: the commands print, timings aside, exactly what they printed before
they called it (tests/data/cli_before_api, recorded at e3b102f by its record.sh), a
results file written then resumes with nothing rerun, and the library gives the
command's numbers for the same protocol."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from test_batch import ADDED_MEASURES, without_timings

import dtcli
from dtcli.cli import cli
from dtcli.errors import ParameterError
from dtcli.crossval.method_syntax import parse_methods
from dtcli.crossval.tasks import TreeOptions, task_key

ROOT = Path(__file__).resolve().parent.parent
RECORDED = ROOT / "tests" / "data" / "cli_before_api"
DATA = ["examples/iris.csv", "examples/imbalanced/new-thyroid1.dat"]
COMPARE = ["compare", *DATA, "--criteria", "gini,entropy,gini*3,fdf,gini+nb,"
           "entropy:leaf_estimate=laplace", "--criteria", "tsallis:q=auto", "--grid", "q=1,2",
           "--inner-cv", "2", "--cv", "3", "--jobs", "1", "-q", "--posthoc", "always"]
EVALUATE = ["evaluate", DATA[1], "--criterion", "entropy", "--cv", "3", "--repeats", "2",
            "--jobs", "1", "-q"]
EVALUATE_TUNED = ["evaluate", DATA[1], "--criterion", "tsallis", "--param", "q=auto", "--grid",
                  "q=1,2", "--cv", "3", "--inner-cv", "2", "--jobs", "1", "-q"]
TUNE = ["tune", DATA[1], "--criterion", "tsallis", "--grid", "q=1,2", "--cv", "3", "--jobs", "1",
        "-q"]


def run(args, monkeypatch) -> str:
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(cli, [*args, "-f", "json"])
    assert result.exit_code == 0, result.output + result.stderr
    return result.stdout


def drop_added_measures(doc: dict) -> None:
    """The positive class and the per-fold measures added since the recording (issue 44),
    taken out; evaluate's pooled g_mean, mcc and kappa put back where they were."""
    doc.pop("positive", None)
    doc.pop("calibration", None)
    for name in ADDED_MEASURES:
        if isinstance(doc.get(name), dict) and "values" in doc[name]:
            del doc[name]
    pooled = doc.pop("pooled", None)
    if pooled is not None:
        rest = list(doc)[list(doc).index("confusion_matrix"):]
        moved = {key: doc.pop(key) for key in rest}
        doc.update(pooled, **moved)
    if isinstance(doc.get("tuning"), dict):
        drop_added_measures(doc["tuning"])


def same_but_timings(text: str, recorded: str) -> None:
    ours, theirs = json.loads(text), json.loads(recorded)
    # each fold's score, added since the recording (issue 33's report): the means are the
    # table's
    for dataset, by_method in ours.pop("fold_scores", {}).items():
        for method, folds in by_method.items():
            assert np.mean(folds) == pytest.approx(ours["scores"][dataset][method]["mean"])
    # the post-hoc tests, shown since the recording only after the omnibus test rejects
    # (issue 35): asked for regardless, without the line that labels them so
    if ours.pop("posthoc", None) is not None:
        ours["conclusions"] = [line for line in ours["conclusions"]
                               if not line.startswith("Post-hoc tests shown regardless")]
    # rpart's cp, an option since the recording (issue 35): null where not given
    if "cp" in ours.get("options", {}) and ours["options"]["cp"] is None:
        del ours["options"]["cp"]
    drop_added_measures(ours)
    assert list(ours) == list(theirs)  # keys in the same order
    assert without_timings(ours) == without_timings(theirs)


@pytest.mark.parametrize("name, args", [("compare", COMPARE), ("evaluate", EVALUATE),
                                        ("evaluate_tuned", EVALUATE_TUNED), ("tune", TUNE)])
def test_the_commands_print_what_they_printed_before_the_api(name, args, monkeypatch):
    same_but_timings(run(args, monkeypatch), (RECORDED / f"{name}.json").read_text())


def test_a_results_file_of_the_code_before_resumes_with_its_lines_kept(tmp_path, monkeypatch):
    results = tmp_path / "runs.jsonl"
    shutil.copy(RECORDED / "runs.jsonl", results)
    before = results.read_text()
    text = run([*COMPARE, "--results", str(results)], monkeypatch)
    # its lines lack the measures of issue 44: each fold ran once more and appended a
    # complete line under the same key; a second run finds every fold
    after = results.read_text()
    assert after.startswith(before)
    old_keys = [json.loads(line)["key"] for line in before.splitlines()]
    new_keys = [json.loads(line)["key"] for line in after[len(before):].splitlines()]
    assert new_keys and set(new_keys) <= set(old_keys)
    same_but_timings(text, (RECORDED / "compare.json").read_text())
    run([*COMPARE, "--results", str(results)], monkeypatch)
    assert results.read_text() == after


def test_the_library_gives_the_commands_documents(monkeypatch):
    monkeypatch.chdir(ROOT)
    methods = [dtcli.Tree("gini"), dtcli.Tree("entropy"), dtcli.Forest(dtcli.Tree("gini"), 3),
               dtcli.FDF(), dtcli.Tree("gini", leaves="mdl"),
               dtcli.Tree("entropy", options={"leaf_estimate": "laplace"}),
               dtcli.Tuned.of(dtcli.Tree("tsallis"), "q")]
    compared = dtcli.compare(DATA, methods, cv=3, jobs=1, quiet=True, grid={"q": [1, 2]},
                             inner_cv=2, posthoc="always")
    same_but_timings(compared.to_json(), (RECORDED / "compare.json").read_text())
    evaluated = dtcli.evaluate(DATA[1], "entropy", cv=3, repeats=2, jobs=1, quiet=True)
    same_but_timings(evaluated.to_json(), (RECORDED / "evaluate.json").read_text())
    tuned = dtcli.evaluate(DATA[1], "tsallis:q=auto", cv=3, inner_cv=2, grid="q=1,2", jobs=1,
                           quiet=True)
    same_but_timings(tuned.to_json(), (RECORDED / "evaluate_tuned.json").read_text())
    searched = dtcli.tune(DATA[1], "tsallis", {"q": [1, 2]}, cv=3, jobs=1, quiet=True)
    same_but_timings(searched.to_json(), (RECORDED / "tune.json").read_text())
    assert searched.best_params == json.loads((RECORDED / "tune.json").read_text())["best_params"]


def test_result_objects_agree_with_their_documents(monkeypatch):
    monkeypatch.chdir(ROOT)
    result = dtcli.compare(DATA, "gini,entropy", cv=3, jobs=1, quiet=True)
    doc = json.loads(result.to_json())
    assert result.methods == ["gini", "entropy"] and result.datasets == ["iris", "new-thyroid1"]
    for (dataset, method), folds in result.folds.items():
        accuracy = [f["metrics"]["accuracy"] for f in folds]
        assert len(folds) == 3
        assert np.mean(accuracy) == pytest.approx(doc["scores"][dataset][method]["mean"])
        assert result.means[dataset][method] == doc["scores"][dataset][method]["mean"]
    assert result.ranks == doc["average_ranks"]
    assert sum(result.ranks.values()) == pytest.approx(3.0)  # ranks 1 and 2 on average
    page = result._repr_html_()
    assert "<table>" in page and "<svg" in page and "average rank" in page
    evaluation = dtcli.evaluate(DATA[1], "gini", cv=3, jobs=1, quiet=True)
    assert evaluation.mean("accuracy") == pytest.approx(np.mean(evaluation.scores["accuracy"]))
    assert "accuracy" in evaluation._repr_html_()


def test_to_pandas_gives_one_row_per_fold(monkeypatch):
    pytest.importorskip("pandas")
    monkeypatch.chdir(ROOT)
    result = dtcli.compare(DATA, "gini,entropy", cv=3, jobs=1, quiet=True)
    frame = result.to_pandas()
    assert len(frame) == 2 * 2 * 3
    means = frame.groupby(["dataset", "method"])["accuracy"].mean()
    assert means["iris"]["entropy"] == pytest.approx(result.means["iris"]["entropy"])


def test_a_dataframe_with_text_and_missing_values_is_compared_as_the_estimator_fits_it():
    pandas = pytest.importorskip("pandas")
    from dtcli.sampling.folds import repeat_folds

    frame = pandas.read_csv(ROOT / "examples" / "crx.csv")
    frame.loc[frame.index[::9], "a1"] = None  # missing text
    frame.loc[frame.index[::7], "a2"] = np.nan
    result = dtcli.compare({"crx": frame, "iris": pandas.read_csv(ROOT / "examples" / "iris.csv")},
                           "gini,entropy", cv=3, jobs=1, quiet=True)
    X, y = frame.iloc[:, :-1], frame.iloc[:, -1]
    assert X.isna().any().any()
    assert not all(pandas.api.types.is_numeric_dtype(t) for t in X.dtypes)
    codes = dtcli.DecisionTreeClassifier().fit_data(X, y).y
    for fold, (train, test) in zip(result.folds[("crx", "entropy")], repeat_folds(codes, 3, 0, 0)):
        model = dtcli.DecisionTreeClassifier(criterion="entropy").fit(X.iloc[train], y.iloc[train])
        assert fold["metrics"]["accuracy"] == pytest.approx(
            model.score(X.iloc[test], y.iloc[test]))


def test_methods_keep_the_labels_and_keys_of_their_strings():
    for entry in ("gini", "tsallis:q=2.5", "gini*20", "gini+nb-gaussian", "fdf-average",
                  "hddt:pruning=ccp:ccp_alpha=auto-1se", "tsallis:q=auto",
                  "pe:alpha=auto:pruning=s-pruning"):
        (method,) = parse_methods([entry])
        assert method.label == entry
    built = [dtcli.Tree("tsallis", {"q": 2.5}), dtcli.Forest(dtcli.Tree("gini"), 20),
             dtcli.Tree("gini", leaves="gaussian"), dtcli.FDF(combine="average"),
             dtcli.Tree("hddt", options={"pruning": "ccp", "ccp_alpha": "auto-1se"})]
    parsed = parse_methods(["tsallis:q=2.5,gini*20,gini+nb-gaussian,fdf-average,"
                            "hddt:pruning=ccp:ccp_alpha=auto-1se"])
    for ours, theirs in zip(built, parsed):
        assert ours == theirs and ours.identity == theirs.identity
        assert (task_key("d", ours.choice, ours.choice.tree_options(TreeOptions()), 10, 0, 0, 0)
                == task_key("d", theirs.choice, theirs.choice.tree_options(TreeOptions()),
                            10, 0, 0, 0))
    assert dtcli.Tuned.of(dtcli.Tree("tsallis"), "q") == parse_methods(["tsallis:q=auto"])[0]
    with pytest.raises(ParameterError, match="unknown tree option 'min_leaf'"):
        dtcli.evaluate(DATA[1], "gini", min_leaf=3)
    with pytest.raises(ParameterError, match="expected one method, got 2"):
        dtcli.evaluate(DATA[1], "gini,entropy")


def test_importing_dtcli_loads_no_numba():
    code = "import sys, dtcli; dtcli.Tree; dtcli.compare; assert 'numba' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_ihd_example_runs_the_comparison_from_python(tmp_path, capsys, monkeypatch):
    import importlib.util

    spec = importlib.util.spec_from_file_location("ihd_comparison",
                                                  ROOT / "examples" / "ihd_comparison.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    svg = tmp_path / "cd.svg"
    example.main(["--datasets", "3", "--cv", "3", "--criteria", "gini,entropy,ihdw", "--jobs",
                  "1", "--svg", str(svg)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["dataset", "gini", "entropy", "ihdw"] and len(lines) == 6
    ranks = [float(r) for r in lines[4].split()[2:]]
    assert sum(ranks) == pytest.approx(6.0)  # ranks 1, 2 and 3 on every dataset
    assert "<svg" in svg.read_text()
    monkeypatch.chdir(ROOT)
    ours = example.run(3, 3, "gini,entropy,ihdw", jobs=1)
    command = json.loads(run(["compare", *[f"examples/imbalanced/{d}.dat" for d in ours.datasets],
                              "--criteria", "gini,entropy,ihdw", "--cv", "3", "--metric", "auc",
                              "--base", "ihdw", "--leaf-estimate", "laplace", "--jobs", "1",
                              "-q"], monkeypatch))
    ours = json.loads(ours.to_json())
    del ours["sources"], command["sources"]  # the example names its files by absolute paths
    assert without_timings(ours) == without_timings(command)


def test_fdf_refuses_every_option_it_does_not_take(monkeypatch):
    monkeypatch.chdir(ROOT)
    refused = CliRunner().invoke(cli, ["train", DATA[1], "--model", "fdf", "--significance",
                                       "0.1"])
    assert refused.exit_code == 2
    assert "--significance does not apply to --model fdf" in refused.stderr


def test_a_header_row_of_numbers_hints_at_no_header(tmp_path):
    from dtcli.io import load_dataset

    raw = tmp_path / "raw.csv"  # KEEL's data rows without their header
    raw.write_text("38, 59, 2, negative\n39, 63, 4, negative\n40, 58, 0, positive\n")
    assert load_dataset(str(raw)).warnings == [
        f"{raw}: the header row (38, 59, 2, negative) looks like data; if the file has no "
        "header row, give --no-header"]
    assert load_dataset(str(raw), header=False).warnings == []
    assert load_dataset(str(ROOT / "examples" / "iris.csv")).warnings == []


@pytest.mark.parametrize("command", ["", "train", "predict", "export", "criteria", "evaluate",
                                     "compare", "rank", "sweep", "frontier", "tune", "warm",
                                     "reproduce"])
def test_help_fits_in_80_columns(command):
    result = CliRunner().invoke(cli, [*([command] if command else []), "--help"],
                                terminal_width=80)
    assert result.exit_code == 0
    assert [line for line in result.stdout.splitlines() if len(line) > 80] == []


def test_a_score_plot_of_the_default_grid_fits_in_80_columns():
    from dtcli.tuning.report import score_plot

    xs = [round(0.1 * i, 1) for i in range(1, 101)]  # q's default grid: 100 points
    ys = [1.0 if x == 2.0 else 0.0 for x in xs]  # one peak, the 20th point
    lines = score_plot("q", xs, ys).splitlines()
    assert max(map(len, lines)) == 80
    bar = lines[0].index("|")
    columns = len(lines[-2]) - bar - 1
    stars = {col - bar - 1: row for row, line in enumerate(lines[:-2])
             for col, char in enumerate(line) if char == "*"}
    peak = min(stars, key=stars.get)  # the highest star (row 0 is the top)
    # 100 points in `columns` runs of neighbours: the peak's run is raised, alone
    assert 100 * peak // columns <= 19 < 100 * (peak + 1) // columns
    assert sorted(stars.values()).count(stars[peak]) == 1
    assert "mean of up to 2 points" in lines[-1]
    assert score_plot("q", [1, 2, 3], [0.5, 0.7, 0.6]).splitlines()[0].endswith("| * ")


def test_train_seeds_its_search_of_auto_parameters_with_seed(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    records = []
    for seed in ("0", "3"):
        model = tmp_path / f"model{seed}.json"
        result = CliRunner().invoke(cli, ["train", DATA[0], "-c", "tsallis", "-p", "q=auto",
                                          "--grid", "q=1,2", "--tune-cv", "3", "--seed", seed,
                                          "-q", "-o", str(model)])
        assert result.exit_code == 0, result.stderr
        records.append(json.loads(model.read_text())["tuning"])
    assert [r["protocol"]["seed"] for r in records] == [0, 3]
    assert records[0]["results"] != records[1]["results"]  # other folds, other scores


def test_train_fits_the_estimator_the_command_writes(tmp_path, monkeypatch):
    """dtcli.train("entropy", max_depth=3) is DecisionTreeClassifier's fit of those
    parameters, and `dtree train` writes that model (the command calls the library)."""
    from dtcli.io import load_dataset
    from dtcli.model import load_model

    monkeypatch.chdir(ROOT)
    result = dtcli.train(DATA[0], "entropy", max_depth=3, quiet=True)
    dataset = load_dataset(DATA[0])
    alone = dtcli.DecisionTreeClassifier(criterion="entropy", max_depth=3).fit_dataset(dataset)
    for name in ("children_left", "feature", "threshold", "value"):
        assert np.array_equal(getattr(result.model.tree_, name), getattr(alone.tree_, name),
                              equal_nan=True)
    written = tmp_path / "model.json"
    cli_run = CliRunner().invoke(cli, ["train", DATA[0], "-c", "entropy", "--max-depth", "3",
                                       "-o", str(written)])
    assert cli_run.exit_code == 0, cli_run.stderr
    model, _ = load_model(str(written))
    assert np.array_equal(model.tree_.threshold, alone.tree_.threshold, equal_nan=True)
    assert result.summary(str(written)).split("; fit in")[0] in cli_run.stderr


def test_train_returns_the_unpruned_tree_s_pruning_path(monkeypatch):
    monkeypatch.chdir(ROOT)
    result = dtcli.train(DATA[1], "gini", pruning_path=True, quiet=True)
    path = result.path
    assert result.model.pruning is None
    # alpha 0 keeps every leaf of the unpruned tree; the last step leaves the root alone
    assert path.alphas[0] == 0 and path.leaves[0] == result.model.tree_.n_leaves
    assert path.leaves[-1] == 1 and np.all(np.diff(path.alphas) > 0)
    assert np.allclose(path.cps, path.alphas / path.impurities[-1])
    assert path.csv().splitlines()[0] == "ccp_alpha,impurity,n_leaves,cp"


def test_train_refuses_options_beside_an_estimator():
    with pytest.raises(ParameterError, match="keeps its own parameters"):
        dtcli.train(DATA[0], dtcli.DecisionTreeClassifier(), max_depth=2)
