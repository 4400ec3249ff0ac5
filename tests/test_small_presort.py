"""The one-pass presort of small numeric data gives presort.presort's words and ranks
exactly (ties, missing values, -0.0 and +0.0, constant columns)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtcli.engine.presort import presort
from dtcli.engine.small_presort import presort_small

FIELDS = ("words", "missing_rank")


def assert_same_presort(X, y, n_classes):
    nominal = np.zeros(X.shape[1], np.uint8)
    categories = np.zeros(X.shape[1], np.int64)
    ours = presort_small(X, y, n_classes, nominal, categories, 1)
    reference = presort(X, y, n_classes, nominal, categories, 1)
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(ours, name), getattr(reference, name),
                                      err_msg=name)
    for name in ("key_shift", "class_shift", "class_mask", "row_mask"):
        assert getattr(ours, name) == getattr(reference, name), name


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 4), st.integers(2, 5), st.integers(0, 2**32 - 1))
def test_small_presort_is_presort(n_rows, n_features, n_classes, seed):
    rng = np.random.default_rng(seed)
    # few distinct values (ties), some missing, both zeros
    X = rng.choice([-1.5, -0.0, 0.0, 0.25, 2.0, 7.0, np.nan], size=(n_rows, n_features))
    X[:, 0] = rng.normal(size=n_rows)
    y = rng.integers(0, n_classes, n_rows).astype(np.int64)
    assert_same_presort(X, y, n_classes)


@pytest.mark.parametrize("example", ["ecoli2.dat", "iris.csv"])
def test_small_presort_of_the_examples(example, load_example):
    data = load_example(example)
    assert_same_presort(data.X, data.y, len(data.classes))
