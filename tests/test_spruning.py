"""S-pruning (dtcli/pruning/significance.py): permutation p-values against every label
arrangement of tiny nodes, calibration on pure noise, the default mode against the
exact one, and trees independent of the number of threads."""
from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pytest
from scipy.stats import binom

from dtcli import criteria
from dtcli.engine.builder import StopRules, grow, prepare
from dtcli.pruning.permutation import sequential_bounds
from dtcli.pruning.significance import RISK, s_prune
from dtcli.engine.tree import TREE_LEAF


def prepared_of(X, y):
    d = X.shape[1]
    return prepare(np.ascontiguousarray(X, dtype=np.float64), y.astype(np.int64), 2,
                   np.zeros(d, np.uint8), np.zeros(d, np.int64))


def fit(X, y, name, rules=StopRules()):
    """The tree grown without a test, the prepared data and the criterion's engine form."""
    prepared = prepared_of(X, y)
    engine = criteria.get(name).engine()
    return grow(prepared, engine, rules), prepared, engine


def _impurity(name, c0, c1):
    """Gini or Shannon entropy (nats) of count arrays, elementwise, by hand."""
    n = c0 + c1
    p0, p1 = c0 / n, c1 / n
    if name == "gini":
        return 1.0 - p0 ** 2 - p1 ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.nan_to_num(p0 * np.log(p0)) - np.nan_to_num(p1 * np.log(p1))


def split_scores(name, n0, n1, l0, l1):
    """Scores of two-class splits from the parent's and the left child's class counts
    (arrays): the impurity decrease, or HDDT's distance squared (a p-value only sees
    the order of the scores)."""
    r0, r1 = n0 - l0, n1 - l1
    if name == "hddt":
        return ((np.sqrt(l1 / n1) - np.sqrt(l0 / n0)) ** 2
                + (np.sqrt(r1 / n1) - np.sqrt(r0 / n0)) ** 2)
    n, n_left = n0 + n1, l0 + l1
    return (_impurity(name, n0, n1) - n_left / n * _impurity(name, l0, l1)
            - (n - n_left) / n * _impurity(name, r0, r1))


def partitions(x, min_leaf):
    """Every split of a numeric column the search may take, as masks of the rows sent
    left: each boundary between present values with the missing rows right and (if
    any) left, and present against missing."""
    missing = np.isnan(x)
    values = np.unique(x[~missing])
    out = [(~missing & (x <= a)) | (missing & to_left)
           for a in values[:-1] for to_left in ((False, True) if missing.any() else (False,))]
    if missing.any():
        out.append(~missing)
    return np.array([p for p in out if min_leaf <= p.sum() <= len(x) - min_leaf])


def subsets(x):
    """Every split of a nominal column without missing values: the rows of each
    proper subset of its categories (one of each complementary pair)."""
    present = np.unique(x)
    return np.array([np.isin(x, chosen) for size in range(1, len(present))
                     for chosen in combinations(present[1:], size)]
                    + [np.isin(x, present[:1])])


def enumerated_p_value(x, y, name, min_leaf=1, splits=None):
    """The permutation p-value over all label arrangements: the fraction whose best
    split (of `splits`, masks of the rows sent left; by default every numeric split)
    scores at least the observed labels' best (relative tolerance 1e-9)."""
    splits = (partitions(x, min_leaf) if splits is None else splits).astype(np.int64)
    n, n1 = len(y), int(y.sum())
    arrangements = np.zeros((math.comb(n, n1), n), np.int64)
    for i, ones in enumerate(combinations(range(n), n1)):
        arrangements[i, list(ones)] = 1
    left_ones = arrangements @ splits.T  # (arrangements, splits)
    left_zeros = splits.sum(axis=1)[None, :] - left_ones
    best = split_scores(name, n - n1, n1, left_zeros, left_ones).max(axis=1)
    observed = split_scores(name, n - n1, n1, splits @ (1 - y), splits @ y).max()
    return float(np.mean(best >= observed - 1e-9 * (1 + abs(observed))))


def tiny_node(seed, n=12, with_missing=False):
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(size=n), 1)  # a few tied values
    y = (x + rng.normal(scale=0.8, size=n) > 0).astype(np.int64)
    y[:2] = (0, 1)  # both classes
    if with_missing:
        x[rng.choice(n, 2, replace=False)] = np.nan
    return x, y


@pytest.mark.parametrize("name, with_missing", [("gini", False), ("gini", True),
                                                ("hddt", True)])
def test_exact_mode_estimates_the_p_value_of_every_label_arrangement(name, with_missing):
    shuffles = 4000
    for seed in range(3):
        x, y = tiny_node(seed, with_missing=with_missing)
        prepared, engine = prepared_of(x[:, None], y), criteria.get(name).engine()
        truth = enumerated_p_value(x, y, name)
        result = s_prune(prepared, engine, StopRules(max_depth=1), significance=0.5,
                         permutations=shuffles, mode="exact", seed=seed)
        assert result.n_shuffles[0] == shuffles
        # the estimate is a binomial proportion around the true p-value
        assert abs(result.p_values[0] - truth) <= 4 * math.sqrt(truth * (1 - truth) / shuffles) \
            + 1e-9, (seed, truth)


