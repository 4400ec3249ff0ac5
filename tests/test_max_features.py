"""Features drawn at random per node (`max_features`): runtime data, reproducible by
seed whatever the number of threads or the driver, each subset equally likely."""
from __future__ import annotations

import math

import numpy as np
import pytest

from dtcli import criteria
from dtcli.engine import builder
from dtcli.engine.builder import StopRules, grow, prepare
from test_grow_many import TREE_ARRAYS, assert_same_tree, prepared_of


def noisy(n=600, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X.sum(axis=1) + rng.normal(0, 1.0, n) > 0).astype(np.int64)
    return prepare(X, y, 2, np.zeros(d, np.uint8), np.zeros(d, np.int64))


def test_max_features_at_least_the_number_of_features_is_no_sampling(load_example):
    prepared = prepared_of(load_example("vehicle.arff"))
    engine = criteria.get("entropy").engine()
    d = prepared.is_nominal.shape[0]
    assert_same_tree(grow(prepared, engine, StopRules(max_features=d), seed=5),
                     grow(prepared, engine, StopRules()))


@pytest.mark.parametrize("n_threads", [1, 2])
def test_a_seed_grows_one_tree_whatever_the_threads_and_the_driver(n_threads, load_example,
                                                                   monkeypatch):
    prepared = prepared_of(load_example("balanced/segment.csv"))
    engine = criteria.get("gini").engine()
    rules = StopRules(max_features=4)
    reference = grow(prepared, engine, rules, n_threads=1, seed=42)
    monkeypatch.setattr(builder, "SUBTREE_BYTES", 0)  # every node by the level driver
    assert_same_tree(grow(prepared, engine, rules, n_threads=n_threads, seed=42), reference)
    monkeypatch.setattr(builder, "SUBTREE_BYTES", 1 << 62)  # the whole tree in one call
    assert_same_tree(grow(prepared, engine, rules, n_threads=n_threads, seed=42), reference)
    other = grow(prepared, engine, rules, n_threads=n_threads, seed=43)
    assert any(not np.array_equal(getattr(other, a), getattr(reference, a))
               for a in TREE_ARRAYS)


def test_one_feature_a_node_is_each_feature_equally_often():
    """With max_features=1 the root splits on the one feature drawn: over many seeds
    every feature is the root's about equally often (all six can split)."""
    prepared = noisy()
    engine = criteria.get("gini").engine()
    seeds = 600
    roots = [int(grow(prepared, engine, StopRules(max_depth=1, max_features=1),
                      seed=s).feature[0]) for s in range(seeds)]
    counts = np.bincount(roots, minlength=6)
    expected = seeds / 6
    statistic = float(((counts - expected) ** 2 / expected).sum())
    assert statistic < 20.5  # chi-square, 5 degrees of freedom: p = 0.001


def test_two_of_six_features_at_the_root_are_the_best_of_a_random_pair():
    """With max_features=2 the root takes the better of the two features drawn, so the
    best feature overall is the root exactly when it is drawn: 1 - C(5,2) / C(6,2) = 1/3
    of the pairs."""
    prepared = noisy(d=6, seed=1)
    engine = criteria.get("gini").engine()
    best = int(grow(prepared, engine, StopRules(max_depth=1)).feature[0])
    seeds = 900
    wins = sum(int(grow(prepared, engine, StopRules(max_depth=1, max_features=2),
                        seed=s).feature[0]) == best for s in range(seeds))
    # within 4.5 standard deviations of the binomial count
    assert abs(wins - seeds / 3) < 4.5 * math.sqrt(seeds * (1 / 3) * (2 / 3))
