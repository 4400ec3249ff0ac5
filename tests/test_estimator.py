"""DecisionTreeClassifier: scikit-learn's estimator conventions, input handling, validation."""
import math
import pickle
import subprocess
import sys

import numpy as np
import pytest

from dtcli import DecisionTreeClassifier
from dtcli.errors import DataConversionWarning, NotFittedError, ParameterError
from dtcli.engine.tree import TREE_LEAF

pd = pytest.importorskip("pandas")

DEFAULTS = {"criterion": "gini", "criterion_params": None, "max_depth": None,
            "min_samples_split": 2, "min_samples_leaf": 1, "min_weight_fraction_leaf": 0.0,
            "min_gain": 0.0,
            "nominal_features": None, "n_jobs": None, "class_weight": None,
            "max_features": None, "random_state": None, "pruning": None, "ccp_alpha": 0.0, "cp": None,
            "ccp_risk": "impurity", "confidence": 0.25, "subtree_raising": True,
            "pruning_folds": None, "significance": 0.05, "permutations": 1000,
            "pruning_mode": "default", "leaf_estimate": "frequency", "m": 2.0,
            "leaf_model": "counts", "leaf_params": None, "threshold": None,
            "threshold_metric": None, "cost": None, "positive": None}


def test_default_params():
    assert DecisionTreeClassifier().get_params() == DEFAULTS


def test_set_params_round_trip_and_returns_self():
    changed = {"criterion": "entropy", "criterion_params": {}, "max_depth": 3,
               "min_samples_split": 5, "min_samples_leaf": 2, "min_weight_fraction_leaf": 0.1,
               "min_gain": 0.01, "nominal_features": [0], "n_jobs": 1, "class_weight": "balanced",
               "max_features": "sqrt", "random_state": 7, "pruning": "ccp",
               "ccp_alpha": "auto", "cp": 0.02, "ccp_risk": "error", "confidence": 0.1,
               "subtree_raising": False, "pruning_folds": 5, "significance": 0.01,
               "permutations": 200, "pruning_mode": "exact", "leaf_estimate": "laplace", "m": 3.0,
               "leaf_model": "naive-bayes", "leaf_params": {"numeric": "mdl"},
               "threshold": "auto", "threshold_metric": "f1", "cost": None, "positive": "yes"}
    model = DecisionTreeClassifier()
    assert model.set_params(**changed) is model
    assert model.get_params() == changed
    assert DecisionTreeClassifier(**changed).get_params() == changed


def test_set_params_rejects_unknown_names():
    with pytest.raises(ValueError, match="max_leaf_nodes"):
        DecisionTreeClassifier().set_params(max_leaf_nodes=3)


def test_fit_returns_self_and_sets_the_fitted_attributes(load_example):
    d = load_example("iris.csv")
    labels = np.array(d.classes, dtype=object)[d.y]
    model = DecisionTreeClassifier()
    assert model.fit(d.X, labels) is model
    assert list(model.classes_) == ["Iris-setosa", "Iris-versicolor", "Iris-virginica"]
    assert model.n_features_in_ == 4 and model.n_classes_ == 3
    assert not hasattr(model, "feature_names_in_")  # only for named input, as in scikit-learn
    tree = model.tree_
    assert tree.node_count == len(tree.children_left) == len(tree.counts)
    assert tree.counts.shape == (tree.node_count, 3)
    np.testing.assert_array_equal(tree.counts[0], [50, 50, 50])
    assert tree.n_node_samples[0] == 150


def test_predictions_are_labels_and_probabilities_are_leaf_frequencies(load_example):
    d = load_example("balanced/wine.csv")
    model = DecisionTreeClassifier(max_depth=2).fit(d.X, d.y)
    proba = model.predict_proba(d.X)
    leaves = model.apply(d.X)
    for leaf in np.unique(leaves):
        counts = np.bincount(d.y[leaves == leaf], minlength=3)  # training rows of the leaf
        np.testing.assert_allclose(proba[leaves == leaf], np.tile(counts / counts.sum(),
                                                                  ((leaves == leaf).sum(), 1)))
        assert model.tree_.children_left[leaf] == TREE_LEAF
    np.testing.assert_array_equal(model.predict(d.X), model.classes_[proba.argmax(axis=1)])
    assert model.score(d.X, d.y) == pytest.approx(np.mean(model.predict(d.X) == d.y))


