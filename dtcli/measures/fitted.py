"""A fitted model's decision threshold: the estimators' `threshold`, `threshold_metric`,
`cost` and `positive` parameters, the `threshold_` they fit, and the line that describes a model file's `decision` block
(dtcli/model/decision.py reads the block; docs/model-format.md, docs/measures.md).

A threshold t on the positive class's probability p decides "positive" where p >= t
(`metrics.decisions`, the convention of the cross-validation's `--threshold`); it applies
to two classes only, as scikit-learn's FixedThresholdClassifier and
TunedThresholdClassifierCV (with more classes, which class a lowered bar should favour
is no longer one number: `--cost-matrix` scores such decisions instead). "auto" is
chosen as the cross-validation chooses it in each training fold (`thresholds.
auto_threshold`): by an inner stratified cross-validation of the training rows given to
fit, and of nothing else.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from dtcli.errors import ParameterError
from dtcli.measures.thresholds import INNER_FOLDS, auto_threshold, decision_for

THRESHOLD_PARAMS = ("threshold", "threshold_metric", "cost", "positive")


def as_dataset(X, y, features, classes):
    """Encoded training input as the Dataset the inner fits of "auto" read."""
    from dtcli.io.dataset import Dataset

    return Dataset(np.ascontiguousarray(X, dtype=np.float64), np.asarray(y, dtype=np.int64),
                   list(features), tuple(str(c) for c in classes), "class", "X")


def decide(model, dataset, sample_weight=None):
    """Set `model.threshold_` (None without a threshold) and `model.decision_` (the model
    file's block) after `model` was fitted on `dataset`; returns `model`."""
    model.threshold_, model.decision_ = None, None
    if model.threshold is None:
        if model.threshold_metric is not None or model.cost is not None:
            raise ParameterError("threshold_metric and cost choose threshold='auto': set "
                                 "threshold='auto'")
        return model
    if isinstance(model.threshold, bool):
        raise ParameterError(f"threshold must be None, 'auto' or a probability in [0, 1], "
                             f"got {model.threshold!r}")
    positive = _positive_index(model.positive, dataset)
    dataset = dataclasses.replace(dataset, positive=positive)
    decision = decision_for(dataset, dataset.source, cost=model.cost,
                            threshold=model.threshold, threshold_metric=model.threshold_metric)
    chosen_by = {"method": "given"}
    threshold = decision.threshold
    if threshold == "auto":
        seed = model.random_state if isinstance(getattr(model, "random_state", None), int) else 0
        rows = np.arange(dataset.y.shape[0])

        def fit_predict(inner_train, inner_test):
            inner = type(model)(**{**model.get_params(deep=False), "threshold": None,
                                   "threshold_metric": None, "cost": None})
            part = dataclasses.replace(dataset, X=np.ascontiguousarray(dataset.X[inner_train]),
                                       y=dataset.y[inner_train], warnings=[])
            weights = () if sample_weight is None else (np.asarray(sample_weight)[inner_train],)
            inner.fit_dataset(part, *weights)
            return inner.proba_from_matrix(np.ascontiguousarray(dataset.X[inner_test]))

        threshold = auto_threshold(rows, dataset.y, positive, decision, seed, fit_predict)
        chosen_by = {"method": "inner-cv", "folds": INNER_FOLDS, "seed": seed,
                     "metric": decision.metric,
                     "costs": None if decision.costs is None else [list(r) for r in decision.costs]}
    model.threshold_ = float(threshold)
    model.decision_ = {"positive": str(dataset.classes[positive]), "threshold": float(threshold),
                       "chosen_by": chosen_by}
    return model


def _positive_index(label, dataset) -> int:
    from dtcli.measures import positive_class

    if label is None:
        return positive_class(dataset.y, len(dataset.classes))
    if str(label) not in dataset.classes:
        raise ParameterError(f"positive: y has no class {str(label)!r} (its classes: "
                             f"{', '.join(dataset.classes)})")
    return list(dataset.classes).index(str(label))


def positive_index(model) -> int:
    """The column of `classes_` the fitted threshold is of."""
    return [str(c) for c in model.classes_].index(model.decision_["positive"])


def describe(block: dict | None) -> str | None:
    """One line saying the decision rule of a model file's `decision` block (the exports
    that show a model: text, rules, svg, html), or None without one."""
    if block is None:
        return None
    chosen = block["chosen_by"]
    how = ("given" if chosen["method"] == "given" else
           f"chosen by {chosen['folds']}-fold inner cross-validation "
           + (f"maximising {chosen['metric']}" if chosen["metric"] else
              "minimising the expected cost"))
    return (f"decision threshold: predicts {block['positive']} where p({block['positive']}) "
            f">= {float(block['threshold'])!r}, else the other class ({how})")
