"""Presorting: the packed words and ranks against a plain numpy reference.

The reference ranks values with np.unique / np.searchsorted and orders rows
with np.lexsort by (rank, row): it shares nothing with the radix sort. The
engine's words must equal it exactly, which also checks that rows of equal
rank come in increasing row order.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtcli.engine import presort as presort_module
from dtcli.engine.presort import presort
from dtcli.errors import DtreeError


@pytest.fixture(autouse=True, params=["radix", "numpy"])
def sort_path(request, monkeypatch):
    """Every test on both ways of sorting numeric features: the jitted radix sort, and
    numpy's, which presort takes for small data."""
    monkeypatch.setattr(presort_module, "_NUMPY_MAX_ROWS", 0 if request.param == "radix" else
                        1 << 16)
    return request.param


def _bits(n):
    return max(int(n).bit_length(), 1)


def reference(X, y, n_classes, is_nominal, n_categories):
    """(words, missing_rank, key_shift, class_shift) computed naively."""
    n, d = X.shape
    row_bits, class_bits = _bits(n - 1), _bits(n_classes - 1)
    class_shift, key_shift = row_bits, row_bits + class_bits
    rows = np.arange(n)
    words = np.empty((d, n), np.uint64)
    missing_rank = []
    for f in range(d):
        column = X[:, f]
        missing = np.isnan(column)
        if is_nominal[f]:
            missing_rank.append(int(n_categories[f]))
            rank = np.where(missing, n_categories[f], np.where(missing, 0, column)).astype(int)
        else:
            distinct = np.unique(column[~missing])  # -0.0 == 0.0: one value
            missing_rank.append(len(distinct))
            rank = np.where(missing, len(distinct),
                            np.searchsorted(distinct, np.where(missing, 0.0, column)))
        order = np.lexsort((rows, rank))
        words[f] = [(int(rank[i]) << key_shift) | (int(y[i]) << class_shift) | int(i)
                    for i in order]
    return words, np.array(missing_rank), key_shift, class_shift


def check(X, y=None, n_classes=2, nominal=(), n_threads=1):
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    y = np.arange(n) % n_classes if y is None else np.asarray(y, dtype=np.int64)
    is_nominal = np.zeros(d, np.uint8)
    n_categories = np.zeros(d, np.int64)
    for f, k in nominal:
        is_nominal[f], n_categories[f] = 1, k
    got = presort(X, y, n_classes, is_nominal, n_categories, n_threads)
    words, missing_rank, key_shift, class_shift = reference(X, y, n_classes, is_nominal,
                                                            n_categories)
    assert got.words.dtype == np.uint64
    np.testing.assert_array_equal(got.words, words)
    np.testing.assert_array_equal(got.missing_rank, missing_rank)
    assert (got.key_shift, got.class_shift) == (key_shift, class_shift)
    assert got.class_mask == (1 << (key_shift - class_shift)) - 1
    assert got.row_mask == (1 << class_shift) - 1
    return got


SPECIAL = [0.0, -0.0, np.nan, 1.0, -1.0, 1.0 + 2.0 ** -52, 1.0 - 2.0 ** -53, 5e-324, -5e-324,
           2.2250738585072014e-308, 1e308, -1e308, np.finfo(np.float64).max,
           -np.finfo(np.float64).max, np.inf, -np.inf, 0.1, -0.1, 1000.0, 1000.0 + 1e-9]


def test_negative_zero_and_zero_are_one_value():
    got = check([[0.0], [-0.0], [1.0], [-0.0], [-1.0], [0.0]])
    assert got.missing_rank[0] == 3
    # rows 0, 1, 3 and 5 share rank 1, in increasing row order
    row_mask = np.uint64(got.row_mask)
    assert list(got.words[0] & row_mask) == [4, 0, 1, 3, 5, 2]
    assert list(got.words[0] >> np.uint64(got.key_shift)) == [0, 1, 1, 1, 1, 2]


