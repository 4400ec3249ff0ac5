"""The tasks of one dataset in one pass: encode and presort it once, grow every fold's tree
from that one presort.

A fold's tree is grown from the whole dataset's presorted features with weights of 1 on
its training rows and 0 on the others (`builder.grow`: a row of weight 0 is left out, so
the tree is the one fitted on the training rows alone; tests/test_grow_many.py). Class
weights are computed on the training rows, as a fit on them would, and multiplied in.
The folds of a (cv, seed, repeat) are drawn once, the criteria's engine forms and the
stopping rules resolved once. The unpruned, unweighted folds of a run that share a
criterion, its parameters and the options are grown in one call of the engine, and
their test rows routed in another (`engine.folds.predict_folds`). Every other fold is
the estimator's own fit from the presort (`DecisionTreeClassifier.fit_prepared`, with
the fold's row weights: pruned as it prunes, its leaves' probabilities its leaf
estimate's). Each task's result is what a
fit on its training fold gives (`runner.run_task`, which is this path for one task),
timings aside: `fit_seconds` is the fold's growth and `predict_seconds` its
prediction (each its share of a call that did several folds), and the first fold's
includes the dataset's presort (so that the seconds summed over the folds are all the
fitting done).
"""
from __future__ import annotations

import dataclasses
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from dtcli.sampling.folds import Fold, repeat_folds
from dtcli.crossval.scoring import score_predictions, tree_facts
from dtcli.measures import positive_of
from dtcli.crossval.tasks import Task, TreeOptions
from dtcli.errors import DtreeError, ParameterError
from dtcli.fit_data import FitData
from dtcli.io.dataset import Dataset


@dataclass
class PreparedDataset:
    """A dataset with its presort (`FitData.presort`) and what every fold of it shares."""

    dataset: Dataset
    data: FitData
    prepare_seconds: float
    folds: dict  # (cv, seed, repeat) -> list of Fold
    unpaid: float = 0.0  # presort seconds not yet counted in a fold's fit_seconds

    @classmethod
    def of(cls, dataset: Dataset) -> "PreparedDataset":
        if np.isinf(dataset.X).any():
            raise ParameterError("X contains infinite values")
        data = FitData.of_dataset(dataset)
        start = time.perf_counter()
        data.presort(1)
        seconds = time.perf_counter() - start
        return cls(dataset, data, seconds, {}, unpaid=seconds)

    @property
    def prepared(self):
        return self.data.presort()

    def fold(self, task: Task) -> Fold:
        key = (task.cv, task.seed, task.repeat, task.folds)
        if key not in self.folds:
            self.folds[key] = repeat_folds(self.dataset.y, task.cv, task.seed, task.repeat,
                                           task.folds)
        return task_fold(self.dataset, task, self.folds[key][task.fold])


def task_fold(dataset: Dataset, task: Task, fold: Fold) -> Fold:
    """The task's (train, test) rows: the fold's, its training rows resampled to the
    task's --imbalance ratio if it has one (crossval/resample.py)."""
    if task.options.imbalance is None:
        return fold
    from dtcli.crossval.resample import minority_class, resampled_train

    minority = minority_class(dataset.y, dataset.classes, task.options.minority, "")
    train, test = fold
    return resampled_train(dataset.y, train, minority, task.options.imbalance, task.seed,
                           task.repeat, task.fold), test


class _Resolved:
    """Engine forms of criteria, and the trees' estimators (their stopping rules,
    pruning method, leaf estimate), resolved once per (criterion, options)."""

    def __init__(self):
        self._engines: dict = {}
        self._models: dict = {}

    def engine(self, task: Task):
        from dtcli import criteria

        key = (task.criterion, task.params)
        if key not in self._engines:
            self._engines[key] = criteria.get(task.criterion).engine(dict(task.params))
        return self._engines[key]

    def model(self, task: Task):
        """(the task's estimator, its stop rules, its pruning method or None); its class
        weights are in the fold's row weights (`_fold_weights`), not in the estimator."""
        key = (task.criterion, task.params, task.options)
        if key not in self._models:
            from dtcli.estimator import DecisionTreeClassifier

            params = {**task.options.estimator_params(), "class_weight": None}
            model = DecisionTreeClassifier(criterion=task.criterion,
                                           criterion_params=dict(task.params), n_jobs=1,
                                           **params)
            self._models[key] = model, model.stop_rules(), model.pruning_method()
        return self._models[key]


