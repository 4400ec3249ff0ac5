"""Post-hoc tests after Friedman's, and the Wilcoxon signed-rank test for two methods.

J. Demsar, "Statistical comparisons of classifiers over multiple data sets",
JMLR 7 (2006) 1-30:

* section 3.1.3: Wilcoxon's signed-rank test of two methods over N data sets;
* section 3.2.2: all pairs by the Nemenyi test, and every method against a
  control by Bonferroni-Dunn or by Holm's step-down procedure. These use the
  average ranks: z = (R_i - R_j) / sqrt(k(k+1) / (6N)), and two methods differ
  when their ranks differ by more than the critical difference
  CD = q_alpha * sqrt(k(k+1) / (6N)).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from dtcli.stats.distributions import (bonferroni_dunn_q, check_alpha, nemenyi_q,
                                          normal_sf)
from dtcli.stats.ranks import check_ranks, tied_ranks

__all__ = [
    "BonferroniDunnResult",
    "ControlComparison",
    "HolmResult",
    "NemenyiResult",
    "WilcoxonResult",
    "bonferroni_dunn",
    "holm",
    "nemenyi",
    "pairs_beyond_cd",
    "rank_standard_error",
    "wilcoxon_signed_rank",
]

WILCOXON_EXACT_MAX = 100  # data sets; beyond, the normal approximation (the exact one is slow)
_DIFFERENCE_DECIMALS = 12  # 0.768 - 0.763 and 0.936 - 0.931 differ in the 17th digit


class NemenyiResult(NamedTuple):
    q_alpha: float
    cd: float
    significant_pairs: list[tuple[int, int]]


class BonferroniDunnResult(NamedTuple):
    q_alpha: float
    cd: float
    significant: list[int]


class ControlComparison(NamedTuple):
    method: int
    z: float  # (R_method - R_control) / SE: positive when the control ranks better
    p: float  # two-sided, unadjusted
    adjusted_p: float  # Holm's adjusted p-value
    rejected: bool  # equal performance rejected at alpha


class HolmResult(NamedTuple):
    se: float
    comparisons: list[ControlComparison]  # most significant first


class WilcoxonResult(NamedTuple):
    r_plus: float  # ranks of the data sets where the first method is better
    r_minus: float  # where the second one is
    t: float  # min(r_plus, r_minus)
    n: int  # data sets ranked (one tie of an odd number is left out)
    z: float  # Demsar's normal statistic; negative as T lies below N(N+1)/4
    p: float  # two-sided
    exact: bool  # p from the exact distribution, else from z


def rank_standard_error(k: int, n_datasets: int) -> float:
    """SE = sqrt(k(k+1) / (6N)) of a difference of average ranks (Demsar 2006, section 3.2.2)."""
    return math.sqrt(k * (k + 1) / (6.0 * n_datasets))


def nemenyi(avg_ranks: Sequence[float], n_datasets: int, alpha: float = 0.05) -> NemenyiResult:
    """Nemenyi all-pairs post-hoc test.

    Methods i < j are a significant pair when |R_i - R_j| > CD.
    """
    ranks = check_ranks(avg_ranks, n_datasets)
    k = len(ranks)
    q_alpha = nemenyi_q(alpha, k)
    cd = q_alpha * rank_standard_error(k, n_datasets)
    return NemenyiResult(q_alpha, cd, pairs_beyond_cd(ranks, cd))


def pairs_beyond_cd(avg_ranks: Sequence[float], cd: float) -> list[tuple[int, int]]:
    """The pairs (i, j), i < j, of methods whose average ranks differ by more than cd."""
    k = len(avg_ranks)
    return [
        (i, j) for i in range(k) for j in range(i + 1, k) if abs(avg_ranks[i] - avg_ranks[j]) > cd
    ]


def bonferroni_dunn(
    avg_ranks: Sequence[float], n_datasets: int, control: int, alpha: float = 0.05
) -> BonferroniDunnResult:
    """Bonferroni-Dunn post-hoc test of every method against one control method.

    CD = q_alpha * SE with q_alpha of Demsar's Table 5(b) (alpha split over the
    k - 1 comparisons); ``significant`` lists the methods j != control with
    |R_j - R_control| > CD.
    """
    ranks = check_ranks(avg_ranks, n_datasets)
    k = len(ranks)
    q_alpha = bonferroni_dunn_q(alpha, k)
    cd = q_alpha * rank_standard_error(k, n_datasets)
    significant = [j for j in range(k) if j != control and abs(ranks[j] - ranks[control]) > cd]
    return BonferroniDunnResult(q_alpha, cd, significant)


def holm(avg_ranks: Sequence[float], n_datasets: int, control: int,
         alpha: float = 0.05) -> HolmResult:
    """Holm's step-down test of every method against a control (Demsar 2006, section 3.2.2).

    z_j = (R_j - R_control) / SE and p_j = 2 P(Z > |z_j|). Sorted so that
    p_1 <= ... <= p_{k-1}, p_i is compared with alpha / (k - i), starting from
    the most significant: hypotheses are rejected while p_i is below its
    threshold, and all are kept from the first that is not. The adjusted
    p-value, max over i' <= i of min(1, (k - i') p_i'), is below alpha exactly
    when the hypothesis is rejected. More powerful than Bonferroni-Dunn.
    """
    check_alpha(alpha)
    ranks = check_ranks(avg_ranks, n_datasets)
    k = len(ranks)
    if not 0 <= control < k:
        raise ValueError(f"control method {control} is not one of the {k} methods")
    se = rank_standard_error(k, n_datasets)
    others = [j for j in range(k) if j != control]
    z = {j: float(ranks[j] - ranks[control]) / se for j in others}
    p = {j: min(1.0, 2.0 * normal_sf(abs(z[j]))) for j in others}
    comparisons, adjusted = [], 0.0
    for i, j in enumerate(sorted(others, key=lambda j: p[j])):
        adjusted = max(adjusted, min(1.0, (k - 1 - i) * p[j]))
        comparisons.append(ControlComparison(j, z[j], p[j], adjusted, adjusted < alpha))
    return HolmResult(se, comparisons)


def _signed_rank_sums(first: np.ndarray, second: np.ndarray,
                      higher_is_better: bool) -> tuple[np.ndarray, np.ndarray, float, int]:
    """Demsar's ranks: (ranks of the non-zero differences, their signs, the sum of the
    zero differences' ranks, the number of differences ranked).

    Differences d_i = first - second (oriented so that d_i > 0 means the first
    method is better) are ranked by |d_i|, ties sharing their average rank.
    Zero differences are ranked too and their ranks split evenly between R+
    and R-; of an odd number of zeros, one is left out.
    """
    differences = np.round(np.asarray(first, float) - np.asarray(second, float),
                           _DIFFERENCE_DECIMALS)
    if not higher_is_better:
        differences = -differences
    zeros = np.flatnonzero(differences == 0)
    if len(zeros) % 2:
        differences = np.delete(differences, zeros[0])
    ranks = tied_ranks(np.abs(differences))
    nonzero = differences != 0
    return (ranks[nonzero], np.sign(differences[nonzero]), float(ranks[~nonzero].sum()),
            len(differences))


def _exact_lower_tail(ranks: np.ndarray, at_most: float) -> float:
    """P(sum of the ranks given a + sign <= at_most) when each sign is + or - with odd 1/2.

    Ranks are multiples of 1/2, so doubled they index an array of the
    distribution, built one data set at a time (a convolution with {0, 2r}).
    """
    doubled = np.rint(2 * ranks).astype(np.int64)
    distribution = np.zeros(int(doubled.sum()) + 1)
    distribution[0] = 1.0
    for step in doubled:
        shifted = np.zeros_like(distribution)
        shifted[step:] = distribution[:len(distribution) - step]
        distribution = 0.5 * (distribution + shifted)
    return float(distribution[:int(math.floor(2 * at_most + 1e-9)) + 1].sum())


def wilcoxon_signed_rank(first: Sequence[float], second: Sequence[float],
                         higher_is_better: bool = True) -> WilcoxonResult:
    """Wilcoxon's signed-rank test of two methods' scores over the same data sets.

    Demsar 2006, section 3.1.3: R+ sums the ranks of the data sets where the
    first method is better, R- where the second is, each with half of the
    ranks of zero differences; T = min(R+, R-), and
    z = (T - N(N+1)/4) / sqrt(N(N+1)(2N+1)/24). The two-sided p is exact for
    N <= WILCOXON_EXACT_MAX: the distribution of R+ when each non-zero
    difference is as likely positive as negative, given the observed (tied)
    ranks. Beyond, p = 2 P(Z > |z|), Demsar's normal approximation (which
    ignores ties). Differences are rounded to 12 decimals, so that
    floating-point noise does not break ties.
    """
    first, second = np.asarray(first, float), np.asarray(second, float)
    if first.ndim != 1 or first.shape != second.shape or len(first) == 0:
        raise ValueError(f"two equally long, non-empty score vectors needed, got shapes "
                         f"{first.shape} and {second.shape}")
    if np.isnan(first).any() or np.isnan(second).any():
        raise ValueError("the Wilcoxon test needs a score of both methods on every data set")
    ranks, signs, zero_ranks, n = _signed_rank_sums(first, second, higher_is_better)
    r_plus = float(ranks[signs > 0].sum()) + zero_ranks / 2
    r_minus = float(ranks[signs < 0].sum()) + zero_ranks / 2
    t = min(r_plus, r_minus)
    z = (t - n * (n + 1) / 4.0) / math.sqrt(n * (n + 1) * (2 * n + 1) / 24.0) if n else 0.0
    if n > WILCOXON_EXACT_MAX:
        return WilcoxonResult(r_plus, r_minus, t, n, z, min(1.0, 2.0 * normal_sf(abs(z))), False)
    p = 1.0 if not len(ranks) else min(1.0, 2.0 * _exact_lower_tail(ranks, t - zero_ranks / 2))
    return WilcoxonResult(r_plus, r_minus, t, n, z, p, True)
