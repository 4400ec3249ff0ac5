"""What `evaluate` reports, and what every report shares: the metrics, the formats,
JSON and number formatting, the progress bar.

`evaluation_document` builds a plain dict (the JSON output) and
`render_evaluation` writes it as a rich table, JSON, CSV or markdown;
`dtcli.reporting.comparison` does the same for `compare`. Floats that are NaN
become null in JSON.

numpy, the statistics and rich are imported inside the functions: the CLI
imports this module (for `METRICS`) to build `dtree --help`.
"""
from __future__ import annotations

import csv
import json
import math
import time
from collections.abc import Sequence
from contextlib import contextmanager

from dtcli.reporting.tables import console, markdown_table, print_table

from dtcli.measures import MEASURES

# The per-fold metrics in report order: name -> higher is better (dtcli/measures/__init__.py).
METRICS = {m.name: m.higher_is_better for m in MEASURES}
TIMING = ("fit_seconds", "predict_seconds")  # the only metrics that vary between runs
# Computed by `evaluate` also from the confusion matrix summed over folds, as Weka does
# ("pooled" in its document).
CONFUSION_METRICS = ("g_mean", "mcc", "kappa")
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


PLAIN_PROGRESS_SECONDS = 10.0


def plain_progress(description: str, stream, clock=time.monotonic):
    """A (done, total) callback that writes 'description: done/total (P%), S s' to
    `stream` when PLAIN_PROGRESS_SECONDS have passed since the start or the last line."""
    start = last = clock()

    def update(done: int, total: int) -> None:
        nonlocal last
        now = clock()
        if now - last >= PLAIN_PROGRESS_SECONDS:
            last = now
            share = f" ({100 * done // total}%)" if total else ""
            stream.write(f"{description}: {done}/{total}{share}, {now - start:.0f} s\n")
            stream.flush()

    return update


@contextmanager
def progress_bar(description: str, enabled: bool):
    """A rich progress bar with ETA on stderr (compiling meanwhile adds a row to it:
    jit/notice.py); yields a (done, total) callback.

    In a notebook, a line of output that updates itself; when stderr is not a terminal
    (nohup, CI), a plain line instead, at most every `PLAIN_PROGRESS_SECONDS`; silent
    (the callback does nothing) unless enabled.
    """
    from rich.console import Console

    from dtcli.jit.notice import in_notebook, notebook_progress, sharing

    console = Console(stderr=True)
    if not enabled:
        yield lambda done, total: None
        return
    if in_notebook():
        with notebook_progress(description) as update:
            yield update
        return
    if not console.is_terminal:
        yield plain_progress(description, console.file)
        return
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                  console=console, transient=True) as bar, sharing(bar):
        task = bar.add_task(description, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


# --------------------------------------------------------------------------
# evaluate
# --------------------------------------------------------------------------


def evaluation_document(summary: dict, classes: Sequence[str], about: dict) -> dict:
    """The JSON of `evaluate`: `about` (what was evaluated, how), then `classes`, one
    {mean, std, values} object per metric, and what the confusion matrix (rows: true
    class, columns: predicted class, summed over folds) gives: per_class (class ->
    {precision, recall, f1, support}), pooled {g_mean, mcc, kappa}
    (`CONFUSION_METRICS`), then the matrix itself. Scores computed from the summed
    matrix are single numbers, pooled over the folds as Weka reports them; an undefined
    one is null. `about` names the positive class of precision, recall and f1."""
    from dtcli.measures import metrics

    doc = dict(about)
    doc["classes"] = [str(c) for c in classes]
    for name in METRICS:
        doc[name] = summary[name]
    matrix = summary["confusion_matrix"]
    scores = metrics.per_class_scores(matrix)
    doc["per_class"] = {label: {name: (int(values[i]) if name == "support" else float(values[i]))
                                for name, values in scores.items()}
                        for i, label in enumerate(doc["classes"])}
    doc["pooled"] = {name: compute(matrix) for name, compute in (
        ("g_mean", metrics.g_mean), ("mcc", metrics.matthews_corrcoef),
        ("kappa", metrics.cohen_kappa))}
    doc["confusion_matrix"] = matrix
    if "calibration" in summary:
        doc["calibration"] = summary["calibration"]
    return doc


def class_weight_note(options: dict) -> str:
    """'; class weights balanced' or '; class weights a=2, b=0.5' for a report's title
    ('' without class weights)."""
    weights = options.get("class_weight")
    if weights is None:
        return ""
    if isinstance(weights, str):
        return f"; class weights {weights}"
    return "; class weights " + ", ".join(f"{label}={w:g}" for label, w in weights.items())


def options_note(options: dict) -> str:
    """class_weight_note, then '; pruning ccp (ccp_alpha=auto)' and '; laplace leaves'
    when the trees were pruned or their leaves smoothed."""
    note = class_weight_note(options)
    pruning = options.get("pruning")
    if pruning:
        from dtcli.pruning.methods import METHODS

        params = ", ".join(f"{k}={options[k]}" for k in METHODS[pruning].params
                           if options[k] is not None)
        note += f"; pruning {pruning} ({params})"
    estimate = options.get("leaf_estimate", "frequency")
    if estimate != "frequency":
        note += f"; {estimate} leaves" + (f" (m={options['m']:g})" if estimate == "m-estimate" else "")
    return note


def _evaluation_title(doc: dict) -> str:
    positive = f"; positive class {doc['positive']}" if "positive" in doc else ""
    positive += "".join(f"; {name.replace('_', ' ')} {doc[name]}" for name in
                        ("cost", "cost_matrix", "threshold", "threshold_metric") if name in doc)
    if "decision" in doc:  # a model file's stored threshold (dtcli/measures/fitted.py)
        positive += (f"; decides {doc['decision']['positive']} at p >= "
                     f"{doc['decision']['threshold']:.6g}")
    if doc.get("model"):
        return f"model {doc['model']} on {doc['dataset']}{positive}"
    criterion = doc["criterion"]
    params = "".join(f":{k}={v}" if isinstance(v, str) else f":{k}={v:g}"  # v: a number or auto
                     for k, v in criterion["params"].items())
    repeats = f" x {doc['repeats']} repeats" if doc["repeats"] > 1 else ""
    forest = f"*{doc['forest']['n_estimators']}" if doc.get("forest") else ""  # gini*100
    return (f"{criterion['name']}{params}{forest} on {doc['dataset']}: stratified {doc['cv']}-fold "
            f"cross-validation{repeats}, seed {doc['seed']}{options_note(doc['options'])}"
            f"{positive}")


def evaluation_sections(doc: dict) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) of each table of the evaluate command, as text."""
    return _sections(doc, False)


def _sections(doc: dict, for_csv: bool) -> list[tuple[str, list[str], list[list[str]]]]:
    return [(_evaluation_title(doc), *_metric_section(doc, for_csv)),
            *_confusion_sections(doc, for_csv)]


def _csv_value(value) -> str:
    return "" if value is None or value != value else repr(float(value))


def _metric_section(doc: dict, for_csv: bool) -> tuple[list[str], list[list[str]]]:
    """The per-fold metrics: mean and std (and, in CSV, every fold), or a model's values."""
    single = bool(doc.get("model"))
    n_values = max(len(doc[name]["values"]) for name in METRICS)
    header = (["metric", "value"] if single else
              ["metric", "mean", "std", *(f"fold_{i + 1}" for i in range(n_values) if for_csv)])
    rows = []
    for name in METRICS:
        entry = doc[name]
        values = [entry["mean"]] if single else [entry["mean"], entry["std"]]
        if for_csv:
            rows.append([name, *map(_csv_value, values + ([] if single else entry["values"]))])
        else:
            rows.append([name, *(_metric_text(name, v) for v in values)])
    return header, rows


