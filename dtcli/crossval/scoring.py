"""One task's result: a model's class probabilities scored against the true classes
(`score_predictions`) with the model's size (`tree_facts`), for a fold or for a saved
model on labelled rows (`evaluate_model`)."""
from __future__ import annotations

import time

import numpy as np

from dtcli import measures
from dtcli.measures import probabilities
from dtcli.errors import DataError


def score_predictions(y_true: np.ndarray, proba: np.ndarray, positive: int | None = None,
                      costs=None, threshold: float | None = None, y_pred=None) -> dict:
    """Measures of class probabilities against true class indices.

    Returns {"metrics": every measure of `dtcli.measures` with a function,
    "confusion_matrix": K x K list, "calibration": the reliability diagram's bin sums
    (`probabilities.calibration_sums`: they add up over folds)}. The predicted class is `y_pred`
    where given (a model's `predicted_index`), else the most probable one (the first on
    ties). log_loss is the FDF paper's P_cost
    (eq. (4)) divided by the number of rows, in nats, with the true class's
    probability clipped to at least 1e-15 (so a confident mistake costs 34.5).
    auc is NaN when the rows hold a single class. `positive`: the class of
    precision, recall, f1 and two-class average precision (default: the rarest of
    y_true; a cross-validation passes the dataset's, `measures.positive_of`). `costs`:
    the cost matrix of expected_cost (NaN without); `threshold`: the decisions' threshold
    on the positive class's probability (dtcli/measures/thresholds.py), kept as "threshold".
    """
    if positive is None:
        positive = measures.positive_class(y_true, proba.shape[1])
    scores, matrix = measures.score(y_true, proba, positive, costs, threshold, y_pred)
    calibration = probabilities.calibration_sums(y_true, proba)
    result = {"metrics": scores, "confusion_matrix": matrix.tolist(),
              "calibration": {name: values.tolist() for name, values in calibration.items()}}
    if threshold is not None:
        result["threshold"] = float(threshold)
    return result


def tree_facts(model) -> dict:
    """Size of the model: FDF's trie nodes, rules and longest rule; a tree's; a forest's
    nodes and leaves in all and its deepest tree's depth (counts: results.py keeps them
    as integers)."""
    if hasattr(model, "facts"):  # FDF: trie nodes, rules, longest rule
        return {key: model.facts()[key] for key in ("n_nodes", "n_leaves", "depth")}
    trees = [e.tree_ for e in model.estimators_] if hasattr(model, "estimators_") else [model.tree_]
    return {"n_nodes": sum(int(t.node_count) for t in trees),
            "n_leaves": sum(int(t.n_leaves) for t in trees),
            "depth": max(int(t.max_depth) for t in trees)}


def evaluate_model(model, fit_seconds: float, X: np.ndarray, labels: np.ndarray,
                   source: str, positive: str | None = None) -> tuple[dict, int]:
    """Score a saved model on rows whose true class labels (text, None = missing) are known.

    Returns (fold result as `run_task` gives it, number of rows scored). Rows
    without a label are left out; a label the model does not know is a DataError.
    `positive`: the label of the positive class (default: the rarest of the rows). The
    classes are the model's decisions: at its stored threshold if it has one.
    """
    classes = [str(c) for c in model.classes_]
    index = {label: i for i, label in enumerate(classes)}
    known = np.array([label is not None for label in labels], dtype=bool)
    unknown = sorted({label for label in labels[known] if label not in index})
    if unknown:
        raise DataError(f"{source}: class label(s) {', '.join(map(repr, unknown[:5]))} are not "
                        f"among the model's classes ({', '.join(classes)})")
    if not known.any():
        raise DataError(f"{source}: no row has a class label to evaluate against")
    y = np.array([index[label] for label in labels[known]], dtype=np.int64)
    rows = np.ascontiguousarray(X[known])
    model.proba_from_matrix(rows[:1])  # load the kernels before timing
    start = time.perf_counter()
    proba = model.proba_from_matrix(rows)
    predict_seconds = time.perf_counter() - start
    if positive is not None and str(positive) not in index:
        raise DataError(f"--positive: the model has no class {str(positive)!r} (its classes: "
                        f"{', '.join(classes)})")
    # a model's stored decision threshold decides its classes (dtcli/measures/fitted.py)
    decided = (model.predicted_index(proba) if getattr(model, "threshold_", None) is not None
               else None)
    result = score_predictions(y, proba, None if positive is None else index[str(positive)],
                               y_pred=decided)
    result["metrics"].update(tree_facts(model), fit_seconds=fit_seconds,
                             predict_seconds=predict_seconds)
    return result, int(known.sum())
