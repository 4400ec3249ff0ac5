"""`RandomForestClassifier`: bagged trees of any criterion, in scikit-learn's conventions.

Breiman's random forest (Machine Learning 45, 2001): every tree grows from a bootstrap
sample of the rows, and each node searches a random subset of `max_features`
features. Here the data are presorted once per forest and every tree grows from
integer bootstrap counts as row weights (growth.py), so a forest costs one presort
and n_estimators growths; the same seed grows the same forest on any number of
threads or processes.
"""
from __future__ import annotations

import numbers
import time
import warnings

import numpy as np

from dtcli.errors import ParameterError
from dtcli.estimator import DecisionTreeClassifier
from dtcli.fit_data import FitData
from dtcli.estimator_base import TreeEstimatorBase
from dtcli.measures.fitted import THRESHOLD_PARAMS, as_dataset, decide
from dtcli.params import MAX_TREES, count_or_fraction
from dtcli.validation import not_fitted, row_weights

_TREE_PARAMS = ("criterion", "criterion_params", "max_depth", "min_samples_split",
                "min_samples_leaf", "min_weight_fraction_leaf", "min_gain", "nominal_features",
                "class_weight", "max_features", "leaf_model", "leaf_params")
_PARAMS = ("n_estimators",) + _TREE_PARAMS + ("bootstrap", "max_samples", "oob_score",
                                              "n_jobs", "random_state", *THRESHOLD_PARAMS)


