"""Entropy and the general information gain of an attribute value (FDF paper, eq. (3)):

    GenGain(S, x) = |S_x| / |S| (Entropy(S) - Entropy(S_x)),

S_x the samples of S whose attribute X takes the value x. It is one term of the
information gain of X, eq. (2), and may be negative (a value whose subset is less
pure than S). Entropies are in bits, as in the paper.
"""
from __future__ import annotations

import numpy as np


def entropy(counts: np.ndarray) -> np.ndarray:
    """Entropy in bits of class counts along the last axis (0 for no rows)."""
    counts = np.asarray(counts, dtype=np.float64)
    totals = counts.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(totals > 0, counts / totals, 0.0)
        logs = np.log2(np.where(p > 0, p, 1.0))
    return -(p * logs).sum(axis=-1)


def gen_gain(subset_counts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """GenGain(S, x) of eq. (3) for class counts `subset_counts` of S_x (one row per
    value x, or a single row) within a set S of class counts `counts`."""
    subset_counts = np.asarray(subset_counts, dtype=np.float64)
    share = subset_counts.sum(axis=-1) / np.sum(counts)
    return share * (entropy(counts) - entropy(subset_counts))
