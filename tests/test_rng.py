"""The counter-based generator: a draw depends on its key only, and looks uniform."""
from __future__ import annotations

import math

import numpy as np
import pytest

from dtcli.jit.flags import njit
from dtcli.engine.rng import below, random_bits, seed_of, uniform
from dtcli.errors import ParameterError


@njit
def _uniforms(seed, stream, slots, draws):
    out = np.empty((slots.shape[0], draws))
    for i in range(slots.shape[0]):
        for d in range(draws):
            out[i, d] = uniform(seed, stream, slots[i], d)
    return out


def _chi_square_p(counts: np.ndarray) -> float:
    """Upper tail of the chi-square statistic of equal expected counts (Wilson-Hilferty)."""
    expected = counts.sum() / counts.size
    statistic = float(((counts - expected) ** 2 / expected).sum())
    k = counts.size - 1
    z = ((statistic / k) ** (1 / 3) - (1 - 2 / (9 * k))) / math.sqrt(2 / (9 * k))
    return 0.5 * math.erfc(z / math.sqrt(2))


def test_a_draw_is_a_function_of_its_key_alone():
    slots = np.arange(50, dtype=np.int64)
    first = _uniforms(11, 3, slots, 4)
    reversed_order = _uniforms(11, 3, slots[::-1].copy(), 4)[::-1]
    np.testing.assert_array_equal(first, reversed_order)
    assert random_bits(1, 2, 3, 4) == random_bits(1, 2, 3, 4)
    # every part of the key matters
    keys = [(1, 2, 3, 4), (2, 2, 3, 4), (1, 3, 3, 4), (1, 2, 4, 4), (1, 2, 3, 5), (4, 3, 2, 1)]
    assert len({random_bits(*k) for k in keys}) == len(keys)


def test_uniforms_are_uniform_and_uncorrelated_across_neighbouring_keys():
    draws = _uniforms(2026, 0, np.arange(20_000, dtype=np.int64), 5)
    assert draws.min() >= 0.0 and draws.max() < 1.0
    counts = np.histogram(draws, bins=64, range=(0, 1))[0]
    assert _chi_square_p(counts) > 1e-4
    # neighbouring slots and neighbouring draws: correlation within 5 standard errors
    n = draws.shape[0]
    assert abs(np.corrcoef(draws[:-1, 0], draws[1:, 0])[0, 1]) < 5 / math.sqrt(n)
    assert abs(np.corrcoef(draws[:, 0], draws[:, 1])[0, 1]) < 5 / math.sqrt(n)
    # neighbouring seeds
    other = _uniforms(2027, 0, np.arange(20_000, dtype=np.int64), 1)
    assert abs(np.corrcoef(draws[:, 0], other[:, 0])[0, 1]) < 5 / math.sqrt(n)


def test_below_covers_its_range_evenly():
    values = np.array([below(7, 5, 0, slot, 0) for slot in range(7000)])
    assert values.min() == 0 and values.max() == 6
    assert _chi_square_p(np.bincount(values, minlength=7)) > 1e-4


def test_seed_of_follows_scikit_learns_random_state():
    assert seed_of(42) == 42
    assert seed_of(np.random.RandomState(0)) == seed_of(np.random.RandomState(0))
    assert seed_of(np.random.default_rng(1)) == seed_of(np.random.default_rng(1))
    assert seed_of(None) != seed_of(None)  # fresh entropy each time
    for bad in (-1, 1.5, "7", True):
        with pytest.raises(ParameterError):
            seed_of(bad)
