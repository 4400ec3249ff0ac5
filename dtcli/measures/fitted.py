"""A fitted model's decision threshold: the estimators' `threshold`, `threshold_metric`,
`cost` and `positive` parameters, the `threshold_` they fit, and the model file's
`decision` block (docs/model-format.md, docs/measures.md).

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
import math

import numpy as np

from dtcli.errors import ParameterError
from dtcli.measures import THRESHOLD_METRICS
from dtcli.measures.thresholds import INNER_FOLDS, auto_threshold, decision_for

THRESHOLD_PARAMS = ("threshold", "threshold_metric", "cost", "positive")
_COST_NAMES = ("FN", "FP", "TP", "TN")


def as_dataset(X, y, features, classes):
    """Encoded training input as the Dataset the inner fits of "auto" read."""
    from dtcli.io.dataset import Dataset

    return Dataset(np.ascontiguousarray(X, dtype=np.float64), np.asarray(y, dtype=np.int64),
                   list(features), tuple(str(c) for c in classes), "class", "<training data>")


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
    decision = decision_for(dataset, "the training data", cost=model.cost,
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


# --------------------------------------------------------------------------
# The model file's block
# --------------------------------------------------------------------------


def read_block(block, classes: list[str], fail) -> dict:
    """The `decision` block of a model file after checking every field (`fail(message)`
    raises one line): two classes, `positive` one of them, `threshold` a number in
    [0, 1], `chosen_by` {"method": "given"} or an inner cross-validation's record."""
    if not isinstance(block, dict) or set(block) != {"positive", "threshold", "chosen_by"}:
        fail("decision must be an object of positive, threshold and chosen_by")
    if len(classes) != 2:
        fail(f"decision: a threshold applies to two classes, the model has {len(classes)}")
    if block["positive"] not in classes:
        fail(f"decision.positive must be one of the classes ({', '.join(classes)}), got "
             f"{block['positive']!r}")
    threshold = block["threshold"]
    if not is_finite(threshold) or not 0.0 <= threshold <= 1.0:
        fail(f"decision.threshold must be a number in [0, 1], got {threshold!r}")
    chosen = block["chosen_by"]
    if chosen == {"method": "given"}:
        return block
    if (not isinstance(chosen, dict) or chosen.get("method") != "inner-cv"
            or set(chosen) != {"method", "folds", "seed", "metric", "costs"}):
        fail('decision.chosen_by must be {"method": "given"} or {"method": "inner-cv", '
             '"folds", "seed", "metric", "costs"}')
    if not is_int(chosen["folds"]) or chosen["folds"] < 2 or not is_int(chosen["seed"]):
        fail("decision.chosen_by.folds must be an integer >= 2 and seed an integer")
    if chosen["metric"] is not None and chosen["metric"] not in THRESHOLD_METRICS:
        fail(f"decision.chosen_by.metric must be null or one of {', '.join(THRESHOLD_METRICS)}")
    costs = chosen["costs"]
    if costs is not None and not (isinstance(costs, list) and len(costs) == 2 and all(
            isinstance(r, list) and len(r) == 2 and all(is_finite(c) for c in r) for r in costs)):
        fail("decision.chosen_by.costs must be null or a 2 x 2 list of numbers")
    if (chosen["metric"] is None) == (costs is None):
        fail("decision.chosen_by must name a metric or costs, not both")
    return block


def is_finite(value) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return abs(value) <= 1.7976931348623157e308 if isinstance(value, int) else math.isfinite(value)


def is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -2**63 <= value < 2**63


def set_from_block(model, block: dict) -> None:
    """A loaded model's threshold parameters and fitted attributes from its block."""
    chosen = block["chosen_by"]
    model.threshold_, model.decision_ = float(block["threshold"]), block
    model.positive = block["positive"]
    if chosen["method"] == "given":
        model.threshold = float(block["threshold"])
        return
    model.threshold, model.threshold_metric = "auto", chosen["metric"]
    if chosen["costs"] is not None:
        pos = [str(c) for c in model.classes_].index(block["positive"])
        neg = 1 - pos
        matrix = chosen["costs"]
        model.cost = dict(zip(_COST_NAMES, (matrix[pos][neg], matrix[neg][pos],
                                            matrix[pos][pos], matrix[neg][neg])))


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
            f">= {_number(block['threshold'])}, else the other class ({how})")


def _number(x: float) -> str:
    return repr(float(x)) if not math.isnan(x) else "nan"
