"""What `evaluate` reports, and what every report shares: the metrics, the formats,
JSON and number formatting, the progress bar.

`evaluation_document` builds a plain dict (the JSON output) and
`render_evaluation` writes it as a rich table, JSON, CSV or markdown;
`dtcli.evaluate.comparison` does the same for `compare`. Floats that are NaN
become null in JSON.

numpy, the statistics and rich are imported inside the functions: the CLI
imports this module (for `METRICS`) to build `dtree --help`.
"""
from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from contextlib import contextmanager

from dtcli.evaluate.tables import console, markdown_table, print_table

# The per-fold metrics in report order: name -> higher is better.
METRICS = {
    "accuracy": True,
    "balanced_accuracy": True,
    "auc": True,
    "log_loss": False,
    "f1_macro": True,
    "n_nodes": False,
    "n_leaves": False,
    "depth": False,
    "fit_seconds": False,
    "predict_seconds": False,
}
TIMING = ("fit_seconds", "predict_seconds")  # the only metrics that vary between runs
FORMATS = ("table", "json", "csv", "markdown")
ALPHA = 0.05


def clean(value):
    """A JSON-ready copy: NaN and infinities become None, tuples become lists."""
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def to_json(doc: dict) -> str:
    return json.dumps(clean(doc), indent=1, allow_nan=False) + "\n"


def number(value, decimals: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.{decimals}f}"


def _metric_text(name: str, value) -> str:
    """A metric as the evaluate table shows it: seconds to 3 significant digits."""
    if name in TIMING and value is not None and math.isfinite(value):
        return f"{value:.3g}"
    return number(value, 2 if name in ("n_nodes", "n_leaves", "depth") else 4)


def decimals_for(values) -> int:
    """Two decimals for percentages and counts, four for fractions."""
    finite = [abs(v) for v in values if v is not None and math.isfinite(v)]
    return 2 if finite and max(finite) > 1.5 else 4


# --------------------------------------------------------------------------
# Progress
# --------------------------------------------------------------------------


@contextmanager
def progress_bar(description: str, enabled: bool):
    """A rich progress bar with ETA on stderr; yields a (done, total) callback.

    Silent (the callback does nothing) unless enabled and stderr is a terminal.
    """
    from rich.console import Console

    console = Console(stderr=True)
    if not enabled or not console.is_terminal:
        yield lambda done, total: None
        return
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                  console=console, transient=True) as bar:
        task = bar.add_task(description, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


# --------------------------------------------------------------------------
# evaluate
# --------------------------------------------------------------------------


def evaluation_document(summary: dict, classes: Sequence[str], about: dict) -> dict:
    """The JSON of `evaluate`: `about` (what was evaluated, how), then `classes`, one
    {mean, std, values} object per metric and the confusion matrix (rows: true class,
    columns: predicted class, summed over folds)."""
    doc = dict(about)
    doc["classes"] = [str(c) for c in classes]
    for name in METRICS:
        doc[name] = summary[name]
    doc["confusion_matrix"] = summary["confusion_matrix"]
    return doc


def _evaluation_title(doc: dict) -> str:
    if doc.get("model"):
        return f"model {doc['model']} on {doc['dataset']}"
    criterion = doc["criterion"]
    params = "".join(f":{k}={v:g}" for k, v in criterion["params"].items())
    repeats = f" x {doc['repeats']} repeats" if doc["repeats"] > 1 else ""
    return (f"{criterion['name']}{params} on {doc['dataset']}: stratified {doc['cv']}-fold "
            f"cross-validation{repeats}, seed {doc['seed']}")


def render_evaluation(doc: dict, fmt: str, stream) -> None:
    """Write an evaluation document as table, json, csv or markdown."""
    single = bool(doc.get("model"))
    if fmt == "json":
        stream.write(to_json(doc))
        return
    if fmt == "csv":
        writer = csv.writer(stream, lineterminator="\n")
        n_values = max(len(doc[name]["values"]) for name in METRICS)
        if single:
            writer.writerow(["metric", "value"])
        else:
            writer.writerow(["metric", "mean", "std", *(f"fold_{i + 1}" for i in range(n_values))])
        for name in METRICS:
            entry = doc[name]
            cells = [entry["mean"]] if single else [entry["mean"], entry["std"], *entry["values"]]
            writer.writerow([name, *("" if v is None or v != v else repr(float(v))
                                     for v in cells)])
        return
    header = ["metric", "value"] if single else ["metric", "mean", "std"]
    rows = [[name, _metric_text(name, doc[name]["mean"])] if single else
            [name, _metric_text(name, doc[name]["mean"]), _metric_text(name, doc[name]["std"])]
            for name in METRICS]
    classes = doc["classes"]
    matrix = [[label, *(str(n) for n in row)] for label, row in zip(classes, doc["confusion_matrix"])]
    matrix_header = ["true \\ predicted", *classes]
    note = "" if single else ", summed over folds"
    if fmt == "markdown":
        stream.write(f"**{_evaluation_title(doc)}**\n\n")
        stream.write(markdown_table(header, rows, right=range(1, len(header))))
        stream.write(f"\nConfusion matrix (rows: true class, columns: predicted{note}):\n\n")
        stream.write(markdown_table(matrix_header, matrix, right=range(1, len(matrix_header))))
        return
    out = console(stream)
    print_table(out, header, rows, title=_evaluation_title(doc))
    print_table(out, matrix_header, matrix,
                title=f"confusion matrix (rows: true, columns: predicted{note})")


# --------------------------------------------------------------------------
# compare: statistics
# --------------------------------------------------------------------------
