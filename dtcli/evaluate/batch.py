"""The tasks of one dataset in one pass: encode and presort it once, grow every fold's tree
from that one presort.

A fold's tree is grown from the whole dataset's presorted features with weights of 1 on
its training rows and 0 on the others (`builder.grow`: a row of weight 0 is left out, so
the tree is the one fitted on the training rows alone; tests/test_grow_many.py). Class
weights are computed on the training rows, as a fit on them would, and multiplied in.
The folds of a (cv, seed, repeat) are drawn once, the criteria's engine forms and the
stopping rules resolved once. Each task's result is what a fit on its training fold
gives (`runner.run_task`, which is this path for one task), timings aside:
`fit_seconds` is the fold's growth, and the first fold's includes the dataset's presort
(so that the seconds summed over the folds are all the fitting done).
"""
from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from dtcli.errors import ParameterError
from dtcli.evaluate.folds import Fold, repeat_folds
from dtcli.evaluate.tasks import Task, TreeOptions
from dtcli.io.dataset import NOMINAL, Dataset


@dataclass
class PreparedDataset:
    """A dataset with its presort (`builder.prepare`) and what every fold of it shares."""

    dataset: Dataset
    prepared: object  # builder.Prepared
    prepare_seconds: float
    is_nominal: np.ndarray  # uint8 per feature
    folds: dict  # (cv, seed, repeat) -> list of Fold
    unpaid: float = 0.0  # presort seconds not yet counted in a fold's fit_seconds

    @classmethod
    def of(cls, dataset: Dataset) -> "PreparedDataset":
        from dtcli.engine.builder import prepare

        if np.isinf(dataset.X).any():
            raise ParameterError("X contains infinite values")
        is_nominal = np.array([f.kind == NOMINAL for f in dataset.features], dtype=np.uint8)
        n_categories = np.array([len(f.categories) for f in dataset.features], dtype=np.int64)
        start = time.perf_counter()
        prepared = prepare(np.ascontiguousarray(dataset.X, dtype=np.float64), dataset.y,
                           len(dataset.classes), is_nominal, n_categories, 1)
        seconds = time.perf_counter() - start
        return cls(dataset, prepared, seconds, is_nominal, {}, unpaid=seconds)

    def fold(self, task: Task) -> Fold:
        key = (task.cv, task.seed, task.repeat)
        if key not in self.folds:
            self.folds[key] = repeat_folds(self.dataset.y, task.cv, task.seed, task.repeat)
        return self.folds[key][task.fold]


class _Resolved:
    """Engine forms of criteria and stopping rules, resolved once per (choice, options)."""

    def __init__(self):
        self._engines: dict = {}
        self._rules: dict = {}

    def engine(self, task: Task):
        from dtcli import criteria

        key = (task.criterion, task.params)
        if key not in self._engines:
            self._engines[key] = criteria.get(task.criterion).engine(dict(task.params))
        return self._engines[key]

    def rules(self, options: TreeOptions):
        if options not in self._rules:
            from dtcli.estimator import DecisionTreeClassifier

            self._rules[options] = DecisionTreeClassifier(
                **options.estimator_params())._stop_rules()
        return self._rules[options]


def _fold_weights(data: PreparedDataset, train: np.ndarray, options: TreeOptions) -> np.ndarray:
    """1 (times the class weight a fit on the training rows would use) on the training
    rows, 0 elsewhere."""
    from dtcli.validation import row_weights

    dataset = data.dataset
    weights = np.zeros(dataset.y.shape[0])
    if options.class_weight is None:
        weights[train] = 1.0
    else:
        class_weight = options.estimator_params()["class_weight"]
        weights[train] = row_weights(None, class_weight, dataset.y[train],
                                     np.array(dataset.classes, dtype=object))
    return weights


def run_tasks(data: PreparedDataset | Dataset, tasks: Sequence[Task]) -> Iterator[dict]:
    """The result of every task (all of one dataset), in order, as each is done."""
    from dtcli.engine.builder import grow
    from dtcli.evaluate.runner import score_predictions

    if isinstance(data, Dataset):
        data = PreparedDataset.of(data)
    resolved = _Resolved()
    X, y = data.dataset.X, data.dataset.y
    for task in tasks:
        train, test = data.fold(task)
        engine, rules = resolved.engine(task), resolved.rules(task.options)
        weights = _fold_weights(data, train, task.options)
        start = time.perf_counter()
        tree = grow(data.prepared, engine, rules, weights, 1, seed=0)
        fit_seconds = time.perf_counter() - start + data.unpaid
        data.unpaid = 0.0
        start = time.perf_counter()
        proba = tree.node_proba[tree.apply(X[test], data.is_nominal, 1)]
        predict_seconds = time.perf_counter() - start
        result = score_predictions(y[test], proba)
        result["metrics"].update(n_nodes=int(tree.node_count), n_leaves=int(tree.n_leaves),
                                 depth=int(tree.max_depth), fit_seconds=fit_seconds,
                                 predict_seconds=predict_seconds)
        yield result
