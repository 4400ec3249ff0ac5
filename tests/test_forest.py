"""RandomForestClassifier: its trees against single trees and brute force, its bootstrap,
out-of-bag score and class weights against computations by hand, its accuracy against
scikit-learn's forest (a test-only dependency)."""
from __future__ import annotations

import numpy as np
import pytest

from dtcli import DecisionTreeClassifier, RandomForestClassifier
from dtcli.engine.rng import draw_features
from dtcli.ensemble.bootstrap import bootstrap_counts
from dtcli.engine.tree import TREE_LEAF


def noisy(n=150, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).round(2)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(0, 0.7, n) > 0).astype(np.int64)
    return X, y


def counts_of(forest, index, n_rows):
    return bootstrap_counts(forest._seed, index, n_rows, n_rows)


def test_without_bootstrap_or_feature_draws_every_tree_is_the_single_tree(load_example,
                                                                         same_tree):
    data = load_example("ecoli2.dat")
    single = DecisionTreeClassifier().fit_dataset(data).tree_
    forest = RandomForestClassifier(n_estimators=3, bootstrap=False, max_features=None,
                                    random_state=0).fit_dataset(data)
    assert all(same_tree(e.tree_, single) for e in forest.estimators_)


def test_a_tree_of_bootstrap_counts_is_the_tree_of_the_duplicated_rows(load_example):
    data = load_example("ecoli2.dat")
    forest = RandomForestClassifier(n_estimators=2, max_features=None, criterion="entropy",
                                    random_state=7).fit_dataset(data)
    for index, estimator in enumerate(forest.estimators_):
        counts = counts_of(forest, index, data.y.shape[0])
        assert 0 < (counts == 0).sum() < data.y.shape[0]
        duplicated = DecisionTreeClassifier(criterion="entropy").fit(
            np.repeat(data.X, counts, axis=0), np.repeat(data.y, counts)).tree_
        ours = estimator.tree_
        for name in ("children_left", "children_right", "feature", "counts"):
            np.testing.assert_array_equal(getattr(ours, name), getattr(duplicated, name))
        np.testing.assert_array_equal(ours.threshold, duplicated.threshold)
        # a drawn row counts once in n_node_samples, and its draws in counts
        assert ours.n_node_samples[0] == (counts > 0).sum()


def test_bootstrap_counts_are_n_draws_with_replacement():
    counts = bootstrap_counts(3, 1, 20_000, 20_000)
    assert counts.sum() == 20_000
    assert abs((counts == 0).mean() - np.exp(-1)) < 0.01  # P(never drawn) -> 1/e
    assert not np.array_equal(counts, bootstrap_counts(3, 2, 20_000, 20_000))
    assert bootstrap_counts(3, 1, 50, 10).sum() == 10


def node_slots(tree):
    """Each node's slot in the engine's node store (nodes.py: the children of a node
    whose rows [start, end) split at row p are at 2p - 1 and 2p)."""
    slots, starts = np.zeros(tree.node_count, np.int64), np.zeros(tree.node_count, np.int64)
    for node in range(tree.node_count):
        left, right = tree.children_left[node], tree.children_right[node]
        if left == TREE_LEAF:
            continue
        split_row = starts[node] + tree.n_node_samples[left]
        slots[left], slots[right] = 2 * split_row - 1, 2 * split_row
        starts[left], starts[right] = starts[node], split_row
    return slots


def test_each_node_splits_on_the_best_of_the_features_drawn_for_it(reference):
    X, y = noisy()
    forest = RandomForestClassifier(n_estimators=2, max_features=2, random_state=11).fit(X, y)
    for index, estimator in enumerate(forest.estimators_):
        tree = estimator.tree_
        counts = counts_of(forest, index, y.shape[0])
        rows, labels = np.repeat(X, counts, axis=0), np.repeat(y, counts)
        indptr, nodes = estimator.decision_path_arrays(rows)
        on_path = np.zeros((rows.shape[0], tree.node_count), bool)
        on_path[np.repeat(np.arange(rows.shape[0]), np.diff(indptr)), nodes] = True
        split = np.flatnonzero(tree.children_left != TREE_LEAF)
        mask = np.empty((X.shape[1], split.shape[0]), np.uint8)
        draw_features((np.int64(forest._seed), np.int64(index)), node_slots(tree)[split],
                      2, mask)
        for j, node in enumerate(split):
            drawn = np.flatnonzero(mask[:, j])
            assert drawn.shape[0] == 2 and tree.feature[node] in drawn
            here = on_path[:, node]
            best = {f: max(s for s, _, _ in reference.numeric_candidates(
                rows[here, f], list(labels[here]), 2)) for f in drawn}
            assert best[tree.feature[node]] == pytest.approx(max(best.values()), abs=1e-12)
            assert tree.score[node] == pytest.approx(max(best.values()), abs=1e-12)


