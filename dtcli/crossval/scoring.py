"""One task's result: a model's class probabilities scored against the true classes
(`score_predictions`) with the model's size (`tree_facts`), for a fold or for a saved
model on labelled rows (`evaluate_model`)."""
from __future__ import annotations

import time

import numpy as np

from dtcli import metrics
from dtcli.errors import DataError


def score_predictions(y_true: np.ndarray, proba: np.ndarray) -> dict:
    """Metrics of class probabilities against true class indices.

    Returns {"metrics": {accuracy, balanced_accuracy, auc, log_loss, f1_macro},
    "confusion_matrix": K x K list}. The predicted class is the most probable
    one (the first on ties, as `predict`). log_loss is the FDF paper's P_cost
    (eq. (4)) divided by the number of rows, in nats, with the true class's
    probability clipped to at least 1e-15 (so a confident mistake costs 34.5).
    auc is NaN when the rows hold a single class.
    """
    y_pred = np.argmax(proba, axis=1)
    matrix = metrics.confusion_matrix(y_true, y_pred, proba.shape[1])
    return {
        "metrics": {
            "accuracy": metrics.accuracy(y_true, y_pred),
            "balanced_accuracy": metrics.balanced_accuracy_of(matrix),
            "auc": metrics.auc(y_true, proba),
            "log_loss": metrics.log_loss(y_true, proba, normalize=True),
            "f1_macro": metrics.f1_macro_of(matrix),
        },
        "confusion_matrix": matrix.tolist(),
    }


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
                   source: str) -> tuple[dict, int]:
    """Score a saved model on rows whose true class labels (text, None = missing) are known.

    Returns (fold result as `run_task` gives it, number of rows scored). Rows
    without a label are left out; a label the model does not know is a DataError.
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
    result = score_predictions(y, proba)
    result["metrics"].update(tree_facts(model), fit_seconds=fit_seconds,
                             predict_seconds=predict_seconds)
    return result, int(known.sum())
