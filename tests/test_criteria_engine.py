"""Every split criterion inside the engine: exhaustive search, the papers' examples,
limits between criteria, skew insensitivity.

Expected splits come from a brute-force search over every threshold in plain
Python (scored by `registry.score`, which test_criteria_reference.py ties to
the papers) or from the papers, never from the engine itself.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dtcli import DecisionTreeClassifier
from dtcli.criteria import CRITERIA, score
from test_criteria_reference import reference_score

TIE = 1e-9  # equal scores computed in different orders differ by far less


def fit_root(X, y, name, params=None, sample_weight=None, min_leaf=1):
    """The root split of a depth-1 tree: (feature, threshold, missing_left, score) or None."""
    model = DecisionTreeClassifier(criterion=name, criterion_params=params, max_depth=1,
                                   min_samples_leaf=min_leaf)
    tree = model.fit(np.asarray(X, dtype=np.float64), np.asarray(y),
                     sample_weight=sample_weight).tree_
    if tree.node_count == 1:
        return None
    return (int(tree.feature[0]), float(tree.threshold[0]), bool(tree.missing_left[0]),
            float(tree.score[0]))


def class_counts(labels, n_classes):
    return [float(np.count_nonzero(labels == k)) for k in range(n_classes)]


def all_splits(X, y, n_classes, name, params=None, min_leaf=1):
    """Every split the engine may choose, scored: (score, feature, threshold, missing_left,
    has_missing). Thresholds are midpoints of adjacent distinct present values; missing
    rows go right or left; a partly missing column also offers present-left/missing-right
    (threshold inf). Both children hold at least min_leaf rows."""
    y = np.asarray(y)
    parent = class_counts(y, n_classes)
    out = []
    for f in range(X.shape[1]):
        x = X[:, f]
        missing = np.isnan(x)
        values = np.unique(x[~missing])
        candidates = [(a / 2 + b / 2, ml) for a, b in zip(values[:-1], values[1:])
                      for ml in ((False, True) if missing.any() else (False,))]
        if missing.any() and values.size:
            candidates.append((math.inf, False))
        for threshold, missing_left in candidates:
            goes_left = np.where(missing, missing_left, x <= threshold)
            if min(goes_left.sum(), (~goes_left).sum()) < min_leaf:
                continue
            left = class_counts(y[goes_left], n_classes)
            right = [p - a for p, a in zip(parent, left)]
            out.append((score(name, parent, left, right, params), f, threshold, missing_left,
                        bool(missing.any())))
    return out


@st.composite
def tied_data(draw):
    """Small numeric data with many ties (few distinct values), runs of one class and,
    sometimes, missing values."""
    n = draw(st.integers(4, 24))
    d = draw(st.integers(1, 3))
    k = draw(st.integers(2, 4))
    distinct = draw(st.integers(2, 6))
    cell = st.integers(0, distinct - 1).map(float)
    if draw(st.booleans()):
        cell = st.one_of(cell, cell, cell, st.just(math.nan))
    X = np.array(draw(st.lists(st.lists(cell, min_size=d, max_size=d), min_size=n,
                               max_size=n)))
    y = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    y[:2] = [0, 1]  # at least two classes
    if draw(st.booleans()):  # labels sorted along feature 0: long runs of one class
        y[np.argsort(np.nan_to_num(X[:, 0], nan=99.0), kind="stable")] = np.sort(y)
    return X, np.unique(y, return_inverse=True)[1], k


def assert_root_is_best(X, y, name, params=None, min_leaf=1):
    """The engine's root split scores the best of all_splits and is one of its winners."""
    n_classes = int(y.max()) + 1
    candidates = all_splits(X, y, n_classes, name, params, min_leaf=min_leaf)
    root = fit_root(X, y, name, params, min_leaf=min_leaf)
    best = max((c[0] for c in candidates), default=-math.inf)
    if best < -TIE:
        assert root is None
        return
    assert root is not None
    feature, threshold, missing_left, root_score = root
    assert root_score == pytest.approx(best, rel=TIE, abs=TIE)
    winners = [(f, t, ml, has_missing) for s, f, t, ml, has_missing in candidates
               if s >= best - TIE * (1 + abs(best))]
    assert any(f == feature and t == threshold and (ml == missing_left or not has_missing)
               for f, t, ml, has_missing in winners)