def test_random_columns_with_ties_nan_and_extremes():
    rng = np.random.default_rng(0)
    n = 5000
    X = np.column_stack([
        rng.normal(size=n).round(2),  # many ties
        rng.choice(SPECIAL, n),
        rng.uniform(-8, 8, n).round(6),
        np.where(rng.random(n) < 0.3, np.nan, rng.normal(size=n)),
        rng.normal(size=n) * 10.0 ** rng.integers(-300, 300, n),  # every exponent
        rng.integers(-3, 4, n) * 0.0,  # 0.0 and -0.0 only
    ])
    check(X, rng.integers(0, 3, n), n_classes=3)


def test_all_missing_constant_and_nominal_columns():
    rng = np.random.default_rng(1)
    n = 300
    nominal_codes = rng.integers(0, 4, n).astype(float)
    nominal_codes[rng.random(n) < 0.2] = np.nan
    X = np.column_stack([np.full(n, np.nan), np.full(n, 2.5), np.full(n, -0.0),
                         nominal_codes, np.full(n, np.nan), rng.normal(size=n)])
    got = check(X, nominal=[(3, 4), (4, 2)])
    assert list(got.missing_rank) == [0, 1, 1, 4, 2, n]


@pytest.mark.parametrize("rows", [[[1.5]], [[np.nan]], [[2.0], [1.0]], [[1.0], [1.0]],
                                  [[np.nan], [-0.0]], [[0.0], [-0.0]]])
def test_tiny_data(rows):
    check(rows)


@pytest.mark.parametrize("run_length", [2, 5, 48, 49, 300, 5000])
def test_values_equal_in_their_top_bits(run_length):
    # Values 1000 + k * 2**-40 agree in their top 33 key bits in runs of 2**11,
    # so the runs are finished by insertion sort or, when long, by a radix sort.
    rng = np.random.default_rng(run_length)
    n = 6000
    k = rng.permutation(n) % run_length + rng.integers(0, 4, n) * (1 << 11)
    column = 1000.0 + k * 2.0 ** -40
    column[rng.random(n) < 0.1] = 1000.0  # and ties among them
    check(np.column_stack([column, -column]))


def test_rows_and_classes_wider_than_32_bits():
    rng = np.random.default_rng(2)
    n, n_classes = 1000, 1 << 23  # 10 row bits + 23 class bits
    X = rng.normal(size=(n, 3)).round(1)
    X[::7, 1] = np.nan
    check(X, rng.integers(0, n_classes, n), n_classes=n_classes)


def test_more_rows_than_the_wide_digits_take():
    rng = np.random.default_rng(3)
    n = presort_module._WIDE_DIGITS_MAX_ROWS + 1000
    X = np.column_stack([rng.uniform(-8, 8, n).round(6), rng.integers(0, 50, n) * 0.5])
    X[::11, 0] = np.nan
    check(X)


def test_threads_give_the_same_words():
    rng = np.random.default_rng(4)
    n, d = 50_000, 6  # enough work for run_chunks to use threads
    X = rng.normal(size=(n, d)).round(3)
    X[rng.random((n, d)) < 0.05] = np.nan
    X[:, 4] = rng.integers(0, 5, n)
    got = check(X, nominal=[(4, 5)], n_threads=2)
    np.testing.assert_array_equal(
        got.words, presort(X, np.arange(n) % 2, 2, (np.arange(d) == 4).astype(np.uint8),
                           np.array([0, 0, 0, 0, 5, 0]), 1).words)


column_values = st.lists(st.one_of(st.sampled_from(SPECIAL), st.floats(width=64)),
                         min_size=1, max_size=60)


@settings(max_examples=60, deadline=None)
@given(st.lists(column_values, min_size=1, max_size=3).filter(
    lambda columns: len({len(c) for c in columns}) == 1))
def test_any_floats(columns):
    check(np.array(columns).T)


@pytest.mark.parametrize("bad", [4.0, -1.0, np.inf])
def test_nominal_value_that_is_no_category_is_an_error(bad):
    X = np.array([[0.0], [3.0], [bad]])
    with pytest.raises(DtreeError, match="feature 0 is nominal"):
        presort(X, np.zeros(3, np.int64), 2, np.ones(1, np.uint8), np.array([4]), 1)


def test_words_too_wide_are_an_error():
    X = np.arange(8.0)[:, None]
    with pytest.raises(DtreeError, match="bits per packed word"):
        presort(X, np.zeros(8, np.int64), 1 << 62, np.zeros(1, np.uint8), np.zeros(1), 1)