def test_score_with_sample_weight():
    model = DecisionTreeClassifier(max_depth=0).fit([[0.0], [1.0], [2.0]], [0, 0, 1])
    # a single leaf predicting 0: right on rows 0 and 1
    assert model.score([[0.0], [1.0], [2.0]], [0, 0, 1], sample_weight=[1, 1, 2]) == 0.5


def test_max_depth_zero_is_a_single_majority_leaf():
    model = DecisionTreeClassifier(max_depth=0).fit([[1.0], [2.0], [3.0]], ["b", "a", "b"])
    assert model.tree_.node_count == 1 and model.get_depth() == 0 and model.get_n_leaves() == 1
    assert list(model.predict([[1.0], [9.0]])) == ["b", "b"]


def test_depth_and_leaves_match_the_arrays(load_example):
    d = load_example("balanced/bupa.csv")
    model = DecisionTreeClassifier().fit(d.X, d.y)
    tree = model.tree_
    # depth by walking down from the root in plain Python
    depth = {0: 0}
    for node in range(tree.node_count):
        for child in (tree.children_left[node], tree.children_right[node]):
            if child != TREE_LEAF:
                depth[child] = depth[node] + 1
    assert len(depth) == tree.node_count  # every node reachable
    assert model.get_depth() == tree.max_depth == max(depth.values())
    assert model.get_n_leaves() == int(np.sum(tree.children_left == TREE_LEAF))
    assert tree.node_count == 2 * model.get_n_leaves() - 1  # binary tree


def test_string_and_integer_labels_come_back_as_given():
    X = [[0.0], [1.0], [2.0], [3.0]]
    assert DecisionTreeClassifier().fit(X, [3, 3, 7, 7]).predict([[0.5], [2.5]]).tolist() == [3, 7]
    assert DecisionTreeClassifier().fit(X, ["n", "n", "y", "y"]).predict([[2.5]]).tolist() == ["y"]


# --- pandas input -----------------------------------------------------------------------------

def _frame():
    return pd.DataFrame({
        "size": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, np.nan, 8.0],
        "colour": ["red", "blue", "red", "green", None, "blue", "red", "green"],
        "flag": [True, False, True, False, True, False, True, False],
    })


def test_dataframe_columns_become_features_by_dtype():
    model = DecisionTreeClassifier().fit(_frame(), [0, 1, 0, 1, 0, 1, 0, 1])
    assert list(model.feature_names_in_) == ["size", "colour", "flag"]
    kinds = {f.name: f.kind for f in model.features_}
    assert kinds["size"] == "numeric" and kinds["colour"] == "nominal"
    assert model.features_[1].categories == ("blue", "green", "red")


@pytest.mark.parametrize("column", [
    pd.Series([True, False, True, False]),
    pd.Series([3, 1, 2, 3], dtype="category"),
], ids=["bool", "category"])
def test_bool_and_category_columns_are_nominal(column):
    model = DecisionTreeClassifier().fit(pd.DataFrame({"c": column}), [0, 1, 0, 1])
    assert model.features_[0].kind == "nominal"


def test_dataframe_columns_are_matched_by_name_at_prediction():
    frame = _frame()
    y = [0, 1, 0, 1, 0, 1, 0, 1]
    model = DecisionTreeClassifier().fit(frame, y)
    expected = model.predict(frame)
    shuffled = frame[["flag", "size", "colour"]].assign(extra=range(8))
    np.testing.assert_array_equal(model.predict(shuffled), expected)
    with pytest.raises(ParameterError, match="colour"):
        model.predict(frame.drop(columns=["colour"]))


def test_numpy_nominal_features_by_name_mask_or_index():
    X = np.array([["a", 1.0], ["b", 2.0], ["a", 3.0], ["b", 4.0]], dtype=object)
    for selector in ([0], [True, False], [-2]):
        model = DecisionTreeClassifier(nominal_features=selector).fit(X, [0, 1, 0, 1])
        assert [f.kind for f in model.features_] == ["nominal", "numeric"]
    model = DecisionTreeClassifier(nominal_features=["size"]).fit(_frame(), [0, 1] * 4)
    assert model.features_[0].kind == "nominal"


