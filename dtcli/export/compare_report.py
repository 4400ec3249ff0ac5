"""The comparison as one self-contained HTML page (`dtree compare ... --report FILE`):
the protocol, the table of means with the best per dataset marked, the CD diagram,
each dataset's fold scores per method, the tests' conclusions in words and, for
tuned methods, the nested-versus-paper optimism. No script, no style sheet or font
from anywhere else: the page is the file.

It reads the JSON document `dtree compare -f json` prints (`comparison_document`),
so a saved document can be turned into a page later: `compare_report_html(json.load(f))`.
Fold scores ("fold_scores": dataset -> method -> the metric of each fold) are in the
documents of dtree 0.x from this version on; without them (an older document, or
`--table`) the page leaves the plots out.
"""
from __future__ import annotations

from collections import Counter

from dtcli._version import __version__
from dtcli.export import plots
from dtcli.export.svgkit import FONT, escape

_STYLE = """
body { font-family: %s; margin: 24px auto; max-width: 1100px; color: #222; padding: 0 16px; }
h1 { font-size: 22px; } h2 { font-size: 17px; margin-top: 28px; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0; }
th, td { padding: 3px 9px; border-bottom: 1px solid #eee; text-align: right; }
th:first-child, td:first-child { text-align: left; }
td.best { font-weight: bold; background: #e3f0e0; }
tr.summary td { border-top: 1px solid #999; font-style: italic; }
.sd { color: #888; font-size: 11px; }
.plots { display: flex; flex-wrap: wrap; gap: 10px; }
.note { color: #555; font-size: 13px; }
li { margin: 4px 0; }
""" % FONT


def _fmt(value, decimals: int = 4) -> str:
    return "-" if value is None else f"{value:.{decimals}f}"


def _protocol(doc: dict) -> list[str]:
    from dtcli.reporting.report import options_note

    direction = "higher" if doc["higher_is_better"] else "lower"
    what = doc.get("metric") or f"the scores of {doc.get('table', 'a table')}"
    items = [f"Score: <b>{escape(what)}</b> ({direction} is better), "
             f"{len(doc['criteria'])} methods on {len(doc['datasets'])} datasets."]
    if "cv" in doc:
        repeats = f", repeated {doc['repeats']} times" if doc["repeats"] > 1 else ""
        items.append(f"Stratified {doc['cv']}-fold cross-validation{repeats}, seed "
                     f"{doc['seed']}; every method on the same folds"
                     f"{escape(options_note(doc.get('options') or {}))}.")
    tuning = doc.get("tuning")
    if tuning:
        items.append(f"Tuned methods choose their parameters by {tuning['inner_cv']}-fold "
                     f"cross-validation inside each outer training fold, by "
                     f"{escape(tuning['tune_metric'])}; the table uses the "
                     f"<b>{escape(tuning['selection'])}</b> figures.")
    sources = doc.get("sources") or {}
    if sources:
        items.append("<details><summary>Data files</summary><table>" + "".join(
            f"<tr><td>{escape(name)}</td><td><code>{escape(path)}</code></td></tr>"
            for name, path in sources.items()) + "</table></details>")
    elif "table" in doc:
        items.append(f"Scores read from <code>{escape(doc['table'])}</code>.")
    return ["<h2>Protocol</h2>", "<ul>", *(f"<li>{item}</li>" for item in items), "</ul>"]


def _means_table(doc: dict) -> list[str]:
    methods, scores = doc["criteria"], doc["scores"]
    rows = ["<h2>Mean scores</h2>", '<p class="note">Mean over the folds (standard deviation '
            "in grey); the best per dataset in bold.</p>",
            "<table>", "<tr><th>dataset</th>" + "".join(f"<th>{escape(m)}</th>" for m in methods)
            + "</tr>"]
    for d in doc["datasets"]:
        cells = []
        for m in methods:
            entry = scores[d][m]
            sd = ("" if entry.get("std") is None
                  else f' <span class="sd">± {_fmt(entry["std"])}</span>')
            best = ' class="best"' if m in doc["best"][d] else ""
            cells.append(f"<td{best}>{_fmt(entry['mean'])}{sd}</td>")
        rows.append(f"<tr><td>{escape(d)}</td>{''.join(cells)}</tr>")
    ranks = doc["average_ranks"]
    rows.append('<tr class="summary"><td>average rank</td>'
                + "".join(f"<td>{ranks[m]:.2f}</td>" for m in methods) + "</tr>")
    wtl = doc["win_tie_loss"]
    rows.append(f'<tr class="summary"><td>wins/ties/losses of {escape(doc["base"])}</td>'
                + "".join("<td>base</td>" if m == doc["base"] else
                          f"<td>{'/'.join(map(str, wtl[m]))}</td>" for m in methods) + "</tr>")
    rows.append("</table>")
    return rows


def _cd_diagram(doc: dict) -> list[str]:
    from dtcli.reporting.cd_diagram import comparison_svg

    if not doc.get("friedman"):
        return []
    drawing = comparison_svg(doc)
    return ["<h2>Critical-difference diagram</h2>",
            '<p class="note">Average ranks (1 = best, left); a thick bar joins methods the '
            "Nemenyi test does not tell apart at alpha 0.05 (Demšar 2006).</p>", drawing]


def _conclusions(doc: dict) -> list[str]:
    lines = doc["conclusions"]
    return ["<h2>Tests</h2>", "<ul>", *(f"<li>{escape(line)}</li>" for line in lines), "</ul>"]


