"""What `evaluate` and `compare` report, and how: JSON documents and their renderings.

`evaluation_document` and `comparison_document` build plain dicts (the JSON
output); `render_evaluation` and `render_comparison` write them as a rich
table, JSON, CSV or markdown. `read_score_table` reads a table of scores
(`compare --table`, `--reference`) and `reference_comparison` sets one beside
a comparison. Floats that are NaN become null in JSON.

numpy, the statistics and rich are imported inside the functions: the CLI
imports this module (for `METRICS`) to build `dtree --help`.
"""
from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Sequence
from contextlib import contextmanager

from dtcli.errors import DataError, DtreeError, ParameterError

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
_SUMMARY_ROWS = re.compile(r"^(avg|average|mean|median|rank|ranks|average rank|avg rank|"
                           r"w/t/l|win/tie/loss|total|sum)\b", re.IGNORECASE)


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


def _number(value, decimals: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.{decimals}f}"


def _metric_text(name: str, value) -> str:
    """A metric as the evaluate table shows it: seconds to 3 significant digits."""
    if name in TIMING and value is not None and math.isfinite(value):
        return f"{value:.3g}"
    return _number(value, 2 if name in ("n_nodes", "n_leaves", "depth") else 4)


def _decimals(values) -> int:
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
        stream.write(_markdown_table(header, rows, right=range(1, len(header))))
        stream.write(f"\nConfusion matrix (rows: true class, columns: predicted{note}):\n\n")
        stream.write(_markdown_table(matrix_header, matrix, right=range(1, len(matrix_header))))
        return
    console = _console(stream)
    console.print(_rich_table(header, rows, title=_evaluation_title(doc)))
    console.print(_rich_table(matrix_header, matrix,
                              title=f"confusion matrix (rows: true, columns: predicted{note})"))


# --------------------------------------------------------------------------
# compare: statistics
# --------------------------------------------------------------------------


def comparison_document(datasets: Sequence[str], methods: Sequence[str], means, stds=None, *,
                        higher_is_better: bool = True, base: str | None = None,
                        repeat_stds=None, about: dict | None = None) -> dict:
    """Demsar's comparison of `methods` over `datasets` from a table of mean scores.

    Keys: what `about` holds, then datasets, criteria, higher_is_better,
    scores (dataset -> method -> {mean, std[, repeat_std]}), best (dataset ->
    best methods), average_ranks, friedman {chi2, p}, iman_davenport {F, p,
    critical_value}, nemenyi {q_alpha, cd, significant_pairs}, base,
    win_tie_loss (method -> [wins, ties, losses] of the base against it) and
    conclusions (sentences). With fewer than two datasets the tests are null.
    """
    import numpy as np

    from dtcli.evaluate import stats

    datasets, methods = list(datasets), list(methods)
    table = np.asarray(means, dtype=float)
    if len(methods) < 2:
        raise ParameterError("a comparison needs at least two criteria or methods")
    if base is not None and base not in methods:
        raise ParameterError(f"--base {base!r} is not one of the compared criteria "
                             f"({', '.join(methods)})")
    base = base if base is not None else methods[-1]
    missing = np.argwhere(np.isnan(table))
    if missing.size:
        d, m = missing[0]
        raise DtreeError(f"no score for dataset '{datasets[d]}' and '{methods[m]}' (every test "
                         "fold held a single class?); rank tests need every cell")
    doc = dict(about or {})
    doc.update(datasets=datasets, criteria=methods, higher_is_better=higher_is_better)
    doc["scores"] = {
        d: {m: {"mean": float(table[i, j]),
                "std": None if stds is None else float(stds[i][j]),
                **({} if repeat_stds is None else {"repeat_std": float(repeat_stds[i][j])})}
            for j, m in enumerate(methods)}
        for i, d in enumerate(datasets)}
    best = table.max(axis=1) if higher_is_better else table.min(axis=1)
    doc["best"] = {d: [m for j, m in enumerate(methods) if table[i, j] == best[i]]
                   for i, d in enumerate(datasets)}
    if len(datasets) >= 2:
        tests = stats.compare_table(table, methods, datasets, higher_is_better, ALPHA, base)
        del tests["datasets"], tests["criteria"], tests["scores"]
        doc.update(tests)
    else:
        ranks = stats.average_ranks(table, higher_is_better)
        wtl = stats.win_tie_loss(table, methods.index(base), higher_is_better)
        doc.update(average_ranks={m: float(r) for m, r in zip(methods, ranks)},
                   friedman=None, iman_davenport=None, nemenyi=None,
                   win_tie_loss={m: wtl[j].tolist() for j, m in enumerate(methods) if m != base})
    doc["base"] = base
    doc["conclusions"] = conclusions(doc)
    return doc


