"""`J48Classifier`: C4.5 as Weka's J48 grows, collapses and prunes it, in
scikit-learn's conventions.

Its parameters are named after dtree's tree options, with J48's flags beside them:
`min_samples_leaf` (-M 2), `pruning` ("pessimistic", or None for -U), `confidence`
(-C 0.25), `subtree_raising` (False for -S), `leaf_estimate` ("laplace" for -A) and
`binary_splits` (-B: a nominal feature splits one category against the rest).

`fit_dataset` grows the tree over the classes the file declares, in its order and
those without rows included (`tree_classes_`), as Weka reads them: the order decides
J48's ties and their number its minimum split size. `classes_`, the columns of
`predict_proba`, are the dataset's (sorted, as every dtree model's).
"""
from __future__ import annotations

import time

import numpy as np

from dtcli.c45.grow import Pruner, collapse, grow, multi_valued
from dtcli.c45.split import Data
from dtcli.c45.tree import C45Tree, weka_argmax
from dtcli.errors import ParameterError
from dtcli.estimator_base import Classifier
from dtcli.io.dataset import NOMINAL, Dataset
from dtcli.measures.fitted import THRESHOLD_PARAMS, as_dataset, decide
from dtcli.params import integer_param
from dtcli.pruning.pessimistic import check_confidence
from dtcli.validation import not_fitted

PARAMS = ("min_samples_leaf", "pruning", "confidence", "subtree_raising", "leaf_estimate",
          "binary_splits")
LEAF_ESTIMATES = ("frequency", "laplace")


