"""What `dtree tune` prints: the search as a JSON document, or a table of every grid
point, then the score surface: a text plot of the score against one parameter, or a
heat map over two."""
from __future__ import annotations

import math

from dtcli.reporting.report import METRICS, decimals_for, number, to_json

PLOT_ROWS = 12
PLOT_WIDTH = 80  # characters of a score plot's line
# Heat map shades, lowest score to highest (of the metric's own direction).
SHADES = ".:-=+*#%@"


def search_document(result, about: dict) -> dict:
    """The JSON of `dtree tune`: about (dataset, criterion, ...), the grid and protocol,
    best_params, best_score, results [{params, mean, std}]."""
    from dtcli.tuning.grid import describe

    protocol = result.protocol
    metric = result.search.metric
    return {**about, "metric": metric, "higher_is_better": METRICS[metric], "grid": describe(result.search.grid),
            "protocol": {"cv": protocol.cv, "repeats": protocol.repeats, "seed": protocol.seed},
            "best_params": result.best_params, "best_score": result.best_score,
            "results": result.results()}


def render_search(doc: dict, output_format: str, out) -> None:
    if output_format == "json":
        out.write(to_json(doc))
        return
    from dtcli.reporting.tables import console, print_table

    names = list(doc["grid"])
    means = [r["mean"] for r in doc["results"]]
    places = decimals_for(means)
    best = doc["results"].index(next(r for r in doc["results"]
                                     if r["params"] == doc["best_params"]))
    rows = [[f"{r['params'][n]:g}" for n in names]
            + [number(r["mean"], places) + (" *" if i == best else ""), number(r["std"], places)]
            for i, r in enumerate(doc["results"])]
    show = console(out)
    print_table(show, names + [f"{doc['metric']} mean", "std"], rows,
                title=f"{doc['criterion']} on {doc['dataset']}: {doc['protocol']['cv']}-fold CV "
                      f"x {doc['protocol']['repeats']}, seed {doc['protocol']['seed']}")
    params = ", ".join(f"{k}={v:g}" for k, v in doc["best_params"].items())
    show.print(f"best: {params}, {doc['metric']} {number(doc['best_score'], places)}")
    if len(names) == 1:
        show.print(score_plot(names[0], [r["params"][names[0]] for r in doc["results"]], means))
    elif len(names) == 2:
        show.print(heat_map(names, doc["results"], doc["grid"], doc["higher_is_better"]))


def score_plot(name: str, xs: list[float], ys: list[float], rows: int = PLOT_ROWS,
               width: int = PLOT_WIDTH) -> str:
    """The score against one parameter: a column of characters per grid point ('*' at
    the score's height), the score's range on the left and the parameter below; beyond
    `width` characters, each column the mean score of a run of neighbouring points."""
    finite = [y for y in ys if y is not None and math.isfinite(y)]
    if not finite:
        return ""
    places = decimals_for(finite)
    low, high = min(finite), max(finite)
    label = max(len(number(high, places)), len(number(low, places)))
    columns = min(len(ys), max(width - label - 2, 1))
    runs = [ys[len(ys) * c // columns:len(ys) * (c + 1) // columns] for c in range(columns)]
    means = [[y for y in run if y is not None and math.isfinite(y)] for run in runs]
    means = [math.fsum(run) / len(run) if run else None for run in means]
    span = high - low or 1.0
    level = [None if y is None else round((y - low) / span * (rows - 1)) for y in means]
    lines = []
    for row in range(rows - 1, -1, -1):
        edge = number(high, places) if row == rows - 1 else number(low, places) if row == 0 else ""
        lines.append(f"{edge:>{label}} |" + "".join("*" if lv == row else " " for lv in level))
    lines.append(" " * label + " +" + "-" * columns)
    grouped = (f" (a column: the mean of up to {-(-len(ys) // columns)} points)"
               if columns < len(ys) else "")
    lines.append(" " * label + f"  {name} = {xs[0]:g} ... {xs[-1]:g}{grouped}")
    return "\n".join(lines)


def heat_map(names: list[str], results: list[dict], grid: dict, higher_is_better: bool) -> str:
    """Two parameters: rows the first one's values, columns the second's, each cell a
    shade of the score (SHADES, worst to best)."""
    first, second = names
    means = [r["mean"] for r in results if r["mean"] is not None and math.isfinite(r["mean"])]
    if not means:
        return ""
    low, high = min(means), max(means)
    span = high - low or 1.0
    cell = {(r["params"][first], r["params"][second]): r["mean"] for r in results}
    label = max(len(f"{v:g}") for v in grid[first])
    lines = [f"{first} (rows) x {second} (columns {grid[second][0]:g} ... "
             f"{grid[second][-1]:g}); shades worst to best: '{SHADES}'"]
    for a in grid[first]:
        shades = []
        for b in grid[second]:
            mean = cell.get((a, b))
            if mean is None or not math.isfinite(mean):
                shades.append("?")
                continue
            share = (mean - low) / span if higher_is_better else (high - mean) / span
            shades.append(SHADES[min(int(share * len(SHADES)), len(SHADES) - 1)])
        lines.append(f"{a:>{label}g} |" + "".join(shades))
    return "\n".join(lines)



def _point(params: dict) -> str:
    return ",".join(f"{k}={v:g}" for k, v in params.items())


def choice_counts(chosen: list[dict]) -> str:
    """'q=2.6 x4, q=3 x3, ...': the points chosen in the outer folds, most often first."""
    from collections import Counter

    counts = Counter(_point(c["params"]) for c in chosen)
    return ", ".join(f"{p} x{n}" for p, n in counts.most_common())


def render_tuning(tuning: dict, fmt: str, stream) -> None:
    """After compare's or evaluate's table: each tuned method's reported metric under
    nested and the papers' selection, the optimism, the paper's point and the points
    chosen per outer fold (table or markdown; JSON carries it in the document)."""
    from dtcli.reporting.tables import console, markdown_table, print_table

    for label, per_dataset in tuning["methods"].items():
        metric = next(iter(per_dataset.values()))["reported"]["metric"]
        header = ["dataset", f"{metric} nested", "paper", "optimism", "paper's choice",
                  "chosen in the outer folds"]
        rows = []
        for name, report in per_dataset.items():
            nested, paper = report["reported"]["nested"], report["reported"]["paper"]
            places = decimals_for([nested, paper])
            rows.append([name, number(nested, places), number(paper, places),
                         f"{paper - nested:+.{places}f}", _point(report["paper"]["params"]),
                         choice_counts(report["nested"]["chosen"])])
        title = (f"{label}: chosen by {tuning['tune_metric']} in {tuning['inner_cv']}-fold CV "
                 "inside each outer training fold (nested) or on the outer folds (paper)")
        if fmt == "markdown":
            stream.write(f"\n**{title}**\n\n" + markdown_table(header, rows, right=(1, 2, 3)))
        else:
            print_table(console(stream), header, rows, title=title)
