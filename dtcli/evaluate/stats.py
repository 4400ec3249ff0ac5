"""Statistics for comparing classifiers over multiple data sets.

Follows J. Demsar, "Statistical comparisons of classifiers over multiple data
sets", JMLR 7 (2006) 1-30, section 3.2, as used by the iHD paper (section 4.2,
eqs. (18)-(20)):

* rank the k methods on each of the N data sets (1 = best, ties share the
  average rank) and average the ranks per method;
* Friedman's chi-square and the Iman-Davenport F statistic test whether all
  methods are equivalent;
* the Nemenyi test compares all pairs: two methods differ significantly when
  their average ranks differ by more than the critical difference
  CD = q_alpha * sqrt(k(k+1) / (6N)); the Bonferroni-Dunn test compares every
  method with one control method using the same formula and its own q_alpha.

The distributions these tests need (chi-square, F, the studentized range for
infinite degrees of freedom, the normal) are implemented here with the
standard library: regularized incomplete gamma and beta functions by series
and Lentz continued fractions (Numerical Recipes, 3rd ed., 6.2 and 6.4), the
studentized range by quadrature, and quantiles by bisection.

``scores`` arguments are (N data sets, k methods) arrays: one row per data
set, one column per method.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from dtcli.errors import ParameterError

__all__ = [
    "BonferroniDunnResult",
    "FriedmanResult",
    "ImanDavenportResult",
    "NemenyiResult",
    "average_ranks",
    "bonferroni_dunn",
    "bonferroni_dunn_q",
    "chi2_sf",
    "compare_table",
    "f_critical",
    "f_sf",
    "friedman",
    "friedman_from_ranks",
    "iman_davenport",
    "iman_davenport_from_ranks",
    "nemenyi",
    "nemenyi_q",
    "normal_sf",
    "pairs_beyond_cd",
    "rank_matrix",
    "studentized_range_sf",
    "tied_ranks",
    "win_tie_loss",
]

_EPS = 1e-15  # relative convergence of series and continued fractions
_TINY = 1e-300  # Lentz's guard against division by zero
_MAX_ITERATIONS = 100_000


def _check_alpha(alpha: float) -> None:
    if not 0.0 < alpha < 1.0:
        raise ParameterError(f"significance level alpha must be in (0, 1), got {alpha}")


def _check_method_count(k: int) -> None:
    if k < 2:
        raise ValueError(f"comparing methods needs at least 2 of them, got {k}")


# --------------------------------------------------------------------------
# Special functions and distributions
# --------------------------------------------------------------------------


def _gamma_p_series(a: float, x: float) -> float:
    """Regularized lower incomplete gamma P(a, x) by its series (x < a + 1)."""
    term = total = 1.0 / a
    denominator = a
    for _ in range(_MAX_ITERATIONS):
        denominator += 1.0
        term *= x / denominator
        total += term
        if abs(term) < abs(total) * _EPS:
            return total * math.exp(-x + a * math.log(x) - math.lgamma(a))
    raise RuntimeError(f"incomplete gamma series did not converge for a={a}, x={x}")


def _gamma_q_continued_fraction(a: float, x: float) -> float:
    """Regularized upper incomplete gamma Q(a, x) by Lentz's continued fraction (x >= a + 1)."""
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    h = d
    for i in range(1, _MAX_ITERATIONS):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            return h * math.exp(-x + a * math.log(x) - math.lgamma(a))
    raise RuntimeError(f"incomplete gamma fraction did not converge for a={a}, x={x}")


def _regularized_gamma_q(a: float, x: float) -> float:
    """Q(a, x) = Gamma(a, x) / Gamma(a), computed directly in the upper tail."""
    if x <= 0.0:
        return 1.0
    if x < a + 1.0:
        return 1.0 - _gamma_p_series(a, x)
    return _gamma_q_continued_fraction(a, x)


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (Numerical Recipes' betacf)."""
    c = 1.0
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (_TINY if abs(d) < _TINY else d)
    h = d
    for m in range(1, _MAX_ITERATIONS):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1.0) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1.0)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (_TINY if abs(d) < _TINY else d)
            c = 1.0 + numerator / c
            c = _TINY if abs(c) < _TINY else c
            delta = d * c
            h *= delta
        if abs(delta - 1.0) < _EPS:
            return h
    raise RuntimeError(f"incomplete beta fraction did not converge for a={a}, b={b}, x={x}")