class J48Classifier(Classifier):
    """C4.5 (Quinlan 1993) exactly as Weka's J48 builds it; docs/c45.md.

    `threshold`, `threshold_metric`, `cost`, `positive`: the decision threshold of
    predict, as DecisionTreeClassifier's (dtcli/measures/fitted.py; fitted `threshold_`).
    """

    model_kind = "c45"
    PARAMS = PARAMS + ("nominal_features", *THRESHOLD_PARAMS)

    def __init__(self, min_samples_leaf: int = 2, pruning: str | None = "pessimistic",
                 confidence: float = 0.25, subtree_raising: bool = True,
                 leaf_estimate: str = "frequency", binary_splits: bool = False,
                 nominal_features=None, threshold=None, threshold_metric: str | None = None, cost=None, positive=None):
        self.min_samples_leaf = min_samples_leaf
        self.pruning = pruning
        self.confidence = confidence
        self.subtree_raising = subtree_raising
        self.leaf_estimate = leaf_estimate
        self.binary_splits = binary_splits
        self.nominal_features = nominal_features
        self.threshold = threshold
        self.threshold_metric = threshold_metric
        self.cost = cost
        self.positive = positive

    def options(self) -> dict:
        """The parameters, validated (ParameterError), as the model file records them."""
        integer_param(self, "min_samples_leaf", 1)
        if self.pruning not in (None, "pessimistic"):
            raise ParameterError(f"pruning must be pessimistic or None, got {self.pruning!r}")
        confidence = check_confidence(self.confidence)
        if self.leaf_estimate not in LEAF_ESTIMATES:
            raise ParameterError(f"leaf_estimate must be frequency or laplace for J48, got "
                                 f"{self.leaf_estimate!r}")
        for name in ("subtree_raising", "binary_splits"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ParameterError(f"{name} must be True or False")
        return {"min_samples_leaf": int(self.min_samples_leaf), "pruning": self.pruning,
                "confidence": float(confidence), "subtree_raising": bool(self.subtree_raising),
                "leaf_estimate": self.leaf_estimate, "binary_splits": bool(self.binary_splits)}

    # fitting ----------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None) -> "J48Classifier":
        features, matrix, classes, codes = self._training_input(X, y)
        self._fit_encoded(matrix, codes, features, classes, sample_weight)
        return decide(self, as_dataset(matrix, codes, features, classes), sample_weight)

    def fit_dataset(self, dataset: Dataset, sample_weight=None) -> "J48Classifier":
        """Fit on a `Dataset` from `dtcli.io.load_dataset` (what the CLI does). The
        classes are those the file declares, in its order (as in Weka), where it declares
        them."""
        self.feature_names_in_ = np.array(dataset.feature_names, dtype=object)
        tree_classes, y = declared_order(dataset)
        self._fit_encoded(dataset.X, y, dataset.features, tree_classes, sample_weight)
        self.classes_ = np.array(dataset.classes, dtype=object)
        self.n_classes_ = len(dataset.classes)
        return decide(self, dataset, sample_weight)

    def _fit_encoded(self, X, y, features, classes, sample_weight=None) -> "J48Classifier":
        options = self.options()
        if X.shape[0] == 0:
            raise ParameterError("cannot fit J48 on zero rows")
        if classes.shape[0] < 2:
            raise ParameterError(
                f"y has one class ({classes[0]!r}); a classifier needs at least two")
        w = (np.ones(X.shape[0]) if sample_weight is None
             else np.asarray(sample_weight, dtype=np.float64))
        if w.shape != (X.shape[0],) or not np.isfinite(w).all() or (w < 0).any():
            raise ParameterError("sample_weight must hold one finite weight >= 0 per row")
        start = time.perf_counter()
        data = Data(np.ascontiguousarray(X, dtype=np.float64), np.asarray(y, dtype=np.int64),
                    np.array([len(f.categories) if f.kind == NOMINAL else 0 for f in features]),
                    int(classes.shape[0]), options["min_samples_leaf"], options["binary_splits"])
        root = grow(data, np.arange(X.shape[0]), w, multi_valued(data))
        collapse(root)
        if options["pruning"] == "pessimistic":
            Pruner(data, options["confidence"], options["subtree_raising"]).prune(root)
        self.tree_ = C45Tree.from_nodes(root)
        self.n_samples_ = int(X.shape[0])
        self.fit_seconds_ = time.perf_counter() - start
        self.classes_ = self.tree_classes_ = classes
        self.n_classes_ = int(classes.shape[0])
        self.features_ = list(features)
        self.n_features_in_ = len(features)
        return self

    # prediction -------------------------------------------------------------------------
    def _check_fitted(self):
        if not hasattr(self, "tree_"):
            raise not_fitted(self)

    def proba_from_matrix(self, matrix: np.ndarray) -> np.ndarray:
        """J48's class probabilities for an encoded float64 matrix (CLI path). Like J48's,
        a row's probabilities can sum to less than 1 when a missing value sends part of it
        towards a branch that received no training rows."""
        self._check_fitted()
        proba = self.tree_.proba(np.asarray(matrix, dtype=np.float64),
                                 laplace=self.leaf_estimate == "laplace")
        column = {label: k for k, label in enumerate(self.tree_classes_)}
        return proba[:, [column[label] for label in self.classes_]]

    def most_probable_index(self, proba: np.ndarray) -> np.ndarray:
        """J48's prediction from `proba` (columns: `classes_`): the first most probable
        class in the order the training file declared them (`tree_classes_`), as Weka's
        classifyInstance takes it and as the printed tree labels its leaves."""
        column = {label: k for k, label in enumerate(self.classes_)}
        declared = np.array([column[label] for label in self.tree_classes_ if label in column],
                            dtype=np.int64)
        return declared[weka_argmax(proba[:, declared])]

    def predict(self, X) -> np.ndarray:
        return self.classes_[self.predicted_index(self.predict_proba(X))]

    def to_pmml(self) -> str:
        """A PMML 4.4 TreeModel keeping J48's fractional routing of missing values
        (dtcli/c45/pmml.py); J48's trees have no other production format."""
        from dtcli.c45.pmml import render

        return render(self)

    def to_svg(self, max_depth: int | None = None, tree: int | None = None) -> str:
        """The tree drawn as an SVG document (`dtree export -f svg`; dtcli/c45/drawing.py).
        J48's pictures have no depth limit and a J48 model is one tree."""
        from dtcli.c45.drawing import diagram
        from dtcli.export.svg import render

        self._check_fitted()
        if max_depth is not None or tree is not None:
            raise ParameterError("max_depth and tree= are not available for J48 pictures "
                                 "(the html page folds subtrees)")
        return render(diagram(self))

    def _repr_svg_(self) -> str | None:
        """A notebook shows a fitted J48 tree as its picture (None unfitted)."""
        return self.to_svg() if hasattr(self, "tree_") else None

    def text(self) -> str:
        """The tree as J48 prints it."""
        from dtcli.c45.text import render

        self._check_fitted()
        return render(self.tree_, self.features_, [str(c) for c in self.tree_classes_],
                      binary=self.binary_splits)


def declared_order(dataset: Dataset) -> tuple[np.ndarray, np.ndarray]:
    """(classes, y) in the order the file declares the classes, those without rows
    included; the dataset's sorted classes where it declares none (CSV), as dtree's
    CSV reader knows no order of first appearance (Weka's)."""
    declared = dataset.declared_classes
    if not declared or not set(dataset.classes) <= set(declared):
        return np.array(dataset.classes, dtype=object), dataset.y
    position = {label: k for k, label in enumerate(declared)}
    remap = np.array([position[label] for label in dataset.classes], dtype=np.int64)
    return np.array(declared, dtype=object), remap[dataset.y]