def test_out_of_bag_score_by_hand():
    X, y = noisy(seed=2)
    forest = RandomForestClassifier(n_estimators=20, oob_score=True, random_state=5).fit(X, y)
    total, votes = np.zeros((y.shape[0], 2)), np.zeros(y.shape[0])
    for index, estimator in enumerate(forest.estimators_):
        for row in np.flatnonzero(counts_of(forest, index, y.shape[0]) == 0):
            total[row] += estimator.predict_proba(X[row:row + 1])[0]
            votes[row] += 1
    assert votes.min() > 0
    np.testing.assert_allclose(forest.oob_decision_function_, total / votes[:, None])
    assert forest.oob_score_ == np.mean(np.argmax(total, axis=1) == y)


def test_predict_proba_is_the_mean_of_the_trees():
    X, y = noisy(seed=3)
    forest = RandomForestClassifier(n_estimators=5, random_state=1).fit(X, y)
    mean = np.mean([e.predict_proba(X) for e in forest.estimators_], axis=0)
    np.testing.assert_allclose(forest.predict_proba(X), mean)
    np.testing.assert_array_equal(forest.predict(X), np.argmax(mean, axis=1))
    importances = np.mean([e.feature_importances_ for e in forest.estimators_], axis=0)
    np.testing.assert_allclose(forest.feature_importances_, importances / importances.sum())


def test_balanced_equals_the_explicit_weights(load_example, same_tree):
    data = load_example("ecoli2.dat")
    counts = np.bincount(data.y)
    explicit = {label: len(data.y) / (2 * counts[k]) for k, label in enumerate(data.classes)}
    forests = [RandomForestClassifier(n_estimators=3, class_weight=weights, random_state=4)
               .fit_dataset(data) for weights in ("balanced", explicit)]
    assert all(same_tree(a.tree_, b.tree_)
               for a, b in zip(forests[0].estimators_, forests[1].estimators_))


def test_balanced_subsample_balances_each_bootstrap_sample(load_example, same_tree):
    data = load_example("ecoli2.dat")
    forest = RandomForestClassifier(n_estimators=2, class_weight="balanced_subsample",
                                    max_features=None, random_state=4).fit_dataset(data)
    for index, estimator in enumerate(forest.estimators_):
        counts = counts_of(forest, index, data.y.shape[0])
        per_class = np.bincount(data.y, weights=counts)
        weights = counts * (counts.sum() / (2 * per_class))[data.y]
        by_hand = DecisionTreeClassifier().fit_dataset(data, sample_weight=weights)
        assert same_tree(estimator.tree_, by_hand.tree_)


def test_one_seed_one_forest_whatever_the_threads(load_example, same_tree):
    data = load_example("balanced/segment.csv")
    forests = [RandomForestClassifier(n_estimators=4, n_jobs=jobs, random_state=9)
               .fit_dataset(data) for jobs in (1, 2)]
    assert all(same_tree(a.tree_, b.tree_)
               for a, b in zip(forests[0].estimators_, forests[1].estimators_))
    np.testing.assert_array_equal(forests[0].proba_from_matrix(data.X),
                                  forests[1].proba_from_matrix(data.X))
    other = RandomForestClassifier(n_estimators=1, random_state=10).fit_dataset(data)
    assert not same_tree(other.estimators_[0].tree_, forests[0].estimators_[0].tree_)


def test_options_are_checked():
    X, y = noisy()
    for bad in ({"n_estimators": 0}, {"max_samples": 0}, {"max_samples": 1.5},
                {"oob_score": True, "bootstrap": False}, {"max_features": 7},
                {"max_samples": 10, "bootstrap": False}):
        with pytest.raises(ValueError):
            RandomForestClassifier(**bad).fit(X, y)
    forest = RandomForestClassifier(n_estimators=2, max_samples=0.5, random_state=0).fit(X, y)
    assert all(e.tree_.counts[0].sum() == 75 for e in forest.estimators_)


sklearn = pytest.importorskip("sklearn")


@pytest.mark.parametrize("example", ["balanced/wdbc.csv", "balanced/sonar.csv",
                                     "imbalanced/haberman.dat"])
def test_accuracy_is_scikit_learns_within_the_cross_validation_noise(example, load_example):
    from sklearn.ensemble import RandomForestClassifier as SkForest
    from sklearn.model_selection import StratifiedKFold

    data = load_example(example)
    folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(data.X, data.y))

    def accuracies(make):
        return np.array([make().fit(data.X[train], data.y[train])
                         .score(data.X[test], data.y[test]) for train, test in folds])

    ours = accuracies(lambda: RandomForestClassifier(n_estimators=50, random_state=1))
    theirs = accuracies(lambda: SkForest(n_estimators=50, random_state=1))
    noise = 2 * np.std(theirs - ours, ddof=1) / np.sqrt(len(folds)) + 0.01
    assert abs(ours.mean() - theirs.mean()) <= noise
