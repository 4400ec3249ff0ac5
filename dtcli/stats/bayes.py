"""Bayesian comparisons of two methods, with a region of practical equivalence (ROPE):
the probabilities that the first is practically better, equivalent or worse.

- Across datasets: the Bayesian signed-rank test (Benavoli, Corani, Mangili, Zaffalon and
  Ruggeri 2014; Benavoli, Corani, Demsar and Zaffalon, JMLR 18(77), 2017, section 4): a
  Dirichlet process posterior on the distribution of the per-dataset differences z, with
  prior strength 0.5 on a pseudo-observation at 0. A sample of the posterior is a weight
  vector w ~ Dir(0.5, 1, ..., 1) over (0, z_1, ..., z_n); its masses of the three regions
  are sum_ij w_i w_j [z_i + z_j > 2 rope] (better), [< -2 rope] (worse), the rest
  (equivalent), ties counting 1/2. The probability of a region is the share of samples in
  which it has the largest mass.
- On one dataset: the correlated Bayesian t-test (Corani and Benavoli, Machine Learning
  100, 2015) on the n fold differences of k-fold cross-validation (repeats included): a
  Student posterior with n - 1 degrees of freedom, mean the mean difference, scale^2 =
  (1/n + rho/(1 - rho)) s^2 with the correlation rho = 1/k (Nadeau and Bengio's
  correction); closed form.

Both as the `baycomp` package computes them (tests/test_bayes.py), in numpy only. The
differences are oriented: positive when the first method is better.
"""
from __future__ import annotations

import math

import numpy as np

from dtcli.stats.distributions import t_cdf

DEFAULT_ROPE = 0.01
PRIOR_STRENGTH = 0.5
SAMPLES = 50000
_CHUNK = 10000  # samples per matrix product, to bound memory on many datasets
REGIONS = ("better", "equivalent", "worse")


def _probabilities(worse: float, equivalent: float, better: float) -> dict[str, float]:
    return {"better": float(better), "equivalent": float(equivalent), "worse": float(worse)}


def correlated_t_test(differences, folds: int, rope: float = DEFAULT_ROPE) -> dict[str, float]:
    """P(better), P(equivalent), P(worse) of the first method on one dataset from its fold
    differences (all repeats; NaN folds left out), `folds` the k of k-fold CV. A zero
    variance puts all mass on the mean's region; fewer than two folds give NaN."""
    if folds < 2:
        raise ValueError(f"the correlated t-test needs k >= 2 folds, got {folds}")
    diff = np.asarray(differences, dtype=float)
    diff = diff[np.isfinite(diff)]
    n = len(diff)
    if n < 2:
        return _probabilities(math.nan, math.nan, math.nan)
    mean = float(diff.mean())
    variance = float(diff.var(ddof=1)) * (1.0 / n + 1.0 / (folds - 1))
    if variance == 0.0:
        if rope == 0:
            return _probabilities(float(mean < 0) + 0.5 * (mean == 0), 0.0,
                                  float(mean > 0) + 0.5 * (mean == 0))
        return _probabilities(float(mean < -rope), float(-rope <= mean <= rope),
                              float(mean > rope))
    scale = math.sqrt(variance)
    worse = t_cdf((-rope - mean) / scale, n - 1)
    better = 1.0 - t_cdf((rope - mean) / scale, n - 1)
    return _probabilities(worse, 1.0 - worse - better, better)


def signed_rank_samples(differences, rope: float = DEFAULT_ROPE, *, rng: np.random.Generator,
                        samples: int = SAMPLES) -> np.ndarray:
    """(samples, 3) posterior masses of (worse, equivalent, better) of the Bayesian
    signed-rank test on the per-dataset differences (NaN datasets left out)."""
    diff = np.asarray(differences, dtype=float)
    diff = np.r_[0.0, diff[np.isfinite(diff)]]
    sums = diff[:, None] + diff[None, :]

    def heaviside(values, threshold):
        return (values > threshold) + 0.5 * (values == threshold)

    # one product for both regions: columns [above | below]
    regions = np.hstack([heaviside(sums, 2 * rope), heaviside(-sums, 2 * rope)])
    concentration = np.ones(len(diff))
    concentration[0] = PRIOR_STRENGTH
    masses = np.empty((samples, 3))
    for start in range(0, samples, _CHUNK):
        weights = rng.dirichlet(concentration, min(_CHUNK, samples - start))
        part = slice(start, start + len(weights))
        both = (weights @ regions).reshape(len(weights), 2, len(diff))
        above, below = np.einsum("sj,srj->rs", weights, both)
        masses[part, 2] = above
        masses[part, 0] = below if rope > 0 else 1.0 - above
    masses[:, 1] = 1.0 - masses[:, 0] - masses[:, 2]
    return masses


def signed_rank_test(differences, rope: float = DEFAULT_ROPE, *, rng: np.random.Generator,
                     samples: int = SAMPLES) -> dict[str, float]:
    """P(better), P(equivalent), P(worse) of the first method across datasets: the share of
    posterior samples in which each region has the largest mass (NaN for no dataset)."""
    if not np.isfinite(np.asarray(differences, dtype=float)).any():
        return _probabilities(math.nan, math.nan, math.nan)
    masses = signed_rank_samples(differences, rope, rng=rng, samples=samples)
    worse, equivalent, better = np.bincount(np.argmax(masses, axis=1), minlength=3) / samples
    return _probabilities(worse, equivalent, better)


def generator(seed: int, index: int) -> np.random.Generator:
    """The seeded generator of the `index`-th comparison of a run: the same command draws
    the same samples, whatever the order the comparisons are computed in."""
    return np.random.default_rng([seed, index])
