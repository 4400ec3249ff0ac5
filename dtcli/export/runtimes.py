"""Score rows with an exported artifact in the runtime that serves it: the Python module
imported from its file, the SQL in SQLite (and DuckDB when installed), the C header
compiled with the system's C compiler through a small generated driver, the ONNX
model in ONNX Runtime, the PMML document in dtree's own reader of the PMML 4.4
specification (pmml_eval.py; JPMML does not implement weightedConfidence). Each returns (labels, probabilities) for `Rows`.

`Rows` holds the data twice: `matrix`, as dtree encodes it (NaN for a missing value
and for a category the model never saw), and `raw`, as the data has it (numbers,
category strings, unseen ones included, None for missing), which the Python module
and SQL read; the ONNX model and the C header get codes, -1 for an unseen category.
"""
from __future__ import annotations

import importlib.machinery
import json
import importlib.util
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

import numpy as np

from dtcli.errors import DtreeError

ARTIFACT_KINDS = ("onnx", "sql", "c", "python", "pmml")


@dataclass(frozen=True)
class Rows:
    features: list  # dtcli.io.dataset.Feature
    matrix: np.ndarray  # float64, dtree's encoding
    raw: list  # one list per feature: float, str or None per row

    def codes(self) -> np.ndarray:
        """The matrix with an unseen category as -1 (NaN stays for a missing value)."""
        out = self.matrix.copy()
        for j, feature in enumerate(self.features):
            if feature.categories:
                unseen = np.array([v is not None for v in self.raw[j]]) & np.isnan(out[:, j])
                out[unseen, j] = -1.0
        return out

    def dicts(self) -> list[dict]:
        names = [f.name for f in self.features]
        return [dict(zip(names, values)) for values in zip(*self.raw)]


def kind_of(path: str) -> str:
    """What kind of artifact the file at `path` is, from its first bytes."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(400)
    except OSError as exc:
        raise DtreeError(f"{path}: cannot read ({exc.strerror})") from None
    text = head.decode("utf-8", "replace").lstrip()
    if text.startswith("-- ") or text.upper().startswith("SELECT"):
        return "sql"
    if text.startswith("/*") or text.startswith("#"):
        return "c"
    if text.startswith('"""'):
        return "python"
    if text.startswith("<?xml") or text.startswith("<PMML"):
        return "pmml"
    if b"ai.onnx.ml" in head or path.endswith(".onnx"):
        return "onnx"
    raise DtreeError(f"{path}: not an artifact of dtree export (onnx, sql, c, python, pmml)")


def score(kind: str, path: str, rows: Rows, classes: list[str], engine: str | None = None):
    """(labels, probabilities) of `rows` by the artifact at `path`, in its runtime."""
    if kind == "python":
        return _python(path, rows, classes)
    if kind == "sql":
        return _sql(path, rows, classes, engine or "sqlite")
    if kind == "c":
        return _c(path, rows, classes)
    if kind == "onnx":
        return _onnx(path, rows)
    if kind == "pmml" and engine == "jpmml":
        return _jpmml(path, rows, classes)
    if kind == "pmml":
        from dtcli.export.pmml_eval import score as pmml_score

        return pmml_score(path, rows, classes)
    raise DtreeError(f"no runtime for {kind}")


def _python(path: str, rows: Rows, classes: list[str]):
    # by its loader: the file need not end in .py
    loader = importlib.machinery.SourceFileLoader("dtree_exported_model", path)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    try:
        loader.exec_module(module)
    except Exception as exc:  # a damaged module: say so in one line
        raise DtreeError(f"{path}: the Python module does not load ({exc})") from None
    proba = np.array([[p[c] for c in classes] for p in map(module.predict_proba, rows.dicts())])
    labels = np.array([module.predict(row) for row in rows.dicts()], dtype=object)
    return labels, proba.reshape(-1, len(classes))


def sql_inputs(sql: str) -> tuple[str, list[str]]:
    """The table the exported SELECT reads and the columns it keeps (its header lines)."""
    table = re.search(r'^-- input table: ("(?:[^"]|"")*")$', sql, re.MULTILINE)
    kept = re.search(r"^-- kept columns: (.*)$", sql, re.MULTILINE)
    if not table or not kept:
        raise DtreeError("the SQL is not a SELECT of dtree export -f sql (no '-- input table:' "
                         "and '-- kept columns:' lines)")
    try:
        return table.group(1), [str(name) for name in json.loads(kept.group(1))]
    except ValueError:
        raise DtreeError("the SQL's '-- kept columns:' line is not a JSON list") from None


