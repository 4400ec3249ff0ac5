"""Production exports (-f onnx, sql, c, python; docs/export.md): every row's class and
probabilities from each artifact's own runtime equal dtree's predict_proba, on the
training rows, rows that sit exactly on a threshold, rows with missing values and
rows with a category the model never saw; --check and verify fail on an altered
artifact; what a format cannot carry is refused in one line."""
from __future__ import annotations

import csv
import re
import importlib.util
import shutil
import struct
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, strategies as st

from dtcli import DecisionTreeClassifier, RandomForestClassifier
from dtcli.cli import cli
from dtcli.export.check import certify, read_rows
from dtcli.export.flat import flatten
from dtcli.export.onnx_model import float32_threshold
from dtcli.export.production import render
from dtcli.io import load_dataset
from dtcli.model import save_model

DATA = Path(__file__).resolve().parent / "data" / "export" / "crx_missing.csv"
HAS_ONNX = all(importlib.util.find_spec(m) for m in ("onnx", "onnxruntime"))
HAS_DUCKDB = importlib.util.find_spec("duckdb") is not None
HAS_CC = shutil.which("cc") is not None or shutil.which("gcc") is not None
# JPMML-Evaluator (PyPI's jpmml_evaluator and a Java runtime; not a test extra): where
# installed, it scores dtree's binary trees beside dtree's own PMML reader
HAS_JPMML = importlib.util.find_spec("jpmml_evaluator") is not None and bool(shutil.which("java"))

# (name, estimator, data): the criteria, pruning, leaf estimates and model kinds of issue 43
MODELS = {
    "gini-numeric": (lambda: DecisionTreeClassifier(), "iris.csv"),
    "hddt-pruned-laplace": (lambda: DecisionTreeClassifier(
        criterion="hddt", pruning="pessimistic", leaf_estimate="laplace"), DATA),
    "ihdw-unpruned": (lambda: DecisionTreeClassifier(criterion="ihdw"), DATA),
    "gini-m-estimate": (lambda: DecisionTreeClassifier(
        min_samples_leaf=3, leaf_estimate="m-estimate", m=4.0), DATA),
    "forest": (lambda: RandomForestClassifier(n_estimators=6, max_depth=6, random_state=3,
                                              n_jobs=1), DATA),
}
# (format, options, skip reason or None)
RUNTIMES = [
    ("python", {}, None),
    ("sql", {}, None),
    ("c", {}, None if HAS_CC else "no C compiler"),
    ("onnx", {"onnx_opset": 5}, None if HAS_ONNX else "onnx and onnxruntime not installed"),
    ("onnx", {"onnx_opset": 3}, None if HAS_ONNX else "onnx and onnxruntime not installed"),
    ("pmml", {}, None),
]


def _path(data) -> str:
    return str(data) if isinstance(data, Path) else str(Path(__file__).resolve().parent.parent
                                                         / "examples" / data)


@pytest.fixture(scope="module")
def fitted():
    """Each model of MODELS, fitted once."""
    return {name: make().fit_dataset(load_dataset(_path(data))) for name, (make, data)
            in MODELS.items()}


def _scoring_rows(model, data: str) -> list[list[str]]:
    """The training file's rows, then for every numeric split a row whose value there is the
    threshold itself, then rows with a category the model never saw and rows missing
    everything."""
    with open(data, newline="") as handle:
        rows = list(csv.reader(handle))
    header, body = rows[0], rows[1:]
    column = {name: header.index(name) for name in header}
    extra = []
    estimators = model.estimators_ if hasattr(model, "estimators_") else [model]
    for estimator in estimators:
        tree = estimator.tree_
        for node in np.flatnonzero(tree.children_left >= 0):
            feature = model.features_[tree.feature[node]]
            if not feature.categories and np.isfinite(tree.threshold[node]):
                row = list(body[len(extra) % len(body)])
                row[column[feature.name]] = repr(float(tree.threshold[node]))
                extra.append(row)
    for k, feature in enumerate(model.features_):
        row = list(body[k % len(body)])
        row[column[feature.name]] = "zz'unseen" if feature.categories else "?"
        extra.append(row)
    extra.append([("?" if name in {f.name for f in model.features_} else value)
                  for name, value in zip(header, body[0])])
    return [header] + body + extra


