"""What the tree and the forest share: scikit-learn's parameter protocol with the
nested `criterion_params__NAME` spelling, the encoding of training and prediction
input, and the checks of the parameters and data before growing (`TreeEstimatorBase`).
"""
from __future__ import annotations

import dataclasses
import functools
import math
import numbers
import os
from typing import Any

import numpy as np

from dtcli import criteria
from dtcli.errors import ParameterError
from dtcli.export.production import Exportable
from dtcli.fit_data import FitData
from dtcli.io.arrays import (column_names, columns_of, declared_nominal, default_names,
                             encode_columns, encode_training)
from dtcli.io.dataset import NOMINAL, NUMERIC, Feature
from dtcli.params import Parameters, count_or_fraction, integer_param
from dtcli.validation import class_labels


class Classifier(Parameters, Exportable):
    """Prediction from input encoded as in training, shared by the estimators: a
    subclass defines `_check_fitted` and `proba_from_matrix` and, once fitted, has
    `features_`, `n_features_in_` and `classes_`. Exportable: to_onnx, to_sql, to_c,
    to_python, to_pmml (dtcli/export/production.py)."""

    def _matrix(self, X) -> np.ndarray:
        self._check_fitted()
        if (isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype.kind in "fiu"
                and X.shape[1] == self.n_features_in_
                and all(f.kind == NUMERIC for f in self.features_)):
            return np.ascontiguousarray(X, dtype=np.float64)  # nothing to encode
        names = column_names(X)
        columns = columns_of(X)
        if names is not None and hasattr(self, "feature_names_in_"):
            by_name = dict(zip(names, columns))
            missing = [f.name for f in self.features_ if f.name not in by_name]
            if missing:
                raise ParameterError(f"X lacks the feature column(s) {', '.join(missing)}")
            columns = [by_name[f.name] for f in self.features_]
        elif len(columns) != self.n_features_in_:
            raise ParameterError(f"X has {len(columns)} features, but {type(self).__name__} is "
                                 f"expecting {self.n_features_in_} features as input")
        return encode_columns(columns, self.features_)

    def _training_input(self, X, y):
        """(features, matrix, classes, class codes) of training input X, y, encoded as
        `nominal_features` says; sets `feature_names_in_` when X names its columns."""
        names = column_names(X)
        features, matrix = encode_training(columns_of(X), names, self.nominal_features,
                                            declared_nominal(X))
        classes, codes = class_labels(y, matrix.shape[0])
        if names is not None:
            self.feature_names_in_ = np.array(names, dtype=object)
        return features, matrix, classes, codes

    def _nominal_mask(self) -> np.ndarray:
        return np.array([f.kind == NOMINAL for f in self.features_], dtype=np.uint8)

    def predict_proba(self, X) -> np.ndarray:
        return self.proba_from_matrix(self._matrix(X))

    def predicted_index(self, proba: np.ndarray) -> np.ndarray:
        """The column of `classes_` each row of `proba` predicts: with a fitted decision
        threshold (`threshold_`, dtcli/measures/fitted.py) the positive class where its
        probability reaches it, else the other; otherwise `most_probable_index`."""
        if getattr(self, "threshold_", None) is not None:
            from dtcli.measures.fitted import positive_index
            from dtcli.measures.metrics import decisions

            return decisions(proba, positive_index(self), self.threshold_)
        return self.most_probable_index(proba)

    def most_probable_index(self, proba: np.ndarray) -> np.ndarray:
        """The most probable class of each row, the first on ties (J48 breaks ties by the
        file's declared class order instead)."""
        return np.argmax(proba, axis=1)

    def predict_log_proba(self, X) -> np.ndarray:
        """Natural logarithm of predict_proba (-inf for a class the leaf never saw)."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def score(self, X, y, sample_weight=None) -> float:
        correct = (self.predict(X) == np.asarray(y)).astype(np.float64)
        return float(np.average(correct, weights=sample_weight))

    def _threads(self) -> int:
        return self.n_jobs or os.cpu_count() or 1

    def to_svg(self, max_depth: int | None = None, tree: int | None = None) -> str:
        """The fitted model drawn as an SVG document (`dtree export -f svg`): a tree to
        `max_depth` levels, an FDF forest's trees, or tree `tree` of a random forest."""
        from dtcli.export.pictures import model_svg

        return model_svg(self, max_depth, tree)

    def _repr_svg_(self) -> str | None:
        """A notebook shows a fitted tree or FDF forest as its picture (None otherwise:
        the text repr)."""
        from dtcli.export.pictures import notebook_svg

        return notebook_svg(self)