def test_a_nominal_split_is_tested_over_every_subset_of_its_categories():
    """For two classes the engine's ordering of the categories finds the best subset
    of a concave impurity (Breiman et al. 1984): the reference tries every one."""
    shuffles = 4000
    rng = np.random.default_rng(4)
    for seed in range(2):
        x = rng.integers(0, 4, 12).astype(float)
        y = ((x >= 2) ^ (rng.random(12) < 0.2)).astype(np.int64)
        y[:2] = (0, 1)
        prepared = prepare(x[:, None], y, 2, np.ones(1, np.uint8), np.full(1, 4, np.int64))
        engine = criteria.get("gini").engine()
        truth = enumerated_p_value(x, y, "gini", splits=subsets(x))
        result = s_prune(prepared, engine, StopRules(max_depth=1), significance=0.5,
                         permutations=shuffles, mode="exact", seed=seed)
        assert abs(result.p_values[0] - truth) <= 4 * math.sqrt(truth * (1 - truth) / shuffles) \
            + 1e-9, (seed, truth)


@pytest.mark.parametrize("name", ["gini", "entropy", "hddt"])
def test_default_mode_counts_the_p_value_of_two_class_decreases_exactly(name):
    for seed in range(4):
        x, y = tiny_node(seed, n=14)
        prepared, engine = prepared_of(x[:, None], y), criteria.get(name).engine()
        # at significance 0 no bound accepts the node: the lattice count decides
        result = s_prune(prepared, engine, StopRules(max_depth=1), significance=0.0, seed=seed)
        assert result.n_shuffles[0] == 0
        assert result.p_values[0] == pytest.approx(enumerated_p_value(x, y, name), abs=1e-9)


@pytest.mark.parametrize("name", ["gini", "entropy", "hddt"])
def test_the_hypergeometric_bound_is_at_least_the_p_value(name):
    checked = 0
    for seed in range(8):
        x, y = tiny_node(seed, n=14, with_missing=seed % 2 == 1)
        prepared, engine = prepared_of(x[:, None], y), criteria.get(name).engine()
        # at significance 1 the default mode accepts any node whose bound is <= 1, unshuffled
        result = s_prune(prepared, engine, StopRules(max_depth=1), significance=1.0, seed=seed)
        if result.n_shuffles[0] == 0 and not math.isnan(result.p_values[0]):
            assert result.p_values[0] >= enumerated_p_value(x, y, name)
            checked += 1
    assert checked >= 4


def test_sequential_bounds_are_clopper_pearson_boundaries():
    t, s = 200, 0.05
    split_at_most, leaf_from = sequential_bounds(np.int64(t), s, RISK)
    level = RISK / t
    for n in (1, 10, 57, 130, 200):
        g = np.arange(n + 1)
        splits = g[binom.cdf(g, n, s) <= level]
        assert split_at_most[n] == (splits.max() if splits.size else -1)
        leaves = g[binom.sf(g - 1, n, s) <= level]
        assert leaf_from[n] == (leaves.min() if leaves.size else n + 1)


@pytest.mark.parametrize("mode", ["exact", "default"])
def test_on_pure_noise_the_root_splits_in_about_a_fraction_s_of_seeds(mode):
    s, shuffles, seeds = 0.2, 40, 150
    split = 0
    for seed in range(seeds):
        rng = np.random.default_rng(1000 + seed)
        X = rng.normal(size=(60, 1))  # one feature: the test sees no choice among features
        y = rng.integers(0, 2, 60)
        prepared, engine = prepared_of(X, y), criteria.get("gini").engine()
        result = s_prune(prepared, engine, StopRules(max_depth=1), significance=s,
                         permutations=shuffles, mode=mode, seed=seed)
        split += result.tree.node_count > 1
    # exact: P(at most s t of t shuffles reach a continuous null statistic) is
    # (floor(s t) + 1) / (t + 1); ties only lower it
    expected = (math.floor(s * shuffles) + 1) / (shuffles + 1)
    spread = 4 * math.sqrt(expected * (1 - expected) / seeds)
    assert s - spread <= split / seeds <= expected + spread


@pytest.mark.parametrize("name", ["gini", "hddt"])
def test_significance_one_keeps_the_whole_tree(name):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(200, 3))
    y = rng.integers(0, 2, 200)
    tree, prepared, engine = fit(X, y, name)
    for mode in ("exact", "default"):
        result = s_prune(prepared, engine, StopRules(), significance=1.0,
                         permutations=20, mode=mode, seed=3)
        for array in tree.ARRAYS:
            np.testing.assert_array_equal(getattr(result.tree, array), getattr(tree, array))
        assert (result.n_shuffles[tree.children_left != TREE_LEAF] >= 0).all()


