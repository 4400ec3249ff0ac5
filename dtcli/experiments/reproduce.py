"""A paper's tables re-run in one call: its protocol on the datasets of it that ship in
examples/ (papers.py), our means beside the published ones (the tables ship in
dtcli/reference/), the differences, the statistics both ways, and whether the paper's
claims hold.

Per table: our comparison (`dtcli.compare`: Demsar's statistics), the published
figures matched by dataset and method (`reference_comparison`: the average ranks of
both, Spearman's rho between them, the mean difference per method), Wilcoxon's
signed-rank test of our means against the paper's per method over the datasets (a
paired test of "the same numbers"), and each of the paper's claims checked on our
means (`check_claim`). The tables of one paper share their folds: a later table with
the same datasets and methods (another metric, another selection of tuned parameters)
computes nothing.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from importlib import resources

from dtcli.analyses.papers import PAPERS, Claim, PaperTable
from dtcli.errors import ParameterError
from dtcli.experiments.pool import one_pool


def reference_path(table: PaperTable):
    """A context manager giving the shipped reference table's path."""
    return resources.as_file(resources.files("dtcli") / "reference" / table.reference)


@dataclass
class TableResult:
    table: PaperTable
    comparison: dict  # compare's document, with its "reference" when the paper has figures
    paired: dict  # method -> Wilcoxon of ours against the paper's, over the datasets
    holds: dict  # {"claims": [...], "holds": bool|None, "reading"}

    @property
    def document(self) -> dict:
        return {"paper": self.table.paper, "table": self.table.name,
                "claim": "; ".join(c.text for c in self.table.claims),
                "comparison": self.comparison, "paired_test": self.paired,
                "conclusion": self.holds}


@dataclass
class Reproduction:
    """What `dtree reproduce` prints: `document` (its -f json; `to_json()` the text),
    `tables` (each table's comparison, paired test and claims), and in a notebook the
    page of --report FILE.html."""

    paper: str
    quick: bool
    tables: list[TableResult]
    about: dict = field(default_factory=dict)

    @property
    def document(self) -> dict:
        return {**self.about, "paper": self.paper, "quick": self.quick,
                "tables": [t.document for t in self.tables]}

    def to_json(self) -> str:
        from dtcli.reporting.report import to_json

        return to_json(self.document)

    def _repr_html_(self) -> str:
        from dtcli.analyses.report_html import reproduction_html

        return reproduction_html(self.document)


def paired_test(comparison: dict) -> dict:
    """Wilcoxon's signed-rank test of our means (scaled as the reference) against the
    paper's, per method, over the datasets both have."""
    from dtcli.stats.posthoc import wilcoxon_signed_rank

    ref = comparison.get("reference")
    if ref is None or len(ref["datasets"]) < 2:
        return {}
    out = {}
    for method in ref["scores"][ref["datasets"][0]]:
        ours = [comparison["scores"][d][method]["mean"] * ref["scale"] for d in ref["datasets"]]
        theirs = [ref["scores"][d][method] for d in ref["datasets"]]
        result = wilcoxon_signed_rank(ours, theirs, comparison["higher_is_better"])
        out[method] = {"r_ours_higher": float(result.r_plus),
                       "r_paper_higher": float(result.r_minus), "p": float(result.p)}
    return out


def check_claim(claim: Claim, comparison: dict) -> dict:
    """Whether `claim` holds on the means of `comparison` ({"claim", "holds", "detail"}),
    at alpha 0.05 where it is a test."""
    from dtcli.stats.posthoc import wilcoxon_signed_rank

    higher = comparison["higher_is_better"]
    datasets = comparison["datasets"]
    ranks = comparison["average_ranks"]

    def means(method):
        return [comparison["scores"][d][method]["mean"] for d in datasets]

    def better(x, y):
        return x > y if higher else x < y

    if claim.kind == "best":
        best = min(ranks.values())
        holds = math.isclose(ranks[claim.a], best)
        leaders = ", ".join(m for m in ranks if math.isclose(ranks[m], best))
        detail = f"{claim.a}'s average rank {ranks[claim.a]:.2f}; best {leaders} {best:.2f}"
    elif claim.kind == "friedman":
        p = comparison["friedman"]["p"]
        holds, detail = p < 0.05, f"Friedman p = {p:.3g}"
    elif claim.kind == "wilcoxon":
        test = wilcoxon_signed_rank(means(claim.a), means(claim.b), higher)
        holds = test.p < 0.05 and test.r_plus > test.r_minus
        detail = (f"R+ = {test.r_plus:g}, R- = {test.r_minus:g}, p = {test.p:.3g}")
    elif claim.kind == "most":
        wins = sum(better(x, y) for x, y in zip(means(claim.a), means(claim.b)))
        holds = wins > len(datasets) / 2
        detail = f"{claim.a} better than {claim.b} on {wins} of {len(datasets)} datasets"
    elif claim.kind == "mean":
        a, b = (sum(means(m)) / len(datasets) for m in (claim.a, claim.b))
        holds = better(a, b)
        detail = f"mean {a:.4g} against {b:.4g}"
    else:
        raise ValueError(f"unknown claim kind {claim.kind!r}")
    return {"claim": claim.text, "holds": bool(holds), "detail": detail}


