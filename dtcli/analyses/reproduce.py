"""A paper's table re-run in one call: its protocol on the datasets of it that ship in
examples/, our means beside the published ones (the tables ship in dtcli/reference/),
the differences, the statistics both ways, and whether the paper's conclusion holds.

Per table: our comparison (Demsar's statistics, `comparison_document`), the published
figures matched by dataset and method (`reference_comparison`: the average ranks of
both, Spearman's rho between them, the mean difference per method), Wilcoxon's
signed-rank test of our means against the paper's per method over the datasets (a
paired test of "the same numbers"), and the paper's claim checked on ours: its method
has the best average rank and Friedman's test rejects equal methods at alpha 0.05.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources

from dtcli.errors import ParameterError
from dtcli.crossval.method_syntax import fixed_choices
from dtcli.crossval.tasks import Protocol, TreeOptions

_IHD = "entropy,gini,gain-ratio,dcsm,hddt,ccpdt,ihd,ihdw"  # the paper's column order
_IHD_PAPER = ("P. S. Akash, M. E. Kadir, A. A. Ali and M. Shoyaib, Inter-node Hellinger "
              "Distance based Decision Tree, IJCAI 2019")


@dataclass(frozen=True)
class PaperTable:
    """One published table: where its figures are, the datasets of it we ship (the paper's
    name, the file under examples/), the methods, the metric, the protocol, the claim."""

    paper: str
    name: str
    reference: str  # a file of dtcli/reference
    datasets: tuple[tuple[str, str], ...]
    criteria: str
    metric: str
    best: str  # the method the paper finds best
    claim: str
    quick: str  # the dataset of a --quick run
    cv: int = 10


_IMBALANCED = ("ecoli-0-1-4-6_vs_5", "ecoli-0-1-4-7_vs_2-3-5-6", "ecoli-0-1_vs_2-3-5",
               "ecoli-0-6-7_vs_5", "ecoli2", "haberman", "new-thyroid1", "vehicle3",
               "winequality-red-4", "wisconsin", "yeast-0-2-5-6_vs_3-7-8-9",
               "yeast-0-3-5-9_vs_7-8", "yeast-2_vs_4")
_BALANCED = (("australian", "australian.csv"), ("breast", "wdbc.csv"),
             ("digits", "optdigits.csv"), ("german", "german.csv"), ("liver", "bupa.csv"),
             ("segment", "segment.csv"), ("sonar", "sonar.csv"), ("spambase", "spambase.csv"),
             ("vowel", "vowel.csv"), ("wine", "wine.csv"))

PAPERS: dict[str, tuple[PaperTable, ...]] = {
    "ihd": (
        PaperTable(_IHD_PAPER, "Table 4 (AUC, imbalanced)", "ihd_table4_auc_imbalanced.csv",
                   tuple((n, f"imbalanced/{n}.dat") for n in _IMBALANCED), _IHD, "auc",
                   "ihdw", "iHDw has the best average rank by AUC on imbalanced data, and "
                   "Friedman's test rejects equal criteria", "ecoli-0-6-7_vs_5"),
        PaperTable(_IHD_PAPER, "Table 3 (accuracy, balanced)", "ihd_table3_accuracy_balanced.csv",
                   tuple((n, f"balanced/{f}") for n, f in _BALANCED), _IHD, "accuracy", "ihdw",
                   "iHDw has the best average rank by accuracy on balanced data, and Friedman's "
                   "test rejects equal criteria", "wine"),
    ),
}


def reference_path(table: PaperTable):
    """A context manager giving the shipped reference table's path."""
    return resources.as_file(resources.files("dtcli") / "reference" / table.reference)


@dataclass
class TableResult:
    table: PaperTable
    comparison: dict  # comparison_document, with its "reference"
    paired: dict  # method -> Wilcoxon of ours against the paper's, over the datasets
    holds: dict  # {"best": bool|None, "friedman": bool|None, "holds": bool|None, "reading"}

    def to_json(self) -> dict:
        return {"paper": self.table.paper, "table": self.table.name,
                "claim": self.table.claim, "comparison": self.comparison,
                "paired_test": self.paired, "conclusion": self.holds}


@dataclass
class Reproduction:
    paper: str
    quick: bool
    tables: list[TableResult]
    about: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {**self.about, "paper": self.paper, "quick": self.quick,
                "tables": [t.to_json() for t in self.tables]}