def _fold_weights(data: PreparedDataset, train: np.ndarray, options: TreeOptions) -> np.ndarray:
    """1 (times the class weight a fit on the training rows would use) on the training
    rows, 0 elsewhere."""
    from dtcli.validation import row_weights

    dataset = data.dataset
    weights = np.zeros(dataset.y.shape[0])
    if options.class_weight is None:
        weights[train] = 1.0
    else:
        class_weight = options.class_weight  # "balanced", or (label, weight) pairs
        class_weight = dict(class_weight) if isinstance(class_weight, tuple) else class_weight
        weights[train] = row_weights(None, class_weight, dataset.y[train],
                                     np.array(dataset.classes, dtype=object))
    return weights


def _folds_together(data: PreparedDataset, tasks: Sequence[Task],
                    resolved: _Resolved) -> dict[int, tuple]:
    """The run's plain folds (no pruning, no class weights: 0/1 weights), grown and
    predicted per (criterion, parameters, options) in one call each
    (`engine.folds.predict_folds`): task position -> (the FoldPredictions, the fold's
    index in them). Folds that cannot share a call are not listed."""
    from dtcli.engine.folds import predict_folds
    from dtcli.crossval import methods

    together = defaultdict(list)
    for i, task in enumerate(tasks):
        if (not task.trees and not methods.is_method(task.criterion)
                and task.options.class_weight is None and resolved.model(task)[2] is None):
            together[task.criterion, task.params, task.options].append(i)
    found = {}
    for members in together.values():
        first = tasks[members[0]]
        keeps, tests = [], []
        for i in members:
            train, test = data.fold(tasks[i])
            keep = np.zeros(data.dataset.y.shape[0], bool)
            keep[train] = True
            keeps.append(keep)
            tests.append(test)
        predicted = predict_folds(data.prepared, resolved.engine(first),
                                  resolved.model(first)[1], keeps, data.dataset.X, tests)
        if predicted is not None:
            found.update({i: (predicted, k) for k, i in enumerate(members)})
    return found


def run_tasks(data: PreparedDataset | Dataset, tasks: Sequence[Task]) -> Iterator[dict]:
    """The result of every task (all of one dataset), in order, as each is done."""
    from dtcli.crossval import methods
    from dtcli.leaf_estimate import node_proba

    if isinstance(data, Dataset):
        data = PreparedDataset.of(data)
    resolved = _Resolved()
    X, y = data.dataset.X, data.dataset.y
    decision = data.dataset.decision
    auto = decision is not None and decision.threshold == "auto"
    together = {} if auto else _folds_together(data, tasks, resolved)
    positive = positive_of(data.dataset)
    for i, task in enumerate(tasks):
        if task.trees or methods.is_method(task.criterion):
            yield run_method_task(data.dataset, task)
            continue
        train, test = data.fold(task)
        model = resolved.model(task)[0]
        if i in together:
            folds, k = together[i]
            share = 1 / len(folds.leaf_values)
            # the root first: the m-estimate's prior (leaf_estimate.node_proba)
            values = np.vstack([folds.root_values[k], folds.leaf_values[k]])
            proba = node_proba(values, model.leaf_estimate, model.m)[1:]
            fit_seconds = folds.grow_seconds * share + data.unpaid
            predict_seconds = folds.predict_seconds * share
            n_nodes, n_leaves, depth = folds.sizes[k].tolist()
        else:
            weights = _fold_weights(data, train, task.options)
            start = time.perf_counter()
            tree = model.fit_prepared(data.data, weights).tree_
            fit_seconds = time.perf_counter() - start + data.unpaid
            start = time.perf_counter()
            proba = model.proba_from_matrix(X[test])
            predict_seconds = time.perf_counter() - start
            n_nodes, n_leaves, depth = tree.node_count, tree.n_leaves, tree.max_depth
        data.unpaid = 0.0

        def fit_predict(inner_train, inner_test, task=task, model=model):
            model.fit_prepared(data.data, _fold_weights(data, inner_train, task.options))
            return model.proba_from_matrix(X[inner_test])

        result = _scored(data.dataset, task, train, y[test], proba, positive, fit_predict)
        result["metrics"].update(n_nodes=int(n_nodes), n_leaves=int(n_leaves), depth=int(depth),
                                 fit_seconds=fit_seconds, predict_seconds=predict_seconds)
        yield result


