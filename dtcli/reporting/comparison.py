"""What `compare` reports: Demsar's statistics as a JSON document, in sentences, and as a
table (rich, markdown or CSV)."""
from __future__ import annotations

import csv
from collections.abc import Sequence

from dtcli.errors import DtreeError, ParameterError
from dtcli.stats.ranks import average_ranks
from dtcli.reporting.reference import reference_lines
from dtcli.reporting.report import ALPHA, decimals_for, number, options_note, to_json
from dtcli.reporting.tables import MARK, console, markdown_table, print_table

# When the post-hoc tests (Nemenyi, Bonferroni-Dunn, Holm) are reported: only once the
# omnibus test rejects, as Demsar (2006) prescribes, or regardless of it, labelled so.
POSTHOC = ("after-rejection", "always")
_POSTHOC_TESTS = ("nemenyi", "bonferroni_dunn", "holm")


def comparison_document(datasets: Sequence[str], methods: Sequence[str], means, stds=None, *,
                        higher_is_better: bool = True, base: str | None = None,
                        repeat_stds=None, about: dict | None = None,
                        posthoc: str = "after-rejection") -> dict:
    """Demsar's comparison of `methods` over `datasets` from a table of mean scores.

    Keys: what `about` holds, then datasets, criteria, higher_is_better,
    scores (dataset -> method -> {mean, std[, repeat_std]}), best (dataset ->
    best methods), average_ranks, friedman, iman_davenport, nemenyi, warnings,
    and the base (by default the last method) against each other method:
    win_tie_loss, bonferroni_dunn, holm and wilcoxon (as `rank_tests.compare_table`
    gives them); then posthoc ({rule, omnibus_rejected, shown}), base and
    conclusions (sentences). With fewer than two datasets the tests are null.
    The post-hoc tests (nemenyi, bonferroni_dunn, holm) are null too unless the
    Iman-Davenport test rejects at ALPHA or `posthoc` is "always" (POSTHOC).
    """
    if posthoc not in POSTHOC:
        raise ParameterError(f"posthoc must be one of {', '.join(POSTHOC)}, got {posthoc!r}")
    import numpy as np

    from dtcli.stats import rank_tests

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
        tests = rank_tests.compare_table(table, methods, datasets, higher_is_better, ALPHA, base)
        del tests["datasets"], tests["criteria"], tests["scores"]
        doc.update(tests)
        rejected = bool(tests["iman_davenport"]["p"] < ALPHA)
        doc["posthoc"] = {"rule": posthoc, "omnibus_rejected": rejected,
                          "shown": rejected or posthoc == "always"}
        if not doc["posthoc"]["shown"]:
            doc.update(dict.fromkeys(_POSTHOC_TESTS))
    else:
        ranks = average_ranks(table, higher_is_better)
        wtl = rank_tests.win_tie_loss(table, methods.index(base), higher_is_better)
        doc.update(average_ranks={m: float(r) for m, r in zip(methods, ranks)},
                   friedman=None, iman_davenport=None, nemenyi=None, warnings=[],
                   win_tie_loss={m: wtl[j].tolist() for j, m in enumerate(methods) if m != base},
                   bonferroni_dunn=None, holm=None, wilcoxon=None, posthoc=None)
    doc["base"] = base
    doc["conclusions"] = conclusions(doc)
    return doc


def conclusions(doc: dict) -> list[str]:
    """The comparison's statistics in sentences."""
    methods, ranks = doc["criteria"], doc["average_ranks"]
    n = len(doc["datasets"])
    order = sorted(methods, key=lambda m: ranks[m])
    lines = ["Average ranks (1 = best): "
             + ", ".join(f"{m} {ranks[m]:.2f}" for m in order) + "."]
    if doc["friedman"] is None:
        lines.append("The rank tests need at least two datasets.")
    else:
        lines += [_omnibus_line(doc), *_posthoc_lines(doc), _wilcoxon_line(doc)]
        lines += [f"Warning: {warning}." for warning in doc["warnings"]]
    base, wtl = doc["base"], doc["win_tie_loss"]
    lines.append(f"Wins/ties/losses of {base} against each other method over {n} dataset"
                 f"{'s' if n != 1 else ''}: "
                 + ", ".join(f"{m} {w}/{t}/{l}" for m, (w, t, l) in wtl.items()) + ".")
    return lines