class TreeEstimatorBase(Classifier):
    """A tree-growing classifier: subclasses list their constructor's parameters in
    PARAMS (among them criterion, criterion_params, the stopping rules,
    nominal_features and max_features) and define `_check_fitted`."""

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's parameters; with deep=True also `criterion_params__NAME` for
        each parameter given in criterion_params, scikit-learn's spelling of a nested
        parameter, by which GridSearchCV tunes one (set_params takes any of the
        criterion's parameters so)."""
        params = super().get_params()
        if deep and isinstance(self.criterion_params, dict):
            params.update({f"criterion_params__{name}": value
                           for name, value in self.criterion_params.items()})
        return params

    def set_params(self, **params):
        """Set constructor parameters, then `criterion_params__NAME` ones (a copy of
        criterion_params with NAME set, checked against the criterion's parameters)."""
        nested = {}
        plain = {}
        for name, value in params.items():
            key, sep, sub = name.partition("__")
            if sep and key == "criterion_params" and sub:
                nested[sub] = value
            else:
                plain[name] = value
        super().set_params(**plain)
        if nested:
            known = {p.name for p in criteria.get(self.criterion).params}
            unknown = sorted(set(nested) - known)
            if unknown:
                raise ParameterError(f"criterion '{self.criterion}' has no parameter "
                                     f"'{unknown[0]}' (parameters: {', '.join(sorted(known)) or 'none'})")
            self.criterion_params = {**(self.criterion_params or {}), **nested}
        return self

    # input -----------------------------------------------------------------------------
    def fit_data(self, X, y) -> FitData:
        """Training input encoded as `fit` encodes it (for `fit_prepared`, which can fit
        many times from it: the forest's trees, a search's points)."""
        names = column_names(X)
        if (isinstance(X, np.ndarray) and X.ndim == 2 and X.shape[1] > 0
                and X.dtype.kind in "fiu" and self.nominal_features is None):
            features = [Feature(name, NUMERIC) for name in default_names(X.shape[1])]
            matrix = np.ascontiguousarray(X, dtype=np.float64)  # nothing to encode
        else:
            # A DataFrame column of bools or categories is nominal; a column of objects
            # is read as a file's column is (dtcli.io.columns): numbers, or categories.
            features, matrix = encode_training(columns_of(X), names, self.nominal_features,
                                                declared_nominal(X))
        classes, codes = class_labels(y, matrix.shape[0])
        return FitData(matrix, codes, features, classes, names)

    def set_fitted(self, data: FitData) -> None:
        """The fitted attributes that describe the training data (`feature_names_in_`
        only for named input, as scikit-learn)."""
        self._set_fitted(data.features, data.classes)
        if data.names is not None:
            self.feature_names_in_ = np.array(data.names, dtype=object)
        else:
            self.__dict__.pop("feature_names_in_", None)

    def _set_fitted(self, features, classes) -> None:
        self.classes_ = classes
        self.n_classes_ = classes.shape[0]
        self.features_ = list(features)
        self.n_features_in_ = len(features)

    # checks ----------------------------------------------------------------------------
    def stop_rules(self):
        """The stopping rules the engine grows by, checked (ParameterError)."""
        from dtcli.engine.builder import StopRules

        return StopRules(**self.checked_stop_rules())

    def checked_stop_rules(self) -> dict:
        """The stopping rules' parameters, checked (ParameterError), without importing the
        engine (a model file's check imports no numba)."""
        def check_int(name, low, allow_none=False):
            return integer_param(self, name, low, allow_none)

        min_gain = self.min_gain
        if not isinstance(min_gain, numbers.Real) or not np.isfinite(min_gain):
            raise ParameterError(f"min_gain must be a finite number, got {min_gain!r}")
        fraction = self.min_weight_fraction_leaf
        if (isinstance(fraction, bool) or not isinstance(fraction, numbers.Real)
                or not 0.0 <= fraction <= 0.5):
            raise ParameterError(f"min_weight_fraction_leaf must be a number in [0, 0.5], got "
                                 f"{fraction!r}")
        if fraction > 0 and getattr(self, "pruning", None) == "s-pruning":
            # its permutation test searches under min_samples_leaf only (pruning/permutation.py)
            raise ParameterError("pruning='s-pruning' does not take min_weight_fraction_leaf")
        return dict(max_depth=check_int("max_depth", 0, allow_none=True),
                    min_samples_split=check_int("min_samples_split", 2),
                    min_samples_leaf=check_int("min_samples_leaf", 1),
                    min_gain=float(min_gain), min_weight_fraction_leaf=float(fraction))

    def _max_features(self, n_features: int) -> int | None:
        """max_features as a count of features, scikit-learn's way; None for all."""
        value = self.max_features
        if value is None:
            return None
        if value in ("sqrt", "log2"):
            root = math.sqrt(n_features) if value == "sqrt" else math.log2(max(n_features, 1))
            return max(1, int(root))
        count = count_or_fraction(value, n_features)
        if count is not None:
            return count
        raise ParameterError(f"max_features must be None, 'sqrt', 'log2', an integer in "
                             f"[1, {n_features}] or a fraction in (0, 1], got {value!r}")

    def _check_training(self, data: FitData):
        """The stopping rules and the engine's criterion, after checking the parameters
        and, once per FitData, the data (with the readers' limit on the engine's node
        records: fit(X, y) does not pass through the readers)."""
        rules = dataclasses.replace(self.stop_rules(),
                                    max_features=self._max_features(data.X.shape[1]))
        engine = _engine(self.criterion, self.criterion_params)
        data.check()
        return rules, engine

    def __sklearn_tags__(self):
        # Only scikit-learn calls this, so importing it here adds no dependency.
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

        return Tags(estimator_type="classifier", target_tags=TargetTags(required=True),
                    classifier_tags=ClassifierTags(),
                    input_tags=InputTags(allow_nan=True, string=True))


@functools.lru_cache(maxsize=64)
def _engine_of(criterion: str, params: tuple):
    return criteria.get(criterion).engine(dict(params))


def _engine(criterion: str, params):
    """The engine's form of a criterion (registry.Criterion.engine), resolved once per
    criterion and parameters: the folds of a cross-validation fit many trees of one."""
    try:
        return _engine_of(criterion, tuple(sorted((params or {}).items())))
    except TypeError:  # parameters that are not hashable: the registry says what is wrong
        return criteria.get(criterion).engine(params)