def decided_nodes(result) -> dict:
    """{path from the root ("", "L", "LR", ...): (p-value, shuffles, stays split)} of every
    node the test decided: a node's identity across trees pruned differently."""
    tree, out, stack = result.tree, {}, [(0, "")]
    while stack:
        node, path = stack.pop()
        split = tree.children_left[node] != TREE_LEAF
        if result.n_shuffles[node] >= 0:
            out[path] = (result.p_values[node], result.n_shuffles[node], split)
        if split:
            stack += [(tree.children_left[node], path + "L"),
                      (tree.children_right[node], path + "R")]
    return out


@pytest.mark.parametrize("name", ["gini", "hddt"])
def test_both_modes_decide_alike_on_many_random_datasets(name):
    """Missing values and HDDT keep nodes from the exact counts: the default mode's
    sequential stops decide them."""
    s, shuffles = 0.05, 200
    band = 3 * math.sqrt(s * (1 - s) / shuffles) + 1 / shuffles
    compared = differ = 0
    exact_cost = default_cost = stopped_early = 0
    for seed in range(25):
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(300, 3))
        y = (X[:, 0] * rng.uniform(0, 1.5) + rng.normal(size=300) > 0).astype(np.int64)
        X[rng.random(X.shape) < 0.1] = np.nan
        prepared, engine = prepared_of(X, y), criteria.get(name).engine()
        exact, default = (decided_nodes(s_prune(prepared, engine, StopRules(), significance=s,
                                               permutations=shuffles, mode=mode, seed=seed))
                          for mode in ("exact", "default"))
        both = sorted(exact.keys() & default.keys())
        disagree = [path for path in both if exact[path][2] != default[path][2]]
        # a disagreement is a node whose exact estimate is within Monte Carlo error of s
        assert all(abs(exact[path][0] - s) <= band for path in disagree), seed
        compared += len(both)
        differ += len(disagree)
        exact_cost += sum(n for _, n, _ in exact.values() if n > 0)
        default_cost += sum(default[path][1] for path in both)
        stopped_early += sum(0 < n < shuffles for _, n, _ in default.values())
    assert compared >= 100 and differ <= 0.1 * compared
    assert default_cost < 0.8 * exact_cost and stopped_early >= 30


def test_the_same_tree_for_any_number_of_threads():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(6000, 3))
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) * 0.3 + rng.normal(size=6000) > 0)
    tree, prepared, engine = fit(X, y.astype(np.int64), "gini")
    results = [s_prune(prepared, engine, StopRules(), significance=0.05,
                       permutations=100, seed=5, n_threads=n) for n in (1, 2)]
    np.testing.assert_array_equal(results[0].p_values, results[1].p_values)
    np.testing.assert_array_equal(results[0].n_shuffles, results[1].n_shuffles)
    for array in tree.ARRAYS:
        np.testing.assert_array_equal(getattr(results[0].tree, array),
                                      getattr(results[1].tree, array))
    assert 1 < results[0].tree.node_count < tree.node_count


# --- the estimator, the model file and export ------------------------------------------

def _noisy(seed=0, n=200):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + rng.normal(0, 2.0, n) > 0).astype(np.int64)
    return X, y


def test_the_estimators_s_pruning_is_s_prune_of_its_data():
    from dtcli import DecisionTreeClassifier

    X, y = _noisy()
    model = DecisionTreeClassifier(pruning="s-pruning", permutations=200, random_state=7,
                                   n_jobs=1).fit(X, y)
    grown, prepared, engine = fit(X, y, "gini")
    from dtcli.engine.rng import seed_of

    expected = s_prune(prepared, engine, StopRules(), None, permutations=200, seed=seed_of(7),
                       n_threads=1)
    np.testing.assert_array_equal(model.tree_.children_left, expected.tree.children_left)
    np.testing.assert_array_equal(model.tree_.counts, expected.tree.counts)
    recorded = np.array([np.nan if p is None else p for p in model.pruning_["p_values"]])
    np.testing.assert_array_equal(recorded, expected.p_values)
    assert expected.tree.node_count < grown.node_count  # noise: the test cut something


def test_p_values_round_trip_through_the_model_file_and_damage_is_refused(tmp_path):
    import json

    from dtcli import DecisionTreeClassifier
    from dtcli.errors import ModelError
    from dtcli.model import load_model, model_to_dict, save_model

    X, y = _noisy(1)
    model = DecisionTreeClassifier(pruning="s-pruning", permutations=100, n_jobs=1).fit(X, y)
    path = tmp_path / "m.json"
    save_model(model, str(path))
    loaded, _ = load_model(str(path))
    assert loaded.pruning_["p_values"] == model.pruning_["p_values"]
    assert loaded.pruning == "s-pruning" and loaded.permutations == 100
    for damage in ([0.5], [1.5] * model.tree_.node_count):
        doc = model_to_dict(model)
        doc["pruning"]["p_values"] = damage
        path.write_text(json.dumps(doc))
        with pytest.raises(ModelError, match="p_values"):
            load_model(str(path))