@pytest.fixture(scope="module")
def scoring_files(fitted, tmp_path_factory):
    """Per model, the CSV file of _scoring_rows."""
    out = {}
    for name, model in fitted.items():
        path = tmp_path_factory.mktemp("rows") / f"{name}.csv"
        with open(path, "w", newline="") as handle:
            csv.writer(handle, lineterminator="\n").writerows(
                _scoring_rows(model, _path(MODELS[name][1])))
        out[name] = str(path)
    return out


@pytest.mark.parametrize("fmt,options,skip", RUNTIMES,
                         ids=[f"{f}{o.get('onnx_opset', '')}" for f, o, _ in RUNTIMES])
@pytest.mark.parametrize("name", list(MODELS))
def test_artifact_scores_every_row_as_dtree(fitted, scoring_files, tmp_path, name, fmt,
                                            options, skip):
    if skip:
        pytest.skip(skip)
    if fmt == "pmml" and name == "forest":
        pytest.skip("PMML is written for single trees (a forest is refused)")
    from dtcli.export.production import ExportOptions

    model = fitted[name]
    artifact = render(model, fmt, ExportOptions(**options))
    path = tmp_path / f"model.{fmt}"
    path.write_bytes(artifact) if isinstance(artifact, bytes) else path.write_text(artifact)
    rows = read_rows(model, scoring_files[name])
    n_train = sum(1 for _ in open(_path(MODELS[name][1]))) - 1
    assert rows.matrix.shape[0] > n_train + 5  # the threshold, unseen and missing rows too
    certificates = certify(model, str(path), rows)
    expected_runtimes = {"python": ["python"], "c": ["cc"], "onnx": ["onnxruntime"],
                         "sql": ["sqlite"] + (["duckdb"] if HAS_DUCKDB else []),
                         "pmml": ["pmml-reader"] + (["jpmml"] if HAS_JPMML else [])}[fmt]
    assert [c.runtime for c in certificates] == expected_runtimes
    for certificate in certificates:
        assert certificate.n_rows == rows.matrix.shape[0]
        assert certificate.class_differs == [], certificate.line()
        assert certificate.max_difference <= (1e-6 if options.get("onnx_opset") == 3 else 1e-9)


def test_threshold_rows_sit_on_thresholds(fitted, scoring_files):
    """The rows built on thresholds read back as the thresholds' doubles: they test the
    side of `x <= t` at equality, not next to it."""
    model = fitted["ihdw-unpruned"]
    rows = read_rows(model, scoring_files["ihdw-unpruned"])
    tree = model.tree_
    split = np.flatnonzero(tree.children_left >= 0)
    numeric = [n for n in split if not model.features_[tree.feature[n]].categories]
    assert numeric
    for node in numeric:
        assert (rows.matrix[:, tree.feature[node]] == tree.threshold[node]).any()


def test_python_module_takes_rows_by_name(fitted, tmp_path):
    """predict_proba(row) by column names with category strings and None; no imports."""
    model = fitted["hddt-pruned-laplace"]
    source = model.to_python()
    assert "import " not in source.split('"""', 2)[2]
    path = tmp_path / "crx_model.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("crx_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    row = {f.name: None for f in model.features_}
    proba = module.predict_proba(row)
    assert list(proba) == list(model.classes_)
    expected = model.predict_proba(np.full((1, len(model.features_)), np.nan))[0]
    assert [proba[c] for c in model.classes_] == pytest.approx(expected, abs=1e-15)
    assert module.predict(row) == model.classes_[np.argmax(expected)]


