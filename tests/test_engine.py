"""The split engine: known answers, exhaustive search, and the consistency of a grown tree.

Every expected value here is derived by hand or by the plain-Python reference
in conftest.py, never read back from the engine.
"""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from dtcli import DecisionTreeClassifier
from dtcli.engine.tree import TREE_LEAF, TREE_UNDEFINED, Tree
from category_sets import goes_left

# Scores of different splits on <= 40 rows differ by far more than this;
# equal scores computed in a different order differ by far less.
TIE = 1e-9


def fit(X, y, **params):
    return DecisionTreeClassifier(**params).fit(np.asarray(X, dtype=object)
                                                if params.get("nominal_features") is not None
                                                else np.asarray(X, dtype=np.float64),
                                                np.asarray(y))


def python_route(model, row) -> list[int]:
    """The node ids a row visits, walked in plain Python from the documented semantics."""
    tree = model.tree_
    node, path = 0, [0]
    while tree.children_left[node] != TREE_LEAF:
        feature = model.features_[tree.feature[node]]
        value = row[tree.feature[node]]
        if value is None or (isinstance(value, float) and math.isnan(value)):
            left = bool(tree.missing_left[node])
        elif feature.kind == "nominal":
            label = str(value)
            if label in feature.categories:
                left = bool(goes_left(tree, node, feature.categories.index(label)))
            else:
                left = bool(tree.missing_left[node])
        else:
            left = value <= tree.threshold[node]
        node = tree.children_left[node] if left else tree.children_right[node]
        path.append(node)
    return path


# --- known answers -----------------------------------------------------------------------

def test_separating_feature_is_found_at_the_midpoint():
    # feature 0 is noise; feature 1 separates at 3.0 | 7.0 -> threshold 5.0
    X = [[4, 1.0], [1, 2.0], [3, 3.0], [2, 7.0], [4, 8.0], [1, 9.5]]
    y = [0, 0, 0, 1, 1, 1]
    tree = fit(X, y).tree_
    assert tree.feature[0] == 1 and tree.threshold[0] == 5.0
    assert tree.node_count == 3  # both children pure
    # gini 0.5 -> 0: the decrease is the whole parent impurity
    assert tree.score[0] == pytest.approx(0.5, abs=1e-12)
    np.testing.assert_array_equal(tree.counts[1:], [[3, 0], [0, 3]])


def test_midpoint_of_huge_values_does_not_overflow():
    X = [[-1.7e308], [1.7e308]]
    tree = fit(X, [0, 1]).tree_
    assert tree.threshold[0] == 0.0


def test_midpoint_never_rounds_up_to_the_right_value():
    a = 1.0
    b = np.nextafter(a, 2.0)  # adjacent floats: a/2 + b/2 rounds to b
    tree = fit([[a], [b]], [0, 1]).tree_
    assert tree.threshold[0] == a
    assert list(DecisionTreeClassifier().fit([[a], [b]], [0, 1]).predict([[a], [b]])) == [0, 1]


def test_iris_root_is_the_hand_computed_setosa_split(load_example):
    d = load_example("iris.csv")
    model = DecisionTreeClassifier().fit_dataset(d)
    tree = model.tree_
    # petal length (a3, index 2) and petal width (a4, index 3) both isolate setosa;
    # the tie goes to the lower feature index. Largest setosa petal length 1.9,
    # smallest of the others 3.0.
    assert d.feature_names[2] == "a3"
    assert tree.feature[0] == 2 and tree.threshold[0] == pytest.approx(1.9 / 2 + 3.0 / 2)
    # gini 2/3 -> (50 * 0 + 100 * 1/2) / 150
    assert tree.score[0] == pytest.approx(2 / 3 - 1 / 3, abs=1e-12)


@pytest.mark.parametrize("n_const", [1, 3])
def test_constant_features_are_never_chosen(n_const):
    # feature n_const is the only non-constant one and gives zero gain: still chosen
    X = np.hstack([np.full((4, n_const), 5.0), [[1.0], [2.0], [1.0], [2.0]]])
    y = [0, 0, 1, 1]
    tree = fit(X, y).tree_
    assert tree.feature[0] == n_const
    assert all(f in (n_const, TREE_UNDEFINED) for f in tree.feature)