def subset(dataset: Dataset, rows: np.ndarray) -> Dataset:
    """The dataset's rows `rows` (its read warnings left behind)."""
    return dataclasses.replace(dataset, X=np.ascontiguousarray(dataset.X[rows]),
                               y=dataset.y[rows], warnings=[])


def run_method_task(dataset: Dataset, task: Task) -> dict:
    """A task of a method other than a plain tree (a forest, FDF, Naive Bayes leaves:
    crossval/methods.py): its estimator fitted on the training fold, scored on the test
    fold."""
    from dtcli.crossval.methods import method_of

    train, test = task_fold(dataset, task,
                            repeat_folds(dataset.y, task.cv, task.seed, task.repeat,
                                         task.folds)[task.fold])
    model = method_of(task.choice).estimator(task.options, task.seed)
    model.fit_dataset(subset(dataset, train))
    start = time.perf_counter()
    proba = model.proba_from_matrix(np.ascontiguousarray(dataset.X[test]))
    predict_seconds = time.perf_counter() - start
    def fit_predict(inner_train, inner_test):
        inner = method_of(task.choice).estimator(task.options, task.seed)
        inner.fit_dataset(subset(dataset, inner_train))
        return inner.proba_from_matrix(np.ascontiguousarray(dataset.X[inner_test]))

    result = _scored(dataset, task, train, dataset.y[test], proba, positive_of(dataset),
                     fit_predict, model.predicted_index(proba))
    result["metrics"].update(tree_facts(model), fit_seconds=model.fit_seconds_,
                             predict_seconds=predict_seconds)
    return result


def _scored(dataset: Dataset, task: Task, train: np.ndarray, y_test: np.ndarray,
            proba: np.ndarray, positive: int, fit_predict, y_pred=None) -> dict:
    """score_predictions under the dataset's Decision (dtcli/measures/thresholds.py): its costs, its
    threshold, or one chosen by an inner cross-validation of the training rows `train`
    alone (`fit_predict(inner_train, inner_test)`: the probabilities of a fit)."""
    decision = dataset.decision
    if decision is None:  # y_pred: the model's own decisions (J48's ties), if it has them
        return score_predictions(y_test, proba, positive, y_pred=y_pred)
    threshold = decision.threshold
    if threshold == "auto":
        from dtcli.measures.thresholds import auto_threshold

        threshold = auto_threshold(train, dataset.y, positive, decision, task.seed,
                                   fit_predict)
    return score_predictions(y_test, proba, positive, decision.costs, threshold)


def task_failed(exc: BaseException, where: str) -> DtreeError:
    """A library error inside a task, as one line that says which task."""
    kind = type(exc) if isinstance(exc, DtreeError) else DtreeError
    return kind(f"{where}: {exc}")


def task_groups(tasks: Sequence[Task],
                chunk: Callable[[Task], int] | None = None) -> list[list[int]]:
    """Indices of `tasks` in runs of consecutive tasks of one dataset (at most `chunk(task)`
    long): what one call of `batch.run_tasks` does on one presort."""
    groups: list[list[int]] = []
    for j, task in enumerate(tasks):
        if (not groups or tasks[groups[-1][0]].dataset != task.dataset
                or (chunk is not None and len(groups[-1]) >= chunk(task))):
            groups.append([])
        groups[-1].append(j)
    return groups