def paired_test(comparison: dict) -> dict:
    """Wilcoxon's signed-rank test of our means (scaled as the reference) against the
    paper's, per method, over the datasets both have."""
    from dtcli.stats.posthoc import wilcoxon_signed_rank

    ref = comparison["reference"]
    if len(ref["datasets"]) < 2:
        return {}
    out = {}
    for method in ref["scores"][ref["datasets"][0]]:
        ours = [comparison["scores"][d][method]["mean"] * ref["scale"] for d in ref["datasets"]]
        theirs = [ref["scores"][d][method] for d in ref["datasets"]]
        result = wilcoxon_signed_rank(ours, theirs, comparison["higher_is_better"])
        out[method] = {"r_ours_higher": float(result.r_plus),
                       "r_paper_higher": float(result.r_minus), "p": float(result.p)}
    return out


def conclusion(table: PaperTable, comparison: dict) -> dict:
    """Whether the paper's claim holds on our means: its best method has our best average
    rank, and Friedman's test rejects equal methods (None when there are too few
    datasets to test)."""
    ranks = comparison["average_ranks"]
    if comparison["friedman"] is None:
        return {"best": None, "friedman": None, "holds": None,
                "reading": "not tested: the rank tests need at least two datasets"}
    best = min(ranks.values())
    is_best = math.isclose(ranks[table.best], best)
    rejects = comparison["friedman"]["p"] < 0.05
    ours = ", ".join(m for m in ranks if math.isclose(ranks[m], best))
    reading = (f"{table.best} {'has' if is_best else 'does not have'} our best average rank "
               f"({ranks[table.best]:.2f}; best {ours} {best:.2f}); Friedman p = "
               f"{comparison['friedman']['p']:.3g} ({'rejects' if rejects else 'does not reject'}"
               " equal criteria at 0.05): the claim "
               + ("holds" if is_best and rejects else "does not hold") + " here.")
    return {"best": is_best, "friedman": rejects, "holds": is_best and rejects,
            "reading": reading}


def reproduce(paper: str, examples: str, *, quick: bool = False, run_grid=None,
              **run) -> Reproduction:
    """Run every table of `paper` (a key of PAPERS) on its datasets under `examples`
    (`run`: the runner's jobs, store, scheduler, progress). quick: one dataset of each
    table (`PaperTable.quick`), which tests nothing but the path."""
    import os

    from dtcli.errors import DataError
    from dtcli.reporting.comparison import comparison_document
    from dtcli.reporting.reference import reference_comparison
    from dtcli.reporting.report import METRICS
    from dtcli.crossval.spec import DatasetSpec

    if run_grid is None:
        from dtcli.crossval.runner import run_grid
    if paper not in PAPERS:
        raise ParameterError(f"no paper {paper!r}; one of {', '.join(PAPERS)}")
    results = []
    for table in PAPERS[paper]:
        datasets = [d for d in table.datasets if not quick or d[0] == table.quick]
        specs = [DatasetSpec(name, os.path.join(examples, path)) for name, path in datasets]
        missing = [s.path for s in specs if not os.path.exists(s.path)]
        if missing:
            raise DataError(f"{missing[0]}: no such file (the datasets of `dtree reproduce` "
                            "ship in the project's examples/; name its folder with --examples)")
        loaded = [s.load() for s in specs]
        choices = fixed_choices([table.criteria])
        protocol = Protocol(table.cv, 1, 0)
        grid = run_grid([s.name for s in specs], loaded, choices, TreeOptions(), protocol,
                        **run)
        means, stds, _ = grid.table(table.metric)
        about = {"metric": table.metric, "cv": table.cv, "repeats": 1, "seed": 0,
                 "options": TreeOptions().estimator_params()}
        comparison = comparison_document([s.name for s in specs], [c.label for c in choices],
                                         means, stds, higher_is_better=METRICS[table.metric],
                                         base=table.best, about=about)
        with reference_path(table) as path:
            comparison["reference"] = reference_comparison(comparison, str(path))
        comparison["reference"]["source"] = f"the paper's {table.name}"
        results.append(TableResult(table, comparison, paired_test(comparison),
                                   conclusion(table, comparison)))
    return Reproduction(paper, quick, results)


def default_examples() -> str:
    """examples/ of the project dtree runs from (an editable install's, else ./examples)."""
    import os

    beside = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
    return beside if os.path.isdir(beside) else "examples"