def conclusion(table: PaperTable, comparison: dict, quick: bool = False) -> dict:
    """Each of the table's claims checked on our means, and whether all hold (None when
    there are too few datasets to test: fewer than two). A `quick` run's verdicts are on
    its few datasets and small grids: its reading says so, and `quick` is set."""
    if not table.claims:
        return {"claims": [], "holds": None,
                "reading": "the paper draws no conclusion from this table."}
    if comparison["friedman"] is None:
        return {"claims": [{"claim": c.text, "holds": None, "detail": "fewer than two datasets"}
                           for c in table.claims],
                "holds": None, "reading": "not tested: the tests need at least two datasets."}
    checked = [check_claim(c, comparison) for c in table.claims]
    holds = all(c["holds"] for c in checked)
    failed = [c["claim"] for c in checked if not c["holds"]]
    reading = ("every claim holds here" if holds else
               f"{len(failed)} of {len(checked)} claims do not hold here: " + "; ".join(failed))
    if quick:
        n = len(comparison["datasets"])
        # the exact signed-rank test's least two-sided p over n pairs is 2 / 2^n
        weak = (n < 6 and any(c.kind == "wilcoxon" for c in table.claims))
        reading = (f"quick run ({n} datasets, one repeat, small grids"
                   + ("; over so few datasets a Wilcoxon test cannot reach p < 0.05"
                      if weak else "") + "): " + reading)
        return {"claims": checked, "holds": holds, "reading": reading + ".", "quick": True}
    return {"claims": checked, "holds": holds, "reading": reading + "."}


def table_datasets(table: PaperTable, examples: str, quick: bool) -> dict:
    """The table's datasets (only its quick ones if `quick`), read from `examples`."""
    from dataclasses import replace

    from dtcli.errors import DataError

    specs = [replace(s, path=os.path.join(examples, s.path)) for s in table.datasets
             if not quick or s.name in table.quick]
    for spec in specs:
        if not os.path.exists(spec.path):
            raise DataError(f"{spec.path}: no such file (the datasets of `dtree reproduce` "
                            "ship in the project's examples/; name its folder with --examples)")
    return {s.name: s.load() for s in specs}


@one_pool
def reproduce(paper: str, examples: str, *, quick: bool = False, repeats: int | None = None,
              jobs: int | None = None, results: str | None = None,
              scheduler: str | None = None, quiet: bool = False) -> Reproduction:
    """Run every table of `paper` (a key of PAPERS) on its datasets under `examples`, in
    worker processes (`jobs`) or on a Dask cluster (`scheduler`), keeping every fold in
    `results` (a JSON-lines file; a rerun skips the folds in it). quick: three small
    datasets of each table (one of FDF's), one repeat, smaller grids (papers.py:
    `PaperTable.quick`, `quick_settings`): the claims get a verdict on those, marked as a
    quick run's. repeats: that many repeats of the outer CV in place of
    the paper's (its first folds are the full run's: a results file serves both)."""
    from dataclasses import replace

    from dtcli.experiments.comparison import compare
    from dtcli.experiments.notes import Notes, open_store

    if paper not in PAPERS:
        raise ParameterError(f"no paper {paper!r}; one of {', '.join(PAPERS)}")
    store = open_store(results, Notes(quiet))
    done: set = set()
    tables = []
    for table in PAPERS[paper]:
        settings = table.quick_settings if quick else table.full
        if repeats is not None:
            settings = replace(settings, repeats=repeats)
        datasets = table_datasets(table, examples, quick)
        run = (tuple(datasets), table.methods, table.cv, settings)
        result = compare(datasets, table.methods, cv=table.cv, repeats=settings.repeats,
                         metric=table.metric, base=table.best, jobs=jobs, scheduler=scheduler,
                         grid=list(settings.grid), inner_cv=settings.inner_cv,
                         selection=table.selection, quiet=quiet or run in done, store=store,
                         **dict(settings.options))
        done.add(run)
        comparison = result.document
        if table.reference is not None:
            from dtcli.reporting.reference import reference_comparison

            with reference_path(table) as path:
                comparison["reference"] = reference_comparison(comparison, str(path))
            # "Table 1 (accuracy; ...)": the figures are the paper's Table 1
            comparison["reference"]["source"] = f"the paper's {table.name.split(' (')[0]}"
        tables.append(TableResult(table, comparison, paired_test(comparison),
                                  conclusion(table, comparison, quick)))
    about = {"repeats": repeats} if repeats is not None else {}
    return Reproduction(paper, quick, tables, about)


def default_examples() -> str:
    """examples/ of the project dtree runs from (an editable install's, else ./examples)."""
    beside = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
    return beside if os.path.isdir(beside) else "examples"