def _omnibus_line(doc: dict) -> str:
    friedman, iman = doc["friedman"], doc["iman_davenport"]
    n, k = len(doc["datasets"]), len(doc["criteria"])
    d1, d2 = k - 1, (k - 1) * (n - 1)
    verdict = ("the methods do not all perform alike." if iman["p"] < ALPHA else
               "no significant difference among the methods.")
    if iman["exact"]:
        return (f"Every dataset ranks the methods in the same order: Friedman chi2 = "
                f"{friedman['chi2']:.2f} is at its largest and Iman-Davenport's F infinite; the "
                f"exact p = {iman['p']:.3g} (the chance of that order {n} times when all "
                f"perform alike): {verdict}")
    return (f"Friedman chi2 = {friedman['chi2']:.2f} (df {d1}, p = {friedman['p']:.3g}); "
            f"Iman-Davenport F = {iman['F']:.2f} (F({d1}, {d2}), p = {iman['p']:.3g}, critical "
            f"value {iman['critical_value']:.2f} at alpha {ALPHA}): {verdict}")


def _posthoc_lines(doc: dict) -> list[str]:
    """Nemenyi, Bonferroni-Dunn and Holm: after the omnibus test rejects, or labelled as
    shown regardless of it; else a line saying why they are not shown."""
    iman = doc["iman_davenport"]
    if not doc["posthoc"]["shown"]:
        return [f"Post-hoc tests (Nemenyi, Bonferroni-Dunn, Holm) not run: the "
                f"Iman-Davenport test did not reject at alpha {ALPHA} (p = {iman['p']:.4g}), so "
                f"no difference between two methods is established (Demsar 2006); "
                f"--posthoc always shows them regardless."]
    lines = [_nemenyi_line(doc), *_control_lines(doc)]
    if doc["posthoc"]["omnibus_rejected"]:
        return lines
    return [f"Post-hoc tests shown regardless of the omnibus test (--posthoc always), "
            f"which did not reject at alpha {ALPHA} (p = {iman['p']:.4g}): by Demsar's procedure "
            f"the differences below are not established.", *lines]


def _nemenyi_line(doc: dict) -> str:
    ranks, nemenyi = doc["average_ranks"], doc["nemenyi"]
    head = (f"Nemenyi test at alpha {ALPHA}: critical difference CD = {nemenyi['cd']:.2f} "
            f"(q_alpha = {nemenyi['q_alpha']:.3f}, k = {len(doc['criteria'])}, "
            f"N = {len(doc['datasets'])}); ")
    if not nemenyi["significant_pairs"]:
        return head + "no pair of methods differs significantly."
    described = []
    for a, b in nemenyi["significant_pairs"]:
        better, worse = sorted((a, b), key=lambda m: ranks[m])
        described.append(f"{better} ({ranks[better]:.2f}) better than "
                         f"{worse} ({ranks[worse]:.2f})")
    return head + "significant: " + "; ".join(described) + "."


def _relative_to(base: str, details: dict[str, str], ranks: dict) -> str:
    """'better than A (detail), B (detail); worse than C (detail)': the base against methods."""
    sides = {"better than": [], "worse than": []}
    for method, detail in details.items():
        sides["better than" if ranks[base] < ranks[method] else "worse than"].append(
            f"{method} ({detail})")
    return "; ".join(f"{side} {', '.join(found)}" for side, found in sides.items() if found)