def test_sql_keep_and_table_name(fitted, tmp_path):
    """--keep copies columns before the prediction; --sql-table names the table; names
    and text are quoted (a table named with a quote runs)."""
    import sqlite3

    model = fitted["ihdw-unpruned"]
    sql = model.to_sql(table='my "table"', keep=("class", "a1"))
    connection = sqlite3.connect(":memory:")
    with open(DATA, newline="") as handle:
        rows = list(csv.reader(handle))
    names = ", ".join(f'"{n}"' for n in rows[0])
    connection.execute(f'CREATE TABLE "my ""table""" ({names})')
    numeric = {f.name for f in model.features_ if not f.categories}
    connection.executemany(
        f'INSERT INTO "my ""table""" VALUES ({", ".join("?" for _ in rows[0])})',
        [[None if v == "?" else float(v) if n in numeric else v for n, v in zip(rows[0], r)]
         for r in rows[1:]])
    cursor = connection.execute(sql)
    header = [d[0] for d in cursor.description]
    assert header == ["class", "a1", "prediction"] + [f"proba_{c}" for c in model.classes_]
    result = cursor.fetchall()
    assert [r[0] for r in result] == [r[-1] for r in rows[1:]]
    expected = model.proba_from_matrix(load_dataset(str(DATA)).X)  # X holds codes
    assert [r[2] for r in result] == list(model.classes_[expected.argmax(axis=1)])


@given(st.floats(allow_nan=False, allow_infinity=False, width=64),
       st.floats(allow_nan=False, allow_infinity=False, width=32))
def test_float32_threshold_keeps_every_float32_on_its_side(t, x):
    assert (x <= t) == (x <= float32_threshold(t))


def test_float32_threshold_next_to_the_double():
    t = 0.1  # not a float32: its float32 rounding lies above it
    t32 = float32_threshold(t)
    assert t32 <= t < float(np.nextafter(np.float32(t32), np.float32(np.inf)))
    assert float32_threshold(0.5) == 0.5


def test_c_header_compiles_with_strict_flags(fitted, tmp_path):
    if not HAS_CC:
        pytest.skip("no C compiler")
    import subprocess

    header = tmp_path / "crx.h"
    header.write_text(fitted["forest"].to_c(name="crx"))
    source = tmp_path / "use.c"
    source.write_text('#include "crx.h"\nint main(void) { double x[CRX_N_FEATURES] = {0};\n'
                      '  double p[CRX_N_CLASSES]; crx_predict_proba(x, p); '
                      'return crx_predict(x) < 0; }\n')
    cc = shutil.which("cc") or shutil.which("gcc")
    built = subprocess.run([cc, "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-o",
                            str(tmp_path / "use"), str(source), "-lm"], capture_output=True,
                           text=True)
    assert built.returncode == 0, built.stderr


# --- the command line: --check, verify, refusals ------------------------------------------

@pytest.fixture(scope="module")
def saved_models(fitted, tmp_path_factory):
    directory = tmp_path_factory.mktemp("models")
    out = {}
    for name in ("ihdw-unpruned", "forest"):
        out[name] = str(directory / f"{name}.json")
        save_model(fitted[name], out[name])
    return out


def test_check_passes_then_fails_on_an_altered_artifact(saved_models, tmp_path):
    sql = tmp_path / "m.sql"
    result = CliRunner().invoke(cli, ["export", saved_models["forest"], "-f", "sql", "-o",
                                      str(sql), "--check", str(DATA)])
    assert result.exit_code == 0, result.output
    assert "PASS" in result.output and "sqlite" in result.output
    text = sql.read_text()
    threshold = re.search(r"<= ([-+0-9.e]+)", text)  # the first tree's first numeric split
    altered = (text[:threshold.start(1)] + repr(float(threshold.group(1)) * 0.5 - 1)
               + text[threshold.end(1):])
    bad = tmp_path / "bad.sql"
    bad.write_text(altered)
    result = CliRunner().invoke(cli, ["verify", saved_models["forest"], str(bad), str(DATA)])
    assert result.exit_code == 1
    assert result.output.startswith("FAIL")


