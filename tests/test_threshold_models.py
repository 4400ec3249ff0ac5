"""Decision thresholds stored in models (dtcli/measures/fitted.py): a hand-checked rule
(positive iff p(positive) >= t, the cross-validation's convention), the model file's
`decision` block (round trip, damaged blocks refused in one line, files without it
unchanged), the estimators' parameters (clone, get_params), "auto" fitted from the
training rows alone, and dtree predict == every export format's label (--check)."""
import json
import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import dtcli
from dtcli.cli import cli
from dtcli.errors import ModelError, ParameterError
from dtcli.io import load_dataset
from dtcli.measures.metrics import decisions
from dtcli.model import load_model, model_from_dict, model_to_dict

ROOT = Path(__file__).resolve().parent.parent
HABERMAN = ROOT / "examples" / "imbalanced" / "haberman.dat"
# x = 0..7, one class-0 row among the right leaf's five: p(1) = 0 left of 2.5, 0.8 right
X = np.arange(8.0).reshape(-1, 1)
Y = np.array([0, 0, 0, 1, 0, 1, 1, 1])


def stump(**params):
    return dtcli.DecisionTreeClassifier(max_depth=1, positive=1, **params).fit(X, Y)


def test_positive_iff_its_probability_reaches_the_threshold():
    assert stump().predict_proba(X)[:, 1].tolist() == [0, 0, 0, .8, .8, .8, .8, .8]
    assert stump(threshold=0.8).predict(X).tolist() == [0, 0, 0, 1, 1, 1, 1, 1]  # 0.8 >= 0.8
    assert stump(threshold=0.81).predict(X).tolist() == [0] * 8
    assert stump(threshold=0.0).predict(X).tolist() == [1] * 8
    model = stump(threshold=0.5)
    assert model.threshold_ == 0.5 and model.decision_["positive"] == "1"
    proba = model.predict_proba(X)  # the cross-validation's rule: metrics.decisions
    assert model.predict(X).tolist() == decisions(proba, 1, 0.5).tolist()
    with pytest.raises(ParameterError, match="two"):
        dtcli.DecisionTreeClassifier(threshold=0.5).fit(X, np.arange(8) % 3)


def test_the_estimators_follow_scikit_learns_parameter_conventions():
    clone = pytest.importorskip("sklearn.base").clone
    for estimator in (dtcli.DecisionTreeClassifier(threshold="auto", threshold_metric="f1",
                                                   positive=1),
                      dtcli.RandomForestClassifier(n_estimators=3, threshold=0.3, cost=None)):
        params = estimator.get_params()
        assert {k: params[k] for k in ("threshold", "threshold_metric", "cost", "positive")} \
            == {k: getattr(estimator, k) for k in ("threshold", "threshold_metric", "cost",
                                                   "positive")}
        copy = clone(estimator)
        assert copy.get_params() == params and not hasattr(copy, "threshold_")
        assert copy.set_params(threshold=0.7).threshold == 0.7
    assert not hasattr(dtcli.DecisionTreeClassifier(), "threshold_")
    assert dtcli.DecisionTreeClassifier().fit(X, Y).threshold_ is None  # argmax as before


def test_a_threshold_survives_the_model_file_of_every_kind():
    from dtcli.c45 import J48Classifier

    for estimator in (dtcli.DecisionTreeClassifier(max_depth=2),
                      dtcli.RandomForestClassifier(n_estimators=3, random_state=1),
                      dtcli.FDFClassifier(), J48Classifier(min_samples_leaf=1)):
        model = estimator.set_params(threshold=0.3, positive=1).fit(X, Y)
        doc = json.loads(json.dumps(model_to_dict(model)))
        assert doc["format_version"] == 4
        assert doc["decision"] == {"positive": "1", "threshold": 0.3,
                                   "chosen_by": {"method": "given"}}
        loaded, _ = model_from_dict(doc)
        assert loaded.threshold_ == 0.3 and loaded.threshold == 0.3 and loaded.positive == "1"
        assert loaded.predict(X).astype(str).tolist() == model.predict(X).astype(str).tolist()
    plain = model_to_dict(dtcli.DecisionTreeClassifier(max_depth=1).fit(X, Y))
    assert plain["format_version"] == 1 and "decision" not in plain  # as before
    assert model_from_dict(plain)[0].threshold_ is None


