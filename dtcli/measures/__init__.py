"""The measures of a fold: one registry entry each (name, definition, direction, range,
function), so that adding a measure is one entry. Every command that scores folds
(evaluate, compare, tune, the analyses) records every entry in its reports and results
files, and `--metric` / `--tune-metric` accept each (`dtree metrics` lists them).

The functions take a `Scored` fold (true classes, class probabilities, predicted classes,
confusion matrix, positive class) and live in `dtcli.measures.metrics` and
`dtcli.measures.probabilities`; entries without one are
measured by the task itself (the model's size, its timings). numpy is imported inside
the functions: the CLI imports this module to build `--help`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, NamedTuple


class Scored(NamedTuple):
    """One fold's predictions, as the measures read them."""

    y: object  # true class indices (n,)
    proba: object  # class probabilities (n, K)
    y_pred: object  # the most probable class of each row, the first of ties
    matrix: object  # K x K confusion matrix, rows the true classes
    positive: int  # the class of precision, recall, f1 and two-class average precision
    costs: object = None  # K x K cost matrix (rows: true class) or None (dtcli/measures/thresholds.py)


@dataclass(frozen=True)
class Measure:
    name: str
    definition: str
    higher_is_better: bool
    low: float = 0.0  # the range a stored value must lie in (results files)
    high: float = 1.0
    compute: Callable[[Scored], float] | None = None  # None: the task measures it
    may_be_undefined: bool = False  # NaN (null) in some folds, as an AUC of one class


def _m():
    from dtcli.measures import metrics

    return metrics


def _p():
    from dtcli.measures import probabilities

    return probabilities


MEASURES = (
    Measure("accuracy", "fraction of rows whose most probable class is the true one", True,
            compute=lambda s: _m().accuracy(s.y, s.y_pred)),
    Measure("balanced_accuracy", "mean recall over the classes present", True,
            compute=lambda s: _m().balanced_accuracy_of(s.matrix)),
    Measure("auc", "ROC AUC (2 classes), Hand and Till's M (more)", True,
            compute=lambda s: _p().auc(s.y, s.proba), may_be_undefined=True),
    Measure("log_loss", "mean -ln p of the true class, p clipped to >= 1e-15", False,
            high=math.inf, compute=lambda s: _p().log_loss(s.y, s.proba, normalize=True)),
    Measure("f1_macro", "unweighted mean of the per-class F1", True,
            compute=lambda s: _m().f1_macro_of(s.matrix)),
    Measure("average_precision", "PR-AUC, step-wise (sklearn): of the positive class (2 "
            "classes), one-vs-rest macro mean (more)", True,
            compute=lambda s: _p().average_precision(s.y, s.proba, positive=s.positive),
            may_be_undefined=True),
    Measure("average_precision_weighted", "one-vs-rest PR-AUC of every class, weighted by "
            "its support", True, may_be_undefined=True,
            compute=lambda s: _p().average_precision(s.y, s.proba, average="weighted")),
    Measure("mcc", "Matthews correlation (Gorodkin's R_K for K classes)", True, low=-1.0,
            compute=lambda s: _m().matthews_corrcoef(s.matrix)),
    Measure("g_mean", "geometric mean of the recalls of the classes present", True,
            compute=lambda s: _m().g_mean(s.matrix)),
    Measure("kappa", "Cohen's kappa: agreement beyond the class frequencies'", True,
            low=-1.0, compute=lambda s: _m().cohen_kappa(s.matrix), may_be_undefined=True),
    Measure("brier", "mean squared distance of the probability vector to the true class "
            "(halved for 2 classes)", False, high=2.0,
            compute=lambda s: _p().brier_score(s.y, s.proba)),
    Measure("ece", "expected calibration error of the top probability, 15 equal-width bins",
            False, compute=lambda s: _p().expected_calibration_error(s.y, s.proba)),
    Measure("precision", "TP / (TP + FP) of the positive class (0 if never predicted)", True,
            compute=lambda s: _m().class_scores(s.matrix, s.positive)["precision"]),
    Measure("recall", "TP / (TP + FN) of the positive class", True, may_be_undefined=True,
            compute=lambda s: _m().class_scores(s.matrix, s.positive)["recall"]),
    Measure("f1", "2TP / (2TP + FP + FN) of the positive class", True,
            compute=lambda s: _m().class_scores(s.matrix, s.positive)["f1"]),
    Measure("expected_cost", "mean cost per row of the decisions (--cost, --cost-matrix)",
            False, low=-math.inf, high=math.inf, may_be_undefined=True,
            compute=lambda s: math.nan if s.costs is None else _expected_cost(s)),
    Measure("n_nodes", "nodes of the tree (of all trees of a forest)", False, high=math.inf),
    Measure("n_leaves", "leaves of the tree (of all trees of a forest)", False, high=math.inf),
    Measure("depth", "depth of the (deepest) tree", False, high=math.inf),
    Measure("fit_seconds", "seconds to fit on the training fold", False, high=math.inf),
    Measure("predict_seconds", "seconds to predict the test fold", False, high=math.inf),
)
BY_NAME = {m.name: m for m in MEASURES}
# the measures a decision threshold changes (those of the predicted classes; probability
# measures do not): what --threshold-metric may name (dtcli/measures/thresholds.py)
THRESHOLD_METRICS = ("accuracy", "balanced_accuracy", "f1_macro", "mcc", "g_mean", "kappa",
                     "precision", "recall", "f1")


