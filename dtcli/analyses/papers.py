"""The papers `dtree reproduce` re-runs: per paper, its tables (where the published
figures are, the datasets of it that ship in examples/, the methods, the metric), the
protocol of its experiments section, and its claims, each checkable on our means
(`Claim`; reproduce.py checks them).

The PIDT and FDF papers print no figures in their text (PIDT's Tables 1 and 2 are
images the text copy does not hold; FDF's only result is a plot, Fig. 4): their
tables have no reference file, and the command tests their claims as the text
states them.
"""
from __future__ import annotations

from dataclasses import dataclass

from dtcli.crossval.spec import DatasetSpec


@dataclass(frozen=True)
class Claim:
    """One claim of a paper, on our means of a table's metric. kind: "best" (`a` has the
    best average rank), "friedman" (Friedman's test rejects equal methods at 0.05),
    "wilcoxon" (`a` beats `b`: Wilcoxon's signed-rank test over the datasets, p < 0.05),
    "most" (`a` is better than `b` on more than half of the datasets), "mean" (`a`'s
    mean over the datasets is better than `b`'s). `text`: the paper's words."""

    kind: str
    text: str
    a: str = ""
    b: str = ""


@dataclass(frozen=True)
class Settings:
    """How much a run does: repeats of the outer CV, the folds of the inner search, the
    grids (--grid texts; none: the papers' default grids, dtcli/tuning/grid.py), and the
    trees' options."""

    repeats: int = 1
    inner_cv: int | None = None
    grid: tuple[str, ...] = ()
    options: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True)
class PaperTable:
    """One published table (or one claim-bearing result of a paper without figures):
    where its figures are (a file of dtcli/reference, or None), the datasets of it we
    ship (the paper's name, the file under examples/, how to read it), the methods
    (a --criteria text), the metric, the selection of tuned parameters, the method the
    paper favours (the base of the tests), its claims, the protocol (outer folds; the
    full and the --quick settings) and the datasets of a --quick run: three small ones,
    so that the rank tests run and each claim gets a verdict (on them, not the paper's)."""

    paper: str
    name: str
    reference: str | None
    datasets: tuple[DatasetSpec, ...]
    methods: str
    metric: str
    best: str
    claims: tuple[Claim, ...]
    quick: tuple[str, ...]
    cv: int = 10
    full: Settings = Settings()
    quick_settings: Settings = Settings()
    selection: str = "nested"


def _files(folder: str, *names: tuple[str, str]) -> tuple[DatasetSpec, ...]:
    return tuple(DatasetSpec(name, f"{folder}/{file}") for name, file in names)


def _glass(name: str) -> DatasetSpec:
    return DatasetSpec(name, "balanced/glass.csv", target="Type", drop=("Id",))


# --- iHD (Akash et al., IJCAI 2019): Tables 3 and 4 --------------------------------------

_IHD = "entropy,gini,gain-ratio,dcsm,hddt,ccpdt,ihd,ihdw"  # the paper's column order
_IHD_PAPER = ("P. S. Akash, M. E. Kadir, A. A. Ali and M. Shoyaib, Inter-node Hellinger "
              "Distance based Decision Tree, IJCAI 2019")
_IMBALANCED = ("ecoli-0-1-4-6_vs_5", "ecoli-0-1-4-7_vs_2-3-5-6", "ecoli-0-1_vs_2-3-5",
               "ecoli-0-6-7_vs_5", "ecoli2", "haberman", "new-thyroid1", "vehicle3",
               "winequality-red-4", "wisconsin", "yeast-0-2-5-6_vs_3-7-8-9",
               "yeast-0-3-5-9_vs_7-8", "yeast-2_vs_4")
_BALANCED = (("australian", "australian.csv"), ("breast", "wdbc.csv"),
             ("digits", "optdigits.csv"), ("german", "german.csv"), ("liver", "bupa.csv"),
             ("segment", "segment.csv"), ("sonar", "sonar.csv"), ("spambase", "spambase.csv"),
             ("vowel", "vowel.csv"), ("wine", "wine.csv"))


def _ihd_claims(what: str) -> tuple[Claim, ...]:
    return (Claim("best", f"iHDw has the best average rank by {what}", "ihdw"),
            Claim("friedman", "Friedman's test rejects equal criteria"))


# --- Tsallis (Wang and Xia, ICASSP 2017): Table 1 -----------------------------------------

