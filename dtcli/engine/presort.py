"""Sort every feature once and pack (rank, class, row) into one uint64 word.

The engine never looks at feature values while growing: each feature's rows
are kept in sorted order as packed words

    word = rank << key_shift | class << class_shift | row

so the split scan streams one array. `rank` is the dense rank of the value
within its feature (numeric) or the category index (nominal); missing values
get rank `missing_rank[f]`, the largest, so they sit at the end of every
node's segment. A threshold's values are read from the data by the rows of its
ranks (level.split_level); the distinct values are not kept, which would take 8
bytes per row x feature. Rows of equal rank are in increasing row
order, whatever the number of threads.

How (jitted; features in chunks on threads, one feature at a time within a
chunk): a numeric value becomes an order-preserving uint64 key (its bits with
the sign bit flipped if positive, all bits flipped if negative; -0.0 as 0.0,
NaN as the largest key). A stable LSD radix sort orders the keys, with their
rows, by their top 32 or 33 bits, skipping digits that all keys share; runs
of keys equal in those bits (short for most data) are then sorted by the low
bits, and one pass over the sorted keys ranks them and writes the words. A nominal feature is sorted by
its category indices with numpy's stable argsort (a radix sort for them), and
so is a numeric feature of small data (`_NUMPY_MAX_ROWS`), by the ranks
np.unique gives its values.

Jitted: `_presort_numeric` (all numeric features of a chunk) and
`_radix_sort`; nominal features are sorted with numpy. Constant arguments
between kernels are np.int64, not int literals: numba compiles a function
once per literal value it is called with.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from dtcli.jit.flags import njit
from dtcli.jit.threads import run_chunks
from dtcli.errors import DtreeError


class WordLayout(NamedTuple):
    """Where a packed word keeps its parts, as the kernels read it (uint64 each): the
    rank above key_shift, the class above class_shift (class_mask once shifted down),
    the row in the bits of row_mask."""

    key_shift: np.uint64
    class_shift: np.uint64
    class_mask: np.uint64
    row_mask: np.uint64


@dataclass
class Presorted:
    words: np.ndarray  # uint64 (n_features, n_samples)
    missing_rank: np.ndarray  # int64 (n_features,)
    key_shift: int
    class_shift: int
    class_mask: int
    row_mask: int

    def layout(self) -> WordLayout:
        return WordLayout(np.uint64(self.key_shift), np.uint64(self.class_shift),
                          np.uint64(self.class_mask), np.uint64(self.row_mask))


# Radix digits of 11 bits (3 passes over the top 33 bits of the keys) while a
# feature's buffers fit in the caches; beyond, 8 bits (4 passes over the top
# 32), whose scatter keeps fewer destinations open: measured faster at 1M rows.
_WIDE_DIGITS_MAX_ROWS = 1 << 18
# A run of keys equal in their top bits (equal values, or within a relative 1e-6)
# up to this long is insertion-sorted, a longer one radix-sorted.
_INSERTION_MAX = 48
_RUN_DIGIT_BITS = np.int64(8)
_ALL_BITS = np.int64(0)  # low_bit of a sort on the whole key
# Rows travel through the sort in 32 bits, and the node store's slots (2 per row) are int32.
_MAX_ROWS = 1 << 30
# Up to this many rows numeric features are sorted with numpy (np.unique, a stable
# argsort) instead: as fast there, and a first run on small data (the examples, most
# cross-validation folds) then compiles no sort kernel (about 1.4 s of a cold start).
_NUMPY_MAX_ROWS = 1 << 12

_SIGN = np.uint64(1 << 63)
_SIGN_BIT = np.uint64(63)
_NAN_KEY = np.uint64((1 << 64) - 1)
_SHIFTED_INF = np.uint64(0x7FF0_0000_0000_0000 << 1)  # float bits << 1 above this: NaN
_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@njit
def _radix_sort(keys, rows, spare_keys, spare_rows, low_bit, digit_bits):
    """Stable LSD sort of keys, rows alongside, by their bits from low_bit up,
    ping-ponging with the spare buffers and skipping digits all keys share.
    Returns True when the sorted keys and rows are in the spare buffers."""
    n = keys.shape[0]
    if n < 2:
        return False
    n_digits = (64 - low_bit + digit_bits - 1) // digit_bits
    n_buckets = 1 << digit_bits
    mask = np.uint64(n_buckets - 1)
    counts = np.empty(n_digits * n_buckets, np.uint32)  # digit t's counts from t * n_buckets
    for c in range(counts.shape[0]):
        counts[c] = 0
    for i in range(n):
        key = keys[i]
        for t in range(n_digits):
            digit = np.intp((key >> np.uint64(low_bit + t * digit_bits)) & mask)
            counts[t * n_buckets + digit] += 1
    position = np.empty(n_buckets, np.uint32)
    in_spare = False
    for t in range(n_digits):
        shift = np.uint64(low_bit + t * digit_bits)
        # keys[0] is one of the keys, whichever buffer holds them now.
        if counts[t * n_buckets + np.intp((keys[0] >> shift) & mask)] == n:
            continue
        total = 0
        for d in range(n_buckets):
            position[d] = total
            total += counts[t * n_buckets + d]
        for i in range(n):  # one stable counting-sort pass on digit t
            key = keys[i]
            d = (key >> shift) & mask
            p = position[d]
            spare_keys[p] = key
            spare_rows[p] = rows[i]
            position[d] = p + 1
        keys, rows, spare_keys, spare_rows = spare_keys, spare_rows, keys, rows
        in_spare = not in_spare
    return in_spare


@njit
def _presort_numeric(X_bits, features, payload, y, words, missing_rank, key_shift, class_shift,
                     carry_class):
    """Sort the numeric features listed into words; the number of their distinct values
    (the missing rank) goes to missing_rank. One kernel
    rather than several small ones: each kernel adds to the compile time."""
    n = X_bits.shape[0]
    # The keys of all the features, in one sweep over the rows of X (contiguous).
    for i in range(n):
        for f in features:
            bits = X_bits[i, f]
            if (bits << _ONE) > _SHIFTED_INF:  # NaN: the largest key
                words[f, i] = _NAN_KEY
            else:  # -0.0 as 0.0; flip the sign bit of a positive, all bits of a negative
                bits = _ZERO if bits == _SIGN else bits
                words[f, i] = bits ^ ((_ZERO - (bits >> _SIGN_BIT)) | _SIGN)
    digit_bits, n_digits = (11, 3) if n <= _WIDE_DIGITS_MAX_ROWS else (8, 4)
    low_bits = 64 - digit_bits * n_digits
    shift = np.uint64(low_bits)
    # Scratch for one feature at a time: words[f] is the other key buffer.
    rows = np.empty(n, np.uint32)
    spare_keys = np.empty(n, np.uint64)
    spare_rows = np.empty(n, np.uint32)
    for f in features:
        keys, feature_rows, other_keys, other_rows = words[f], rows, spare_keys, spare_rows
        for i in range(n):
            feature_rows[i] = payload[i]
        if _radix_sort(keys, feature_rows, other_keys, other_rows, low_bits, digit_bits):
            keys, feature_rows, other_keys, other_rows = other_keys, other_rows, keys, feature_rows
        n_present = n
        while n_present and keys[n_present - 1] == _NAN_KEY:  # NaN sorted last
            n_present -= 1

        # Finish the sort: order each run of keys equal in their top bits by the rest.
        lo = 0
        for hi in range(1, n_present + 1):
            if hi < n_present and keys[hi] >> shift == keys[lo] >> shift:
                continue
            if hi - lo > _INSERTION_MAX:
                first_other = lo + 1  # a long run is often one repeated value: sorted already
                while first_other < hi and keys[first_other] == keys[lo]:
                    first_other += 1
                if first_other < hi and _radix_sort(
                        keys[lo:hi], feature_rows[lo:hi], other_keys[lo:hi], other_rows[lo:hi],
                        _ALL_BITS, _RUN_DIGIT_BITS):
                    for i in range(lo, hi):
                        keys[i] = other_keys[i]
                        feature_rows[i] = other_rows[i]
            else:
                for i in range(lo + 1, hi):  # insertion sort, stable
                    key = keys[i]
                    row = feature_rows[i]
                    j = i - 1
                    while j >= lo and keys[j] > key:
                        keys[j + 1] = keys[j]
                        feature_rows[j + 1] = feature_rows[j]
                        j -= 1
                    keys[j + 1] = key
                    feature_rows[j + 1] = row
            lo = hi

        # Rank the sorted keys and write the words, over the keys already read
        # when keys is words[f].
        distinct = 0
        prev = _ZERO
        for i in range(n):
            key = keys[i]
            if i < n_present and (distinct == 0 or key != prev):
                distinct += 1
                prev = key
            rank = np.uint64(distinct - (i < n_present))
            row = feature_rows[i]
            if carry_class:  # the row holds its class already
                words[f, i] = (rank << key_shift) | np.uint64(row)
            else:
                words[f, i] = ((rank << key_shift) | (np.uint64(y[row]) << class_shift)
                               | np.uint64(row))
        missing_rank[f] = distinct


def _pack_ranks(ranks, row_class, key_shift, out):
    """Words of a feature from the rank of every row, in rank order (stable) into out."""
    order = np.argsort(ranks, kind="stable")  # a radix sort for 16-bit ranks
    np.take((ranks.astype(np.uint64) << np.uint64(key_shift)) | row_class, order, out=out)


def _presort_nominal(column, f, n_categories, row_class, key_shift, out):
    """Sort column f's category indices (NaN last) stably into out; returns the
    missing rank, n_categories."""
    missing = np.isnan(column)
    if not np.all(missing | ((column >= 0) & (column < n_categories))):
        raise DtreeError(f"feature {f} is nominal but holds a value that is not a category "
                         f"index in 0..{n_categories - 1}")
    _pack_ranks(np.where(missing, n_categories, column).astype(
        np.uint16 if n_categories < (1 << 16) else np.uint64), row_class, key_shift, out)
    return n_categories


def _presort_small_numeric(column, row_class, key_shift, out):
    """A numeric column (NaN = missing) with numpy: words into out; returns the missing
    rank (the number of distinct values)."""
    present = ~np.isnan(column)
    # + 0.0 turns -0.0 into 0.0, one value with it, as in the radix sort's keys
    values, ranks = np.unique(column[present] + 0.0, return_inverse=True)
    all_ranks = np.full(column.shape[0], values.shape[0], np.min_scalar_type(values.shape[0]))
    all_ranks[present] = ranks
    _pack_ranks(all_ranks, row_class, key_shift, out)
    return values.shape[0]


def _presort_chunk(X, y, payload, is_nominal, n_categories, words, missing_rank, key_shift,
                   class_shift, carry_class, lo, hi):
    """Presort features lo..hi-1 (run on a thread; the kernels release the GIL)."""
    small = X.shape[0] <= _NUMPY_MAX_ROWS
    with_numpy = [f for f in range(lo, hi) if is_nominal[f] or small]
    numeric = np.array([f for f in range(lo, hi) if not (is_nominal[f] or small)],
                       dtype=np.int64)
    if with_numpy:
        row_class = ((y.astype(np.uint64) << np.uint64(class_shift))
                     | np.arange(len(y), dtype=np.uint64))
    for f in with_numpy:
        column = np.ascontiguousarray(X[:, f])  # one strided read for numpy's passes
        if is_nominal[f]:
            missing_rank[f] = _presort_nominal(column, f, int(n_categories[f]), row_class,
                                               key_shift, words[f])
        else:
            missing_rank[f] = _presort_small_numeric(column, row_class, key_shift, words[f])
    if len(numeric):
        _presort_numeric(X.view(np.uint64), numeric, payload, y, words, missing_rank, key_shift,
                         class_shift, carry_class)


def _bits(n: int) -> int:
    return max(int(n).bit_length(), 1)


def presort(X: np.ndarray, y: np.ndarray, n_classes: int, is_nominal: np.ndarray,
            n_categories: np.ndarray, n_threads: int) -> Presorted:
    """Sort each feature of X (float64, NaN = missing) and pack the words."""
    n_samples, n_features = X.shape
    if n_samples >= _MAX_ROWS:
        raise DtreeError(f"data too large for the engine: {n_samples} rows (max {_MAX_ROWS - 1})")
    X = np.ascontiguousarray(X, dtype=np.float64)
    is_nominal = is_nominal.astype(np.uint8)
    n_categories = n_categories.astype(np.int64)
    row_bits = _bits(n_samples - 1)
    class_bits = _bits(n_classes - 1)
    class_shift = row_bits
    key_shift = row_bits + class_bits
    words = np.empty((n_features, n_samples), dtype=np.uint64)
    missing_rank = np.empty(n_features, dtype=np.int64)
    y = y.astype(np.int64, copy=False)
    # The class travels with the row through the sort when both fit in 32 bits.
    carry_class = key_shift <= 32
    payload = np.arange(n_samples, dtype=np.uint32)
    if carry_class:
        payload |= y.astype(np.uint32) << np.uint32(class_shift)
    # One chunk per thread: each chunk reads all of X once, to take its columns' keys.
    run_chunks(_presort_chunk, n_features, n_threads, n_samples * n_features,
               X, y, payload, is_nominal, n_categories, words, missing_rank, key_shift,
               class_shift, carry_class, chunks_per_thread=1)
    key_bits = _bits(int(missing_rank.max()) if n_features else 0)
    if row_bits + class_bits + key_bits > 64:
        raise DtreeError(
            f"data too large for the engine: {n_samples} rows x {n_classes} classes "
            f"need {row_bits + class_bits + key_bits} bits per packed word (max 64)")
    return Presorted(words, missing_rank, key_shift, class_shift, (1 << class_bits) - 1,
                     (1 << row_bits) - 1)


@njit
def _keep_words(words, keep, row_mask, out, lo, hi):
    """out[f] = the words of features lo..hi-1 whose row is kept, in order."""
    for f in range(lo, hi):
        n = 0
        for i in range(words.shape[1]):
            word = words[f, i]
            if keep[np.int64(word & row_mask)]:
                out[f, n] = word
                n += 1


def keep_rows(sorted_: Presorted, keep: np.ndarray, n_threads: int) -> Presorted:
    """The presorted words of the rows marked in `keep` (uint8, one per row), still in
    sorted order: a subset's presort without sorting again. A threshold is still the
    midpoint of the two nearest values present."""
    n_features, n_samples = sorted_.words.shape
    words = np.empty((n_features, int(np.count_nonzero(keep))), np.uint64)
    run_chunks(_keep_words, n_features, n_threads, n_features * n_samples, sorted_.words,
               keep, np.uint64(sorted_.row_mask), words)
    return dataclasses.replace(sorted_, words=words)