def _expected_cost(s: Scored) -> float:
    return _m().expected_cost(s.matrix, s.costs)
COUNTS = ("n_nodes", "n_leaves", "depth")


def positive_class(y, n_classes: int) -> int:
    """The default positive class: the rarest class of `y` among those it holds (the first
    of ties)."""
    import numpy as np

    counts = np.bincount(np.asarray(y, dtype=np.int64), minlength=n_classes).astype(float)
    counts[counts == 0] = np.inf
    return int(np.argmin(counts))


def positive_of(dataset) -> int:
    """A dataset's positive class: the one named (`with_positive`) or its rarest (a subset,
    as an inner cross-validation's training fold, takes its own rarest: on imbalanced data
    the same class)."""
    chosen = getattr(dataset, "positive", None)
    return positive_class(dataset.y, len(dataset.classes)) if chosen is None else chosen


def with_positive(datasets, names, label: str | None):
    """The datasets with `label` as their positive class, which every dataset must have
    (ParameterError naming the one that has not); unchanged for None (each one's rarest)."""
    import dataclasses

    from dtcli.errors import ParameterError

    if label is None:
        return list(datasets)
    chosen = []
    for name, dataset in zip(names, datasets):
        if str(label) in dataset.classes:
            index = list(dataset.classes).index(str(label))
        else:
            raise ParameterError(f"--positive: dataset '{name}' has no class {str(label)!r} "
                                 f"(its classes: {', '.join(dataset.classes)})")
        chosen.append(dataclasses.replace(dataset, positive=index))
    return chosen


def positive_label(dataset) -> str:
    return dataset.classes[positive_of(dataset)]


def score(y, proba, positive: int, costs=None, threshold: float | None = None,
          y_pred=None) -> tuple[dict[str, float], object]:
    """Every measure with a function, of one fold's true classes and probabilities, and the
    confusion matrix; the decisions are the most probable classes (`y_pred` where given
    without a threshold: a model's predicted_index, J48's ties), or with a `threshold`
    (two classes) the positive class where its probability reaches it."""
    from dtcli.measures import metrics

    if y_pred is None or threshold is not None:
        y_pred = metrics.decisions(proba, positive, threshold)
    matrix = metrics.confusion_matrix(y, y_pred, proba.shape[1])
    scored = Scored(y, proba, y_pred, matrix, positive, costs)
    return {m.name: m.compute(scored) for m in MEASURES if m.compute is not None}, matrix


def listing(width: int = 80) -> str:
    """`dtree metrics`: each measure's name, direction and definition, wrapped to `width`."""
    import textwrap

    name_width = max(len(m.name) for m in MEASURES) + 2
    indent = " " * (name_width + 8)
    lines = [f"{'measure':<{name_width}}better  definition"]
    for m in MEASURES:
        head = f"{m.name:<{name_width}}{'higher' if m.higher_is_better else 'lower':<8}"
        lines.extend(textwrap.wrap(m.definition, width, initial_indent=head,
                                   subsequent_indent=indent))
    return "\n".join(lines) + "\n"
