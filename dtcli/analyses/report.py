"""The analyses' reports: titled tables and sentences as a rich table, markdown or CSV
(one table after another, separated by an empty line), the JSON document as it is, and
their SVG plots (plot.py)."""
from __future__ import annotations

import csv
import math
from collections.abc import Sequence

from dtcli.reporting.report import decimals_for, number, options_note, to_json

Section = tuple[str, list[str], list[list[str]]]  # title, header, rows


def render_sections(doc: dict, sections: Sequence[Section], lines: Sequence[str], fmt: str,
                    stream, csv_tables: Sequence[list[list]] = ()) -> None:
    """Write `doc` as JSON, its `csv_tables` (unrounded numbers; tables separated by an
    empty line) as csv, or its tables and sentences as table or markdown."""
    from dtcli.reporting.tables import console, markdown_table, print_table

    if fmt == "json":
        stream.write(to_json(doc))
    elif fmt == "csv":
        writer = csv.writer(stream, lineterminator="\n")
        for i, rows in enumerate(csv_tables):
            if i:
                stream.write("\n")
            writer.writerows([[repr(c) if isinstance(c, float) else c for c in row]
                              for row in rows])
    elif fmt == "markdown":
        for title, header, rows in sections:
            stream.write(f"{title}\n\n" + markdown_table(header, rows, range(1, len(header)))
                         + "\n")
        stream.write("".join(f"- {line}\n" for line in lines))
    else:
        out = console(stream)
        for title, header, rows in sections:
            print_table(out, header, rows, title=title)
        for line in lines:
            out.print(line, markup=False, highlight=False)


def _protocol(doc: dict) -> str:
    repeats = f" x {doc['repeats']} repeats" if doc.get("repeats", 1) > 1 else ""
    return (f"stratified {doc['cv']}-fold CV{repeats} (seed {doc['seed']})"
            f"{options_note(doc['options'])}" if "cv" in doc else "")


def sweep_sections(doc: dict) -> tuple[list[Section], list[str]]:
    """The skew sweep's tables: mean metric per ratio, slopes; ranks and tests per ratio."""
    methods, metric = doc["methods"], doc["metric"]
    ratios = list(doc["imbalance"])
    means = [doc["imbalance"][r][m]["mean"] for r in ratios for m in methods]
    decimals = decimals_for(means)
    rows = [[r, str(len(doc["tests"][r]["datasets"]) if doc["tests"][r] else "-"),
             *(number(doc["imbalance"][r][m]["mean"], decimals) for m in methods)]
            for r in ratios]
    rows.append(["slope / ln(ratio)", "",
                 *(f"{number(doc['slope'][m], 4)} ± {number(doc['slope_se'][m], 4)}"
                   for m in methods)])
    sections = [(f"mean {metric} by majority : minority ratio of the training folds, "
                 f"{_protocol(doc)}", ["ratio", "datasets", *methods], rows)]
    tested = [r for r in ratios if doc["tests"][r] and doc["tests"][r]["friedman"]]
    if tested:
        rank_rows = []
        for r in tested:
            tests = doc["tests"][r]
            nemenyi = tests["nemenyi"]  # None: the omnibus test did not reject (Demsar)
            rank_rows.append([r, *(f"{tests['average_ranks'][m]:.2f}" for m in methods),
                              number(tests["friedman"]["p"], 4),
                              "-" if nemenyi is None else number(nemenyi["cd"], 2),
                              "not tested" if nemenyi is None else
                              "; ".join(" vs ".join(p) for p in
                                        nemenyi["significant_pairs"]) or "none"])
        sections.append(("average ranks per ratio (1 = best), Friedman p, Nemenyi critical "
                         "difference at alpha 0.05 and the pairs beyond it (tested only "
                         "after the Iman-Davenport test rejects)",
                         ["ratio", *methods, "Friedman p", "CD", "differ"], rank_rows))
    steeper = [f"{pair} {number(v['difference'], 4)} ± {number(v['se'], 4)}"
               for pair, v in doc["slope_differences"].items()
               if v["se"] is not None and math.isfinite(v["se"])
               and abs(v["difference"]) > 2 * v["se"]]
    flattest = sorted(methods, key=lambda m: abs(doc["slope"][m])
                      if doc["slope"][m] is not None and math.isfinite(doc["slope"][m])
                      else math.inf)
    labels = set(doc["minority"].values())
    lines = [f"Minority class: {next(iter(labels))} in every dataset." if len(labels) == 1 else
             f"Minority class: {', '.join(f'{d} {c}' for d, c in doc['minority'].items())}.",
             f"Slope: change of {metric} per unit of ln(ratio) (x2.7 in the ratio), fitted "
             f"within each test fold, ± its standard error; flattest first: "
             f"{', '.join(flattest)}.",
             "Differences of slopes (paired by fold) beyond two standard errors: "
             + ("; ".join(steeper) if steeper else "none") + "."]
    return sections, lines