# Boundary-point skipping is on for the criteria that set it: this search is the
# test that it never loses the best split (Fayyad & Irani's argument, per criterion).
@pytest.mark.parametrize("name", list(CRITERIA))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=tied_data())
def test_engine_finds_the_best_threshold(name, data):
    X, y, k = data
    assert_root_is_best(X, y, name)


@st.composite
def run_data(draw):
    """One feature of distinct values whose classes, in its order, come in runs of 1-6
    rows: runs that straddle the rows min_samples_leaf cuts off."""
    runs = draw(st.lists(st.tuples(st.integers(0, 2), st.integers(1, 6)), min_size=2,
                         max_size=8))
    y = np.array([k for k, length in runs for _ in range(length)])
    if np.unique(y).size < 2:
        y[0] = (y[0] + 1) % 3  # a second class
    X = draw(st.permutations(range(y.size)))
    return np.array(X, dtype=np.float64)[:, None], np.unique(y[X], return_inverse=True)[1]


# The skipping keeps the thresholds next to those min_samples_leaf cuts off. (It is
# the engine's, the same for every criterion. Renyi and PR at gamma <= 1, which skip
# too, are left to test_criteria_reference's run-ends test and to the search away
# from the defaults below: another compiled form costs the suite about a minute.)
@pytest.mark.parametrize("name", [name for name, c in CRITERIA.items()
                                  if c.flags.boundary_points])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=run_data(), min_leaf=st.integers(2, 5))
def test_skipped_runs_never_hide_the_best_split_min_samples_leaf_allows(name, data, min_leaf):
    X, y = data
    assert_root_is_best(X, y, name, min_leaf=min_leaf)


PARAMETERISED = [("tsallis", {"q": 0.5}), ("tsallis", {"q": 3.0}), ("renyi", {"gamma": 0.5}),
                 ("renyi", {"gamma": 3.0}), ("pe", {"alpha": 0.3}), ("pg", {"alpha": 0.4}),
                 ("pt", {"alpha": 0.5, "gamma": 1.5}), ("pr", {"alpha": 0.6, "gamma": 2.5}),
                 ("ge", {"alpha": 0.4, "beta": 0.7}), ("abi", {"alpha": 0.3, "beta": 0.6}),
                 ("tsallis-gain-ratio", {"q": 2.5})]


@pytest.mark.parametrize("name,params", PARAMETERISED,
                         ids=[f"{n}-{'-'.join(map(str, p.values()))}" for n, p in PARAMETERISED])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=tied_data())
def test_engine_finds_the_best_threshold_away_from_defaults(name, params, data):
    X, y, k = data
    n_classes = int(y.max()) + 1
    candidates = all_splits(X, y, n_classes, name, params)
    root = fit_root(X, y, name, params)
    best = max((c[0] for c in candidates), default=-math.inf)
    if best < -TIE:
        assert root is None
        return
    assert root is not None and root[3] == pytest.approx(best, rel=TIE, abs=TIE)


# --- C4.5's average-gain rule (gain-ratio, average_gain=1) ---------------------------------

def screened_best(X, y, n_classes):
    """Brute force of C4.5's rule: every feature's best gain ratio and best information
    gain; the features whose best gain is at least the average of those gains compete.
    Returns (best gain ratio among them, their features reaching it)."""
    ratios, gains = {}, {}
    for name, best in (("gain-ratio", ratios), ("entropy", gains)):
        for s, f, *_ in all_splits(X, y, n_classes, name):
            best[f] = max(best.get(f, -math.inf), s)
    if not gains:
        return None, set()
    average = sum(gains.values()) / len(gains)
    eligible = [f for f in gains if gains[f] >= average - TIE * (1 + abs(average))]
    top = max(ratios[f] for f in eligible)
    return top, {f for f in eligible if ratios[f] >= top - TIE * (1 + abs(top))}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=tied_data())
def test_average_gain_rule_picks_the_best_ratio_among_above_average_gains(data):
    X, y, k = data
    top, features = screened_best(X, y, int(y.max()) + 1)
    root = fit_root(X, y, "gain-ratio", {"average_gain": 1})
    if top is None:
        assert root is None
        return
    assert root is not None
    assert root[3] == pytest.approx(top, rel=TIE, abs=TIE)
    assert root[0] in features


