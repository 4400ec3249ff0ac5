"""`FDFClassifier`: the FDF hybrid decision forest in scikit-learn's conventions.

Fitting discretises every numeric attribute with Fayyad and Irani's MDL method on
the training rows (`discretise`), then grows every training sample's rule by
general information gain (`grow`), recording the forest of rules. Predicting grows
each new sample's rule the same way, on the kept training values (section III.B:
follow a matching branch, or build one by GenGain), and returns its leaf's Naive
Bayes probabilities. A sample's rule lies in exactly one tree, the one whose root
is its value of the highest GenGain(S, x): that selection is how the trees are
combined (the paper's example: S_8 matches both trees and goes by GenGain(S, b1) >
GenGain(S, a2)); docs/fdf.md discusses the reading.
"""
from __future__ import annotations

import numbers
import sys
import time

import numpy as np

from dtcli.errors import ParameterError
from dtcli.estimator_base import Classifier
from dtcli.leaves.discretise import mdl_cut_points, to_bins
from dtcli.fdf.grow import NO_VALUE, Coded, Forest, Stops, root_gains, walk
from dtcli.io.dataset import NOMINAL, NUMERIC, Dataset
from dtcli.leaves.naive_bayes import softmax
from dtcli.measures.fitted import THRESHOLD_PARAMS, as_dataset, decide
from dtcli.params import integer_param
from dtcli.validation import not_fitted

_FLOAT_MAX = sys.float_info.max

_PARAMS = ("min_samples_leaf", "max_depth", "min_gain", "nb_min_samples", "alpha",
           "combine", "nominal_features", *THRESHOLD_PARAMS)
COMBINE = ("select", "average")