def _regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function.

    The continued fraction converges fast for x < (a + 1) / (a + b + 2); beyond
    that the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) is used, so a small result
    is always computed directly (full relative accuracy in the tail).
    """
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_beta = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    front = math.exp(a * math.log(x) + b * math.log1p(-x) - log_beta)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_continued_fraction(a, b, x) / a
    return 1.0 - front * _beta_continued_fraction(b, a, 1.0 - x) / b


def chi2_sf(x: float, df: float) -> float:
    """P(X > x) for a chi-square variable with ``df`` degrees of freedom: Q(df/2, x/2)."""
    return _regularized_gamma_q(df / 2.0, x / 2.0)


def f_sf(x: float, d1: float, d2: float) -> float:
    """P(X > x) for an F(d1, d2) variable: I_{d2 / (d2 + d1 x)}(d2/2, d1/2)."""
    if x <= 0.0:
        return 1.0
    return _regularized_beta(d2 / 2.0, d1 / 2.0, d2 / (d2 + d1 * x))


def normal_sf(z: float) -> float:
    """P(Z > z) for a standard normal variable."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


_erf = np.vectorize(math.erf, otypes=[float])
_QUADRATURE_STEP = 0.02
_QUADRATURE_Z = np.arange(-500, 501) * _QUADRATURE_STEP  # -10..10: phi(z) < 1e-22 beyond
_QUADRATURE_WEIGHTS = _QUADRATURE_STEP * np.exp(-0.5 * _QUADRATURE_Z**2) / math.sqrt(2.0 * math.pi)


def studentized_range_sf(q: float, k: int) -> float:
    """P(Q > q) for the range of k standard normal samples (studentized range, df = infinity).

    P(Q <= q) = k * integral phi(z) [Phi(z) - Phi(z - q)]^(k-1) dz, evaluated by
    the trapezoidal rule (exponentially accurate for this smooth, Gaussian-decaying
    integrand). Taken as 1 - P(Q <= q), it is accurate to about 1e-14 absolute:
    ample for significance levels, not for minute tail probabilities.
    """
    if q <= 0.0:
        return 1.0
    z = _QUADRATURE_Z
    inside = 0.5 * (_erf(z / math.sqrt(2.0)) - _erf((z - q) / math.sqrt(2.0)))
    return 1.0 - k * float(np.sum(_QUADRATURE_WEIGHTS * inside ** (k - 1)))


def _solve_decreasing(sf: Callable[[float], float], alpha: float) -> float:
    """The x > 0 where a continuous decreasing survival function equals alpha, by bisection."""
    low, high = 0.0, 1.0
    while sf(high) > alpha:
        low, high = high, 2.0 * high
    while high - low > 1e-14 * high:
        middle = 0.5 * (low + high)
        if sf(middle) > alpha:
            low = middle
        else:
            high = middle
    return 0.5 * (low + high)


def f_critical(alpha: float, d1: float, d2: float) -> float:
    """Critical value of F(d1, d2) at level alpha: the x with P(X > x) = alpha."""
    _check_alpha(alpha)
    return _solve_decreasing(lambda x: f_sf(x, d1, d2), alpha)


def nemenyi_q(alpha: float, k: int) -> float:
    """Critical value q_alpha of the two-tailed Nemenyi test for k methods.

    Demsar 2006, Table 5(a): the upper-alpha quantile of the studentized range
    for k means and infinite degrees of freedom, divided by sqrt(2).
    """
    _check_alpha(alpha)
    _check_method_count(k)
    return _solve_decreasing(lambda q: studentized_range_sf(q, k), alpha) / math.sqrt(2.0)


def bonferroni_dunn_q(alpha: float, k: int) -> float:
    """Critical value q_alpha of the two-tailed Bonferroni-Dunn test; k counts the control too.

    Demsar 2006, Table 5(b): the normal quantile z with P(Z > z) = alpha / (2 (k - 1)).
    """
    _check_alpha(alpha)
    _check_method_count(k)
    return _solve_decreasing(normal_sf, alpha / (2.0 * (k - 1)))


# --------------------------------------------------------------------------
# Ranks
# --------------------------------------------------------------------------