def test_average_gain_rule_overrules_a_split_that_peels_off_few_rows():
    # 100 rows, 50/50. Feature 0 sends 3 rows of class 1 left: gain ratio 0.158 but
    # information gain only 0.021. Feature 1 sends 30 of class 0 and 10 of class 1
    # left: gain ratio 0.128, gain 0.086. The average gain is 0.054, so C4.5's rule
    # leaves only feature 1; plain gain ratio takes feature 0.
    y = np.array([0] * 50 + [1] * 50)
    peel = np.zeros(100)
    peel[[50, 51, 52]] = 1.0
    block = np.ones(100)
    block[list(range(30)) + list(range(50, 60))] = 0.0
    X = np.column_stack([peel, block])
    assert score("gain-ratio", [50, 50], [0, 3], [50, 47]) > score(
        "gain-ratio", [50, 50], [30, 10], [20, 40])
    assert fit_root(X, y, "gain-ratio")[0] == 0
    assert fit_root(X, y, "gain-ratio", {"average_gain": 1})[0] == 1
    # 200 copies: the root is large enough for the level-by-level phase (builder.py)
    big = fit_root(np.tile(X, (200, 1)), np.tile(y, 200), "gain-ratio", {"average_gain": 1})
    assert big[0] == 1


# --- the iHD paper's introduction example ------------------------------------------------------

def intro_dataset():
    """80 rows, classes A/B/C/D = 40/20/10/10. Feature 0 is split Y (A, 5 C and 5 D
    left), feature 1 split X (A and D left): value 0 goes left."""
    y = np.repeat([0, 1, 2, 3], [40, 20, 10, 10])
    split_x = np.isin(y, [1, 2]).astype(float)
    nth = np.arange(80) - np.searchsorted(y, y)  # index within the class
    split_y = ~((y == 0) | ((y >= 2) & (nth < 5)))
    return np.column_stack([split_y.astype(float), split_x]), y


@pytest.mark.parametrize("name", list(CRITERIA))
def test_intro_example_root_feature(name):
    X, y = intro_dataset()
    parent = [40.0, 20.0, 10.0, 10.0]
    s_y = reference_score(name, parent, [40.0, 0, 5, 5], [0, 20.0, 5, 5])
    s_x = reference_score(name, parent, [40.0, 0, 0, 10], [0, 20.0, 10, 0])
    feature, threshold, _, root_score = fit_root(X, y, name)
    assert threshold == 0.5
    expected = 1 if s_x > s_y + TIE else 0  # exact ties go to the lower feature
    assert feature == expected
    assert root_score == pytest.approx(max(s_x, s_y), rel=TIE)
    if name == "hddt":  # "HDDT cannot differentiate between these two splits"
        assert s_x == pytest.approx(s_y, rel=1e-15) and feature == 0
    if name in ("ihd", "ihdw"):  # "Split X is more exclusive than Split Y"
        assert feature == 1


# --- the iHD paper's Table 1 example (section 3.3) ----------------------------------------------

TABLE1_F1 = [26, 44, 34, 42, 32, 24, 40, 36, 22, 28, 38, 30]
TABLE1_F2 = [12, 20, 16, 22, 28, 24, 26, 32, 30, 18, 34, 14]
TABLE1_Y = [1 if c == "B" else 0 for c in "B B B B A B B B A A A B".split()]  # A = 0, B = 1


def table1_candidates(name):
    """{(feature, threshold): (score, left counts, right counts)} over every split."""
    X = np.column_stack([TABLE1_F1, TABLE1_F2]).astype(float)
    y = np.array(TABLE1_Y)
    out = {}
    for f in range(2):
        values = sorted(set(X[:, f]))
        for a, b in zip(values[:-1], values[1:]):
            t = a / 2 + b / 2
            left = class_counts(y[X[:, f] <= t], 2)
            right = class_counts(y[X[:, f] > t], 2)
            out[(f, t)] = (reference_score(name, [4.0, 8.0], left, right), left, right)
    return X, y, out


def test_table1_ihd_first_split():
    """Section 3.3: iHD splits on f2, here at 27 (A/B 1/7 left, 3/1 right), no pure child."""
    X, y, candidates = table1_candidates("ihd")
    best = max(s for s, _, _ in candidates.values())
    winners = [key for key, (s, _, _) in candidates.items() if s > best - TIE]
    assert winners == [(1, 27.0)]
    assert candidates[(1, 27.0)][1:] == ([1.0, 7.0], [3.0, 1.0])
    assert best == pytest.approx(0.0520, abs=5e-5)
    # the runners-up, 0.0508, are the mirror-image splits f1 <= 39 and f2 <= 17
    assert candidates[(0, 39.0)][0] == pytest.approx(candidates[(1, 17.0)][0], rel=1e-15)
    feature, threshold, _, root_score = fit_root(X, y, "ihd")
    assert (feature, threshold) == (1, 27.0)
    assert root_score == pytest.approx(best, rel=TIE)