def test_numeric_column_forced_nominal_splits_on_categories():
    # as numbers 1 < 2 < 3 no single threshold isolates 2; as categories {2} vs {1, 3} does
    X = [[1.0], [2.0], [3.0], [1.0], [2.0], [3.0]]
    y = [0, 1, 0, 0, 1, 0]
    assert DecisionTreeClassifier(max_depth=1).fit(X, y).score(X, y) < 1.0
    assert DecisionTreeClassifier(max_depth=1, nominal_features=[0]).fit(X, y).score(X, y) == 1.0


# --- validation -----------------------------------------------------------------------------

X4, Y4 = [[0.0], [1.0], [2.0], [3.0]], [0, 0, 1, 1]


@pytest.mark.parametrize("params, words", [
    ({"max_depth": -1}, "max_depth"),
    ({"max_depth": 2.5}, "max_depth"),
    ({"min_samples_split": 1}, "min_samples_split"),
    ({"min_samples_leaf": 0}, "min_samples_leaf"),
    ({"min_samples_leaf": True}, "min_samples_leaf"),
    ({"min_gain": math.nan}, "min_gain"),
    ({"min_gain": "0.1"}, "min_gain"),
    ({"criterion": "gini2"}, "unknown criterion"),
    ({"criterion_params": {"q": 2.0}}, "no parameter 'q'"),
    ({"nominal_features": [5]}, "nominal_features"),
    ({"nominal_features": ["nope"]}, "nope"),
])
def test_bad_parameters_raise_a_value_error_at_fit(params, words):
    with pytest.raises(ValueError, match=words):
        DecisionTreeClassifier(**params).fit(X4, Y4)


@pytest.mark.parametrize("X, y, words", [
    ([[0.0], [1.0]], [0, 0], "one class"),
    ([[0.0], [np.inf]], [0, 1], "infinite"),
    ([[0.0], [1.0]], [0, 1, 1], "one-dimensional"),
    ([[0.0], [1.0]], [[0, 1], [1, 0]], "one-dimensional"),
    ([[0.0], [1.0]], None, "target y is None"),
    ([[1j], [2j]], [0, 1], "Complex data not supported"),
    ([[0.0, 1.0]] * 2, [1j, 2j], "Complex data not supported"),
    (np.empty((3, 0)), [0, 1, 0], r"0 feature\(s\)"),
    ([0.0, 1.0], [0, 1], "two-dimensional.*Reshape your data"),
    (np.empty((0, 2)), [], "zero rows"),
])
def test_bad_data_raises_a_value_error(X, y, words):
    with pytest.raises(ValueError, match=words):
        DecisionTreeClassifier().fit(X, y)


@pytest.mark.parametrize("weights", [[1, 1, 1], [1, 1, 1, -1], [1, 1, 1, np.nan]])
def test_bad_sample_weight(weights):
    with pytest.raises(ValueError, match="sample_weight"):
        DecisionTreeClassifier().fit(X4, Y4, sample_weight=weights)


@pytest.mark.parametrize("y, words", [
    ([0.0, 1.0, np.nan, 1.0], "1 missing label.*row 2"),
    (np.array(["a", None, "b", "a"], dtype=object), "missing label.*row 1"),
    (np.array(["a", float("nan"), "b", "a"], dtype=object), "missing label.*row 1"),
    (pd.Series(["a", "b", None, "a"], dtype="string"), "missing label.*row 2"),
    ([0.5, 1.25, 2.0, 3.0], "Unknown label type: continuous.*0.5"),
    ([0.0, 1.0, np.inf, 1.0], "infinity"),
    (np.array(["a", 1, "b", 2], dtype=object), "Unknown label type"),
], ids=["nan", "none", "object-nan", "pandas-na", "continuous", "inf", "mixed"])
def test_labels_that_are_not_classes_are_refused(y, words):
    with pytest.raises(ValueError, match=words):
        DecisionTreeClassifier().fit(X4, y)


def test_whole_number_floats_are_class_labels():
    model = DecisionTreeClassifier().fit(X4, [1.0, 1.0, 2.0, 2.0])
    assert model.classes_.tolist() == [1.0, 2.0] and model.predict([[3.0]]).tolist() == [2.0]


