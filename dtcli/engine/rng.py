"""Counter-based random numbers: every draw is a pure function of where it is drawn.

A draw is keyed by (seed, stream, slot, draw): the seed of the fit
(`random_state`), a stream (a forest's tree, a permutation test's shuffle),
the node's slot in the node store (nodes.py), and the draw's number at that
node. No generator carries state from one draw to the next, so the numbers a
node sees do not depend on which thread, process or machine grows it, or in
what order: same seed, same tree, whatever the number of threads. numba's
`np.random` keeps its state per thread and is never used in the engine.

The key is hashed by chaining SplitMix64's finaliser (Steele, Lea and Flood,
"Fast splittable pseudorandom number generators", OOPSLA 2014), a bijection
of 64-bit words with full avalanche, over the four parts of the key: the
same construction as hash-based generators such as Random123's (Salmon et
al., SC 2011), with the finaliser as its round function.
"""
from __future__ import annotations

import numbers

import numpy as np

from dtcli.jit.flags import inline_njit, njit
from dtcli.errors import ParameterError

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
_UNIT = 1.0 / 9007199254740992.0  # 2 ** -53


@inline_njit
def _finalise(x):
    x = (x ^ (x >> _S30)) * _MIX1
    x = (x ^ (x >> _S27)) * _MIX2
    return x ^ (x >> _S31)


@inline_njit
def random_bits(seed, stream, slot, draw):
    """64 random bits for the key (seed, stream, slot, draw), all uint64-convertible."""
    x = _finalise(np.uint64(seed) + _GOLDEN)
    x = _finalise(x ^ (np.uint64(stream) + _GOLDEN))
    x = _finalise(x ^ (np.uint64(slot) + _GOLDEN))
    return _finalise(x ^ (np.uint64(draw) + _GOLDEN))


@inline_njit
def uniform(seed, stream, slot, draw):
    """A float64 uniform on [0, 1) (53 random bits) for the key."""
    return np.float64(random_bits(seed, stream, slot, draw) >> _S11) * _UNIT


@inline_njit
def below(n, seed, stream, slot, draw):
    """An int64 uniform on [0, n), n >= 1 (bias below 2 ** -53 * n)."""
    return min(np.int64(uniform(seed, stream, slot, draw) * n), n - 1)


def seed_of(random_state) -> int:
    """A 63-bit seed from scikit-learn's `random_state`: None (fresh entropy), an int,
    or a numpy RandomState / Generator (one draw from it)."""
    if random_state is None:
        return int(np.random.SeedSequence().entropy) & ((1 << 63) - 1)
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ParameterError(f"random_state must be >= 0, got {random_state}")
        return int(random_state) & ((1 << 63) - 1)
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2 ** 63 - 1, dtype=np.int64))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2 ** 63 - 1))
    raise ParameterError(
        f"random_state must be None, an int or a numpy random generator, got {random_state!r}")


@njit
def draw_features(random_key, slots, k, mask):
    """mask[:, j] (features x nodes, uint8): k features drawn without replacement for
    the node at slots[j], all of them when k >= the number of features (Floyd's
    algorithm: k draws, each subset equally likely). random_key = (seed, stream)."""
    n_features = mask.shape[0]
    for j in range(slots.shape[0]):
        if k >= n_features:
            for f in range(n_features):
                mask[f, j] = 1
            continue
        for f in range(n_features):
            mask[f, j] = 0
        for i in range(n_features - k, n_features):
            t = below(i + 1, random_key[0], random_key[1], slots[j], i)
            mask[i if mask[t, j] == 1 else t, j] = 1