class FDFClassifier(Classifier):
    """The FDF hybrid decision forest (Wang, Zang and Xu).

    `min_samples_leaf`: a rule takes no condition whose subset would have fewer
    training rows; `max_depth`: most conditions in a rule (None: no limit);
    `min_gain`: a condition needs a GenGain above this (bits); `nb_min_samples`: a
    leaf with fewer rows predicts its Laplace-smoothed class frequencies instead of
    a Naive Bayes model; `alpha`: the Laplace smoothing of priors and conditionals.
    `combine`: "select" (the default: a sample's probabilities are those of its own
    rule's leaf, in the tree its highest-GenGain value roots) or "average" (the
    leaves it reaches in every tree whose root branch matches it, averaged with
    weights GenGain(S, x) of its value at each root; docs/fdf.md, reading 8).
    `nominal_features` as in DecisionTreeClassifier. Sample weights are not
    supported: the method counts rows.

    `threshold`, `threshold_metric`, `cost`, `positive`: the decision threshold of
    predict, as DecisionTreeClassifier's (dtcli/measures/fitted.py; fitted `threshold_`).
    """

    model_kind = "fdf"
    PARAMS = _PARAMS

    def __init__(self, min_samples_leaf: int = 1, max_depth: int | None = None,
                 min_gain: float = 0.0, nb_min_samples: int = 5, alpha: float = 1.0,
                 combine: str = "select", nominal_features=None, threshold=None, threshold_metric: str | None = None, cost=None, positive=None):
        self.min_samples_leaf = min_samples_leaf
        self.max_depth = max_depth
        self.min_gain = min_gain
        self.nb_min_samples = nb_min_samples
        self.alpha = alpha
        self.combine = combine
        self.nominal_features = nominal_features
        self.threshold = threshold
        self.threshold_metric = threshold_metric
        self.cost = cost
        self.positive = positive

    def stops(self) -> Stops:
        """The parameters, validated (ParameterError)."""
        def integer(name, low, allow_none=False):
            return integer_param(self, name, low, allow_none)

        def real(name, low):
            value = getattr(self, name)
            finite = isinstance(value, numbers.Real) and -_FLOAT_MAX <= value <= _FLOAT_MAX
            if not finite or value < low:  # (NaN is in no range; 10**400 in no float's)
                raise ParameterError(f"{name} must be a finite number >= {low:g}, got {value!r}")
            return float(value)

        stops = Stops(integer("min_samples_leaf", 1), integer("max_depth", 1, allow_none=True),
                      real("min_gain", 0.0), integer("nb_min_samples", 0), real("alpha", 0.0))
        if stops.alpha <= 0:
            raise ParameterError(f"alpha must be > 0, got {self.alpha!r}")
        if self.combine not in COMBINE:
            raise ParameterError(f"combine must be select or average, got {self.combine!r}")
        return stops

    # fitting ----------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None) -> "FDFClassifier":
        if sample_weight is not None:
            raise ParameterError("FDFClassifier counts rows: sample_weight is not supported")
        features, matrix, classes, codes = self._training_input(X, y)
        self._fit_encoded(matrix, codes, features, classes)
        return decide(self, as_dataset(matrix, codes, features, classes))

    def fit_dataset(self, dataset: Dataset) -> "FDFClassifier":
        """Fit on a `Dataset` from `dtcli.io.load_dataset` (what the CLI does)."""
        self.feature_names_in_ = np.array(dataset.feature_names, dtype=object)
        self._fit_encoded(dataset.X, dataset.y, dataset.features,
                          np.array(dataset.classes, dtype=object))
        return decide(self, dataset)

    def _fit_encoded(self, X, y, features, classes) -> "FDFClassifier":
        stops = self.stops()
        if X.shape[0] == 0:
            raise ParameterError("cannot fit FDF on zero rows")
        if classes.shape[0] < 2:
            raise ParameterError(
                f"y has one class ({classes[0]!r}); a classifier needs at least two")
        start = time.perf_counter()
        X = np.ascontiguousarray(X, dtype=np.float64)
        self.cuts_ = {j: mdl_cut_points(X[:, j], y, classes.shape[0])
                      for j, f in enumerate(features) if f.kind == NUMERIC}
        self.classes_ = classes
        self.n_classes_ = classes.shape[0]
        self.features_ = list(features)
        self.n_features_in_ = len(features)
        self.data_ = Coded(self.codes(X), np.asarray(y, dtype=np.int64), self._n_values(),
                           classes.shape[0])
        self.forest_ = Forest()
        walk(self.data_, self.data_.codes, stops, self.forest_)
        self.fit_seconds_ = time.perf_counter() - start
        return self

    def _n_values(self) -> np.ndarray:
        return np.array([len(f.categories) if f.kind == NOMINAL else len(self.cuts_[j]) + 1
                         for j, f in enumerate(self.features_)], dtype=np.int64)

    def codes(self, X: np.ndarray) -> np.ndarray:
        """Attribute values of rows of an encoded matrix: bins of numeric features,
        category indices of nominal ones, NO_VALUE for missing or unseen."""
        codes = np.empty(X.shape, dtype=np.int64)
        for j, feature in enumerate(self.features_):
            if feature.kind == NOMINAL:
                codes[:, j] = np.where(np.isnan(X[:, j]), NO_VALUE,
                                       np.nan_to_num(X[:, j], nan=NO_VALUE))
            else:
                codes[:, j] = to_bins(X[:, j], self.cuts_[j])
        return codes

    # prediction -------------------------------------------------------------------------
    def _check_fitted(self):
        if not hasattr(self, "forest_"):
            raise not_fitted(self)

    def proba_from_matrix(self, matrix: np.ndarray) -> np.ndarray:
        """Class probabilities for an already encoded float64 matrix (CLI path)."""
        self._check_fitted()
        stops = self.stops()
        queries = self.codes(np.asarray(matrix, dtype=np.float64))
        _, log_proba = walk(self.data_, queries, stops)
        proba = softmax(log_proba)
        return proba if self.combine == "select" else self._averaged(queries, stops, proba)

    def _averaged(self, queries: np.ndarray, stops: Stops, own: np.ndarray) -> np.ndarray:
        """Each sample's leaves in every tree whose root branch it matches (and in its own
        rule's tree), weighted by GenGain(S, x) of its root value; `own` (its own rule's
        probabilities) where its rule has no condition."""
        forest, data = self.forest_, self.data_
        gains = root_gains(data)
        offsets = data.offsets
        present = queries != NO_VALUE
        ids = np.where(present, queries + offsets, 0)
        options = np.where(present, gains[ids], -np.inf)
        own_first = np.argmax(options, axis=1)
        rooted = options[np.arange(queries.shape[0]), own_first] > stops.min_gain
        roots = np.zeros(int(data.n_values.sum()), dtype=bool)
        roots[[offsets[forest.feature[n]] + forest.value[n]
               for n in range(1, len(forest.parent)) if forest.parent[n] == 0]] = True
        matched = present & roots[ids]
        matched[np.flatnonzero(rooted), own_first[rooted]] = True
        matched[~rooted] = False
        total = np.zeros_like(own)
        weight = np.zeros(queries.shape[0])
        for j in np.flatnonzero(matched.any(axis=0)):
            rows = np.flatnonzero(matched[:, j])
            _, log_proba = walk(data, queries[rows], stops, first=int(j))
            w = gains[ids[rows, j]]
            total[rows] += w[:, None] * softmax(log_proba)
            weight[rows] += w
        averaged = total / np.where(weight > 0, weight, 1.0)[:, None]
        return np.where((weight > 0)[:, None], averaged, own)

    def predict_proba(self, X) -> np.ndarray:
        return self.proba_from_matrix(self._matrix(X))

    def predict(self, X) -> np.ndarray:
        return self.classes_[self.predicted_index(self.predict_proba(X))]

    def score(self, X, y, sample_weight=None) -> float:
        correct = (self.predict(X) == np.asarray(y)).astype(np.float64)
        return float(np.average(correct, weights=sample_weight))

    # facts --------------------------------------------------------------------------------
    def facts(self) -> dict:
        """Size of the forest: trie nodes (root excluded), rules (distinct rule ends),
        trees (attributes at the roots) and the longest rule."""
        self._check_fitted()
        forest = self.forest_
        depth = np.zeros(len(forest.parent), dtype=np.int64)
        for node in range(1, len(forest.parent)):
            depth[node] = depth[forest.parent[node]] + 1
        roots = {forest.feature[n] for n in range(1, len(forest.parent)) if forest.parent[n] == 0}
        return {"n_nodes": len(forest.parent) - 1,
                "n_leaves": int(np.count_nonzero(np.array(forest.n_rules) > 0)),
                "n_trees": len(roots), "depth": int(depth.max())}
