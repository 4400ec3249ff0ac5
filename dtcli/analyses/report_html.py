"""`dtree reproduce --report FILE.html`: one self-contained page, per table the paper's
figures beside ours, the agreement, the paired test and the claims, then compare's
sections (protocol, means, CD diagram, tests, fold plots: export/compare_report.py)."""
from __future__ import annotations

from dtcli._version import __version__
from dtcli.analyses.report import reproduction_lines
from dtcli.export.compare_report import comparison_sections, html_page
from dtcli.export.svgkit import escape


def _beside(comparison: dict) -> list[str]:
    """Ours (the paper's) per dataset and method, and the mean difference per method."""
    ref = comparison.get("reference")
    if not ref or not ref["datasets"]:
        return []
    methods = list(ref["scores"][ref["datasets"][0]])
    rows = ["<h3>Ours (the paper's)</h3>", "<table>",
            "<tr><th>dataset</th>" + "".join(f"<th>{escape(m)}</th>" for m in methods) + "</tr>"]
    for d in ref["datasets"]:
        rows.append(f"<tr><td>{escape(d)}</td>" + "".join(
            f"<td>{comparison['scores'][d][m]['mean'] * ref['scale']:.2f} "
            f"({ref['scores'][d][m]:g})</td>" for m in methods) + "</tr>")
    rows.append('<tr class="summary"><td>mean difference</td>' + "".join(
        f"<td>{ref['mean_difference'][m]:+.2f}</td>" for m in methods) + "</tr>")
    if "average_ranks" in ref:
        for side in ("ours", "reference"):
            rows.append(f'<tr class="summary"><td>average rank, {side}</td>' + "".join(
                f"<td>{ref['average_ranks'][side][m]:.2f}</td>" for m in methods) + "</tr>")
    rows.append("</table>")
    if "spearman_rho" in ref:
        rows.append(f'<p class="note">Spearman\'s rho between the two rank vectors: '
                    f"{ref['spearman_rho']:.2f}.</p>")
    return rows


def reproduction_html(doc: dict) -> str:
    """The page of a reproduction document (what `dtree reproduce -f json` prints)."""
    from dtcli.reporting.report import clean

    doc = clean(doc)
    title = (f"dtree reproduce {doc['paper']}" + (" --quick" if doc["quick"] else "")
             + (f" --repeats {doc['repeats']}" if doc.get("repeats") else ""))
    body = [f"<h1>{escape(title)}</h1>",
            f'<p class="note">Made by dtree {escape(__version__)}.</p>']
    for table in doc["tables"]:
        body += [f"<h2>{escape(table['paper'])}: {escape(table['table'])}</h2>",
                 "<ul>", *(f"<li>{escape(line)}</li>" for line in reproduction_lines(table)),
                 "</ul>", *_beside(table["comparison"]),
                 *comparison_sections(table["comparison"])]
    return html_page(title, body)