def test_all_constant_features_give_a_single_leaf():
    tree = fit(np.full((6, 3), 2.5), [0, 1, 0, 1, 1, 1]).tree_
    assert tree.node_count == 1 and tree.children_left[0] == TREE_LEAF
    np.testing.assert_array_equal(tree.counts[0], [2, 4])


def test_constant_nominal_feature_is_never_chosen():
    X = np.array([["a", 1.0], ["a", 2.0], ["a", 3.0], ["a", 4.0]], dtype=object)
    tree = fit(X, [0, 0, 1, 1], nominal_features=[0]).tree_
    assert tree.feature[0] == 1 and tree.threshold[0] == 2.5


@pytest.mark.parametrize("name", ["iris.csv", "balanced/wine.csv", "crx.csv", "hepatitis.csv"])
def test_pure_nodes_are_leaves_and_impure_leaves_cannot_be_split(load_example, name):
    d = load_example(name)
    tree = DecisionTreeClassifier().fit_dataset(d).tree_
    leaves = DecisionTreeClassifier().fit_dataset(d).apply(d.X)
    pure = np.count_nonzero(tree.counts > 0, axis=1) == 1
    internal = tree.children_left != TREE_LEAF
    assert not (pure & internal).any()
    for leaf in np.flatnonzero(~internal & ~pure):
        rows = d.X[leaves == leaf]
        # an impure leaf of an unpruned tree holds identical rows only
        assert all(np.array_equal(r, rows[0], equal_nan=True) for r in rows)


@pytest.mark.parametrize("labels", [("a", "b", "c"), ("c", "b", "a"), ("x", "y", "z")])
def test_nominal_subset_split(labels):
    a, b, c = labels
    column = [a, b, c, a, b, c, a, b, c, c]
    y = [0, 1, 0, 0, 1, 0, 0, 1, 0, 0]  # {a, c} -> 0, {b} -> 1
    model = fit([[v] for v in column], y, nominal_features=[0])
    tree = model.tree_
    assert tree.node_count == 3 and tree.score[0] == pytest.approx(1 - 0.7**2 - 0.3**2)
    cats = model.features_[0].categories
    side = {cat: goes_left(tree, 0, cats.index(cat)) for cat in (a, b, c)}
    assert side[a] == side[c] != side[b]
    assert math.isnan(tree.threshold[0])


def test_nominal_split_with_many_categories_groups_by_class():
    # 2 classes: categories with p(1) = 0 and with p(1) = 1 must be grouped whatever their order
    cats = list("pqrstuvw")
    goes_one = set("qtw")
    column = cats * 3
    y = [int(v in goes_one) for v in column]
    model = fit([[v] for v in column], y, nominal_features=[0])
    tree = model.tree_
    assert tree.node_count == 3
    order = model.features_[0].categories
    left = {cat for cat in cats if goes_left(tree, 0, order.index(cat))}
    assert left in (goes_one, set(cats) - goes_one)


@pytest.mark.parametrize("missing_class, expect_left", [(0, 1), (1, 0)])
def test_missing_values_go_to_the_better_side(missing_class, expect_left):
    # present: 1..4 class 0, 5..6 class 1; three missing rows all of `missing_class`.
    # Threshold 4.5 with the missing rows on their class's side makes both children pure.
    X = [[1], [2], [3], [4], [5], [6], [np.nan], [np.nan], [np.nan]]
    y = [0, 0, 0, 0, 1, 1] + [missing_class] * 3
    model = fit(X, y)
    tree = model.tree_
    assert tree.threshold[0] == 4.5 and tree.missing_left[0] == expect_left
    assert tree.node_count == 3
    assert model.predict([[np.nan]])[0] == missing_class


def test_present_versus_missing_split():
    # the feature's only information is whether it is present
    X = [[1], [2], [3], [1], [np.nan], [np.nan], [np.nan]]
    y = [0, 0, 0, 0, 1, 1, 1]
    model = fit(X, y)
    tree = model.tree_
    assert tree.threshold[0] == math.inf and tree.missing_left[0] == 0
    assert list(model.predict([[np.nan], [-1e300], [1e300]])) == [1, 0, 0]


@pytest.mark.parametrize("n_low, expect", [(7, 0), (3, 1)])
def test_missing_at_prediction_only_goes_to_the_larger_child(n_low, expect):
    X = [[v] for v in range(10)]
    y = [0] * n_low + [1] * (10 - n_low)
    model = fit(X, y)
    assert model.tree_.missing_left[0] == (n_low >= 10 - n_low)
    assert model.predict([[np.nan]])[0] == expect


