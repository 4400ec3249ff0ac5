"""The production formats of `dtree export -f onnx|sql|c|python|pmml` and of the
estimators' `to_onnx`, `to_sql`, `to_c`, `to_python`, `to_pmml` (`Exportable`):
each reads the model's flat view (flat.py) and writes one artifact; docs/export.md.
Nothing here loads the numba engine."""
from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass

from dtcli.export.flat import FORMATS, flatten


@dataclass(frozen=True)
class ExportOptions:
    sql_table: str = "data"
    keep: tuple = ()
    name: str = "dtree"  # the C functions' prefix
    onnx_opset: int = 5


def render(model, fmt: str, options: ExportOptions = ExportOptions()):
    """The artifact of `model` in format `fmt`: text, or bytes for ONNX."""
    with _collection_paused():
        return _render(model, fmt, options)


@contextmanager
def _collection_paused():
    """No cyclic garbage collection while the writers build millions of small lists and
    tuples (none of them cyclic): a 127k-node forest's python, c and onnx exports took
    1.8, 2.0, 1.2 s with it and 1.2, 1.4, 0.85 s without (shared machine, one run)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _render(model, fmt: str, options: ExportOptions):
    if fmt == "pmml" and getattr(model, "model_kind", None) == "c45":
        return model.to_pmml()  # dtcli/c45/pmml.py: export does not import c45
    if fmt == "pmml":
        from dtcli.export import pmml

        return pmml.render(model)
    flat = flatten(model, fmt)
    if fmt == "onnx":
        from dtcli.export.onnx_model import build

        return build(flat, options.onnx_opset).SerializeToString()
    if fmt == "sql":
        from dtcli.export import sql

        return sql.render(flat, options.sql_table, tuple(options.keep))
    if fmt == "c":
        from dtcli.export import c_header

        return c_header.render(flat, options.name)
    if fmt == "python":
        from dtcli.export import python_module

        return python_module.render(flat)
    raise ValueError(f"unknown export format {fmt!r} (one of {', '.join(FORMATS)})")


def describe(model, options: ExportOptions = ExportOptions()) -> str:
    """`-f onnx --describe`: what the ONNX model's input columns and outputs are."""
    from dtcli.export.onnx_model import describe as onnx_describe

    return onnx_describe(flatten(model, "onnx"), options.onnx_opset)


def write(model, fmt: str, output: str, options: ExportOptions) -> None:
    from dtcli.atomic import open_output

    artifact = render(model, fmt, options)
    binary = isinstance(artifact, bytes)
    with open_output(output, "wb" if binary else "w") as handle:
        handle.write(artifact)


class Exportable:
    """The estimators' export methods, as scikit-learn users know them from converter
    packages (skl2onnx's to_onnx, m2cgen's export_to_c, ...)."""

    def to_onnx(self, opset: int = 5):
        """The fitted model as an onnx.ModelProto (ai.onnx.ml opset 5 TreeEnsemble, or 3:
        TreeEnsembleClassifier with float32 thresholds); needs `dtcli[onnx]`."""
        from dtcli.export.onnx_model import build, check_opset

        return build(flatten(self, "onnx"), check_opset(opset))

    def to_sql(self, table: str = "data", keep=()) -> str:
        """One SELECT (SQLite, DuckDB) returning `prediction` and `proba_<class>` for
        every row of `table`, with the columns `keep` in front."""
        return render(self, "sql", ExportOptions(sql_table=table, keep=tuple(keep)))

    def to_c(self, name: str = "dtree") -> str:
        """A C99 header with `NAME_predict_proba(const double *x, double *proba)`."""
        return render(self, "c", ExportOptions(name=name))

    def to_python(self) -> str:
        """The source of a dependency-free module with predict_proba(row) and predict(row)."""
        return render(self, "python")

    def to_pmml(self) -> str:
        """A PMML 4.4 TreeModel document (a single tree; J48's multiway trees included)."""
        return render(self, "pmml")


def export_and_check(model, fmt: str, output: str, options: ExportOptions,
                     check_data: str | None = None) -> list:
    """`dtree export -f FORMAT`: write the artifact; with `check_data`, its parity
    certificates (check.py) on that data."""
    from dtcli.errors import ParameterError

    if check_data is not None and output in (None, "-"):
        raise ParameterError("--check needs -o FILE: it scores the written file in its runtime")
    write(model, fmt, output, options)
    return [] if check_data is None else verify(model, output, check_data)


def verify(model, artifact: str, data: str, **read_options) -> list:
    """The parity certificates of `artifact` against `model` on the rows of `data`."""
    from dtcli.export.check import certify, read_rows

    return certify(model, artifact, read_rows(model, data, **read_options))