def render_sweep(doc: dict, fmt: str, stream) -> None:
    means = [["ratio", "datasets", "method", "mean", "std", "folds"]] + [
        [r, len(doc["tests"][r]["datasets"]) if doc["tests"][r] else 1, m, cell["mean"],
         cell["std"], len(cell["folds"])]
        for r, cells in doc["imbalance"].items() for m, cell in cells.items()]
    slopes = [["method", "slope", "slope_se"]] + [[m, doc["slope"][m], doc["slope_se"][m]]
                                                  for m in doc["methods"]]
    render_sections(doc, *sweep_sections(doc), fmt, stream, [means, slopes])


def sweep_svg(doc: dict) -> str:
    """The metric against the ratio, per method a band of ± one standard error (std /
    sqrt(folds)) around its means. A mean pools the datasets that reach its ratio, so a
    line joins only neighbouring ratios that the same datasets reach (one line per set
    of datasets, in the method's colour); a ratio whose set is its own is a marker."""
    from dtcli.analyses.plot import COLOURS, Series, line_chart

    ratios = list(doc["imbalance"])
    reached = [tuple(d for d in doc["datasets"] if r in doc["by_dataset"].get(d, {}))
               for r in ratios]
    runs, start = [], 0  # runs of neighbouring ratios reached by one set of datasets
    for i in range(1, len(ratios) + 1):
        if i == len(ratios) or reached[i] != reached[start]:
            runs.append(range(start, i))
            start = i
    series = []
    for k, m in enumerate(doc["methods"]):
        cells = [doc["imbalance"][r][m] for r in ratios]
        half = [c["std"] / math.sqrt(sum(v is not None for v in c["folds"]))
                if c["std"] is not None and math.isfinite(c["std"]) else math.nan
                for c in cells]
        means = [c["mean"] for c in cells]
        for n, run in enumerate(runs):
            series.append(Series(m, [float(ratios[i]) for i in run], [means[i] for i in run],
                                 [means[i] - half[i] for i in run],
                                 [means[i] + half[i] for i in run],
                                 colour=COLOURS[k % len(COLOURS)], legend=n == 0))
    reaching = [len(datasets) for datasets in reached]
    joined = "" if len(runs) == 1 else "; lines join ratios the same datasets reach"
    return line_chart(series, title=f"{doc['metric']} against the majority : minority ratio "
                                    f"({len(doc['datasets'])} datasets)",
                      x_label="majority : minority ratio of the training folds (log scale; "
                              f"datasets reaching it{joined})",
                      y_label=f"mean {doc['metric']}", x_ticks=[float(r) for r in ratios],
                      x_tick_labels=[f"{r} ({n})" for r, n in zip(ratios, reaching)])


def frontier_sections(doc: dict) -> tuple[list[Section], list[str]]:
    """The frontier's points, marked when on their method's front (m) or the overall one
    (*)."""
    front = set(doc["front"])
    on_own = {entry for entries in doc["method_fronts"].values() for entry in entries}
    decimals = decimals_for([p["score"] for p in doc["points"]])
    rows = [[p["criterion"], p["pruning"],
             "" if p["parameter"] is None else f"{p['parameter']}={p['value']:g}",
             f"{number(p['leaves'], 1)} ± {number(p['leaves_se'], 1)}",
             f"{number(p['score'], decimals)} ± {number(p['score_se'], decimals)}",
             ("*" if p["entry"] in front else "") + ("m" if p["entry"] in on_own else "")]
            for p in doc["points"]]
    title = (f"pruning frontier: mean leaves and mean {doc['metric']} over "
             f"{len(doc['datasets'])} dataset(s), ± standard error, {_protocol(doc)}; "
             "front: * overall, m its method's")
    return ([(title, ["criterion", "pruning", "parameter", "leaves", doc["metric"], "front"],
              rows)], doc["reading"])


def render_frontier(doc: dict, fmt: str, stream) -> None:
    columns = ["criterion", "pruning", "parameter", "value", "entry", "leaves", "leaves_se",
               "score", "score_se"]
    on_own = {e for entries in doc["method_fronts"].values() for e in entries}
    points = [columns + ["front", "method_front"]] + [
        [p[c] for c in columns] + [p["entry"] in doc["front"], p["entry"] in on_own]
        for p in doc["points"]]
    render_sections(doc, *frontier_sections(doc), fmt, stream, [points])


