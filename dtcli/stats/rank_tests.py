"""Statistics for comparing classifiers over multiple data sets.

Follows J. Demsar, "Statistical comparisons of classifiers over multiple data
sets", JMLR 7 (2006) 1-30, section 3.2, as used by the iHD paper (section 4.2,
eqs. (18)-(20)):

* rank the k methods on each of the N data sets (1 = best, ties share the
  average rank) and average the ranks per method (`dtcli.stats.ranks`);
* Friedman's chi-square and the Iman-Davenport F statistic test whether all
  methods are equivalent (here);
* post-hoc tests (`dtcli.stats.posthoc`): Nemenyi for all pairs,
  Bonferroni-Dunn and Holm against a control method, and Wilcoxon's
  signed-rank test for two methods.

The distributions they need are in `dtcli.stats.distributions`. `compare_table`
runs them all on a table of scores.

``scores`` arguments are (N data sets, k methods) arrays: one row per data
set, one column per method.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from dtcli.stats import posthoc
from dtcli.stats.distributions import chi2_sf, f_critical, f_sf
from dtcli.stats.ranks import average_ranks, check_ranks, check_scores

__all__ = [
    "FriedmanResult",
    "ImanDavenportResult",
    "compare_table",
    "friedman",
    "friedman_from_ranks",
    "iman_davenport",
    "iman_davenport_from_ranks",
    "perfect_agreement_p",
    "small_sample_warnings",
    "win_tie_loss",
]

# Demsar 2006, section 3.2.2: the chi-square approximation of Friedman's statistic
# wants "N > 10 and k > 5"; below, the p-values are rough.
APPROXIMATION_MIN_DATASETS = 11


class FriedmanResult(NamedTuple):
    chi2: float
    p: float
    exact: bool = False  # p exact (every data set ranks the methods alike), else chi-square


class ImanDavenportResult(NamedTuple):
    F: float
    p: float
    critical_value: float
    exact: bool = False  # F infinite and p exact, as for FriedmanResult


def perfect_agreement_p(k: int, n_datasets: int) -> float:
    """(k!)^-(N-1): the probability, when all k methods perform alike, that N data sets
    all rank them in the same order (no ties).

    It is the exact p-value of the largest Friedman statistic, chi2_F = N(k - 1),
    and so the smallest p-value the test can give: when it exceeds alpha, no
    outcome of N data sets can be significant.
    """
    return math.exp(-(n_datasets - 1) * math.lgamma(k + 1))


def _in_perfect_agreement(ranks: np.ndarray) -> bool:
    """Average ranks that are a permutation of 1..k: every data set ranked the methods alike."""
    return bool(np.allclose(np.sort(ranks), np.arange(1, len(ranks) + 1), rtol=0, atol=1e-9))


def friedman_from_ranks(avg_ranks: Sequence[float], n_datasets: int) -> FriedmanResult:
    """Friedman's chi-square from average ranks (iHD eq. (18); Demsar 2006, section 3.2.2).

    chi2_F = 12N / (k(k+1)) * (sum_j R_j^2 - k(k+1)^2 / 4), with k - 1 degrees of
    freedom. When every data set ranks the methods alike, p is the exact
    `perfect_agreement_p` instead of the chi-square approximation.
    """
    ranks = check_ranks(avg_ranks, n_datasets)
    k = len(ranks)
    spread = float(np.sum(ranks**2)) - k * (k + 1) ** 2 / 4.0
    chi2 = 12.0 * n_datasets / (k * (k + 1)) * spread
    if _in_perfect_agreement(ranks):
        return FriedmanResult(chi2, perfect_agreement_p(k, n_datasets), True)
    return FriedmanResult(chi2, chi2_sf(chi2, k - 1))


def iman_davenport_from_ranks(
    avg_ranks: Sequence[float], n_datasets: int, alpha: float = 0.05
) -> ImanDavenportResult:
    """Iman and Davenport's F from average ranks (iHD eq. (19); Demsar 2006, section 3.2.2).

    F_F = (N - 1) chi2_F / (N(k - 1) - chi2_F), distributed as F(k - 1, (k - 1)(N - 1)).
    When every data set ranks the methods alike the denominator is 0: F_F is
    infinite, its F distribution says nothing, and p is the exact
    `perfect_agreement_p` (1/6 for three methods on two data sets: not significant).
    """
    ranks = check_ranks(avg_ranks, n_datasets, min_datasets=2)
    k = len(ranks)
    chi2 = friedman_from_ranks(ranks, n_datasets).chi2
    d1, d2 = k - 1, (k - 1) * (n_datasets - 1)
    critical = f_critical(alpha, d1, d2)
    if _in_perfect_agreement(ranks):
        return ImanDavenportResult(math.inf, perfect_agreement_p(k, n_datasets), critical, True)
    statistic = (n_datasets - 1) * chi2 / (n_datasets * (k - 1) - chi2)
    return ImanDavenportResult(statistic, f_sf(statistic, d1, d2), critical)


def friedman(scores: np.ndarray) -> FriedmanResult:
    """Friedman test on a (data sets x methods) score table.

    The statistic does not depend on whether higher or lower scores are better.
    """
    table = check_scores(scores)
    return friedman_from_ranks(average_ranks(table), table.shape[0])


def iman_davenport(scores: np.ndarray, alpha: float = 0.05) -> ImanDavenportResult:
    """Iman-Davenport test on a (data sets x methods) score table; direction-free like Friedman."""
    table = check_scores(scores)
    return iman_davenport_from_ranks(average_ranks(table), table.shape[0], alpha)


def small_sample_warnings(k: int, n_datasets: int, alpha: float = 0.05) -> list[str]:
    """What the rank tests cannot say with only N data sets, in sentences (none if N is ample)."""
    smallest_p = perfect_agreement_p(k, n_datasets)
    if smallest_p >= alpha:
        return [f"with {n_datasets} datasets and {k} methods no outcome can be significant at "
                f"alpha {alpha}: even if every dataset ranked the methods alike, the exact p "
                f"would be {smallest_p:.3g}; compare on more datasets"]
    if n_datasets < APPROXIMATION_MIN_DATASETS:
        return [f"only {n_datasets} datasets: the p-values and critical differences of the "
                "rank tests rest on large-sample approximations (Demsar 2006 asks for more "
                "than 10 datasets); treat them as rough"]
    return []


def win_tie_loss(
    scores: np.ndarray, base_index: int, higher_is_better: bool = True, tol: float = 0.0
) -> np.ndarray:
    """Count the data sets on which the base method wins, ties and loses against each method.

    Returns a (k, 3) int array whose row j is [wins, ties, losses] of the base
    against method j; a difference of at most ``tol`` is a tie. The base's own
    row is [0, N, 0].
    """
    table = check_scores(scores)
    advantage = table[:, [base_index]] - table
    if not higher_is_better:
        advantage = -advantage
    wins = np.sum(advantage > tol, axis=0)
    losses = np.sum(advantage < -tol, axis=0)
    ties = table.shape[0] - wins - losses
    return np.column_stack([wins, ties, losses])


def _plain(result: NamedTuple) -> dict:
    """A result as JSON-ready numbers (bools stay bools)."""
    return {key: value if isinstance(value, bool) else float(value)
            for key, value in result._asdict().items()}


def _against_control(table: np.ndarray, ranks: np.ndarray, names: list[str], base_index: int,
                     higher_is_better: bool, alpha: float) -> dict:
    """Win/tie/loss counts, Bonferroni-Dunn, Holm and Wilcoxon of the base against the others."""
    n_datasets = table.shape[0]
    counts = win_tie_loss(table, base_index, higher_is_better)
    dunn = posthoc.bonferroni_dunn(ranks, n_datasets, base_index, alpha)
    holm = posthoc.holm(ranks, n_datasets, base_index, alpha)
    others = [j for j in range(len(names)) if j != base_index]
    return {
        "win_tie_loss": {names[j]: counts[j].tolist() for j in others},
        "bonferroni_dunn": {"q_alpha": float(dunn.q_alpha), "cd": float(dunn.cd),
                            "significant": [names[j] for j in dunn.significant]},
        "holm": {"se": holm.se, "comparisons": [{**_plain(c), "method": names[c.method]}
                                                for c in holm.comparisons]},
        "wilcoxon": {names[j]: _plain(posthoc.wilcoxon_signed_rank(
            table[:, base_index], table[:, j], higher_is_better)) for j in others},
    }


def compare_table(
    scores: np.ndarray,
    names: Sequence[str],
    datasets: Sequence[str],
    higher_is_better: bool = True,
    alpha: float = 0.05,
    base: str | None = None,
) -> dict:
    """Demsar's full comparison of methods over data sets, as a JSON-serialisable dict.

    Keys: ``datasets``, ``criteria`` (the method names), ``scores`` (data set ->
    method -> value), ``average_ranks`` (method -> rank), ``friedman`` ({chi2, p,
    exact}), ``iman_davenport`` ({F, p, critical_value, exact}), ``nemenyi``
    ({q_alpha, cd, significant_pairs: [[name, name], ...]}), ``warnings``
    (`small_sample_warnings`) and, when ``base`` names a method, the base
    against each other method: ``win_tie_loss`` (method -> [w, t, l]),
    ``bonferroni_dunn`` ({q_alpha, cd, significant: [names]}), ``holm`` ({se,
    comparisons: [{method, z, p, adjusted_p, rejected}], most significant
    first}) and ``wilcoxon`` (method -> {r_plus, r_minus, t, n, z, p, exact},
    r_plus counting the data sets where the base is better).
    """
    table = check_scores(scores)
    names, datasets = list(names), list(datasets)
    if table.shape != (len(datasets), len(names)):
        raise ValueError(
            f"scores have shape {table.shape} but there are {len(datasets)} data sets "
            f"and {len(names)} method names"
        )
    n_datasets = len(datasets)
    ranks = average_ranks(table, higher_is_better)
    nemenyi = posthoc.nemenyi(ranks, n_datasets, alpha)
    result = {
        "datasets": datasets,
        "criteria": names,
        "scores": {
            dataset: {name: float(value) for name, value in zip(names, row)}
            for dataset, row in zip(datasets, table)
        },
        "average_ranks": {name: float(rank) for name, rank in zip(names, ranks)},
        "friedman": _plain(friedman_from_ranks(ranks, n_datasets)),
        "iman_davenport": _plain(iman_davenport_from_ranks(ranks, n_datasets, alpha)),
        "nemenyi": {
            "q_alpha": float(nemenyi.q_alpha),
            "cd": float(nemenyi.cd),
            "significant_pairs": [[names[i], names[j]] for i, j in nemenyi.significant_pairs],
        },
        "warnings": small_sample_warnings(len(names), n_datasets, alpha),
    }
    if base is not None:
        if base not in names:
            raise ValueError(f"base method {base!r} is not one of {names}")
        result.update(_against_control(table, ranks, names, names.index(base),
                                       higher_is_better, alpha))
    return result