def test_table1_ihdw_first_split_is_a_tie_with_a_pure_child():
    """Section 3.3: iHDw splits at another point and yields a pure child. The faithful
    formula ties f2 <= 17 (the paper's choice: 3 B left, pure) exactly with its mirror image
    f1 <= 39 (3 B right, pure); the engine's tie rule takes the lower feature, f1."""
    X, y, candidates = table1_candidates("ihdw")
    best = max(s for s, _, _ in candidates.values())
    winners = sorted(key for key, (s, _, _) in candidates.items() if s > best - TIE)
    assert winners == [(0, 39.0), (1, 17.0)]
    assert candidates[(0, 39.0)][0] == candidates[(1, 17.0)][0]
    assert candidates[(1, 17.0)][1:] == ([0.0, 3.0], [4.0, 5.0])  # pure left child
    assert candidates[(0, 39.0)][1:] == ([4.0, 5.0], [0.0, 3.0])  # pure right child
    assert best == pytest.approx(0.0477, abs=5e-5)
    assert candidates[(1, 27.0)][0] < best - 0.003  # iHD's choice loses under iHDw
    feature, threshold, _, root_score = fit_root(X, y, "ihdw")
    assert (feature, threshold) == (0, 39.0)
    assert root_score == pytest.approx(best, rel=TIE)
    # with the features swapped the same rule picks the paper's split, f2 <= 17
    feature, threshold, _, _ = fit_root(X[:, ::-1], y, "ihdw")
    assert (feature, threshold) == (0, 17.0)


def test_ihdw_theorem_3_in_the_engine():
    """Both features split the classes into disjoint subsets; the balanced one wins."""
    y = np.repeat([0, 1, 2], [50, 30, 20])
    X = np.column_stack([(y == 2), (y == 0)]).astype(float)  # {C} | {A, B}, then {A} | {B, C}
    feature, _, _, root_score = fit_root(X, y, "ihdw")
    assert feature == 1
    assert root_score == pytest.approx(1 - 0.5 ** 1.5 * 2, rel=1e-12)


# --- limits: classic criteria as special cases, whole trees ------------------------------------

def noisy_data(seed=0, n=400, k=3):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 4)), 1)
    y = ((X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5) + (rng.random(n) < 0.2)) % k
    X[rng.random(X.shape) < 0.05] = np.nan
    return X, y


def trees(name, params, datasets):
    return [DecisionTreeClassifier(criterion=name, criterion_params=params).fit(
        X, y, sample_weight=w).tree_ for X, y, w in datasets]


@pytest.fixture(scope="module")
def limit_data(load_example):
    iris = load_example("iris.csv")
    X, y = noisy_data()
    weights = np.random.default_rng(1).uniform(0.5, 2.0, y.shape[0])
    return [(iris.X, iris.y, None), (X, y, None), (X, y, weights)]


@pytest.mark.parametrize("name,params,classic", [
    ("tsallis", {"q": 2.0}, "gini"), ("pg", {"alpha": 1.0}, "gini"),
    ("pt", {"alpha": 1.0, "gamma": 2.0}, "gini"),
    ("tsallis", {"q": 1.0}, "entropy"), ("renyi", {"gamma": 1.0}, "entropy"),
    ("pe", {"alpha": 1.0}, "entropy"), ("pr", {"alpha": 1.0, "gamma": 1.0}, "entropy"),
    ("tsallis-gain-ratio", {"q": 1.0}, "gain-ratio")])
def test_special_cases_grow_identical_trees(name, params, classic, limit_data, same_tree):
    for ours, theirs in zip(trees(name, params, limit_data), trees(classic, None, limit_data)):
        assert same_tree(ours, theirs)


@pytest.mark.parametrize("name,param,classic", [
    ("tsallis", "q", "entropy"), ("renyi", "gamma", "entropy"),
    ("tsallis-gain-ratio", "q", "gain-ratio")])