def test_unseen_category_follows_the_missing_values():
    column = ["a", "b", "a", "b", None, None, None]
    y = [0, 1, 0, 1, 0, 0, 0]  # missing behaves like "a": sent with it
    model = fit([[v] for v in column], y, nominal_features=[0])
    tree = model.tree_
    cats = model.features_[0].categories
    assert tree.missing_left[0] == goes_left(tree, 0, cats.index("a"))
    X_new = np.array([["zzz"], [None], [np.nan], ["a"], ["b"]], dtype=object)
    assert list(model.predict(X_new)) == [0, 0, 0, 0, 1]


def test_prediction_never_crashes_on_missing_or_unseen(load_example):
    d = load_example("crx.csv")
    model = DecisionTreeClassifier().fit_dataset(d)
    X = np.array(d.X)
    X[::3] = np.nan
    X[1::3, [j for j, f in enumerate(d.features) if f.kind == "nominal"]] = 999.0  # unseen
    proba = model.proba_from_matrix(X)
    assert proba.shape == (len(X), 2) and np.allclose(proba.sum(axis=1), 1.0)
    # every row lands where the documented routing says
    leaves = model.tree_.apply(X, model._nominal_mask())
    for row, leaf in zip(X[:60], leaves[:60]):
        labels = [None if math.isnan(v) else (
            f.categories[int(v)] if f.kind == "nominal" and int(v) < len(f.categories)
            else ("<unseen>" if f.kind == "nominal" else v)) for v, f in zip(row, d.features)]
        assert python_route(model, labels)[-1] == leaf


def test_weight_two_equals_a_duplicated_row():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 6, size=(40, 3)).astype(float)
    y = rng.integers(0, 3, size=40)
    dup = np.r_[0, 5, 5, 17]
    weights = np.ones(40)
    weights[dup] += 1
    weights[5] += 1  # row 5 three times
    X_dup = np.vstack([X, X[dup]])
    y_dup = np.r_[y, y[dup]]
    weighted = DecisionTreeClassifier().fit(X, y, sample_weight=weights).tree_
    duplicated = DecisionTreeClassifier().fit(X_dup, y_dup).tree_
    for name in ("children_left", "children_right", "feature", "threshold", "counts"):
        np.testing.assert_array_equal(getattr(weighted, name), getattr(duplicated, name),
                                      err_msg=name)
    np.testing.assert_allclose(weighted.score, duplicated.score, rtol=1e-12)


def test_zero_weight_rows_do_not_count():
    X = np.array([[1.0], [2.0], [3.0], [4.0], [2.5]])
    y = np.array([0, 0, 1, 1, 1])
    tree = DecisionTreeClassifier().fit(X, y, sample_weight=[1, 1, 1, 1, 0]).tree_
    # as if absent (the estimator drops it): no threshold between 2 and its 2.5
    assert tree.threshold[0] == 2.5
    assert tree.counts[0].tolist() == [2, 2] and tree.n_node_samples[0] == 4


# --- exhaustive search -------------------------------------------------------------------

VALUES = st.sampled_from([0.0, 1.0, 1.5, 2.0, 3.0, -4.0, 10.0, math.nan])


