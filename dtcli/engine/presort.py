"""Sort every feature once and pack (rank, class, row) into one uint64 word.

The engine never looks at feature values while growing: each feature's rows
are kept in sorted order as packed words

    word = rank << key_shift | class << class_shift | row

so the split scan streams one array. `rank` is the dense rank of the value
within its feature (numeric) or the category index (nominal); missing values
get rank `missing_rank[f]`, the largest, so they sit at the end of every
node's segment. `values[offsets[f] + r]` recovers the value of rank r of a
numeric feature (for thresholds). Jitted: `_count_ranks`, `_pack`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from dtcli.engine.jit import njit
from dtcli.engine.threads import run_chunks
from dtcli.errors import DtreeError


@dataclass
class Presorted:
    words: np.ndarray  # uint64 (n_features, n_samples)
    values: np.ndarray  # float64, the distinct values of numeric features
    offsets: np.ndarray  # int64 (n_features + 1,) into values
    missing_rank: np.ndarray  # int64 (n_features,)
    key_shift: int
    class_shift: int
    class_mask: int
    row_mask: int


@njit
def _count_ranks(columns, orders, is_nominal, n_categories, missing_rank, n_values, lo, hi):
    for f in range(lo, hi):
        if is_nominal[f]:
            missing_rank[f] = n_categories[f]
            n_values[f] = 0
            continue
        col = columns[f]
        order = orders[f]
        distinct = 0
        prev = math.nan
        for i in range(col.shape[0]):
            v = col[order[i]]
            if math.isnan(v):
                break  # NaN sorts last
            if distinct == 0 or v != prev:
                distinct += 1
                prev = v
        missing_rank[f] = distinct
        n_values[f] = distinct


@njit
def _pack(columns, orders, y, is_nominal, missing_rank, offsets, values, words,
          key_shift, class_shift, lo, hi):
    for f in range(lo, hi):
        col = columns[f]
        order = orders[f]
        base = offsets[f]
        rank = -1
        prev = math.nan
        for i in range(col.shape[0]):
            row = order[i]
            v = col[row]
            if math.isnan(v):
                r = missing_rank[f]
            elif is_nominal[f]:
                r = np.int64(v)
            else:
                if rank < 0 or v != prev:
                    rank += 1
                    prev = v
                    values[base + rank] = v
                r = rank
            words[f, i] = ((np.uint64(r) << np.uint64(key_shift))
                           | (np.uint64(y[row]) << np.uint64(class_shift))
                           | np.uint64(row))


def _argsort_rows(columns, orders, lo, hi):
    for f in range(lo, hi):
        orders[f] = np.argsort(columns[f])


def _bits(n: int) -> int:
    return max(int(n).bit_length(), 1)


def presort(X: np.ndarray, y: np.ndarray, n_classes: int, is_nominal: np.ndarray,
            n_categories: np.ndarray, n_threads: int) -> Presorted:
    """Sort each feature of X (float64, NaN = missing) and pack the words."""
    n_samples, n_features = X.shape
    columns = np.ascontiguousarray(X.T)
    # numpy's sort releases the GIL, so threads sort features side by side;
    # argsort puts NaN last, which the engine relies on.
    orders = np.empty((n_features, n_samples), dtype=np.int64)
    run_chunks(_argsort_rows, n_features, n_threads, n_samples * n_features, columns, orders)
    is_nominal = is_nominal.astype(np.uint8)
    n_categories = n_categories.astype(np.int64)
    missing_rank = np.empty(n_features, dtype=np.int64)
    n_values = np.empty(n_features, dtype=np.int64)
    work = n_samples * n_features
    run_chunks(_count_ranks, n_features, n_threads, work, columns, orders, is_nominal,
               n_categories, missing_rank, n_values)
    offsets = np.zeros(n_features + 1, dtype=np.int64)
    np.cumsum(n_values, out=offsets[1:])
    values = np.empty(offsets[-1], dtype=np.float64)

    row_bits = _bits(n_samples - 1)
    class_bits = _bits(n_classes - 1)
    key_bits = _bits(int(missing_rank.max()) if n_features else 0)
    if row_bits + class_bits + key_bits > 64:
        raise DtreeError(
            f"data too large for the engine: {n_samples} rows x {n_classes} classes "
            f"need {row_bits + class_bits + key_bits} bits per packed word (max 64)")
    words = np.empty((n_features, n_samples), dtype=np.uint64)
    class_shift = row_bits
    key_shift = row_bits + class_bits
    run_chunks(_pack, n_features, n_threads, work, columns, orders,
               y.astype(np.int64, copy=False), is_nominal, missing_rank, offsets, values,
               words, key_shift, class_shift)
    return Presorted(words, values, offsets, missing_rank, key_shift, class_shift,
                     (1 << class_bits) - 1, (1 << row_bits) - 1)
