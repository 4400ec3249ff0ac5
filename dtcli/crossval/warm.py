"""The engine's kernels compiled ahead, side by side in processes, for a run's tasks
(`compile_ahead`), and loaded in this process before anything is timed (`warm_up`):
the units (engine/forms.py) of every criterion on every form of data the tasks use,
through the one function that compiles or loads units (engine.warm.compile_units)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dtcli.crossval.tasks import Task
from dtcli.io.dataset import NOMINAL, Dataset


def fit_tasks(dataset: Dataset, criterion: str, params: tuple, weighted: bool) -> list:
    """The engine.warm.WarmTasks of a fit of `criterion` (its `params` as pairs) on
    `dataset`: its form of data, with count tables; and without, when the rows are
    weighted by class (weights that are not whole numbers run searches of their own)."""
    from dtcli.engine.warm import WarmTask, form_of

    form = form_of(dataset.X, len(dataset.classes),
                   np.array([f.kind == NOMINAL for f in dataset.features]))
    task = WarmTask(criterion, tuple(params), form)
    return [task] + ([task._replace(tables=False)] if weighted else [])


def _warm_tasks(datasets, tasks: Sequence[Task]) -> list:
    """The WarmTasks of `tasks` (FDF has no kernels; no task: gini's)."""
    from dtcli.crossval.methods import tree_criterion

    choices = list(dict.fromkeys((tree_criterion(task.criterion), task.params, task.dataset,
                                  task.options.class_weight is not None)
                                 for task in tasks if tree_criterion(task.criterion)))
    if not tasks:
        choices = [("gini", (), d, False) for d in range(len(datasets))]
    return sorted({warm for name, params, d, weighted in choices
                   for warm in fit_tasks(datasets[d], name, params, weighted)})


def compile_ahead(datasets: Sequence[Dataset], tasks: Sequence[Task], jobs: int | None) -> None:
    """Compile the cold units of the tasks, side by side in processes (`jobs` if given,
    else all cores: compiling is a one-time cost), before any worker starts: no two
    processes compile the same unit (engine/forms.py), and workers only load code."""
    from dtcli.engine.warm import warm

    warm(_warm_tasks(datasets, tasks), jobs)


def warm_up(datasets, tasks: Sequence[Task] = ()) -> None:
    """Load (or compile) in this process the units the tasks' fits on `datasets` (a
    sequence, or a mapping, by the tasks' dataset index) run (no task: gini's), so that no fold's time includes loading or compiling them; what
    this process loaded already costs nothing."""
    from dtcli.engine.warm import compile_units

    units = [unit for warm in _warm_tasks(datasets, tasks) for unit in warm.units()]
    compile_units(units, here=units)