def frontier_svg(doc: dict) -> str:
    """Every point, coloured by pruning method; each method's Pareto front as a line, dashed
    by criterion; the overall front in black."""
    from dtcli.analyses.plot import COLOURS, Series, line_chart

    prunings = list(dict.fromkeys(p["pruning"] for p in doc["points"]))
    criteria = list(dict.fromkeys(p["criterion"] for p in doc["points"]))
    dashes = ["", "6,3", "2,2", "8,3,2,3", "1,4"]
    colour = {m: COLOURS[i % len(COLOURS)] for i, m in enumerate(prunings)}
    dash = {c: dashes[i % len(dashes)] for i, c in enumerate(criteria)}
    by_entry = {p["entry"]: p for p in doc["points"]}
    series = []
    for method, entries in doc["method_fronts"].items():
        own = [p for p in doc["points"] if f"{p['criterion']} {p['pruning']}" == method]
        front = [by_entry[e] for e in entries]
        first = own[0]
        series.append(Series(method, [p["leaves"] for p in own], [p["score"] for p in own],
                             line=False, colour=colour[first["pruning"]], legend=False))
        series.append(Series(method, [p["leaves"] for p in front], [p["score"] for p in front],
                             colour=colour[first["pruning"]], dash=dash[first["criterion"]],
                             legend=False))
    series += [Series(m, [], [], colour=colour[m]) for m in prunings]
    series += [Series(c, [], [], colour="#666", dash=dash[c]) for c in criteria]
    front = [by_entry[e] for e in doc["front"]]
    series.append(Series("overall front", [p["leaves"] for p in front],
                         [p["score"] for p in front], colour="black", dash="3,3"))
    return line_chart(series, title=f"pruning frontier: {doc['metric']} against leaves "
                                    f"({len(doc['datasets'])} datasets)",
                      x_label="mean leaves (log scale)", y_label=f"mean {doc['metric']}")


def reproduction_lines(table: dict) -> list[str]:
    """The paired test and the paper's claims on our means, in sentences."""
    lines = []
    if table["paired_test"]:
        lines.append("Wilcoxon signed-rank test of our means against the paper's, per method "
                     "over the datasets (p; small p: ours differ systematically): " + ", ".join(
                         f"{m} {number(t['p'], 3)}" for m, t in table["paired_test"].items())
                     + ".")
    elif "reference" not in table["comparison"]:
        lines.append("The paper prints no figures for this table: only its claims are tested.")
    verdict = {True: "holds", False: "does not hold", None: "not tested"}
    for claim in table["conclusion"]["claims"]:
        lines.append(f"The paper: {claim['claim']}. Here: {verdict[claim['holds']]} "
                     f"({claim['detail']}).")
    lines.append(f"Conclusion: {table['conclusion']['reading']}")
    return lines


def render_reproduction(doc: dict, fmt: str, stream) -> None:
    """Each table: ours beside the paper's (compare's report with --reference), then the
    paired test and the claims; csv: dataset, method, ours, paper, difference rows (the
    paper empty where it prints no figures)."""
    from dtcli.reporting.comparison import render_comparison

    if fmt == "json":
        stream.write(to_json(doc))
        return
    if fmt == "csv":
        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow(["table", "dataset", "method", "ours", "paper", "difference"])
        for table in doc["tables"]:
            comparison = table["comparison"]
            ref = comparison.get("reference") or {"scores": {}, "scale": 1.0}
            for d in comparison["datasets"]:
                for m in comparison["criteria"]:
                    ours = comparison["scores"][d][m]["mean"] * ref["scale"]
                    theirs = ref["scores"].get(d, {}).get(m)
                    writer.writerow([table["table"], d, m, repr(ours),
                                     "" if theirs is None else repr(theirs),
                                     "" if theirs is None else repr(ours - theirs)])
        return
    from dtcli.reporting.tables import console

    for i, table in enumerate(doc["tables"]):
        heading = f"{table['paper']}, {table['table']}"
        lines = reproduction_lines(table)
        if fmt == "markdown":
            stream.write(("\n" if i else "") + f"## {heading}\n\n")
            render_comparison(table["comparison"], fmt, stream)
            stream.write("".join(f"- {line}\n" for line in lines))
            continue
        out = console(stream)  # sentences wrapped at the table's width
        if i:
            out.print()
        out.print(heading, markup=False, highlight=False)
        render_comparison(table["comparison"], fmt, stream)
        for line in lines:
            out.print(line, markup=False, highlight=False)
