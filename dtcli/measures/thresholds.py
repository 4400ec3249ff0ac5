"""Decisions at a threshold and their costs (`--cost`, `--cost-matrix`, `--threshold`,
`--threshold-metric` of evaluate and compare).

A `Decision` travels with a dataset to the workers (`Dataset.decision`; part of its digest,
so of the task keys): the K x K cost matrix (rows: true class, columns: predicted; the
`expected_cost` measure is sum(C * confusion) / rows, computed at the decisions the folds
make), and for two classes a threshold on the positive class's probability: a number, or
"auto", chosen in each outer training fold by an inner stratified cross-validation of that
fold alone (`INNER_FOLDS` folds): the candidate thresholds are the distinct out-of-fold
probabilities, the one minimising the expected cost (or maximising `metric`) is kept,
nearest 0.5 among equals. The outer test fold never enters the choice.
"""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass

import numpy as np

from dtcli.errors import ParameterError

from dtcli.measures import THRESHOLD_METRICS
from dtcli.measures.metrics import decisions, expected_cost

INNER_FOLDS = 3


@dataclass(frozen=True)
class Decision:
    costs: tuple[tuple[float, ...], ...] | None = None  # K x K, rows: true class
    threshold: float | str | None = None  # of the positive class; "auto": chosen per fold
    metric: str | None = None  # what "auto" maximises (None: minimise the expected cost)


def choose_threshold(y: np.ndarray, proba: np.ndarray, positive: int,
                     decision: Decision) -> float:
    """The threshold that scores best on these (out-of-fold) probabilities: least expected
    cost, or best `decision.metric`; nearest 0.5 among equals."""
    from dtcli import measures
    from dtcli.measures import metrics

    candidates = np.unique(np.r_[proba[:, positive], 0.5])
    best, best_score = 0.5, None
    sign = 1.0 if decision.metric is None else (
        -1.0 if measures.BY_NAME[decision.metric].higher_is_better else 1.0)
    for threshold in candidates:
        y_pred = decisions(proba, positive, threshold)
        matrix = metrics.confusion_matrix(y, y_pred, proba.shape[1])
        if decision.metric is None:
            score = expected_cost(matrix, decision.costs)
        else:
            scored = measures.Scored(y, proba, y_pred, matrix, positive, decision.costs)
            score = sign * measures.BY_NAME[decision.metric].compute(scored)
        if math.isnan(score):
            continue
        if (best_score is None or score < best_score - 1e-12
                or (abs(score - best_score) <= 1e-12 and abs(threshold - 0.5) < abs(best - 0.5))):
            best, best_score = float(threshold), score
    return best


