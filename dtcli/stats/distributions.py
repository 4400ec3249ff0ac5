"""Distributions and critical values for the rank tests, with the standard library only.

Chi-square, F, the normal, and the studentized range for infinite degrees of
freedom: regularized incomplete gamma and beta functions by series and Lentz
continued fractions (Numerical Recipes, 3rd ed., 6.2 and 6.4), the studentized
range by quadrature, and quantiles by bisection. scipy is a test-only reference.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from dtcli.errors import ParameterError

__all__ = [
    "bonferroni_dunn_q",
    "check_alpha",
    "check_method_count",
    "chi2_sf",
    "f_critical",
    "f_sf",
    "nemenyi_q",
    "normal_sf",
    "studentized_range_sf",
]

_EPS = 1e-15  # relative convergence of series and continued fractions
_TINY = 1e-300  # Lentz's guard against division by zero
_MAX_ITERATIONS = 100_000


def check_alpha(alpha: float) -> None:
    if not 0.0 < alpha < 1.0:
        raise ParameterError(f"significance level alpha must be in (0, 1), got {alpha}")


def check_method_count(k: int) -> None:
    if k < 2:
        raise ValueError(f"comparing methods needs at least 2 of them, got {k}")


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
    check_alpha(alpha)
    return _solve_decreasing(lambda x: f_sf(x, d1, d2), alpha)


def nemenyi_q(alpha: float, k: int) -> float:
    """Critical value q_alpha of the two-tailed Nemenyi test for k methods.

    Demsar 2006, Table 5(a): the upper-alpha quantile of the studentized range
    for k means and infinite degrees of freedom, divided by sqrt(2).
    """
    check_alpha(alpha)
    check_method_count(k)
    return _solve_decreasing(lambda q: studentized_range_sf(q, k), alpha) / math.sqrt(2.0)


def bonferroni_dunn_q(alpha: float, k: int) -> float:
    """Critical value q_alpha of the two-tailed Bonferroni-Dunn test; k counts the control too.

    Demsar 2006, Table 5(b): the normal quantile z with P(Z > z) = alpha / (2 (k - 1)).
    """
    check_alpha(alpha)
    check_method_count(k)
    return _solve_decreasing(normal_sf, alpha / (2.0 * (k - 1)))



def t_cdf(x: float, df: float) -> float:
    """P(T <= x) for Student's t with `df` degrees of freedom. Its tail beyond |x| is
    I_{df / (df + x^2)}(df/2, 1/2) / 2, its centre P(|T| < |x|) = I_{x^2 / (df + x^2)}(1/2,
    df/2); each is computed where its argument is below 1/2, so at full precision."""
    if math.isinf(x):
        return 1.0 if x > 0 else 0.0
    if x * x < df:  # near the centre
        half = 0.5 * _regularized_beta(0.5, df / 2.0, x * x / (df + x * x))
        return 0.5 + half if x > 0 else 0.5 - half
    tail = 0.5 * _regularized_beta(df / 2.0, 0.5, df / (df + x * x))
    return tail if x <= 0 else 1.0 - tail