_TSALLIS_PAPER = ("Y. Wang and S.-T. Xia, Unifying Attribute Splitting Criteria of Decision "
                  "Trees by Tsallis Entropy, ICASSP 2017")
_TSALLIS = "tsallis:q=auto"
_TSALLIS_GR = "tsallis-gain-ratio:q=@tsallis"
_TSALLIS_METHODS = f"entropy,gini,gain-ratio,{_TSALLIS},{_TSALLIS_GR}"
_TSALLIS_DATA = (_glass("Glass"),
                 *_files("balanced", ("Vehicle", "vehicle.csv"), ("Wine", "wine.csv")),
                 DatasetSpec("Haberman", "imbalanced/haberman.dat"),
                 *_files("balanced", ("Hayes", "hayes-roth.csv"), ("Monks", "monk-2.csv"),
                         ("Cmc", "contraceptive.csv")))
_TSALLIS_CLAIMS = (Claim("best", "Tsallis entropy with tuned q has the best average rank",
                         _TSALLIS),
                   Claim("friedman", "Friedman's test rejects equal methods"),
                   Claim("wilcoxon", "Tsallis beats entropy (Wilcoxon)", _TSALLIS, "entropy"),
                   Claim("wilcoxon", "Tsallis beats Gini (Wilcoxon)", _TSALLIS, "gini"),
                   Claim("wilcoxon", "Tsallis gain ratio beats gain ratio (Wilcoxon)",
                         _TSALLIS_GR, "gain-ratio"))
_TSALLIS_NODES = tuple(Claim("most", f"Tsallis entropy grows smaller trees than {b}, on most "
                             "datasets", _TSALLIS, b) for b in ("entropy", "gini"))
# section 5: 10 x 10-fold CV, minimum leaf size 5, q over 0.1..10 by 0.1 (the default grid)
_TSALLIS_FULL = Settings(10, 10, (), (("min_samples_leaf", 5),))
_TSALLIS_QUICK = Settings(1, 3, ("q=0.5,1,2,4",), (("min_samples_leaf", 5),))


def _tsallis(name: str, reference: str, metric: str, selection: str,
             claims: tuple[Claim, ...]) -> PaperTable:
    return PaperTable(_TSALLIS_PAPER, name, reference, _TSALLIS_DATA, _TSALLIS_METHODS, metric,
                      _TSALLIS, claims, ("Wine", "Hayes", "Haberman"), 10, _TSALLIS_FULL,
                      _TSALLIS_QUICK, selection)


# --- PIDT (Stamate et al., AIAI 2018): section 4.1's claims ------------------------------

_PIDT_PAPER = ("D. Stamate, W. Alghamdi, D. Stahl, D. Logofatu and A. Zamyatin, PIDT: a "
               "novel decision tree algorithm based on parameterised impurities and "
               "statistical pruning approaches, AIAI 2018")
_S = ":pruning=s-pruning:significance=auto"
_PIDT_UNPRUNED = ("entropy", "gini", "pe:alpha=auto", "pg:alpha=auto",
                  "pt:alpha=auto:gamma=auto", "pr:alpha=auto:gamma=auto",
                  "ge:alpha=auto:beta=auto", "abi:alpha=auto:beta=auto")
_PIDT_METHODS = ",".join(_PIDT_UNPRUNED + tuple(m + _S for m in _PIDT_UNPRUNED))
_PE_S, _PR_S = "pe:alpha=auto" + _S, "pr:alpha=auto:gamma=auto" + _S
_PIDT_DATA = (DatasetSpec("Wdbc", "balanced/wdbc.csv"), DatasetSpec("Pima", "balanced/pima.csv"),
              _glass("Glass"), DatasetSpec("Hepatitis", "hepatitis.csv", target="Class"))
_PIDT_ACCURACY = (
    Claim("most", "PE led to better results with S-pruning than without, on most datasets",
          _PE_S, "pe:alpha=auto"),
    *(Claim("most", f"{a} with S-pruning is more accurate than {b}, on most datasets", m, b)
      for a, m in (("PE", _PE_S), ("PR", _PR_S)) for b in ("entropy", "gini")))
_PIDT_NODES = tuple(
    Claim("most", f"{a} with S-pruning yields smaller trees than {b}, on most datasets", m, b)
    for a, m in (("PE", _PE_S), ("PR", _PR_S)) for b in ("entropy", "gini"))
