"""`DecisionTreeClassifier`: the library API, in scikit-learn's conventions.

The estimator validates parameters and wires the parts together: encode the
input, resolve the criterion, grow the tree with the engine. It accepts
numpy arrays and, when pandas happens to be installed, DataFrames (object,
string, category and bool columns become nominal features).
"""
from __future__ import annotations

import time

import numpy as np

from dtcli import leaf_estimate
from dtcli.errors import ParameterError
from dtcli.estimator_base import TreeEstimatorBase
from dtcli.fit_data import FitData
from dtcli.io.dataset import Dataset
from dtcli.measures.fitted import THRESHOLD_PARAMS, as_dataset, decide
from dtcli.pruning import methods as pruning_methods
from dtcli.validation import not_fitted, row_weights

# In this order, less those a method sets, they are crossval.tasks.TreeOptions' fields:
# the order of the options reports and results files write.
_PARAMS = ("criterion", "criterion_params", "max_depth", "min_samples_split",
           "min_samples_leaf", "min_gain", "min_weight_fraction_leaf", "nominal_features",
           "n_jobs", "class_weight", "max_features", "random_state", "pruning", "ccp_alpha", "cp",
           "ccp_risk", "confidence",
           "subtree_raising", "pruning_folds", "significance", "permutations", "pruning_mode",
           "leaf_estimate", "m", "leaf_model", "leaf_params", *THRESHOLD_PARAMS)