@pytest.mark.parametrize("q", [1 - 1e-9, 1 + 1e-9])
def test_orders_near_one_grow_the_shannon_trees(name, param, classic, q, limit_data):
    for ours, theirs in zip(trees(name, {param: q}, limit_data),
                            trees(classic, None, limit_data)):
        for field in ("children_left", "children_right", "feature", "missing_left"):
            assert np.array_equal(getattr(ours, field), getattr(theirs, field))
        assert np.array_equal(ours.threshold, theirs.threshold, equal_nan=True)
        assert np.allclose(ours.score, theirs.score, rtol=1e-6, equal_nan=True)


# --- skew insensitivity ------------------------------------------------------------------------

def duplicate_majority(X, y, k):
    majority = np.bincount(y).argmax()
    rows = np.concatenate([np.flatnonzero(y != majority),
                           np.repeat(np.flatnonzero(y == majority), k)])
    rows.sort(kind="stable")
    return X[rows], y[rows]


@pytest.mark.parametrize("name", ["hddt", "ccpdt"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=tied_data(), k=st.integers(2, 6))
def test_duplicating_the_majority_class_never_changes_the_split(name, data, k):
    """With two classes HDDT and CCPDT see each class only through N_tj / N_j, which
    duplication keeps. With more, CCPDT's gain still does, but neither HDDT nor so
    CCPDT's tie-break: each one-versus-all 'rest' mixes its classes by their counts."""
    X, y, _ = data
    y = (y > 0).astype(int)
    before, after = fit_root(X, y, name), fit_root(*duplicate_majority(X, y, k), name)
    assert (before is None) == (after is None)
    if before is not None:
        assert before[:2] == after[:2]
        assert after[3] == pytest.approx(before[3], rel=1e-12, abs=1e-15)


def skew_dataset():
    """10 minority (1) and 20 majority (0) rows. Feature 0 peels off 3 minority rows
    (pure); feature 1 sends all 10 minority rows left with 5 majority rows."""
    y = np.repeat([1, 0], [10, 20])
    peel = np.zeros(30)
    peel[3:] = 1.0  # minority rows 0-2 left
    capture = np.ones(30)
    capture[:15] = 0.0  # all minority rows and majority rows 10-14 left
    return np.column_stack([peel, capture]), y


@pytest.mark.parametrize("name", ["hddt", "ihd", "ccpdt"])
def test_skew_insensitive_criteria_keep_their_split(name):
    X, y = skew_dataset()
    for k in (1, 5, 20):
        assert fit_root(*duplicate_majority(X, y, k), name)[0] == 1


@pytest.mark.parametrize("copies", [1, 10])
def test_ccpdt_breaks_a_gain_tie_by_hddt_when_the_better_split_comes_second(copies):
    """Class counts 10/20/30; one feature with value groups w = (0, 10, 6), v = (8, 0, 24),
    u = (2, 10, 0). Its two thresholds split off w and u, whose class confidences
    (0, .5, .2) and (.2, .5, 0) are a permutation of each other: equal CCP gain.
    HDDT (section 2.4's tie-break) prefers u's split (one-versus-all maximum .4505
    against .3505), the second threshold: the engine must add the tie-break there
    although it adds it only where it may win. Ten copies put the two thresholds
    in different blocks of the scan."""
    w, v, u = (0, 10, 6), (8, 0, 24), (2, 10, 0)
    groups = [np.repeat([0, 1, 2], counts * copies) for counts in (np.array(w), np.array(v),
                                                                   np.array(u))]
    y = np.concatenate(groups)
    x = np.repeat([0.0, 1.0, 2.0], [len(g) for g in groups])
    parent = [10.0 * copies, 20.0 * copies, 30.0 * copies]

    def split(left):
        left = [c * copies for c in left]
        return score("ccpdt", parent, left, [p - c for p, c in zip(parent, left)])

    w_split, u_split = split(w), split([p / copies - c for p, c in zip(parent, u)])
    assert u_split - w_split == pytest.approx(1e-8 * (0.4505 - 0.3505), rel=0.01)
    feature, threshold, _, root_score = fit_root(x[:, None], y, "ccpdt")
    assert threshold == 1.5
    assert root_score == pytest.approx(u_split, rel=1e-14)


def test_gini_changes_its_split_when_the_majority_is_duplicated():
    X, y = skew_dataset()
    assert fit_root(X, y, "gini")[0] == 1
    assert fit_root(*duplicate_majority(X, y, 5), "gini")[0] == 0
