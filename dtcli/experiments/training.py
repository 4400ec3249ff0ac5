"""What `dtree train` runs around an estimator's fit: the engine's kernels loaded first
(so that the fit time is the fit's alone), the fit itself (on this machine or a Dask
cluster, with the warnings it raised), and the training accuracy of its summary."""
from __future__ import annotations

import warnings

import numpy as np

_SPREAD_ROWS = 64  # rows of the dataset whose fit loads the kernels


def load_kernels(model, dataset) -> None:
    """Load (or compile) the kernels that fitting the tree `model` on `dataset` runs: the
    same tree on rows spread over the dataset (warm.fit_spread), for data large enough
    for the level driver a warm fit of that form, and S-pruning's test, which compiles on
    first use."""
    from dtcli.engine.warm import WarmTask, form_of, run_task
    from dtcli.crossval.warm import fit_spread
    from dtcli.io.dataset import NOMINAL

    fit_spread(dataset, model.get_params(deep=False), _SPREAD_ROWS)
    form = form_of(dataset.X, len(dataset.classes),
                   np.array([f.kind == NOMINAL for f in dataset.features]))
    if form.levels:
        run_task(WarmTask(model.criterion, tuple((model.criterion_params or {}).items()), form))
    if model.pruning == "s-pruning":  # its test's kernels (announced if cold)
        fit_spread(dataset, model.get_params(deep=False), _SPREAD_ROWS, pruned=True)


def fit(model, dataset, scheduler: str | None = None) -> list[str]:
    """Fit `model` on `dataset` (a forest's trees on the Dask cluster at `scheduler`);
    the warnings the fit raised (a forest's few out-of-bag votes), as text."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if scheduler:
            from dtcli.ensemble.distributed import fit_on_cluster

            fit_on_cluster(model, dataset, scheduler)
        else:
            model.fit_dataset(dataset)
    return [str(warning.message) for warning in caught]


def training_accuracy(model, dataset) -> float:
    """A fitted tree's accuracy on its training rows (its leaves' majorities, or its
    Naive Bayes leaves' predictions)."""
    if getattr(model, "leaf_model_", None) is None:
        return model.tree_.training_accuracy()
    return float((model.proba_from_matrix(dataset.X).argmax(axis=1) == dataset.y).mean())