class RandomForestClassifier(TreeEstimatorBase):
    """A forest of `n_estimators` trees with any split criterion of `dtree criteria`.

    As scikit-learn's RandomForestClassifier: every tree grows from a bootstrap
    sample of `max_samples` rows (None: as many as the data has; an int, or a
    fraction of the rows) unless `bootstrap=False`, searching `max_features`
    features drawn at each node ("sqrt" by default; see DecisionTreeClassifier).
    `predict_proba` is the mean of the trees' probabilities. `oob_score=True` scores
    every row by the trees whose sample left it out (`oob_score_`, accuracy, and
    `oob_decision_function_`). `class_weight` as the tree's, or
    "balanced_subsample": balanced over each tree's bootstrap sample. The stopping
    options are the tree's. `n_jobs` threads (default: all cores) grow whole trees
    side by side; `random_state` seeds the samples and the feature draws, which
    depend on the seed and each tree's index only: the same seed grows the same
    forest with any n_jobs.

    `leaf_model="naive-bayes"` (`leaf_params` as the tree's): each tree's leaves hold
    Naive Bayes models (dtcli.leaves.naive_bayes) fitted on the rows that tree grew
    from, weighted by its bootstrap counts (times the rows' weights), as a tree fitted
    with those weights as sample_weight would fit them; `predict_proba` is then the
    mean of the trees' Naive Bayes leaf probabilities.

    `threshold`, `threshold_metric`, `cost`, `positive`: the decision threshold of
    predict, as DecisionTreeClassifier's (dtcli/measures/fitted.py; fitted `threshold_`).
    """

    model_kind = "forest"  # its model file's kind (dtcli/model/kinds.py)

    def __init__(self, n_estimators: int = 100, criterion: str = "gini",
                 criterion_params: dict | None = None, max_depth: int | None = None,
                 min_samples_split: int = 2, min_samples_leaf: int = 1,
                 min_weight_fraction_leaf: float = 0.0, min_gain: float = 0.0,
                 nominal_features=None, class_weight=None, max_features="sqrt",
                 bootstrap: bool = True, max_samples=None, oob_score: bool = False,
                 n_jobs: int | None = None, random_state=None, leaf_model: str = "counts",
                 leaf_params: dict | None = None, threshold=None, threshold_metric: str | None = None, cost=None, positive=None):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.criterion_params = criterion_params
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_gain = min_gain
        self.nominal_features = nominal_features
        self.class_weight = class_weight
        self.max_features = max_features
        self.bootstrap = bootstrap
        self.max_samples = max_samples
        self.oob_score = oob_score
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.leaf_model = leaf_model
        self.leaf_params = leaf_params
        self.threshold = threshold
        self.threshold_metric = threshold_metric
        self.cost = cost
        self.positive = positive

    PARAMS = _PARAMS

    # fitting ----------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None) -> "RandomForestClassifier":
        data = self.fit_data(X, y)
        self.fit_prepared(data, sample_weight)
        return decide(self, as_dataset(data.X, data.y, data.features, data.classes),
                      sample_weight)

    def fit_dataset(self, dataset, sample_weight=None, grower=None) -> "RandomForestClassifier":
        """Fit on a `Dataset` from `dtcli.io.load_dataset` (what the CLI does); `grower`
        as in fit_prepared."""
        self.fit_prepared(FitData.of_dataset(dataset), sample_weight, grower)
        return decide(self, dataset, sample_weight)

    def fit_prepared(self, data: FitData, sample_weight=None,
                     grower=None) -> "RandomForestClassifier":
        """Fit on encoded data (`fit_data`, `FitData.of_dataset`), every tree from its one
        presort. `grower(prepared, plan, n_jobs)` grows the trees (default:
        growth.grow_trees on this machine's threads; a Dask cluster's in distributed.py)."""
        from dtcli.ensemble.growth import grow_trees

        X, y, features, classes = data.X, data.y, data.features, data.classes
        plan = self._plan(data, sample_weight)
        start = time.perf_counter()
        prepared = data.presort(self.n_jobs)
        if grower is None:
            trees = grow_trees(prepared, plan, range(self.n_estimators), self.n_jobs)
        else:
            trees = grower(prepared, plan, self.n_jobs)
        self.fit_seconds_ = time.perf_counter() - start
        self.set_fitted(data)
        self.estimators_ = [self._estimator(tree, features, classes) for tree in trees]
        if self.leaf_model != "counts":
            from dtcli.ensemble.leaves import fit_forest_leaves

            fit_forest_leaves(self, X, y, features, plan)
            self.fit_seconds_ = time.perf_counter() - start
        self._seed, self._n_rows = plan.seed, X.shape[0]  # for the model file
        if self.oob_score:
            self._score_out_of_bag(X, y, plan)
        return self

    def _plan(self, data: FitData, sample_weight):
        from dtcli.ensemble.growth import ForestPlan
        from dtcli.ensemble.leaves import checked_leaf_options
        from dtcli.engine.rng import seed_of

        n = self.n_estimators
        if not isinstance(n, numbers.Integral) or isinstance(n, bool) or n < 1:
            raise ParameterError(f"n_estimators must be an integer >= 1, got {n!r}")
        if n > MAX_TREES:
            raise ParameterError(f"n_estimators must be at most {MAX_TREES}, got {n}")
        if not isinstance(self.bootstrap, (bool, np.bool_)):
            raise ParameterError(f"bootstrap must be True or False, got {self.bootstrap!r}")
        if self.max_samples is not None and not self.bootstrap:
            raise ParameterError("max_samples needs bootstrap=True (it is the size of each "
                                 "bootstrap sample)")
        if self.oob_score and not self.bootstrap:
            raise ParameterError("oob_score needs bootstrap=True (no row is out of the bag "
                                 "without a bootstrap sample)")
        subsample = isinstance(self.class_weight, str) and self.class_weight == "balanced_subsample"
        class_weight = ("balanced" if subsample and not self.bootstrap
                        else None if subsample else self.class_weight)
        rules, engine = self._check_training(data)
        checked_leaf_options(self)  # before the trees grow
        return ForestPlan(engine=engine, rules=rules,
                          weights=row_weights(sample_weight, class_weight, data.y, data.classes),
                          bootstrap=bool(self.bootstrap), n_draws=self._n_draws(data.X.shape[0]),
                          balanced_subsample=subsample and bool(self.bootstrap),
                          seed=seed_of(self.random_state))

    def _n_draws(self, n_rows: int) -> int:
        """Rows per bootstrap sample (max_samples), scikit-learn's way."""
        value = self.max_samples
        if value is None:
            return n_rows
        count = count_or_fraction(value, n_rows, round)
        if count is not None:
            return count
        raise ParameterError(f"max_samples must be None, an integer in [1, {n_rows}] or a "
                             f"fraction in (0, 1], got {value!r}")

    def _estimator(self, tree, features, classes) -> DecisionTreeClassifier:
        """A fitted DecisionTreeClassifier around one of the forest's trees."""
        estimator = DecisionTreeClassifier.of_tree(
            tree, features, classes, **{k: getattr(self, k) for k in _TREE_PARAMS
                                        if k != "class_weight"})
        if hasattr(self, "feature_names_in_"):
            estimator.feature_names_in_ = self.feature_names_in_
        return estimator

    def _score_out_of_bag(self, X, y, plan) -> None:
        """oob_decision_function_: each row's mean probability over the trees whose
        bootstrap sample left it out (zeros for a row every sample drew, with a
        warning, as scikit-learn); oob_score_: the accuracy of its argmax."""
        from dtcli.ensemble.growth import tree_proba

        n, k = X.shape[0], self.n_classes_
        total, votes = np.zeros((n, k)), np.zeros(n)
        mask = self._nominal_mask()
        for index, estimator in enumerate(self.estimators_):
            out = np.flatnonzero(plan.counts(index, n) == 0)
            total[out] += tree_proba(estimator.tree_, getattr(estimator, "leaf_model_", None),
                                     X[out], mask, self._threads())
            votes[out] += 1
        if (votes == 0).any():
            warnings.warn("Some inputs do not have OOB scores. This probably means too few "
                          "trees were used to compute any reliable OOB estimates.",
                          UserWarning, stacklevel=3)
        self.oob_decision_function_ = total / np.maximum(votes, 1)[:, None]
        self.oob_score_ = float(np.mean(np.argmax(self.oob_decision_function_, axis=1) == y))

    # prediction -------------------------------------------------------------------------
    def _check_fitted(self):
        if not hasattr(self, "estimators_"):
            raise not_fitted(self)

    def proba_from_matrix(self, matrix: np.ndarray) -> np.ndarray:
        """Class probabilities for an already encoded float64 matrix (CLI path)."""
        from dtcli.ensemble.growth import forest_proba

        self._check_fitted()
        return forest_proba([e.tree_ for e in self.estimators_], matrix, self._nominal_mask(),
                            self.n_jobs, [getattr(e, "leaf_model_", None)
                                          for e in self.estimators_])

    def predict(self, X) -> np.ndarray:
        proba = self.predict_proba(X)  # checks first that the forest is fitted
        return self.classes_[self.predicted_index(proba)]

    @property
    def feature_importances_(self) -> np.ndarray:
        """The mean of the trees' feature_importances_ (trees that split), normalised to
        sum to 1, as scikit-learn's."""
        self._check_fitted()
        split = [e.feature_importances_ for e in self.estimators_ if e.tree_.node_count > 1]
        if not split:
            return np.zeros(self.n_features_in_)
        mean = np.mean(split, axis=0)
        return mean / mean.sum() if mean.sum() > 0 else mean

