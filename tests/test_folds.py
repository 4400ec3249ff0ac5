"""Property tests of dtcli.sampling.folds."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtcli.sampling.folds import repeated_stratified_kfold, stratified_kfold


@st.composite
def labels_and_k(draw):
    n = draw(st.integers(2, 60))
    labels = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)))
    return labels, draw(st.integers(2, min(n, 10)))


@settings(max_examples=150, deadline=None)
@given(labels_and_k(), st.integers(0, 2**32 - 1))
def test_folds_partition_the_samples_and_are_stratified(case, seed):
    labels, k = case
    folds = stratified_kfold(labels, k, seed)
    assert len(folds) == k
    tests = np.concatenate([test for _, test in folds])
    assert np.array_equal(np.sort(tests), np.arange(len(labels)))  # each sample tested once
    for train, test in folds:
        assert train.dtype == test.dtype == np.int64
        assert np.array_equal(np.sort(np.concatenate([train, test])), np.arange(len(labels)))
        assert np.array_equal(train, np.sort(train)) and np.array_equal(test, np.sort(test))
    sizes = [len(test) for _, test in folds]
    assert max(sizes) - min(sizes) <= 1
    for label in np.unique(labels):
        per_fold = [np.sum(labels[test] == label) for _, test in folds]
        assert max(per_fold) - min(per_fold) <= 1


@settings(max_examples=50, deadline=None)
@given(labels_and_k(), st.integers(0, 2**32 - 1))
def test_folds_are_deterministic_for_a_seed(case, seed):
    labels, k = case
    first, second = stratified_kfold(labels, k, seed), stratified_kfold(labels, k, seed)
    for (train_a, test_a), (train_b, test_b) in zip(first, second):
        assert np.array_equal(train_a, train_b) and np.array_equal(test_a, test_b)


def test_different_seeds_give_different_folds():
    labels = np.repeat([0, 1, 2], 20)
    splits = {
        tuple(tuple(test) for _, test in stratified_kfold(labels, 5, seed)) for seed in range(10)
    }
    assert len(splits) == 10


def test_string_labels_and_classes_smaller_than_k():
    labels = np.array(["a"] * 7 + ["b"] * 2)
    folds = stratified_kfold(labels, 4, seed=1)
    assert sorted(int(np.sum(labels[test] == "b")) for _, test in folds) == [0, 0, 1, 1]
    assert sorted(len(test) for _, test in folds) == [2, 2, 2, 3]


@pytest.mark.parametrize("k", [1, 0, 6])
def test_k_outside_two_to_n_is_rejected(k):
    with pytest.raises(ValueError, match="between 2 and the number of samples"):
        stratified_kfold(np.arange(5), k, seed=0)


def test_repeated_folds_are_deterministic_distinct_and_extendable():
    labels = np.repeat([0, 1], [30, 12])
    three = repeated_stratified_kfold(labels, 5, 3, seed=42)
    again = repeated_stratified_kfold(labels, 5, 3, seed=42)
    five = repeated_stratified_kfold(labels, 5, 5, seed=42)
    assert len(three) == 3 and all(len(repeat) == 5 for repeat in three)
    as_tuples = [[tuple(test) for _, test in repeat] for repeat in three]
    assert as_tuples == [[tuple(test) for _, test in repeat] for repeat in again]
    assert as_tuples == [[tuple(test) for _, test in repeat] for repeat in five[:3]]
    assert len({tuple(repeat) for repeat in as_tuples}) == 3


def test_repeats_must_be_positive():
    with pytest.raises(ValueError, match="repeats"):
        repeated_stratified_kfold(np.arange(10), 2, 0, seed=0)