def _fold_plots(doc: dict) -> list[str]:
    folds = doc.get("fold_scores") or {}
    if not any(folds.get(d) for d in doc["datasets"]):
        return []
    methods = doc["criteria"]
    metric = doc.get("metric") or "score"
    parts = ["<h2>Fold scores</h2>",
             '<p class="note">Each dot is one test fold\'s score; the bar is the mean '
             "(red: the best on that dataset).</p>", '<div class="plots">']
    for d in doc["datasets"]:
        means = {m: doc["scores"][d][m]["mean"] for m in methods}
        parts.append(plots.fold_strips(methods, folds.get(d, {}), means, doc["best"][d],
                                       d, metric))
    parts.append("</div>")
    return parts


def _chosen(summary: dict) -> str:
    """'q=0.5 (4 folds), q=3 (1 fold)': the points the nested search chose."""
    counts = Counter(", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                               for k, v in c["params"].items())
                     for c in summary["nested"]["chosen"])
    return ", ".join(f"{point} ({n} fold{'s' if n != 1 else ''})"
                     for point, n in counts.most_common())


def _optimism(doc: dict) -> list[str]:
    tuning = doc.get("tuning")
    if not tuning:
        return []
    parts = ["<h2>Tuned methods: nested against the papers' protocol</h2>",
             '<p class="note">Nested: the parameters chosen inside each outer training fold, '
             "scored on its test fold (honest). Paper: the grid point of best mean over the "
             "very folds it is scored on. Their difference is the optimism of the paper's "
             "figure.</p>"]
    for method, by_dataset in tuning["methods"].items():
        parts += [f"<h3>{escape(method)}</h3>", "<table>",
                  "<tr><th>dataset</th><th>nested</th><th>paper</th><th>optimism</th>"
                  "<th>paper's point</th><th>points chosen (nested)</th></tr>"]
        for d, summary in by_dataset.items():
            reported = summary["reported"]
            point = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                              for k, v in summary["paper"]["params"].items())
            optimism = (None if reported["nested"] is None or reported["paper"] is None
                        else reported["paper"] - reported["nested"])
            parts.append(f"<tr><td>{escape(d)}</td><td>{_fmt(reported['nested'])}</td>"
                         f"<td>{_fmt(reported['paper'])}</td><td>{_fmt(optimism)}</td>"
                         f"<td>{escape(point)}</td><td>{escape(_chosen(summary))}</td></tr>")
        parts.append("</table>")
    return parts


def comparison_sections(doc: dict) -> list[str]:
    """The page's sections of a comparison document, below its title."""
    return [*_protocol(doc), *_means_table(doc), *_cd_diagram(doc), *_conclusions(doc),
            *_bayes(doc), *_fold_plots(doc), *_calibration(doc), *_optimism(doc)]


def _bayes(doc: dict) -> list[str]:
    """compare --report: the probabilities, a triangle per method and the per-dataset
    table (HTML parts); none without doc["bayes"]."""
    from dtcli.reporting.bayes import bayes_lines, correlated_t_table, posterior_samples

    if not doc.get("bayes"):
        return []
    section = doc["bayes"]
    parts = ["<h2>Bayesian comparisons</h2>",
             '<p class="note">' + escape(bayes_lines(doc)[0]) + " Each dot is one posterior "
             "sample of the masses of the three regions; a cloud in a corner is a confident "
             "verdict, one spread along an edge an uncertain one.</p>", '<div class="plots">']
    for method in section["signed_rank"]:
        parts.append(plots.triangle_svg(posterior_samples(doc, method),
                                        f"{section['base']} against {method}",
                                        section["base"], method))
    parts.append("</div>")
    table = correlated_t_table(doc)
    if table is not None:
        title, header, rows = table
        parts += [f'<p class="note">{escape(title)}</p>', "<table>",
                  "<tr>" + "".join(f"<th>{escape(h)}</th>" for h in header) + "</tr>",
                  *("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>"
                    for row in rows), "</table>"]
    return parts


def _calibration(doc: dict) -> list[str]:
    calibration = doc.get("calibration")
    if not calibration:
        return []
    bins = next(iter(calibration.values()))["bins"]
    return ["<h2>Calibration</h2>",
            f'<p class="note">Reliability diagrams of the pooled out-of-fold probabilities: '
            f"the accuracy of the rows in each of {bins} equal-width bins of confidence (the "
            "largest class probability) against their mean confidence; on the dashed diagonal "
            "a method is calibrated. Below, the rows in each bin.</p>", '<div class="plots">',
            *(plots.reliability_diagram(c, f"{m} on {doc['datasets'][0]}")
              for m, c in calibration.items()), "</div>"]


def html_page(title: str, body: list[str]) -> str:
    """A self-contained page of `body` (HTML parts) under `title`."""
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")


def compare_report_html(document: dict) -> str:
    """The page of a comparison document (what `dtree compare -f json` prints)."""
    doc = document
    what = doc.get("metric") or "scores"
    title = (f"{len(doc['criteria'])} methods on {len(doc['datasets'])} datasets: "
             f"{what}")
    return html_page(title, [f"<h1>{escape(title)}</h1>",
                             f'<p class="note">Made by dtree {escape(__version__)}: '
                             f"{escape(', '.join(doc['criteria']))}.</p>",
                             *comparison_sections(doc)])


def write_report(doc: dict, path: str) -> None:
    """`compare --report`: the page, written atomically (NaN scores as in the JSON: none)."""
    from dtcli.atomic import open_output
    from dtcli.reporting.report import clean

    with open_output(path) as handle:
        handle.write(compare_report_html(clean(doc)))