# section 4.1: 5-fold CV outside and in the grid search, "minimum number of nodes 7" read
# as Weka's minimum leaf size (docs/pidt.md), the paper's grids (the defaults), and 1000
# permutations per node (section 3)
_PIDT_FULL = Settings(1, 5, (), (("min_samples_leaf", 7), ("permutations", 1000)))
# --quick: gamma above 1 (PR and PT at gamma <= 1 compile a search form of their own)
_PIDT_QUICK = Settings(1, 3, ("alpha=0.4,0.7", "beta=0.6", "gamma=2.5", "significance=0.05"),
                       (("min_samples_leaf", 7), ("permutations", 50)))


def _pidt(name: str, metric: str, selection: str, claims: tuple[Claim, ...]) -> PaperTable:
    return PaperTable(_PIDT_PAPER, name, None, _PIDT_DATA, _PIDT_METHODS, metric, _PE_S, claims,
                      ("Glass", "Hepatitis", "Wdbc"), 5, _PIDT_FULL, _PIDT_QUICK, selection)


# --- FDF (Wang, Zang and Xu): Fig. 4's claim ---------------------------------------------

_FDF_PAPER = ("L. Wang, X. Zang and P. Xu, Induction of a Novel Hybrid Decision Forest "
              "Model based on Information Theory")
_FDF_DATA = (*_files("balanced", ("australian", "australian.csv"), ("bupa", "bupa.csv"),
                     ("german", "german.csv")),
             _glass("glass"),
             *_files("balanced", ("hayes-roth", "hayes-roth.csv"), ("segment", "segment.csv"),
                     ("sonar", "sonar.csv"), ("vowel", "vowel.csv"), ("wdbc", "wdbc.csv"),
                     ("wine", "wine.csv")))
_FDF_CLAIMS = (Claim("mean", "FDF has a lower probabilistic cost (log loss) on average than a "
                     "random forest of 1000 trees", "fdf", "gini*1000"),)

PAPERS: dict[str, tuple[PaperTable, ...]] = {
    "ihd": (
        PaperTable(_IHD_PAPER, "Table 4 (AUC, imbalanced)", "ihd_table4_auc_imbalanced.csv",
                   _files("imbalanced", *((n, f"{n}.dat") for n in _IMBALANCED)), _IHD, "auc",
                   "ihdw", _ihd_claims("AUC on imbalanced data"),
                   ("ecoli-0-6-7_vs_5", "new-thyroid1", "ecoli-0-1-4-6_vs_5")),
        PaperTable(_IHD_PAPER, "Table 3 (accuracy, balanced)", "ihd_table3_accuracy_balanced.csv",
                   _files("balanced", *_BALANCED), _IHD, "accuracy", "ihdw",
                   _ihd_claims("accuracy on balanced data"), ("wine", "sonar", "liver")),
    ),
    "tsallis": (
        _tsallis("Table 1 (accuracy; q chosen on the outer folds, as the paper)",
                 "utcdt_table1_accuracy.csv", "accuracy", "paper", _TSALLIS_CLAIMS),
        _tsallis("Table 1 (accuracy; q chosen by nested CV)", "utcdt_table1_accuracy.csv",
                 "accuracy", "nested", _TSALLIS_CLAIMS),
        _tsallis("Table 1 (node counts; q chosen on the outer folds)",
                 "utcdt_table1_n_nodes.csv", "n_nodes", "paper", _TSALLIS_NODES),
    ),
    "pidt": (
        _pidt("section 4.1 (accuracy; parameters chosen on the outer folds, as the paper)",
              "accuracy", "paper", _PIDT_ACCURACY),
        _pidt("section 4.1 (accuracy; parameters chosen by nested CV)", "accuracy", "nested",
              _PIDT_ACCURACY),
        _pidt("section 4.1 (node counts; parameters chosen on the outer folds)", "n_nodes",
              "paper", _PIDT_NODES),
    ),
    "fdf": (
        PaperTable(_FDF_PAPER, "Fig. 4 (log loss, FDF against a random forest)", None,
                   _FDF_DATA, "fdf,gini*1000", "log_loss", "fdf", _FDF_CLAIMS, ("wine",), 10,
                   Settings(10), Settings(1)),  # a forest of 1000 trees: one quick dataset
    ),
}