class DecisionTreeClassifier(TreeEstimatorBase):
    """A binary decision tree with any split criterion of `dtree criteria`.

    Parameters follow scikit-learn where it has them: `max_depth`,
    `min_samples_split`, `min_samples_leaf` (counts of rows),
    `min_weight_fraction_leaf` (a child must weigh at least this share, in [0, 0.5],
    of the sum of the fit's sample weights; with weights of one, of its rows). `min_gain` is
    the smallest criterion score a split must reach, in the criterion's own
    units: for gini and entropy the node's own impurity decrease (scikit-learn's
    min_impurity_decrease also weights it by the node's share of the rows).
    Trees are unpruned by default. `nominal_features` marks columns of a numpy array as nominal
    (indices, names or a boolean mask); DataFrame columns of non-numeric dtype
    are nominal anyway. `n_jobs` threads (default: all cores); the tree does
    not depend on it. `class_weight`: None, a dict {label: weight} (labels left
    out weigh 1) or "balanced" (scikit-learn's n_samples / (n_classes *
    bincount(y))); multiplied into sample_weight. A row of weight zero counts as
    absent: the tree is the one grown without it. `max_features`: the features
    searched at each node, drawn at random (None: all; "sqrt", "log2", a count
    or a fraction, as in scikit-learn; a node none of whose drawn features can
    split becomes a leaf, where scikit-learn would draw more). `random_state`
    (None, an int or a numpy generator) seeds those draws, which depend on the
    seed and the node only: the same seed grows the same tree on any number of
    threads.

    `pruning` (None, "ccp", "rpart", "pessimistic", "reduced-error" or "s-pruning";
    docs/pruning.md) prunes
    the grown tree: "ccp" at `ccp_alpha` (a number, or "auto" / "auto-1se" for
    CART's choice by `pruning_folds`-fold cross-validation, default 10, without or
    with the 1-SE rule) or at `cp` (rpart's: alpha over the root's risk R(root)), its
    node risk the criterion's impurity or `ccp_risk="error"` (rpart's); "rpart" by
    rpart's own rule at `cp` (default 0.01), the tree `rpart(cp = cp)` returns;
    "pessimistic" as C4.5 and Weka's J48 (`confidence`, `subtree_raising`);
    "reduced-error" grows on all but one of `pruning_folds` folds (default 3) and
    prunes on that one (J48 -R); "s-pruning" is the PIDT paper's permutation test of
    each split (`significance`, `permutations` shuffles, `pruning_mode` "default" or
    "exact"; docs/pruning-significance.md). `leaf_estimate` ("frequency", "laplace" or
    "m-estimate" with `m`) sets the leaves' class probabilities (predict_proba);
    predictions stay each leaf's majority class.

    `leaf_model`: "counts" (the default: a leaf predicts its class frequencies, or
    `leaf_estimate`) or "naive-bayes" (each leaf of at least min_samples rows holds a
    Naive Bayes model fitted on its training rows, over all features, and predicts
    with it: dtcli.leaves.naive_bayes, whose options `leaf_params` sets: numeric
    ("mdl" or "gaussian"), min_samples, alpha, var_smoothing).

    `threshold` (None: the most probable class; two classes only): the positive class
    (`positive`, default the rarest) is predicted where its probability is at least
    this number, or, for "auto", at least the threshold an inner cross-validation of
    the training data chooses, minimising the expected cost of `cost` ("FN=10,FP=1" or
    {"FN": 10, "FP": 1}) or maximising `threshold_metric` (f1, mcc, ...), as
    scikit-learn's TunedThresholdClassifierCV (dtcli/measures/fitted.py; fitted
    `threshold_`). predict_proba is unchanged.
    """

    model_kind = "tree"  # its model file's kind (dtcli/model/kinds.py)

    PARAMS = _PARAMS

    def __init__(self, criterion: str = "gini", criterion_params: dict | None = None,
                 max_depth: int | None = None, min_samples_split: int = 2,
                 min_samples_leaf: int = 1, min_weight_fraction_leaf: float = 0.0,
                 min_gain: float = 0.0, nominal_features=None, n_jobs: int | None = None,
                 class_weight=None,
                 max_features=None, random_state=None, pruning=None, ccp_alpha=0.0,
                 cp=None, ccp_risk="impurity", confidence=0.25, subtree_raising=True,
                 pruning_folds=None, significance=0.05, permutations=1000,
                 pruning_mode="default", leaf_estimate="frequency", m=2.0,
                 leaf_model: str = "counts", leaf_params: dict | None = None,
                 threshold=None, threshold_metric: str | None = None, cost=None, positive=None):
        self.criterion = criterion
        self.criterion_params = criterion_params
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_gain = min_gain
        self.nominal_features = nominal_features
        self.n_jobs = n_jobs
        self.class_weight = class_weight
        self.max_features = max_features
        self.random_state = random_state
        self.pruning = pruning
        self.ccp_alpha = ccp_alpha
        self.cp = cp
        self.ccp_risk = ccp_risk
        self.confidence = confidence
        self.subtree_raising = subtree_raising
        self.pruning_folds = pruning_folds
        self.significance = significance
        self.permutations = permutations
        self.pruning_mode = pruning_mode
        self.leaf_estimate = leaf_estimate
        self.m = m
        self.leaf_model = leaf_model
        self.leaf_params = leaf_params
        self.threshold = threshold
        self.threshold_metric = threshold_metric
        self.cost = cost
        self.positive = positive

    # fitting ----------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None) -> "DecisionTreeClassifier":
        data = self.fit_data(X, y)
        self.fit_prepared(data, sample_weight, spend=True)
        return decide(self, as_dataset(data.X, data.y, data.features, data.classes),
                      sample_weight)

    def fit_dataset(self, dataset: Dataset, sample_weight=None) -> "DecisionTreeClassifier":
        """Fit on a `Dataset` from `dtcli.io.load_dataset` (what the CLI does)."""
        self.fit_prepared(FitData.of_dataset(dataset), sample_weight, spend=True)
        return decide(self, dataset, sample_weight)

    def fit_prepared(self, data: FitData, sample_weight=None, *,
                     spend: bool = False) -> "DecisionTreeClassifier":
        """Fit on encoded data (`fit_data`, `FitData.of_dataset`), growing from its presort,
        which is made once and kept for the next fit (the folds of a cross-validation
        grow from one, with 0/1 weights: a row of weight zero is left out, so the tree is
        the one fitted without it). With `spend`, an unpruned tree may grow in the
        presort's own buffer (one fit, no copy), and `data` forgets it."""
        from dtcli.engine.builder import grow
        from dtcli.engine.rng import seed_of

        rules, engine = self._check_training(data)
        X, y, classes = data.X, data.y, data.classes
        # rows of weight zero are left out by the engine (builder.grow)
        weights = row_weights(sample_weight, self.class_weight, y, classes)
        method = self.pruning_method()
        # the seed keys only max_features' draws and, with a random_state, pruning's folds
        # (fresh entropy for random_state=None costs a system call per fit)
        seed = (seed_of(self.random_state)
                if rules.max_features is not None or self.random_state is not None else 0)
        start = time.perf_counter()
        prepared = data.presort(self.n_jobs)

        def grow_with(row_weights, test=None):
            return grow(prepared, engine, rules, weights if row_weights is None else row_weights,
                        self.n_jobs, seed=seed, reuse=method is not None or not spend,
                        test=test)

        if method is None:
            self.tree_, self.pruning_ = grow_with(None), None
        else:
            # pruning folds: seeded by random_state, and reproducible without one (as J48's -Q 1)
            fold_seed = 0 if self.random_state is None else seed
            fit = pruning_methods.FitContext(
                X, y, np.ones(y.shape[0]) if weights is None else weights, prepared.is_nominal,
                self.criterion, self.criterion_params, fold_seed, grow_with, self._threads())
            self.tree_, record = method.run(fit, {k: getattr(self, k) for k in method.params})
            self.pruning_ = {"method": self.pruning, **record}
        if spend:
            data.release()
        self.leaf_model_ = _fit_leaf_model(self, X, y, weights, data.features, classes.shape[0])
        self.fit_seconds_ = time.perf_counter() - start
        self.set_fitted(data)
        return self

    @classmethod
    def of_tree(cls, tree, features, classes, **params) -> "DecisionTreeClassifier":
        """A fitted estimator of these parameters around a grown `tree` (a forest's)."""
        estimator = cls(**params)
        estimator.tree_ = tree
        estimator._set_fitted(features, classes)
        return estimator

    def pruning_method(self):
        """The pruning method (None for none) and the leaf estimate, checked."""
        leaf_estimate.check(self.leaf_estimate, self.m)
        return pruning_methods.checked(self.pruning, self.get_params())

    def cost_complexity_pruning_path(self, X, y, sample_weight=None) -> "PruningPath":
        """scikit-learn's: the effective alphas of the unpruned tree's weakest-link steps
        (`ccp_alphas`, 0 first) and its total leaf risk after each (`impurities`), the
        risk as `ccp_risk` says (docs/pruning.md)."""
        from dtcli.pruning.cost_complexity import model_links

        unpruned = type(self)(**{**self.get_params(), "pruning": None}).fit(X, y, sample_weight)
        _, alphas, impurities, _ = model_links(unpruned)
        return PruningPath(ccp_alphas=alphas, impurities=impurities)

    # prediction -------------------------------------------------------------------------
    def _check_fitted(self):
        if not hasattr(self, "tree_"):
            raise not_fitted(self)

    def apply(self, X) -> np.ndarray:
        """Index of the leaf each row lands in."""
        matrix = self._matrix(X)
        return self.tree_.apply(matrix, self._nominal_mask(), self._threads())

    def decision_path(self, X):
        """scikit-learn's: a scipy.sparse CSR matrix of rows x nodes, 1 where the row
        passes the node. scipy is imported only here (it is no dependency of dtree):
        without it, an ImportError names `decision_path_arrays`, the same in numpy."""
        indptr, indices = self.decision_path_arrays(X)
        try:
            from scipy.sparse import csr_matrix
        except ImportError:
            raise ImportError("decision_path returns a scipy.sparse matrix and scipy is not "
                              "installed: install scipy, or use decision_path_arrays(X) for "
                              "its CSR arrays (indptr, indices)") from None
        return csr_matrix((np.ones(indices.shape[0], dtype=np.int64), indices, indptr),
                          shape=(indptr.shape[0] - 1, self.tree_.node_count))

    def decision_path_arrays(self, X) -> tuple[np.ndarray, np.ndarray]:
        """The nodes each row passes, root to leaf, as a CSR matrix's (indptr, indices):
        row i's node ids are indices[indptr[i]:indptr[i + 1]], increasing. A dense
        boolean matrix would take rows x nodes bytes (5 GB for 100k rows of a 50k-node
        tree)."""
        leaves = self.apply(X)  # checks first that the tree is fitted
        return self.tree_.decision_path(leaves)

    def proba_from_matrix(self, matrix: np.ndarray) -> np.ndarray:
        """Class probabilities for an already encoded float64 matrix (CLI path)."""
        self._check_fitted()
        leaves = self.tree_.apply(matrix, self._nominal_mask(), self._threads())
        if getattr(self, "leaf_model_", None) is not None:
            return self.leaf_model_.proba(matrix, leaves, self.tree_.counts)
        if self.leaf_estimate == "frequency":
            return self.tree_.node_proba[leaves]
        estimate, m = leaf_estimate.check(self.leaf_estimate, self.m)
        return leaf_estimate.node_proba(self.tree_.counts, estimate, m)[leaves]

    def predict(self, X) -> np.ndarray:
        if getattr(self, "leaf_model_", None) is not None or getattr(self, "threshold_", None) \
                is not None:
            return self.classes_[self.predicted_index(self.predict_proba(X))]
        leaves = self.apply(X)  # checks first that the tree is fitted
        return self.classes_[self.tree_.node_class[leaves]]  # ties as argmax of predict_proba

    # tree facts -------------------------------------------------------------------------
    def get_depth(self) -> int:
        self._check_fitted()
        return self.tree_.max_depth

    def get_n_leaves(self) -> int:
        self._check_fitted()
        return self.tree_.n_leaves

    @property
    def feature_importances_(self) -> np.ndarray:
        """Each feature's share of the tree's total weighted split score: the sum, over
        the nodes split on it, of the node's weighted row count times its criterion
        score, normalised to sum to 1 (all zeros for a single leaf). For criteria whose
        score is an impurity decrease (gini, entropy, tsallis, renyi, pe, pg, pt, pr,
        ge, abi) this is scikit-learn's impurity-based importance; for the others
        (gain-ratio, tsallis-gain-ratio, dcsm, hddt, ccpdt, ihd, ihdw) it weighs the
        criterion's own score the same way."""
        self._check_fitted()
        return self.tree_.feature_importances(self.n_features_in_)


def _fit_leaf_model(model, X, y, weights, features, n_classes):
    """The leaves' models (None for plain class counts)."""
    if model.leaf_model == "counts":
        return None
    from dtcli.leaves.naive_bayes import LEAF_MODELS, fit_leaves, leaf_options

    if model.leaf_model not in LEAF_MODELS:
        raise ParameterError(f"leaf_model must be one of {', '.join(LEAF_MODELS)}, got "
                             f"{model.leaf_model!r}")
    return fit_leaves(model.tree_, X, y, weights, features, n_classes,
                      leaf_options(model.leaf_params), model._threads())


class PruningPath(dict):
    """A dict whose keys are also attributes, as scikit-learn's Bunch."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None