def _confusion_sections(doc: dict, for_csv: bool) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) of the per-class scores, the G-mean, Matthews and kappa, and
    the confusion matrix."""
    text = _csv_value if for_csv else (lambda value: number(value, 4))
    pooled = "" if doc.get("model") else ", summed over folds"
    per_class = [[label, *(text(doc["per_class"][label][name])
                           for name in ("precision", "recall", "f1")),
                  str(doc["per_class"][label]["support"])] for label in doc["classes"]]
    matrix = [[label, *(str(n) for n in row)]
              for label, row in zip(doc["classes"], doc["confusion_matrix"])]
    return [
        (f"per class, from the confusion matrix{pooled}",
         ["class", "precision", "recall", "f1", "support"], per_class),
        (f"G-mean (geometric mean of the recalls), Matthews correlation and Cohen's kappa, "
         f"from the confusion matrix{pooled}", ["metric", "value"],
         [[name, text(doc["pooled"][name])] for name in CONFUSION_METRICS]),
        (f"confusion matrix (rows: true class, columns: predicted{pooled})",
         ["true \\ predicted", *doc["classes"]], matrix),
    ]


def render_evaluation(doc: dict, fmt: str, stream) -> None:
    """Write an evaluation document as table, json, csv or markdown.

    CSV holds four tables separated by an empty line: the metrics (with every
    fold's value), the per-class scores, g_mean/mcc/kappa, and the confusion
    matrix (rows: true class)."""
    if fmt == "json":
        stream.write(to_json(doc))
        return
    for_csv = fmt == "csv"
    sections = _sections(doc, for_csv)
    if for_csv:
        writer = csv.writer(stream, lineterminator="\n")
        for i, (_, header, rows) in enumerate(sections):
            if i:
                writer.writerow([])
            writer.writerows([header, *rows])
    elif fmt == "markdown":
        for i, (title, header, rows) in enumerate(sections):
            stream.write(("" if i == 0 else "\n") + f"**{title}**\n\n")
            stream.write(markdown_table(header, rows, right=range(1, len(header))))
    else:
        out = console(stream)
        for title, header, rows in sections:
            print_table(out, header, rows, title=title)