def test_check_fails_on_a_changed_probability(saved_models, tmp_path):
    module = tmp_path / "m.py"
    result = CliRunner().invoke(cli, ["export", saved_models["ihdw-unpruned"], "-f", "python",
                                      "-o", str(module), "--check", str(DATA)])
    assert result.exit_code == 0, result.output
    text = module.read_text()
    leaf = re.compile(r"\(([0-9.e-]+), ").search(text, text.index("TREES = ["))
    value = float(leaf.group(1))  # the first leaf's first probability
    module.write_text(text[:leaf.start(1)] + repr(value + 1e-7 if value < 0.5 else value - 1e-7)
                      + text[leaf.end(1):])
    result = CliRunner().invoke(cli, ["verify", saved_models["ihdw-unpruned"], str(module),
                                      str(DATA)])
    assert result.exit_code == 1
    assert "FAIL" in result.output and "1e-07" in result.output


@pytest.mark.skipif(not HAS_ONNX, reason="onnx and onnxruntime not installed")
def test_onnx_describe_lists_the_category_codes(saved_models, fitted):
    import json

    import onnx

    result = CliRunner().invoke(cli, ["export", saved_models["forest"], "-f", "onnx",
                                      "--describe"])
    assert result.exit_code == 0, result.output
    model = fitted["forest"]
    a1 = next(f for f in model.features_ if f.name == "a1")
    assert f"a1 (nominal; code: 0={a1.categories[0]}, 1={a1.categories[1]};" in result.output
    proto = model.to_onnx()
    props = {p.key: p.value for p in proto.metadata_props}
    assert json.loads(props["category_table"])["a1"] == list(a1.categories)
    assert isinstance(proto, onnx.ModelProto)