def _check_scores(scores: np.ndarray) -> np.ndarray:
    """Validate an (N data sets, k methods) score table and return it as floats."""
    table = np.asarray(scores, dtype=float)
    if table.ndim != 2 or table.shape[0] < 1:
        raise ValueError(
            f"scores must be a 2-D table (data sets x methods) with at least one row, "
            f"got shape {table.shape}"
        )
    _check_method_count(table.shape[1])
    missing = np.argwhere(np.isnan(table))
    if missing.size:
        row, column = missing[0]
        raise ValueError(
            f"scores contain {len(missing)} NaN value(s), first at data set row {row}, "
            f"method column {column}; rank-based tests need a score for every method "
            f"on every data set (drop or re-run that data set)"
        )
    return table


def tied_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..n of a 1-D array in ascending order; tied values share their average rank."""
    values = np.asarray(values)
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts_group = np.concatenate(([True], ordered[1:] != ordered[:-1]))
    starts = np.flatnonzero(starts_group)
    ends = np.append(starts[1:], len(values))
    group_rank = (starts + 1 + ends) / 2.0  # mean of positions start+1 .. end
    ranks = np.empty(len(values))
    ranks[order] = group_rank[np.cumsum(starts_group) - 1]
    return ranks


def rank_matrix(scores: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """Rank the methods on each data set (row): 1 = best, ties get the average rank.

    Raises ValueError if any score is NaN.
    """
    table = _check_scores(scores)
    oriented = -table if higher_is_better else table
    return np.vstack([tied_ranks(row) for row in oriented])


def average_ranks(scores: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """Average rank R_j of each method over the data sets (Demsar 2006, section 3.2.2)."""
    return rank_matrix(scores, higher_is_better).mean(axis=0)


# --------------------------------------------------------------------------
# Omnibus tests
# --------------------------------------------------------------------------


class FriedmanResult(NamedTuple):
    chi2: float
    p: float


class ImanDavenportResult(NamedTuple):
    F: float
    p: float
    critical_value: float


def _check_ranks(
    avg_ranks: Sequence[float], n_datasets: int, min_datasets: int = 1
) -> np.ndarray:
    ranks = np.asarray(avg_ranks, dtype=float)
    if ranks.ndim != 1:
        raise ValueError(f"average ranks must be a 1-D sequence, got shape {ranks.shape}")
    _check_method_count(len(ranks))
    if n_datasets < min_datasets:
        raise ValueError(f"this test needs at least {min_datasets} data set(s), got {n_datasets}")
    return ranks


def friedman_from_ranks(avg_ranks: Sequence[float], n_datasets: int) -> FriedmanResult:
    """Friedman's chi-square from average ranks (iHD eq. (18); Demsar 2006, section 3.2.2).

    chi2_F = 12N / (k(k+1)) * (sum_j R_j^2 - k(k+1)^2 / 4), with k - 1 degrees of freedom.
    """
    ranks = _check_ranks(avg_ranks, n_datasets)
    k = len(ranks)
    spread = float(np.sum(ranks**2)) - k * (k + 1) ** 2 / 4.0
    chi2 = 12.0 * n_datasets / (k * (k + 1)) * spread
    return FriedmanResult(chi2, chi2_sf(chi2, k - 1))


def iman_davenport_from_ranks(
    avg_ranks: Sequence[float], n_datasets: int, alpha: float = 0.05
) -> ImanDavenportResult:
    """Iman and Davenport's F from average ranks (iHD eq. (19); Demsar 2006, section 3.2.2).

    F_F = (N - 1) chi2_F / (N(k - 1) - chi2_F), distributed as F(k - 1, (k - 1)(N - 1)).
    When every data set ranks the methods identically the denominator is 0:
    F_F is then infinite and p is 0.
    """
    ranks = _check_ranks(avg_ranks, n_datasets, min_datasets=2)
    k = len(ranks)
    chi2 = friedman_from_ranks(ranks, n_datasets).chi2
    d1, d2 = k - 1, (k - 1) * (n_datasets - 1)
    denominator = n_datasets * (k - 1) - chi2
    statistic = (n_datasets - 1) * chi2 / denominator if denominator > 1e-12 else math.inf
    return ImanDavenportResult(statistic, f_sf(statistic, d1, d2), f_critical(alpha, d1, d2))


def friedman(scores: np.ndarray) -> FriedmanResult:
    """Friedman test on a (data sets x methods) score table.

    The statistic does not depend on whether higher or lower scores are better.
    """
    table = _check_scores(scores)
    return friedman_from_ranks(average_ranks(table), table.shape[0])


def iman_davenport(scores: np.ndarray, alpha: float = 0.05) -> ImanDavenportResult:
    """Iman-Davenport test on a (data sets x methods) score table; direction-free like Friedman."""
    table = _check_scores(scores)
    return iman_davenport_from_ranks(average_ranks(table), table.shape[0], alpha)


# --------------------------------------------------------------------------
# Post-hoc tests and win/tie/loss counts
# --------------------------------------------------------------------------


class NemenyiResult(NamedTuple):
    q_alpha: float
    cd: float
    significant_pairs: list[tuple[int, int]]


class BonferroniDunnResult(NamedTuple):
    q_alpha: float
    cd: float
    significant: list[int]


def _critical_difference(q_alpha: float, k: int, n_datasets: int) -> float:
    """CD = q_alpha * sqrt(k(k+1) / (6N)) (Demsar 2006, section 3.2.2; iHD eq. (20))."""
    return q_alpha * math.sqrt(k * (k + 1) / (6.0 * n_datasets))


def nemenyi(avg_ranks: Sequence[float], n_datasets: int, alpha: float = 0.05) -> NemenyiResult:
    """Nemenyi all-pairs post-hoc test.

    Methods i < j are a significant pair when |R_i - R_j| > CD.
    """
    ranks = _check_ranks(avg_ranks, n_datasets)
    k = len(ranks)
    q_alpha = nemenyi_q(alpha, k)
    cd = _critical_difference(q_alpha, k, n_datasets)
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

    ``significant`` lists the methods j != control with |R_j - R_control| > CD.
    """
    ranks = _check_ranks(avg_ranks, n_datasets)
    k = len(ranks)
    q_alpha = bonferroni_dunn_q(alpha, k)
    cd = _critical_difference(q_alpha, k, n_datasets)
    significant = [j for j in range(k) if j != control and abs(ranks[j] - ranks[control]) > cd]
    return BonferroniDunnResult(q_alpha, cd, significant)


