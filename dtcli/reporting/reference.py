"""Tables of scores brought by the user (`compare --table`, `--reference`), and published
figures set beside a comparison (`reference_comparison`)."""
from __future__ import annotations

import csv
import math
import re
from collections.abc import Sequence

from dtcli.errors import DataError

_SUMMARY_ROWS = re.compile(r"^(avg|average|mean|median|rank|ranks|average rank|avg rank|"
                           r"w/t/l|win/tie/loss|total|sum)\b", re.IGNORECASE)


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

    from dtcli.stats.ranks import average_ranks

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
        our_ranks = average_ranks(ours, higher)
        their_ranks = average_ranks(theirs, higher)
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

    from dtcli.stats.ranks import tied_ranks

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