def _control_lines(doc: dict) -> list[str]:
    """Bonferroni-Dunn and Holm of the base against the other methods."""
    base, ranks = doc["base"], doc["average_ranks"]
    k = len(doc["criteria"])
    dunn, holm = doc["bonferroni_dunn"], doc["holm"]
    none = "no method differs significantly from it"
    found = _relative_to(base, {m: f"{ranks[m]:.2f}" for m in dunn["significant"]}, ranks)
    lines = [f"Bonferroni-Dunn test against {base} ({ranks[base]:.2f}) at alpha {ALPHA}: "
             f"CD = {dunn['cd']:.2f} (q_alpha = {dunn['q_alpha']:.3f}); "
             + (f"{base} is significantly {found}" if found else none) + "."]
    adjusted = {c["method"]: f"adjusted p = {c['adjusted_p']:.3g}" for c in holm["comparisons"]}
    rejected = [c["method"] for c in holm["comparisons"] if c["rejected"]]
    kept = [m for m in adjusted if m not in rejected]
    found = _relative_to(base, {m: adjusted[m] for m in rejected}, ranks)
    lines.append(f"Holm's test against {base} at alpha {ALPHA} (p adjusted for {k - 1} "
                 f"comparison{'s' if k > 2 else ''}): "
                 + (f"{base} is significantly {found}" if found else none)
                 + ("; not significant: " + ", ".join(f"{m} ({adjusted[m]})" for m in kept)
                    if found and kept else "") + ".")
    return lines


def _wilcoxon_line(doc: dict) -> str:
    base, tests = doc["base"], doc["wilcoxon"]
    parts = [f"{m}: R+ = {w['r_plus']:g}, R- = {w['r_minus']:g}, p = {w['p']:.3g}"
             + ("" if w["exact"] else " (normal approximation)") for m, w in tests.items()]
    caveat = ("" if len(tests) == 1 else "; p not adjusted for the comparisons"
              + (", Holm's test above is" if doc["holm"] is not None else ""))
    return (f"Wilcoxon signed-rank test of {base} against "
            + ("each method" if len(tests) > 1 else next(iter(tests)))
            + f" (R+: ranks of the datasets where {base} is better; p exact unless "
            f"marked{caveat}): " + "; ".join(parts) + ".")


def render_comparison(doc: dict, fmt: str, stream, *, show_sd: bool = False,
                      width: int | None = None) -> None:
    """Write a comparison document as table, json, csv or markdown; a table is laid out
    for `width` columns (default: the terminal's, unlimited when not on a terminal)."""
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
    decimals = decimals_for([scores[d][m]["mean"] for d in datasets for m in methods])
    reference = doc.get("reference")
    scale = reference["scale"] if reference else 1.0
    ref_scores = reference["scores"] if reference else {}
    decimals = 2 if reference and scale != 1 else decimals
    bold = (lambda text: f"**{text}**") if fmt == "markdown" else (lambda text: text + MARK)

    def cell(d, m):
        entry = scores[d][m]
        text = number(entry["mean"] * scale, decimals)
        if show_sd:
            text += f" ± {number(entry['std'] * scale, decimals)}"
        if m in ref_scores.get(d, {}):
            text += f" ({number(ref_scores[d][m], decimals)})"
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
    per_dataset = None
    if doc.get("bayes"):
        from dtcli.reporting.bayes import bayes_lines, correlated_t_table

        lines += bayes_lines(doc)
        per_dataset = correlated_t_table(doc)
    if fmt == "markdown":
        stream.write(f"{title}\n\n")
        stream.write(markdown_table(header, rows, right=range(1, len(header))))
        stream.write("\n" + "".join(f"- {line}\n" for line in lines))
        if per_dataset is not None:
            title, header, rows = per_dataset
            stream.write(f"\n{title}\n\n")
            stream.write(markdown_table(header, rows, right=range(1, len(header))))
        return
    out = console(stream, width)
    print_table(out, header, rows, title=title, footer_rows=2 + bool(reference))
    for line in lines:
        out.print(line, markup=False)
    if per_dataset is not None:
        title, header, rows = per_dataset
        print_table(out, header, rows, title=title)


def _comparison_title(doc: dict, show_sd: bool, reference: dict | None, marker: str) -> str:
    what = doc.get("metric") or f"scores of {doc.get('table', 'the table')}"
    how = ""
    if "cv" in doc:
        repeats = f" x {doc['repeats']} repeats" if doc["repeats"] > 1 else ""
        how = (f", mean over stratified {doc['cv']}-fold CV{repeats} (seed {doc['seed']})"
               f"{options_note(doc['options'])}")
    direction = "higher" if doc["higher_is_better"] else "lower"
    extras = " ± sd over folds" if show_sd else ""
    if reference:
        extras += f"; in brackets: {reference['source']}"
    return f"{what}{how}{extras}; {marker}: best in row, {direction} is better"