def conclusions(doc: dict) -> list[str]:
    """The comparison's statistics in sentences."""
    methods, ranks = doc["criteria"], doc["average_ranks"]
    n, k = len(doc["datasets"]), len(methods)
    order = sorted(methods, key=lambda m: ranks[m])
    lines = ["Average ranks (1 = best): "
             + ", ".join(f"{m} {ranks[m]:.2f}" for m in order) + "."]
    if doc["friedman"] is None:
        lines.append("The rank tests need at least two datasets.")
    else:
        friedman, iman = doc["friedman"], doc["iman_davenport"]
        d1, d2 = k - 1, (k - 1) * (n - 1)
        differ = iman["p"] < ALPHA
        lines.append(
            f"Friedman chi2 = {friedman['chi2']:.2f} (df {d1}, p = {friedman['p']:.3g}); "
            f"Iman-Davenport F = {iman['F']:.2f} (F({d1}, {d2}), p = {iman['p']:.3g}, critical "
            f"value {iman['critical_value']:.2f} at alpha {ALPHA}): "
            + ("the methods do not all perform alike." if differ else
               "no significant difference among the methods."))
        nemenyi = doc["nemenyi"]
        pairs = nemenyi["significant_pairs"]
        head = (f"Nemenyi test at alpha {ALPHA}: critical difference CD = {nemenyi['cd']:.2f} "
                f"(q_alpha = {nemenyi['q_alpha']:.3f}, k = {k}, N = {n}); ")
        if pairs:
            described = []
            for a, b in pairs:
                better, worse = sorted((a, b), key=lambda m: ranks[m])
                described.append(f"{better} ({ranks[better]:.2f}) better than "
                                 f"{worse} ({ranks[worse]:.2f})")
            lines.append(head + "significant: " + "; ".join(described) + ".")
        else:
            lines.append(head + "no pair of methods differs significantly.")
    base, wtl = doc["base"], doc["win_tie_loss"]
    lines.append(f"Wins/ties/losses of {base} against each other method over {n} dataset"
                 f"{'s' if n != 1 else ''}: "
                 + ", ".join(f"{m} {w}/{t}/{l}" for m, (w, t, l) in wtl.items()) + ".")
    return lines


# --------------------------------------------------------------------------
# compare: tables brought by the user, and reference figures
# --------------------------------------------------------------------------


