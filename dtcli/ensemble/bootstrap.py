"""Bootstrap samples as counts, drawn from the counter-based generator (rng.py).

Draw j of tree t is keyed (seed, t, BOOTSTRAP_SLOT, j): the tree's stream, and a slot
no node of the node store has (a node's feature draws use its own slot), so a tree's
sample depends on the seed and the tree's index only, never on which thread, process
or machine grows it.
"""
from __future__ import annotations

import numpy as np

from dtcli.jit.flags import njit
from dtcli.engine.rng import below

BOOTSTRAP_SLOT = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit
def _draw_counts(seed, stream, slot, n_draws, counts):
    n = counts.shape[0]
    for i in range(n):
        counts[i] = 0
    for j in range(n_draws):
        counts[below(n, seed, stream, slot, j)] += 1


def bootstrap_counts(seed: int, tree: int, n_rows: int, n_draws: int) -> np.ndarray:
    """How many times each of n_rows rows is drawn in n_draws draws with replacement
    (int64), for tree `tree` of the forest seeded `seed`."""
    counts = np.empty(n_rows, np.int64)
    _draw_counts(np.uint64(seed), np.uint64(tree), BOOTSTRAP_SLOT, np.int64(n_draws), counts)
    return counts