def inner_folds(train: np.ndarray, y: np.ndarray, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The inner cross-validation of a training fold: (inner train, inner test) row indices,
    both within `train`."""
    from dtcli.sampling.folds import repeat_folds

    k = int(min(INNER_FOLDS, np.bincount(y[train]).max()))
    return [(train[a], train[b]) for a, b in repeat_folds(y[train], max(k, 2), seed, 0)]


def auto_threshold(train: np.ndarray, y: np.ndarray, positive: int, decision: Decision,
                   seed: int, fit_predict) -> float:
    """`choose_threshold` on the out-of-fold probabilities of an inner cross-validation of
    the training rows `train`; `fit_predict(inner_train, inner_test)` fits on the first rows
    and returns the class probabilities of the second."""
    rows, probas = [], []
    for inner_train, inner_test in inner_folds(train, y, seed):
        rows.append(inner_test)
        probas.append(fit_predict(inner_train, inner_test))
    rows = np.concatenate(rows)
    return choose_threshold(y[rows], np.vstack(probas), positive, decision)


# --------------------------------------------------------------------------
# The options
# --------------------------------------------------------------------------


def decision_for(dataset, name: str, *, cost=None, cost_matrix: str | None = None,
                 threshold=None, threshold_metric: str | None = None) -> Decision | None:
    """A dataset's Decision from the options (None when none is given); ParameterError
    naming the option and the dataset when they do not fit it."""
    from dtcli.measures import positive_of

    if cost is not None and cost_matrix is not None:
        raise ParameterError("give --cost or --cost-matrix, not both")
    if threshold_metric is not None and threshold != "auto":
        raise ParameterError("--threshold-metric applies to --threshold auto")
    if threshold_metric is not None and threshold_metric not in THRESHOLD_METRICS:
        raise ParameterError(f"--threshold-metric must be one of {', '.join(THRESHOLD_METRICS)}"
                             f" (a threshold changes only the predicted classes)")
    if cost is None and cost_matrix is None and threshold is None:
        return None
    classes = list(dataset.classes)
    if (cost is not None or threshold is not None) and len(classes) != 2:
        option = "--cost" if cost is not None else "--threshold"
        raise ParameterError(f"{option}: dataset '{name}' has {len(classes)} classes; it applies "
                             "to two (--cost-matrix for more)")
    positive = positive_of(dataset)
    costs = None
    if cost is not None:
        named = parse_cost(cost)
        negative = 1 - positive
        matrix = [[0.0, 0.0], [0.0, 0.0]]
        matrix[positive][negative], matrix[negative][positive] = named["FN"], named["FP"]
        matrix[positive][positive], matrix[negative][negative] = named["TP"], named["TN"]
        costs = tuple(map(tuple, matrix))
    elif cost_matrix is not None:
        costs = read_cost_matrix(cost_matrix, classes, name)
    if threshold is not None and threshold != "auto":
        if not (isinstance(threshold, (int, float)) and 0.0 <= threshold <= 1.0):
            raise ParameterError(f"--threshold must be auto or a probability in [0, 1], "
                                 f"got {threshold!r}")
        threshold = float(threshold)
    if threshold == "auto" and threshold_metric is None and costs is None:
        raise ParameterError("--threshold auto minimises the expected cost: give --cost (or "
                             "--cost-matrix), or --threshold-metric NAME to maximise")
    return Decision(costs, threshold, threshold_metric)


def with_decisions(datasets, names, metric: str | None = None, **options):
    """The datasets with their costs and threshold (`thresholds.decision_for`: cost,
    cost_matrix, threshold, threshold_metric); ParameterError for --metric expected_cost
    without costs."""
    import dataclasses

    if metric == "expected_cost" and options.get("cost") is None and options.get(
            "cost_matrix") is None:
        raise ParameterError("--metric expected_cost needs --cost or --cost-matrix")
    decided = []
    for name, dataset in zip(names, datasets):
        decision = decision_for(dataset, name, **options)
        decided.append(dataset if decision is None
                       else dataclasses.replace(dataset, decision=decision))
    return decided


def decision_about(options: dict) -> dict:
    """What a report says of the decisions: the options given (cost, cost_matrix,
    threshold, threshold_metric), nothing when none is."""
    return {name: value for name, value in options.items() if value is not None}


def parse_cost(text) -> dict[str, float]:
    """'FN=10,FP=1' (TP, TN optional, default 0) as {FN, FP, TP, TN}."""
    if isinstance(text, dict):
        pairs = list(text.items())
    else:
        pairs = [piece.partition("=")[::2] for piece in str(text).split(",") if piece.strip()]
    named = {"TP": 0.0, "TN": 0.0}
    for key, value in pairs:
        key = key.strip().upper()
        if key not in ("FN", "FP", "TP", "TN"):
            raise ParameterError(f"--cost: {key or '(empty)'!r} is not FN, FP, TP or TN "
                                 "(write FN=10,FP=1)")
        try:
            named[key] = float(value)
        except (TypeError, ValueError):
            raise ParameterError(f"--cost: {key}={value!r} is not a number") from None
        if not math.isfinite(named[key]):
            raise ParameterError(f"--cost: {key} must be finite")
    if "FN" not in named or "FP" not in named:
        raise ParameterError("--cost needs FN and FP (write FN=10,FP=1)")
    return named


def read_cost_matrix(path: str, classes: list[str], name: str) -> tuple[tuple[float, ...], ...]:
    """A cost matrix CSV: a header row (its first cell ignored, then the predicted classes),
    then one row per true class, its label first. Every class of the dataset must have a row
    and a column; the matrix is put in the dataset's class order."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = [row for row in csv.reader(handle) if any(cell.strip() for cell in row)]
    except OSError as exc:
        raise ParameterError(f"--cost-matrix {path}: {exc.strerror}") from None
    if len(rows) < 2:
        raise ParameterError(f"--cost-matrix {path}: expected a header row and a row per class")
    columns = [c.strip() for c in rows[0][1:]]
    table = {}
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != len(columns) + 1:
            raise ParameterError(f"--cost-matrix {path}, line {line}: {len(row)} cells, "
                                 f"expected {len(columns) + 1}")
        try:
            values = [float(v) for v in row[1:]]
        except ValueError:
            raise ParameterError(f"--cost-matrix {path}, line {line}: a cost is not a "
                                 "number") from None
        table[row[0].strip()] = dict(zip(columns, values))
    missing = [c for c in classes if c not in table or c not in columns]
    if missing:
        raise ParameterError(f"--cost-matrix {path}: no row or column for class "
                             f"{missing[0]!r} of dataset '{name}'")
    return tuple(tuple(table[t][p] for p in classes) for t in classes)
