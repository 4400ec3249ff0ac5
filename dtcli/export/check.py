"""The parity certificate of an exported artifact (`dtree export --check DATA`, `dtree
verify MODEL ARTIFACT DATA`): score DATA with the artifact in its own runtime and with
dtree, and report the rows whose predicted class differs (dtree's label: at the model's
decision threshold if it has one, as `dtree predict` decides) and the largest probability
difference. It passes when no class differs and no probability differs by more than
TOLERANCE (FLOAT32_TOLERANCE for an ONNX opset 3 model, whose float32 thresholds are
compared with dtree on the data rounded to float32, as that runtime receives it).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dtcli.export.runtimes import Rows, duckdb_available, jpmml_serves, kind_of, score

TOLERANCE = 1e-9
FLOAT32_TOLERANCE = 1e-6
SHOWN_ROWS = 5


@dataclass(frozen=True)
class Certificate:
    artifact: str
    runtime: str
    n_rows: int
    class_differs: list  # row numbers (from 1) whose class differs
    max_difference: float
    tolerance: float

    @property
    def passed(self) -> bool:
        return not self.class_differs and self.max_difference <= self.tolerance

    def line(self) -> str:
        rows = ", ".join(map(str, self.class_differs[:SHOWN_ROWS])) + (
            ", ..." if len(self.class_differs) > SHOWN_ROWS else "")
        verdict = "PASS" if self.passed else "FAIL"
        return (f"{verdict} {self.artifact} in {self.runtime}: {self.n_rows} rows, "
                f"{len(self.class_differs)} with another class"
                + (f" (rows {rows})" if self.class_differs else "")
                + f", largest probability difference {self.max_difference:.3g} "
                f"(tolerance {self.tolerance:g})")


def read_rows(model, data: str, **read_options) -> Rows:
    """DATA's rows for `model`'s features, encoded as dtree encodes them and as written."""
    from dtcli.io import load_features

    nominal = [f.name for f in model.features_ if f.categories]
    matrix, labels = load_features(data, model.features_, labels_of=nominal, **read_options)
    raw = []
    for j, feature in enumerate(model.features_):
        if feature.categories:
            raw.append([None if v is None else str(v) for v in labels[feature.name]])
        else:
            raw.append([None if np.isnan(v) else float(v) for v in matrix[:, j]])
    return Rows(list(model.features_), matrix, raw)


def certify(model, path: str, rows: Rows) -> list[Certificate]:
    """One Certificate per runtime that serves the artifact at `path` (SQL: SQLite, and
    DuckDB when installed; PMML: dtree's reader of the specification, and JPMML when
    installed, for the documents it reads)."""
    kind = kind_of(path)
    classes = [str(c) for c in model.classes_]
    runtimes = {"onnx": ["onnxruntime"], "python": ["python"], "c": ["cc"],
                "pmml": ["pmml-reader"] + (["jpmml"] if kind == "pmml" and jpmml_serves(path)
                                           else []),
                "sql": ["sqlite"] + (["duckdb"] if duckdb_available() else [])}
    out = []
    for runtime in runtimes[kind]:
        labels, proba = score(kind, path, rows, classes, runtime)
        float32 = kind == "onnx" and _is_float32(path)
        reference_rows = rows.matrix.astype(np.float32).astype(np.float64) if float32 \
            else rows.matrix
        expected = model.proba_from_matrix(reference_rows)
        decided = (model.predicted_index(expected) if getattr(model, "threshold_", None)
                   is not None else expected.argmax(axis=1))  # at its decision threshold
        expected_labels = np.array(classes, dtype=object)[decided]
        if proba.shape != expected.shape:
            differs, largest = list(range(1, rows.matrix.shape[0] + 1)), float("inf")
        else:
            differs = (np.flatnonzero(labels.astype(str) != expected_labels.astype(str))
                       + 1).tolist()
            largest = float(np.abs(proba - expected).max()) if proba.size else 0.0
            if np.isnan(proba).any():
                largest = float("inf")
        out.append(Certificate(path, runtime, rows.matrix.shape[0], differs, largest,
                               FLOAT32_TOLERANCE if float32 else TOLERANCE))
    return out


def _is_float32(path: str) -> bool:
    from dtcli.export.onnx_model import require_onnx

    onnx = require_onnx()
    model = onnx.load(path)
    return model.graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.FLOAT