@pytest.mark.parametrize("change, message", [
    (lambda b: b.update(threshold=1.5), "decision.threshold must be a number in [0, 1]"),
    (lambda b: b.update(threshold=math.nan), "decision.threshold must be a number in [0, 1]"),
    (lambda b: b.update(threshold="0.2"), "decision.threshold must be a number in [0, 1]"),
    (lambda b: b.update(positive="maybe"), "decision.positive must be one of the classes"),
    (lambda b: b.pop("chosen_by"), "decision must be an object of"),
    (lambda b: b.update(chosen_by={"method": "inner-cv"}), "decision.chosen_by must be"),
])
def test_a_damaged_decision_block_is_one_line(tmp_path, change, message):
    doc = model_to_dict(stump(threshold=0.2))
    change(doc["decision"])
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc))  # json writes NaN as NaN, which the reader parses
    with pytest.raises(ModelError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_model(str(path))
    result = CliRunner().invoke(cli, ["predict", str(path), str(HABERMAN)])
    assert result.exit_code != 0 and len(result.stderr.strip().splitlines()) == 1
    assert "damaged model file" in result.stderr


def test_auto_reads_only_the_training_rows_it_is_given(monkeypatch):
    """Row ids as the first feature: every matrix an inner fit trains on or scores holds
    ids of the training rows only (the rows held out are never seen)."""
    data = load_dataset(str(HABERMAN))
    ids = np.arange(data.X.shape[0], dtype=float)[:, None]
    X_all = np.hstack([ids, data.X])
    train = np.arange(data.X.shape[0]) % 3 != 0
    seen = []
    fit_dataset = dtcli.DecisionTreeClassifier.fit_dataset
    proba = dtcli.DecisionTreeClassifier.proba_from_matrix

    def spy_fit(self, dataset, *args):
        seen.append(dataset.X[:, 0])
        return fit_dataset(self, dataset, *args)

    def spy_proba(self, matrix):
        seen.append(matrix[:, 0])
        return proba(self, matrix)

    monkeypatch.setattr(dtcli.DecisionTreeClassifier, "fit_dataset", spy_fit)
    monkeypatch.setattr(dtcli.DecisionTreeClassifier, "proba_from_matrix", spy_proba)
    model = dtcli.DecisionTreeClassifier(max_depth=3, threshold="auto", cost="FN=5,FP=1")
    model.fit(X_all[train], data.y[train])
    assert len(seen) == 2 * 3  # three inner folds: a fit and a scoring each
    inside = set(np.flatnonzero(train).tolist())
    assert all(set(ids.astype(int).tolist()) <= inside for ids in seen)
    block = model.decision_["chosen_by"]
    assert block["method"] == "inner-cv" and block["costs"] is not None
    assert 0.0 <= model.threshold_ <= 1.0


def test_train_stores_it_and_predict_and_evaluate_apply_it(tmp_path):
    path = tmp_path / "h.json"
    runner = CliRunner()
    result = runner.invoke(cli, ["train", str(HABERMAN), "--max-depth", "3", "--threshold",
                                 "0.2", "-o", str(path), "-q"])
    assert result.exit_code == 0, result.stderr
    model, doc = load_model(str(path))
    assert doc["decision"]["threshold"] == 0.2 and doc["decision"]["positive"] == "positive"
    out = runner.invoke(cli, ["predict", str(path), str(HABERMAN), "--proba"]).stdout
    rows = [line.split(",") for line in out.splitlines()[1:]]
    header = out.splitlines()[0].split(",")
    column = header.index("proba_positive")
    assert [r[0] for r in rows] == ["positive" if float(r[column]) >= 0.2 else "negative"
                                    for r in rows]
    report = json.loads(runner.invoke(cli, ["evaluate", str(path), str(HABERMAN), "-f",
                                            "json"]).stdout)
    assert report["decision"]["threshold"] == 0.2
    predicted = np.array([r[0] for r in rows])
    truth = np.array(load_dataset(str(HABERMAN)).classes)[load_dataset(str(HABERMAN)).y]
    assert report["accuracy"]["mean"] == pytest.approx(float((predicted == truth).mean()), abs=1e-12)


@pytest.fixture(scope="module")
def decided_models(tmp_path_factory):
    """A gini tree and a small forest trained with --threshold 0.3 (positive: the rarer
    class), whose labels differ from the most probable class on some rows."""
    folder = tmp_path_factory.mktemp("decided")
    paths = {}
    for kind, options in (("tree", ["--max-depth", "4"]),
                          ("forest", ["--model", "forest", "--trees", "4", "--seed", "3"])):
        paths[kind] = folder / f"{kind}.json"
        result = CliRunner().invoke(cli, ["train", str(HABERMAN), *options, "--threshold",
                                          "0.3", "-q", "-o", str(paths[kind])])
        assert result.exit_code == 0, result.stderr
        model, _ = load_model(str(paths[kind]))
        proba = model.predict_proba(load_dataset(str(HABERMAN)).X)
        assert (model.predicted_index(proba) != proba.argmax(axis=1)).any()
    return paths


@pytest.mark.parametrize("kind, fmt, options", [
    ("tree", "python", []), ("tree", "sql", []), ("tree", "c", []), ("tree", "pmml", []),
    ("tree", "onnx", []), ("forest", "onnx", ["--onnx-opset", "3"]), ("forest", "python", [])])
def test_every_export_format_labels_rows_as_predict_does(decided_models, tmp_path, kind, fmt,
                                                         options):
    import importlib.util
    import shutil

    if fmt == "onnx" and importlib.util.find_spec("onnxruntime") is None:
        pytest.skip("onnxruntime is not installed")
    if fmt == "c" and not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no C compiler")
    artifact = tmp_path / f"model.{fmt}"
    result = CliRunner().invoke(cli, ["export", str(decided_models[kind]), "-f", fmt, *options,
                                      "-o", str(artifact), "--check", str(HABERMAN)])
    assert result.exit_code == 0, result.output + result.stderr
    certificates = [line for line in (result.stdout + result.stderr).splitlines()
                    if " rows, " in line]
    assert certificates and all(line.startswith("PASS") and " 0 with another class" in line
                                for line in certificates)


def test_the_shown_formats_say_the_threshold(decided_models):
    for fmt in ("text", "rules", "svg", "html"):
        out = CliRunner().invoke(cli, ["export", str(decided_models["tree"]), "-f", fmt]).stdout
        assert "decision threshold: predicts positive where p(positive) &gt;= 0.3" in out \
            or "decision threshold: predicts positive where p(positive) >= 0.3" in out, fmt
