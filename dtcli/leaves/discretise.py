"""Fayyad and Irani's MDL discretisation of numeric features (Fayyad & Irani 1993,
"Multi-interval discretization of continuous-valued attributes", the method FDF's
paper uses, section IV), on training data only, and the mapping of values to bins.

A segment of sorted values S (N rows) is cut at the boundary T that minimises the
class-information entropy E(A, T; S) = |S1|/N Ent(S1) + |S2|/N Ent(S2); the cut is
kept when its gain passes the MDL test

    Gain(A, T; S) > log2(N - 1) / N + Delta(A, T; S) / N,
    Delta = log2(3^k - 2) - [k Ent(S) - k1 Ent(S1) - k2 Ent(S2)],

(k, k1, k2: the classes present in S, S1, S2), and both halves are cut again in
the same way. Only boundaries between distinct values are candidates (the
minimum of E lies at one, Fayyad and Irani's theorem); ties go to the lowest
value. Cut points are midpoints of adjacent values; a value equal to a cut
belongs to the lower bin, as a tree's `x <= threshold` test sends it left.
Missing values (NaN) take no part and map to bin -1.
"""
from __future__ import annotations

import math

import numpy as np


def _entropy_rows(counts: np.ndarray) -> np.ndarray:
    """Entropy in bits of every row of class counts (0 for an empty row)."""
    totals = counts.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(totals > 0, counts / totals, 0.0)
        terms = np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return -terms.sum(axis=-1)


def _log2_three_to_the(k: int) -> float:
    """log2(3^k - 2), Fayyad and Irani's term; past 3.0 ** k's range (k > 646 classes in a
    node) it is k log2(3) (the -2 vanished from 3^k's float long before)."""
    return math.log2(3.0 ** k - 2) if k <= 600 else k * math.log2(3.0)


def _best_cut(x: np.ndarray, cumulative: np.ndarray, lo: int, hi: int) -> int | None:
    """The position i (lo < i < hi; rows lo..i-1 | i..hi-1) of the accepted cut of the
    segment, or None when the segment is not cut."""
    n = hi - lo
    candidates = lo + 1 + np.flatnonzero(x[lo + 1:hi] != x[lo:hi - 1])
    if candidates.shape[0] == 0:
        return None
    total = cumulative[hi] - cumulative[lo]
    left = cumulative[candidates] - cumulative[lo]
    right = total - left
    n_left = (candidates - lo).astype(np.float64)
    expected = (n_left * _entropy_rows(left) + (n - n_left) * _entropy_rows(right)) / n
    best = int(np.argmin(expected))
    whole = float(_entropy_rows(total))
    gain = whole - float(expected[best])
    k, k1, k2 = (int(np.count_nonzero(c)) for c in (total, left[best], right[best]))
    delta = _log2_three_to_the(k) - (k * whole - k1 * float(_entropy_rows(left[best]))
                                       - k2 * float(_entropy_rows(right[best])))
    if gain > (math.log2(n - 1) + delta) / n:
        return int(candidates[best])
    return None


def mdl_cut_points(values: np.ndarray, labels: np.ndarray, n_classes: int) -> np.ndarray:
    """Sorted cut points of one numeric feature (float64 values, NaN = missing;
    int class indices in [0, n_classes)); empty when the MDL test keeps no cut."""
    present = ~np.isnan(values)
    order = np.argsort(values[present], kind="stable")
    x = values[present][order]
    y = labels[present][order]
    cumulative = np.zeros((x.shape[0] + 1, n_classes))
    cumulative[1:] = np.cumsum(np.eye(n_classes)[y], axis=0)
    cuts = []
    segments = [(0, x.shape[0])]
    while segments:
        lo, hi = segments.pop()
        i = _best_cut(x, cumulative, lo, hi) if hi - lo >= 2 else None
        if i is None:
            continue
        middle = x[i - 1] / 2 + x[i] / 2
        cuts.append(x[i - 1] if middle >= x[i] else middle)  # rounding must not reach x[i]
        segments += [(lo, i), (i, hi)]
    return np.array(sorted(cuts), dtype=np.float64)


def to_bins(values: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    """Bin index of every value (0..len(cuts)); -1 for NaN."""
    bins = np.searchsorted(cuts, values, side="left").astype(np.int64)
    bins[np.isnan(values)] = -1
    return bins


def bin_label(name: str, cuts: np.ndarray, b: int, fmt=lambda x: f"{x:.6g}") -> str:
    """A bin as a test on its feature: 'x <= 2.45', '2.45 < x <= 4.75', 'x > 4.75'."""
    if cuts.shape[0] == 0:
        return f"{name} is present"
    if b == 0:
        return f"{name} <= {fmt(cuts[0])}"
    if b == cuts.shape[0]:
        return f"{name} > {fmt(cuts[-1])}"
    return f"{fmt(cuts[b - 1])} < {name} <= {fmt(cuts[b])}"
