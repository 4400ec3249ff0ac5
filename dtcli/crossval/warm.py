"""The engine's kernels loaded (or compiled) before anything is timed: ahead, side by side
in processes, for a run's tasks (`compile_ahead`), and in this process by fitting a small
tree of every criterion on every form of data the tasks use (`warm_up`, `fit_spread`)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dtcli.crossval.batch import subset
from dtcli.crossval.tasks import Task, TreeOptions
from dtcli.io.dataset import NOMINAL, Dataset


def compile_ahead(datasets: Sequence[Dataset], tasks: Sequence[Task], jobs: int | None) -> None:
    """Compile the kernels of every (criterion, form of data) the tasks need, side by
    side in processes (`jobs` if given, else all cores: compiling is a one-time cost),
    before any worker starts: no two processes compile the same unit (engine/forms.py),
    and workers only load code (engine.warm)."""
    from dtcli.engine.warm import WarmTask, form_of, warm
    from dtcli.crossval.methods import tree_criterion

    forms = [form_of(d.X, len(d.classes), np.array([f.kind == NOMINAL for f in d.features]))
             for d in datasets]
    warm(sorted({WarmTask(tree_criterion(t.criterion), t.params, forms[t.dataset])
                 for t in tasks if tree_criterion(t.criterion)}), jobs)


_WARM_ROWS = 300  # rows of a dataset whose fit loads a criterion's kernels


def warm_up(datasets: Sequence[Dataset], tasks: Sequence[Task] = ()) -> None:
    """Load (or compile) the engine's kernels before timing anything.

    numba compiles the engine per criterion, and per form of data (with or
    without nominal features, two classes or more, weighted rows or not): a
    small tree of every criterion the tasks use, with their class weights, on
    one dataset of each form runs every kernel the real fits will, so no fold's
    time includes a compilation.
    """
    from dtcli.crossval.methods import tree_criterion

    # default stopping rules with the tasks' class weights (FDF has no kernels)
    choices = list(dict.fromkeys((tree_criterion(task.criterion), task.params,
                                  TreeOptions(class_weight=task.options.class_weight))
                                 for task in tasks if tree_criterion(task.criterion))) or [
        ("gini", (), TreeOptions())]
    seen = set()
    for dataset in datasets:
        form = (any(f.kind == NOMINAL for f in dataset.features), len(dataset.classes) == 2)
        if form in seen:
            continue
        seen.add(form)
        for name, params, weighted in choices:
            fit_spread(dataset, {**weighted.estimator_params(), "criterion": name,
                                 "criterion_params": dict(params)}, _WARM_ROWS)


def fit_spread(dataset: Dataset, params: dict, n_rows: int, pruned: bool = False) -> None:
    """Load (or compile), in this process, the kernels a fit of `params` (the
    estimator's, class_weight included) on `dataset` runs: fit and apply that tree on
    up to n_rows rows spread over the dataset (class-sorted files still give every
    class), weighted as the whole dataset's class weights weigh them (weights that are
    not whole numbers run kernels of their own). A decision threshold is left out (its
    inner fits run the same kernels); pruning and leaf models too (they add no kernels
    of the tree's) unless `pruned`: S-pruning's test has kernels
    of its own."""
    from dtcli.estimator import DecisionTreeClassifier
    from dtcli.validation import row_weights

    rows = np.unique(np.linspace(0, len(dataset.y) - 1, n_rows).astype(np.int64))
    weights = row_weights(None, params.get("class_weight"), dataset.y,
                          np.array(dataset.classes, dtype=object))
    weights = None if weights is None else weights[rows]
    small = subset(dataset, rows)
    if np.unique(small.y).shape[0] < 2 or (weights is not None and weights.sum() <= 0):
        return
    model = DecisionTreeClassifier(**{**params, "class_weight": None, "n_jobs": 1,
                                      "leaf_model": "counts", "threshold": None,
                                      "threshold_metric": None, "cost": None,
                                      **({} if pruned else {"pruning": None})})
    model.fit_dataset(small, sample_weight=weights).proba_from_matrix(small.X)