def _sql(path: str, rows: Rows, classes: list[str], engine: str):
    """The SQL run on a table of the rows' features (and, empty, the columns it keeps)."""
    with open(path, encoding="utf-8") as handle:
        sql = handle.read()
    table, kept = sql_inputs(sql)
    names = [f.name for f in rows.features]
    types = ["TEXT" if f.categories else "DOUBLE" for f in rows.features]
    extra = [k for k in dict.fromkeys(kept) if k not in names]
    columns = ", ".join('"' + name.replace('"', '""') + '" ' + kind
                        for name, kind in zip(names + extra, types + ["TEXT"] * len(extra)))
    values = [tuple(r) + (None,) * len(extra) for r in zip(*rows.raw)] if rows.raw else []
    marks = ", ".join("?" for _ in names + extra)
    if engine == "duckdb":
        import duckdb

        connection = duckdb.connect()
        connection.execute(f"CREATE TABLE {table} ({columns})")
        if values:
            connection.executemany(f"INSERT INTO {table} VALUES ({marks})", values)
        cursor = connection.execute(sql.rstrip().rstrip(";"))
    else:
        import sqlite3

        connection = sqlite3.connect(":memory:")
        connection.execute(f"CREATE TABLE {table} ({columns})")
        connection.executemany(f"INSERT INTO {table} VALUES ({marks})", values)
        try:
            cursor = connection.execute(sql)
        except sqlite3.Error as exc:
            raise DtreeError(f"{path}: SQLite cannot run the SQL ({exc})") from None
    header = [d[0] for d in cursor.description]
    result = cursor.fetchall()
    connection.close()
    try:
        at = [header.index("prediction")] + [header.index(f"proba_{c}") for c in classes]
    except ValueError:
        raise DtreeError(f"{path}: the SQL does not return prediction and proba_<class> for "
                         f"the model's classes") from None
    labels = np.array([r[at[0]] for r in result], dtype=object)
    proba = np.array([[r[i] for i in at[1:]] for r in result], dtype=np.float64)
    return labels, proba.reshape(-1, len(classes))


def _c(path: str, rows: Rows, classes: list[str]):
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise DtreeError("checking a C header needs a C compiler (cc) on PATH")
    with open(path, encoding="utf-8") as handle:
        found = re.search(r"static inline void (\w+)_predict_proba\(", handle.read())
    if not found:
        raise DtreeError(f"{path}: no NAME_predict_proba function in the header")
    name = found.group(1)
    x = np.ascontiguousarray(rows.codes(), dtype=np.float64)
    with tempfile.TemporaryDirectory(prefix="dtree-check-") as work:
        driver = os.path.join(work, "driver.c")
        with open(driver, "w") as handle:
            handle.write(_C_DRIVER.format(header=os.path.abspath(path), name=name,
                                          n_features=x.shape[1], n_classes=len(classes)))
        program = os.path.join(work, "driver")
        built = subprocess.run([compiler, "-std=c99", "-O2", "-o", program, driver, "-lm"],
                               capture_output=True, text=True)
        if built.returncode != 0:
            first = (built.stderr.strip().splitlines() or ["?"])[0]
            raise DtreeError(f"{path}: the C header does not compile ({first})")
        ran = subprocess.run([program], input=x.tobytes(), capture_output=True)
        if ran.returncode != 0:
            raise DtreeError(f"{path}: the compiled header failed (exit {ran.returncode})")
    out = np.frombuffer(ran.stdout, dtype=np.float64).reshape(-1, len(classes) + 1)
    labels = np.array(classes, dtype=object)[out[:, 0].astype(np.int64)]
    return labels, out[:, 1:].copy()


_C_DRIVER = """#include <stdio.h>
#include "{header}"
int main(void) {{
  double x[{n_features}], out[{n_classes} + 1];
  while (fread(x, sizeof(double), {n_features}, stdin) == {n_features}) {{
    out[0] = (double){name}_predict(x);
    {name}_predict_proba(x, out + 1);
    fwrite(out, sizeof(double), {n_classes} + 1, stdout);
  }}
  return 0;
}}
"""


def _onnx(path: str, rows: Rows):
    try:
        import onnxruntime
    except ImportError:
        raise DtreeError('checking an ONNX model needs onnxruntime: pip install "dtcli[onnx]"') \
            from None
    try:
        session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    except Exception as exc:  # ONNX Runtime's own errors: one line
        hint = ("; ONNX Runtime before 1.21 has no TreeEnsemble (opset 5): export with "
                "--onnx-opset 3" if "TreeEnsemble(5)" in str(exc) else "")
        raise DtreeError(f"{path}: ONNX Runtime {onnxruntime.__version__} cannot load it "
                         f"({str(exc).splitlines()[0]}){hint}") from None
    dtype = np.float32 if "float)" in session.get_inputs()[0].type else np.float64
    label, proba = session.run(["label", "probabilities"],
                               {"input": rows.codes().astype(dtype)})
    return np.asarray(label, dtype=object), np.asarray(proba, dtype=np.float64)


def _jpmml(path: str, rows: Rows, classes: list[str]):
    """JPMML-Evaluator (Java, through the jpmml_evaluator package's Py4J gateway)."""
    from jpmml_evaluator import make_evaluator
    from jpmml_evaluator.py4j import Py4JBackend

    backend = Py4JBackend()
    try:
        evaluator = make_evaluator(path, backend=backend).verify()
        results = [evaluator.evaluate({k: v for k, v in row.items() if v is not None})
                   for row in rows.dicts()]
    except Exception as exc:  # JPMML's own errors: one line
        raise DtreeError(f"{path}: JPMML cannot score it ({str(exc).splitlines()[0]})") from None
    finally:
        Py4JBackend.destroyGateway()
    proba = np.array([[r.get(f"probability({c})", np.nan) for c in classes] for r in results],
                     dtype=np.float64)
    return np.array([r.get("class") for r in results], dtype=object), \
        proba.reshape(-1, len(classes))


def jpmml_serves(path: str) -> bool:
    """Whether JPMML-Evaluator is installed (with java) and can read the document: it
    does not implement missingValueStrategy="weightedConfidence" (J48's trees)."""
    if importlib.util.find_spec("jpmml_evaluator") is None or shutil.which("java") is None:
        return False
    with open(path, encoding="utf-8", errors="replace") as handle:
        return 'missingValueStrategy="weightedConfidence"' not in handle.read()


def duckdb_available() -> bool:
    return importlib.util.find_spec("duckdb") is not None