def test_a_column_vector_y_is_read_as_one_dimensional_with_a_warning():
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        model = DecisionTreeClassifier().fit(X4, np.array(Y4)[:, None])
    assert model.predict(X4).tolist() == Y4


UNFITTED_CALLS = {
    "predict": lambda m: m.predict(X4), "predict_proba": lambda m: m.predict_proba(X4),
    "predict_log_proba": lambda m: m.predict_log_proba(X4), "apply": lambda m: m.apply(X4),
    "decision_path": lambda m: m.decision_path(X4), "score": lambda m: m.score(X4, Y4),
    "get_depth": lambda m: m.get_depth(), "get_n_leaves": lambda m: m.get_n_leaves(),
    "feature_importances_": lambda m: m.feature_importances_,
}


@pytest.mark.parametrize("use", UNFITTED_CALLS.values(), ids=UNFITTED_CALLS.keys())
def test_using_an_unfitted_tree_raises_not_fitted_error(use):
    with pytest.raises(NotFittedError, match="not fitted yet") as caught:
        use(DecisionTreeClassifier())
    # scikit-learn's NotFittedError has these bases: code catching either catches it
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, AttributeError)


def test_an_unfitted_tree_has_no_feature_importances_attribute():
    # as in scikit-learn: the property raises an AttributeError until fit
    assert not hasattr(DecisionTreeClassifier(), "feature_importances_")
    assert hasattr(DecisionTreeClassifier().fit(X4, Y4), "feature_importances_")


def test_not_fitted_error_is_sklearns_once_sklearn_is_loaded():
    exceptions = pytest.importorskip("sklearn.exceptions")
    with pytest.raises(exceptions.NotFittedError) as caught:
        DecisionTreeClassifier().predict(X4)
    assert isinstance(caught.value, NotFittedError)
    copy = pickle.loads(pickle.dumps(caught.value))  # e.g. from a joblib worker
    assert isinstance(copy, exceptions.NotFittedError) and copy.args == caught.value.args


def test_not_fitted_error_does_not_import_sklearn():
    script = ("import sys\n"
              "from dtcli import DecisionTreeClassifier\n"
              "from dtcli.errors import NotFittedError\n"
              "try:\n"
              "    DecisionTreeClassifier().predict([[0.0]])\n"
              "except NotFittedError as e:\n"
              "    assert type(e) is NotFittedError, type(e).__mro__\n"
              "assert 'sklearn' not in sys.modules\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr


def test_all_zero_sample_weight_is_rejected():
    with pytest.raises(ValueError, match="sample_weight"):
        DecisionTreeClassifier().fit(X4, Y4, sample_weight=[0, 0, 0, 0])


def test_predicting_with_the_wrong_width():
    model = DecisionTreeClassifier().fit(X4, Y4)
    with pytest.raises(ValueError, match="2 features"):
        model.predict([[0.0, 1.0]])


def test_repr_shows_changed_parameters_only():
    assert repr(DecisionTreeClassifier()) == "DecisionTreeClassifier()"
    assert repr(DecisionTreeClassifier(max_depth=3, criterion="entropy")) == \
        "DecisionTreeClassifier(criterion='entropy', max_depth=3)"


def test_repr_with_a_numpy_mask_of_nominal_features():
    model = DecisionTreeClassifier(nominal_features=np.array([True, False]))
    assert repr(model) == "DecisionTreeClassifier(nominal_features=array([ True, False]))"


@pytest.mark.parametrize("min_samples_leaf", [1, 7])
def test_training_accuracy_read_off_the_leaves_equals_scoring_the_training_rows(
        min_samples_leaf):
    # impure leaves (min_samples_leaf), missing values routed by each split's learned
    # direction and unequal weights: what `dtree train` prints without predicting
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 4))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = rng.integers(0, 3, 400)
    weight = rng.uniform(0.5, 2.0, 400)
    model = DecisionTreeClassifier(min_samples_leaf=min_samples_leaf).fit(
        X, y, sample_weight=weight)
    assert model.tree_.training_accuracy() == pytest.approx(
        model.score(X, y, sample_weight=weight), rel=1e-12)


# --- class_weight -----------------------------------------------------------------------------