def read_score_table(path: str, what: str = "--table") -> tuple[list[str], list[str], list[list[float]]]:
    """(datasets, methods, scores) of a CSV table: a header row, then one row per dataset,
    its name first and one number per method. Summary rows (average, rank, ...) are
    rejected, since they would be ranked like datasets."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            rows = [row for row in csv.reader(handle) if any(cell.strip() for cell in row)]
    except FileNotFoundError:
        raise DataError(f"{path}: no such file ({what})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: cannot read {what} ({exc})") from None
    except csv.Error as exc:
        raise DataError(f"{path}: not a CSV table ({exc})") from None
    if len(rows) < 2 or len(rows[0]) < 2:
        raise DataError(f"{path}: {what} needs a header row and at least one dataset row, "
                        "with the dataset name first and one column per method")
    header = [cell.strip() for cell in rows[0]]
    methods, datasets, values = header[1:], [], []
    for line, row in enumerate(rows[1:], start=2):
        name = row[0].strip()
        if _SUMMARY_ROWS.match(name):
            raise DataError(f"{path}, line {line}: row '{name}' looks like a summary, not a "
                            "dataset; remove it (dtree computes ranks itself)")
        if len(row) != len(header):
            raise DataError(f"{path}, line {line}: {len(row)} fields, the header has "
                            f"{len(header)}")
        numbers = []
        for method, cell in zip(methods, row[1:]):
            try:
                numbers.append(float(cell.strip().rstrip("%")))
            except ValueError:
                raise DataError(f"{path}, line {line}, column '{method}': {cell!r} is not a "
                                "number") from None
        datasets.append(name)
        values.append(numbers)
    for seen in (methods, datasets):
        duplicates = sorted({x for x in seen if seen.count(x) > 1})
        if duplicates:
            raise DataError(f"{path}: '{duplicates[0]}' appears twice")
    return datasets, methods, values


def _normalized(name: str) -> str:
    return re.sub(r"[^0-9a-z]", "", name.lower())


def _initials(name: str) -> str:
    return "".join(part[0] for part in re.split(r"[-_ ]+", name.lower()) if part)


def match_columns(methods: Sequence[str], columns: Sequence[str]) -> dict[str, str]:
    """Which reference column holds which method: equal names ignoring case and
    punctuation ('iHDw' = 'ihdw'), else the initials of a hyphenated name
    ('GR' = 'gain-ratio'). A method with parameters ('tsallis:q=2') matches by name
    only if it is the only one of that name."""
    by_name = {_normalized(c): c for c in columns}
    counts: dict[str, int] = {}
    for m in methods:
        counts[m.split(":")[0]] = counts.get(m.split(":")[0], 0) + 1
    matched = {}
    for m in methods:
        base = m.split(":")[0]
        for candidate in (m, base) if counts[base] == 1 else (m,):
            column = by_name.get(_normalized(candidate)) or (
                by_name.get(_initials(candidate)) if "-" in candidate else None)
            if column is not None and column not in matched.values():
                matched[m] = column
                break
    return matched


def reference_comparison(doc: dict, path: str) -> dict:
    """The reference figures of `path` beside a comparison's means, matched by dataset name
    (exact, else ignoring case) and method (`match_columns`).

    Our means are multiplied by 100 when the reference is in percent and ours are
    fractions. Over the datasets and methods both have: the average ranks of each
    side, Spearman's rho between them, and the mean difference (ours - reference)
    per method.
    """
    import numpy as np

    from dtcli.evaluate import stats

    ref_datasets, ref_methods, ref_values = read_score_table(path, "--reference")
    columns = match_columns(doc["criteria"], ref_methods)
    if not columns:
        raise DataError(f"{path}: no column matches a compared method ({', '.join(doc['criteria'])})")
    lowered = {d.lower(): i for i, d in enumerate(ref_datasets)}
    rows = {d: ref_datasets.index(d) if d in ref_datasets else lowered.get(d.lower())
            for d in doc["datasets"]}
    common = [d for d in doc["datasets"] if rows[d] is not None]
    methods = [m for m in doc["criteria"] if m in columns]
    ours_all = [doc["scores"][d][m]["mean"] for d in doc["datasets"] for m in doc["criteria"]]
    ref_all = [v for row in ref_values for v in row]
    scale = 100.0 if max(map(abs, ref_all)) > 1.5 and max(map(abs, ours_all)) <= 1.0 else 1.0
    result = {"source": path, "scale": scale, "columns": columns, "datasets": common,
              "missing_datasets": [d for d in doc["datasets"] if rows[d] is None],
              "scores": {d: {m: ref_values[rows[d]][ref_methods.index(columns[m])]
                             for m in methods} for d in common}}
    if not common:
        return result
    ours = np.array([[doc["scores"][d][m]["mean"] * scale for m in methods] for d in common])
    theirs = np.array([[result["scores"][d][m] for m in methods] for d in common])
    result["mean_difference"] = {m: float(x) for m, x in zip(methods, (ours - theirs).mean(axis=0))}
    if len(methods) >= 2:
        higher = doc["higher_is_better"]
        our_ranks = stats.average_ranks(ours, higher)
        their_ranks = stats.average_ranks(theirs, higher)
        result["average_ranks"] = {"ours": dict(zip(methods, our_ranks.tolist())),
                                   "reference": dict(zip(methods, their_ranks.tolist()))}
        result["spearman_rho"] = spearman(our_ranks, their_ranks)
        their_best = theirs.max(axis=1) if higher else theirs.min(axis=1)
        result["same_best"] = sum(
            any(m in doc["best"][d] and theirs[i, j] == their_best[i]
                for j, m in enumerate(methods))
            for i, d in enumerate(common))
    return result


def spearman(a, b) -> float:
    """Spearman's rank correlation (Pearson's r of the tied ranks); NaN if either is constant."""
    import numpy as np

    from dtcli.evaluate.stats import tied_ranks

    ra, rb = tied_ranks(np.asarray(a, float)), tied_ranks(np.asarray(b, float))
    ra, rb = ra - ra.mean(), rb - rb.mean()
    denominator = math.sqrt(float((ra * ra).sum() * (rb * rb).sum()))
    return float((ra * rb).sum() / denominator) if denominator > 0 else math.nan


def reference_lines(ref: dict) -> list[str]:
    """The agreement with the reference figures, in sentences."""
    if not ref["datasets"]:
        return [f"No dataset of {ref['source']} matches a compared dataset by name."]
    lines = [f"Reference {ref['source']}: {len(ref['datasets'])} dataset(s) in common"
             + (f" (not in it: {', '.join(ref['missing_datasets'])})" if ref["missing_datasets"]
                else "") + (", our scores x 100" if ref["scale"] != 1 else "") + "."]
    if "spearman_rho" in ref:
        ranks = ref["average_ranks"]
        lines.append(f"Spearman's rho between our average ranks and the reference's on those "
                     f"datasets: {ref['spearman_rho']:.2f}; the best method agrees on "
                     f"{ref['same_best']} of {len(ref['datasets'])} datasets.")
        lines.append("Average ranks, ours / reference: " + ", ".join(
            f"{m} {ranks['ours'][m]:.2f}/{ranks['reference'][m]:.2f}" for m in ranks["ours"]) + ".")
    lines.append("Mean difference, ours - reference: " + ", ".join(
        f"{m} {d:+.2f}" for m, d in ref["mean_difference"].items()) + ".")
    return lines


# --------------------------------------------------------------------------
# compare: rendering
# --------------------------------------------------------------------------


def render_comparison(doc: dict, fmt: str, stream, *, show_sd: bool = False) -> None:
    """Write a comparison document as table, json, csv or markdown."""
    if fmt == "json":
        stream.write(to_json(doc))
        return
    methods, datasets = doc["criteria"], doc["datasets"]
    scores = doc["scores"]
    show_sd = show_sd and any(scores[d][m]["std"] is not None for d in datasets for m in methods)
    if fmt == "csv":
        writer = csv.writer(stream, lineterminator="\n")
        sd_header = [f"{m}_sd" for m in methods] if show_sd else []
        writer.writerow(["dataset", *methods, *sd_header])
        for d in datasets:
            sd = [repr(scores[d][m]["std"]) for m in methods] if show_sd else []
            writer.writerow([d, *(repr(scores[d][m]["mean"]) for m in methods), *sd])
        return
    decimals = _decimals([scores[d][m]["mean"] for d in datasets for m in methods])
    reference = doc.get("reference")
    scale = reference["scale"] if reference else 1.0
    ref_scores = reference["scores"] if reference else {}
    decimals = 2 if reference and scale != 1 else decimals
    bold = (lambda text: f"**{text}**") if fmt == "markdown" else (lambda text: f"{text} *")

    def cell(d, m):
        entry = scores[d][m]
        text = _number(entry["mean"] * scale, decimals)
        if show_sd:
            text += f" ± {_number(entry['std'] * scale, decimals)}"
        if m in ref_scores.get(d, {}):
            text += f" ({_number(ref_scores[d][m], decimals)})"
        return bold(text) if m in doc["best"][d] else text

    header = ["dataset", *methods]
    rows = [[d, *(cell(d, m) for m in methods)] for d in datasets]
    rows.append(["average rank", *(f"{doc['average_ranks'][m]:.2f}" for m in methods)])
    if reference and "average_ranks" in reference:
        ref_ranks = reference["average_ranks"]["reference"]
        rows.append(["reference rank",
                     *(f"{ref_ranks[m]:.2f}" if m in ref_ranks else "-" for m in methods)])
    wtl = doc["win_tie_loss"]
    rows.append([f"W/T/L of {doc['base']}",
                 *("base" if m == doc["base"] else "/".join(map(str, wtl[m])) for m in methods)])
    title = _comparison_title(doc, show_sd, reference, "bold" if fmt == "markdown" else "*")
    lines = list(doc["conclusions"]) + (reference_lines(reference) if reference else [])
    if fmt == "markdown":
        stream.write(f"{title}\n\n")
        stream.write(_markdown_table(header, rows, right=range(1, len(header))))
        stream.write("\n" + "".join(f"- {line}\n" for line in lines))
        return
    console = _console(stream)
    console.print(_rich_table(header, rows, title=title, footer_rows=2 + bool(reference)))
    for line in lines:
        console.print(line)


def _comparison_title(doc: dict, show_sd: bool, reference: dict | None, marker: str) -> str:
    what = doc.get("metric") or f"scores of {doc.get('table', 'the table')}"
    how = ""
    if "cv" in doc:
        repeats = f" x {doc['repeats']} repeats" if doc["repeats"] > 1 else ""
        how = f", mean over stratified {doc['cv']}-fold CV{repeats} (seed {doc['seed']})"
    direction = "higher" if doc["higher_is_better"] else "lower"
    extras = " ± sd over folds" if show_sd else ""
    if reference:
        extras += f"; in brackets: {reference['source']}"
    return f"{what}{how}{extras}; {marker}: best in row, {direction} is better"


# --------------------------------------------------------------------------
# Table helpers
# --------------------------------------------------------------------------


def _console(stream):
    """A console for a table: the terminal's width and colour, or plain unwrapped lines."""
    from rich.console import Console

    terminal = hasattr(stream, "isatty") and stream.isatty()
    return Console(file=stream, highlight=False, force_terminal=terminal,
                   width=None if terminal else 10_000, soft_wrap=not terminal)


def _rich_table(header, rows, *, title: str, footer_rows: int = 0):
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(title), title_justify="left", box=box.SIMPLE_HEAD)
    for i, name in enumerate(header):
        table.add_column(Text(name), justify="left" if i == 0 else "right")
    for i, row in enumerate(rows):
        cells = [Text(c, style="bold" if c.endswith(" *") else "") for c in row]
        table.add_row(*cells, end_section=i == len(rows) - footer_rows - 1)
    return table


def _markdown_table(header, rows, right=()) -> str:
    right = set(right)
    escape = lambda text: str(text).replace("|", "\\|")  # noqa: E731
    out = io.StringIO()
    out.write("| " + " | ".join(escape(h) for h in header) + " |\n")
    out.write("|" + "|".join("---:" if i in right else "---" for i in range(len(header))) + "|\n")
    for row in rows:
        out.write("| " + " | ".join(escape(c) for c in row) + " |\n")
    return out.getvalue()