def test_missing_onnx_extra_is_one_line(saved_models, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx raises ImportError
    result = CliRunner().invoke(cli, ["export", saved_models["forest"], "-f", "onnx"])
    assert result.exit_code == 1
    assert result.output == 'Error: -f onnx needs the onnx package: pip install "dtcli[onnx]"\n'


@pytest.mark.parametrize("fmt", ["onnx", "sql", "c", "python", "pmml"])
def test_naive_bayes_leaves_are_refused_in_one_line(tmp_path, load_example, fmt):
    model = DecisionTreeClassifier(max_depth=2, leaf_model="naive-bayes").fit_dataset(
        load_example("iris.csv"))
    path = str(tmp_path / "nb.json")
    save_model(model, path)
    result = CliRunner().invoke(cli, ["export", path, "-f", fmt, "-o", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert result.output.count("\n") == 1
    assert result.output.startswith(f"Error: -f {fmt} cannot carry Naive Bayes leaves")


def test_fdf_and_j48_refusals_name_the_format_that_carries_them():
    from dtcli.c45.estimator import J48Classifier
    from dtcli.export.flat import ExportRefused, refuse_unless_exportable

    class FDFStandIn:
        model_kind = "fdf"

    with pytest.raises(ExportRefused, match=r"^-f sql cannot carry a fuzzy decision forest"):
        refuse_unless_exportable(FDFStandIn(), "sql")
    with pytest.raises(ExportRefused, match=r"^-f onnx cannot carry a J48 .* -f pmml carries"):
        refuse_unless_exportable(J48Classifier(), "onnx")
    refuse_unless_exportable(J48Classifier(), "pmml")  # PMML carries J48


def test_flat_view_sends_every_row_where_the_tree_does(fitted):
    """The flat view's walk (missing values and unlisted categories to the false side)
    reaches leaves with dtree's probabilities, checked in plain Python."""
    model = fitted["hddt-pruned-laplace"]
    flat = flatten(model, "python")
    tree = flat.trees[0]
    X = load_dataset(str(DATA)).X
    for row, expected in zip(X, model.proba_from_matrix(X)):  # X holds category codes
        node = 0
        while not tree.is_leaf(node):
            v = row[tree.feature[node]]
            if tree.codes[node]:
                goes = v in tree.codes[node]
            elif np.isnan(v):
                goes = tree.missing_true[node]
            else:
                goes = v <= tree.threshold[node]
            node = tree.true_child[node] if goes else tree.false_child[node]
        assert struct.pack("<%dd" % len(expected), *tree.proba[node]) == \
            struct.pack("<%dd" % len(expected), *expected)


# --- PMML: J48's multiway trees ---------------------------------------------------------------

@pytest.fixture(scope="module")
def j48_models():
    from dtcli.c45.estimator import J48Classifier

    dataset = load_dataset(str(DATA))
    return {"multiway": J48Classifier().fit_dataset(dataset),
            "laplace-unpruned": J48Classifier(pruning=None, leaf_estimate="laplace")
            .fit_dataset(dataset),
            "binary-splits": J48Classifier(binary_splits=True).fit_dataset(dataset)}


@pytest.mark.parametrize("name", ["multiway", "laplace-unpruned", "binary-splits"])
def test_j48_pmml_keeps_fractional_missing_routing(j48_models, tmp_path, name):
    """weightedConfidence (PMML 4.4's TreeModel) reproduces J48's probabilities on rows
    with missing values, which go down every branch weighted by its training share."""
    model = j48_models[name]
    path = tmp_path / "j48.pmml"
    path.write_text(model.to_pmml())
    text = path.read_text()
    assert 'missingValueStrategy="weightedConfidence"' in text
    if name != "binary-splits":
        assert 'operator="equal"' in text and 'operator="notEqual"' not in text
    rows = read_rows(model, str(DATA))
    assert np.isnan(rows.matrix).any(axis=1).sum() > 40  # rows with missing values
    (certificate,) = certify(model, str(path), rows)
    assert certificate.passed, certificate.line()


def test_pmml_structure_of_a_binary_tree(fitted):
    import xml.etree.ElementTree as ElementTree

    model = fitted["hddt-pruned-laplace"]
    root = ElementTree.fromstring(model.to_pmml())
    ns = "{http://www.dmg.org/PMML-4_4}"
    assert root.get("version") == "4.4"
    tree_model = root.find(f"{ns}TreeModel")
    assert tree_model.get("splitCharacteristic") == "binarySplit"
    nodes = list(tree_model.iter(f"{ns}Node"))
    assert len(nodes) == model.tree_.node_count  # no one-way split in this tree
    leaves = [n for n in nodes if n.find(f"{ns}Node") is None]
    assert len(leaves) == model.tree_.n_leaves
    for leaf in leaves:  # Laplace probabilities: (n_k + 1) / (n + K), from recordCount
        counts = [float(d.get("recordCount")) for d in leaf.findall(f"{ns}ScoreDistribution")]
        probabilities = [float(d.get("probability")) for d in leaf.findall(f"{ns}ScoreDistribution")]
        assert probabilities == pytest.approx([(c + 1) / (sum(counts) + 2) for c in counts])


def test_sql_check_with_kept_columns_and_a_table_name(saved_models, tmp_path):
    sql = tmp_path / "kept.sql"
    result = CliRunner().invoke(cli, ["export", saved_models["ihdw-unpruned"], "-f", "sql",
                                      "--keep", "class", "--keep", "a2", "--sql-table",
                                      "crx 'applicants'", "-o", str(sql), "--check", str(DATA)])
    assert result.exit_code == 0, result.output
    assert result.output.count("PASS") == 1 + HAS_DUCKDB
    assert '-- kept columns: ["class", "a2"]' in sql.read_text()


def test_forest_sums_follow_dtree_order_bit_for_bit(fitted, scoring_files, tmp_path):
    """Python adds a forest's trees in dtree's groups (flat.TREES_PER_GROUP, growth's):
    its probabilities are dtree's doubles, not only within 1e-9."""
    from dtcli.ensemble.growth import TREES_PER_GROUP
    from dtcli.export import flat

    assert flat.TREES_PER_GROUP == TREES_PER_GROUP
    model = fitted["forest"]
    path = tmp_path / "forest.py"
    path.write_text(model.to_python())
    (certificate,) = certify(model, str(path), read_rows(model, scoring_files["forest"]))
    assert certificate.max_difference == 0.0