def win_tie_loss(
    scores: np.ndarray, base_index: int, higher_is_better: bool = True, tol: float = 0.0
) -> np.ndarray:
    """Count the data sets on which the base method wins, ties and loses against each method.

    Returns a (k, 3) int array whose row j is [wins, ties, losses] of the base
    against method j; a difference of at most ``tol`` is a tie. The base's own
    row is [0, N, 0].
    """
    table = _check_scores(scores)
    advantage = table[:, [base_index]] - table
    if not higher_is_better:
        advantage = -advantage
    wins = np.sum(advantage > tol, axis=0)
    losses = np.sum(advantage < -tol, axis=0)
    ties = table.shape[0] - wins - losses
    return np.column_stack([wins, ties, losses])


def _floats(result: NamedTuple) -> dict[str, float]:
    return {key: float(value) for key, value in result._asdict().items()}


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
    method -> value), ``average_ranks`` (method -> rank), ``friedman`` ({chi2, p}),
    ``iman_davenport`` ({F, p, critical_value}), ``nemenyi`` ({q_alpha, cd,
    significant_pairs: [[name, name], ...]}) and, when ``base`` names a method,
    ``win_tie_loss`` (other method -> [w, t, l] of the base against it).
    """
    table = _check_scores(scores)
    names, datasets = list(names), list(datasets)
    if table.shape != (len(datasets), len(names)):
        raise ValueError(
            f"scores have shape {table.shape} but there are {len(datasets)} data sets "
            f"and {len(names)} method names"
        )
    n_datasets = len(datasets)
    ranks = average_ranks(table, higher_is_better)
    posthoc = nemenyi(ranks, n_datasets, alpha)
    result = {
        "datasets": datasets,
        "criteria": names,
        "scores": {
            dataset: {name: float(value) for name, value in zip(names, row)}
            for dataset, row in zip(datasets, table)
        },
        "average_ranks": {name: float(rank) for name, rank in zip(names, ranks)},
        "friedman": _floats(friedman_from_ranks(ranks, n_datasets)),
        "iman_davenport": _floats(iman_davenport_from_ranks(ranks, n_datasets, alpha)),
        "nemenyi": {
            "q_alpha": float(posthoc.q_alpha),
            "cd": float(posthoc.cd),
            "significant_pairs": [[names[i], names[j]] for i, j in posthoc.significant_pairs],
        },
    }
    if base is not None:
        if base not in names:
            raise ValueError(f"base method {base!r} is not one of {names}")
        base_index = names.index(base)
        counts = win_tie_loss(table, base_index, higher_is_better)
        result["win_tie_loss"] = {
            name: counts[j].tolist() for j, name in enumerate(names) if j != base_index
        }
    return result