def test_balanced_class_weight_is_n_over_classes_times_count():
    X, y = [[float(i)] for i in range(8)], ["a"] * 6 + ["b"] * 2
    model = DecisionTreeClassifier(max_depth=0, class_weight="balanced").fit(X, y)
    # 8 / (2 * 6) per "a" row and 8 / (2 * 2) per "b" row: 6 * 2/3 and 2 * 2
    np.testing.assert_allclose(model.tree_.counts[0], [4.0, 4.0])


def test_class_weight_multiplies_sample_weight_and_can_turn_a_leaf():
    X, y = [[0.0], [1.0], [2.0], [3.0]], [0, 0, 0, 1]
    unweighted = DecisionTreeClassifier(max_depth=0).fit(X, y)
    model = DecisionTreeClassifier(max_depth=0, class_weight={1: 4.0}).fit(
        X, y, sample_weight=[1.0, 0.5, 2.0, 1.0])
    np.testing.assert_allclose(model.tree_.counts[0], [3.5, 4.0])  # class 0 keeps weight 1
    assert unweighted.predict([[0.0]]).tolist() == [0]
    assert model.predict([[0.0]]).tolist() == [1]


def test_class_weight_applies_to_fit_dataset(load_example):
    d = load_example("imbalanced/haberman.dat")
    heavy = d.classes[1]
    model = DecisionTreeClassifier(max_depth=0, class_weight={heavy: 10.0}).fit_dataset(d)
    counts = np.bincount(d.y, minlength=2)
    np.testing.assert_allclose(model.tree_.counts[0], [counts[0], 10.0 * counts[1]])


@pytest.mark.parametrize("class_weight, words", [
    ("balance", "'balanced' or a dict"),
    ({2: 1.0}, r"label\(s\) \[2\]"),
    ({1: -1.0}, "finite number >= 0"),
    ({1: math.inf}, "finite number >= 0"),
    ({1: "heavy"}, "finite number >= 0"),
    ({0: 0.0, 1: 0.0}, "sums to zero"),
])
def test_bad_class_weight(class_weight, words):
    with pytest.raises(ValueError, match=words):
        DecisionTreeClassifier(class_weight=class_weight).fit(X4, Y4)


def test_rows_of_weight_zero_are_as_if_absent():
    X, y = [[0.0], [1.0], [2.0], [3.0]], [0, 0, 1, 1]
    model = DecisionTreeClassifier().fit(X, y, sample_weight=[1, 1, 0, 1])
    # the threshold lies between 1 and 3, the nearest rows that count: not at 1.5
    assert model.tree_.threshold[0] == 2.0 and model.tree_.n_node_samples[0] == 3


# --- what users reach for: importances, paths, log-probabilities -------------------------------

def test_feature_importances_by_hand():
    # root: gini 3/8 of [1, 3]; x0 and x1 tie at a decrease of 1/8 and the lower feature
    # wins; its impure child [1, 1] then splits on x1, a decrease of 1/2 on 2 rows:
    # x0 gets 4 * 1/8, x1 gets 2 * 1/2 of a total 3/2
    X, y = [[0, 0], [0, 1], [1, 0], [1, 1]], [0, 1, 1, 1]
    model = DecisionTreeClassifier().fit(np.array(X, dtype=float), y)
    assert model.tree_.feature[0] == 0
    np.testing.assert_allclose(model.feature_importances_, [1 / 3, 2 / 3])


def test_a_single_leaf_has_zero_importances():
    model = DecisionTreeClassifier(max_depth=0).fit(X4, Y4)
    np.testing.assert_array_equal(model.feature_importances_, [0.0])


def test_importances_of_a_ratio_criterion_weigh_its_own_score(load_example, reference):
    """Gain ratio is no impurity decrease: each split node's gain ratio, from the rows
    that reach it (found with decision_path), times its row count."""
    d = load_example("iris.csv")
    model = DecisionTreeClassifier(criterion="gain-ratio").fit(d.X, d.y)
    tree = model.tree_
    indptr, indices = model.decision_path_arrays(d.X)
    row_of = np.repeat(np.arange(len(d.y)), np.diff(indptr))
    expected = np.zeros(d.X.shape[1])
    for node in np.flatnonzero(tree.children_left != TREE_LEAF):
        counts = [reference.counts(d.y[row_of[indices == n]], 3)
                  for n in (node, tree.children_left[node], tree.children_right[node])]
        expected[tree.feature[node]] += sum(counts[0]) * reference.scores["gain-ratio"](*counts)
    np.testing.assert_allclose(model.feature_importances_, expected / expected.sum(), rtol=1e-9)