@st.composite
def numeric_data(draw, max_rows=30, max_features=4):
    n = draw(st.integers(2, max_rows))
    d = draw(st.integers(1, max_features))
    k = draw(st.integers(2, 4))
    X = np.array(draw(st.lists(st.lists(VALUES, min_size=d, max_size=d), min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    assume(len(set(y.tolist())) >= 2)
    return X, np.unique(y, return_inverse=True)[1]


def _first_maximiser(candidates):
    best = max(c[0] for c in candidates)
    return best, next(c for c in candidates if c[0] >= best - TIE)


@pytest.mark.parametrize("criterion", ["gini", "entropy", "gain-ratio"])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=numeric_data())
def test_root_split_equals_exhaustive_search(reference, criterion, data):
    X, y = data
    n_classes = int(y.max()) + 1
    tree = DecisionTreeClassifier(criterion=criterion).fit(X, y).tree_
    candidates = reference.best_numeric(X, y, n_classes, criterion=criterion)
    if not candidates:
        assert tree.node_count == 1
        return
    best, (_, f, t, ml) = _first_maximiser(candidates)
    assert tree.children_left[0] != TREE_LEAF
    assert tree.score[0] == pytest.approx(best, abs=TIE)
    # the documented tie rule: lowest feature, missing right first, lowest threshold
    assert (tree.feature[0], tree.threshold[0]) == (f, t)
    column = X[:, f]
    if np.isnan(column).any():
        assert tree.missing_left[0] == ml
    else:  # no missing rows seen: future ones go to the larger child
        n_left = int(np.sum(column <= t))
        assert tree.missing_left[0] == (n_left >= len(column) - n_left)


@st.composite
def nominal_data(draw, classes):
    n = draw(st.integers(2, 30))
    n_cats = draw(st.integers(1, 6))
    column = draw(st.lists(st.one_of(st.integers(0, n_cats - 1).map(float), st.just(math.nan)),
                           min_size=n, max_size=n))
    y = np.array(draw(st.lists(st.integers(0, classes - 1), min_size=n, max_size=n)))
    assume(len(set(y.tolist())) >= 2)
    return np.array(column)[:, None], np.unique(y, return_inverse=True)[1]


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@settings(max_examples=150, deadline=None)
@given(data=nominal_data(classes=2))
def test_two_class_nominal_split_equals_exhaustive_subset_search(reference, criterion, data):
    # For two classes, ordering categories by p(class 1) is exact (Breiman et al. 1984).
    X, y = data
    model = DecisionTreeClassifier(criterion=criterion, nominal_features=[0]).fit(X, y)
    codes = _category_codes(model, X[:, 0])
    candidates = reference.nominal_candidates(codes, list(y), 2, criterion=criterion)
    if not candidates:
        assert model.tree_.node_count == 1
        return
    best = max(c[0] for c in candidates)
    assert model.tree_.score[0] == pytest.approx(best, abs=TIE)


@settings(max_examples=100, deadline=None)
@given(data=nominal_data(classes=4))
def test_multiclass_nominal_split_is_never_better_than_exhaustive(reference, data):
    # For K > 2 the engine's orderings are a documented heuristic: never above the optimum.
    X, y = data
    model = DecisionTreeClassifier(nominal_features=[0]).fit(X, y)
    codes = _category_codes(model, X[:, 0])
    candidates = reference.nominal_candidates(codes, list(y), int(y.max()) + 1)
    if candidates:
        assert model.tree_.score[0] <= max(c[0] for c in candidates) + TIE


def _category_codes(model, column):
    """The model's category index of every value (float codes were labelled "0", "1", ...)."""
    cats = model.features_[0].categories
    return np.array([math.nan if math.isnan(v) else cats.index(str(int(v))) for v in column])


@st.composite
def mixed_data(draw):
    n = draw(st.integers(2, 40))
    d = draw(st.integers(1, 4))
    k = draw(st.integers(2, 3))
    nominal = draw(st.lists(st.booleans(), min_size=d, max_size=d))
    X = np.array(draw(st.lists(st.lists(VALUES, min_size=d, max_size=d), min_size=n, max_size=n)))
    X[:, nominal] = np.floor(np.abs(X[:, nominal]) % 4)  # NaN stays NaN
    y = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    assume(len(set(y.tolist())) >= 2)
    return X, np.unique(y, return_inverse=True)[1], [j for j in range(d) if nominal[j]]


@settings(max_examples=100, deadline=None)
@given(data=mixed_data(), criterion=st.sampled_from(["gini", "entropy", "gain-ratio"]),
       min_leaf=st.integers(1, 4))
def test_every_node_holds_the_rows_routed_to_it_and_its_score(reference, data, criterion,
                                                              min_leaf):
    """Route the training rows in plain Python; each node's counts and split score
    must be those of its rows, and children must partition their parent."""
    X, y, nominal = data
    model = DecisionTreeClassifier(criterion=criterion, min_samples_leaf=min_leaf,
                                   nominal_features=nominal or None).fit(X, y)
    tree = model.tree_
    n_classes = len(model.classes_)
    rows_at = [[] for _ in range(tree.node_count)]
    for i, row in enumerate(X):
        labels = [None if math.isnan(v) else (str(int(v)) if j in nominal else v)
                  for j, v in enumerate(row)]
        for node in python_route(model, labels):
            rows_at[node].append(i)
    leaves = model.apply(X)
    for i in range(len(X)):
        assert i in rows_at[leaves[i]]
    for node in range(tree.node_count):
        counts = reference.counts(list(y[rows_at[node]]), n_classes)
        assert tree.counts[node].tolist() == counts
        assert tree.n_node_samples[node] == len(rows_at[node])
        left, right = tree.children_left[node], tree.children_right[node]
        if left == TREE_LEAF:
            assert right == TREE_LEAF and tree.feature[node] == TREE_UNDEFINED
            assert math.isnan(tree.score[node])
            continue
        assert node < left and node < right
        assert sorted(rows_at[left] + rows_at[right]) == sorted(rows_at[node])
        assert min(len(rows_at[left]), len(rows_at[right])) >= min_leaf
        expected = reference.scores[criterion](
            counts, reference.counts(list(y[rows_at[left]]), n_classes),
            reference.counts(list(y[rows_at[right]]), n_classes))
        assert tree.score[node] == pytest.approx(expected, abs=TIE)
        # where missing values go when the node saw none: the child with more rows
        f = tree.feature[node]
        column = X[rows_at[node], f]
        if not np.isnan(column).any():
            assert tree.missing_left[node] == (len(rows_at[left]) >= len(rows_at[right]))
        # a nominal split lists exactly the categories present at the node (the others
        # follow the missing values), each on the side its rows went
        if f in nominal:
            feature = model.features_[f]
            seen = {feature.categories.index(str(int(v))) for v in column if not np.isnan(v)}
            codes, sides = tree.categories_at(node)
            assert list(codes) == sorted(seen)
            went_left = {feature.categories.index(str(int(v)))
                         for v in X[rows_at[left], f] if not np.isnan(v)}
            assert {c for c, s in zip(codes, sides) if s} == went_left


@settings(max_examples=100, deadline=None)
@given(data=numeric_data(max_rows=20, max_features=3),
       repeats=st.lists(st.integers(1, 3), min_size=20, max_size=20))
def test_integer_weights_equal_duplicated_rows(same_tree, data, repeats):
    X, y = data
    repeats = np.array(repeats[:len(y)])
    weighted = DecisionTreeClassifier().fit(X, y, sample_weight=repeats).tree_
    duplicated = DecisionTreeClassifier().fit(np.repeat(X, repeats, axis=0),
                                              np.repeat(y, repeats)).tree_
    # missing_left too where the node saw missing rows (see the xfail test below otherwise)
    for name in ("children_left", "children_right", "feature", "threshold", "counts",
                 *Tree.CATEGORY_ARRAYS):
        np.testing.assert_array_equal(getattr(weighted, name), getattr(duplicated, name),
                                      err_msg=name)
    np.testing.assert_array_equal(weighted.score, duplicated.score)
    saw_missing = np.zeros(weighted.node_count, bool)
    for node, path_rows in _missing_at_split(weighted, X).items():
        saw_missing[node] = path_rows
    np.testing.assert_array_equal(weighted.missing_left[saw_missing],
                                  duplicated.missing_left[saw_missing])


def _missing_at_split(tree, X):
    """node -> whether some training row reaching it lacks the node's split feature."""
    seen = {}
    for row in X:
        node = 0
        while tree.children_left[node] != TREE_LEAF:
            v = row[tree.feature[node]]
            seen[node] = seen.get(node, False) or math.isnan(v)
            left = tree.missing_left[node] if math.isnan(v) else v <= tree.threshold[node]
            node = tree.children_left[node] if left else tree.children_right[node]
    return seen


def test_unseen_missing_values_go_to_the_heavier_child():
    X, y = [[1.0], [2.0], [3.0]], [0, 1, 1]
    weighted = DecisionTreeClassifier().fit(X, y, sample_weight=[5, 1, 1])
    duplicated = DecisionTreeClassifier().fit([[1.0]] * 5 + [[2.0], [3.0]], [0] * 5 + [1, 1])
    assert duplicated.tree_.missing_left[0] == 1  # left child: 5 rows against 2
    assert weighted.tree_.threshold[0] == duplicated.tree_.threshold[0] == 1.5
    assert weighted.tree_.missing_left[0] == 1  # left child: weight 5 against 2
    assert weighted.predict([[np.nan]])[0] == 0