def test_decision_path_is_the_walk_from_the_root_to_the_leaf(load_example):
    d = load_example("balanced/wine.csv")
    model = DecisionTreeClassifier(max_depth=4).fit(d.X, d.y)
    tree = model.tree_
    indptr, indices = model.decision_path_arrays(d.X)
    leaves = model.apply(d.X)
    for i, row in enumerate(d.X):
        walk, node = [0], 0
        while tree.children_left[node] != TREE_LEAF:
            goes_left = row[tree.feature[node]] <= tree.threshold[node]
            node = tree.children_left[node] if goes_left else tree.children_right[node]
            walk.append(node)
        assert indices[indptr[i]:indptr[i + 1]].tolist() == walk and walk[-1] == leaves[i]


def test_decision_path_of_a_single_leaf():
    model = DecisionTreeClassifier(max_depth=0).fit(X4, Y4)
    indptr, indices = model.decision_path_arrays(X4[:2])
    assert indptr.tolist() == [0, 1, 2] and indices.tolist() == [0, 0]
    assert model.decision_path(X4[:2]).toarray().tolist() == [[1], [1]]


def test_decision_path_is_sklearns_csr_matrix(load_example):
    """The same matrix as scikit-learn's decision_path on the same tree: depth-2 trees of
    wine, whose splits have no ties (dtree numbers nodes breadth-first, scikit-learn
    depth-first, so the columns are matched by walking both trees)."""
    from scipy.sparse import csr_matrix
    from sklearn.tree import DecisionTreeClassifier as SkTree

    d = load_example("balanced/wine.csv")
    ours = DecisionTreeClassifier(max_depth=2).fit(d.X, d.y)
    theirs = SkTree(max_depth=2, random_state=0).fit(d.X, d.y)
    a, b = ours.tree_, theirs.tree_
    column, stack = {}, [(0, 0)]
    while stack:
        i, j = stack.pop()
        column[i] = j
        if a.children_left[i] >= 0:
            assert a.feature[i] == b.feature[j]  # scikit-learn's thresholds are float32
            assert a.threshold[i] == pytest.approx(b.threshold[j], rel=1e-6)
            stack += [(a.children_left[i], b.children_left[j]),
                      (a.children_right[i], b.children_right[j])]
    path = ours.decision_path(d.X)
    expected = theirs.decision_path(d.X)
    assert isinstance(path, csr_matrix) and path.shape == expected.shape
    order = [column[i] for i in range(a.node_count)]
    assert (path.toarray() == expected.toarray()[:, order]).all()


def test_decision_path_without_scipy_names_the_alternative(monkeypatch):
    model = DecisionTreeClassifier(max_depth=1).fit(X4, Y4)
    monkeypatch.setitem(sys.modules, "scipy.sparse", None)
    with pytest.raises(ImportError, match=r"use decision_path_arrays\(X\)"):
        model.decision_path(X4)


def test_predict_log_proba_is_the_log_of_predict_proba():
    X, y = [[0.0], [0.0], [1.0], [1.0]], [0, 1, 1, 1]
    model = DecisionTreeClassifier().fit(X, y)
    # leaf x=0 holds [1, 1], leaf x=1 holds [0, 2]
    np.testing.assert_allclose(model.predict_log_proba([[0.0], [1.0]]),
                               [[math.log(0.5), math.log(0.5)], [-math.inf, 0.0]])


def test_fit_refuses_classes_whose_node_records_would_not_fit():
    """The readers' 4 GiB limit on the engine's node records (io/limits.py) holds for
    fit(X, y) too: 30,000 rows of 16,000 classes would ask for 7.7 GB of class counts.
    (Nominal columns have no limit: tests/test_sparse_categories.py.)"""
    from dtcli.errors import DataError

    with pytest.raises(DataError, match="target column 'y' has 16000 classes"):
        DecisionTreeClassifier().fit(np.zeros((30_000, 1)), np.arange(30_000) % 16_000)
