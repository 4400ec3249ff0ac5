"""`dtcli.train` (`dtree train`): one model fitted on one dataset.

    result = dtcli.train("iris.csv", "entropy", max_depth=3)
    result.model.predict(X), result.summary(), result.save("iris.json")

Around the estimator's fit it runs what the command always ran: the engine's kernels
loaded first (so that the fit time is the fit's alone), a grid search first when a
parameter is "auto", the fit on this machine or a Dask cluster (with the warnings it
raised), and with `pruning_path=True` the unpruned tree's cost-complexity path instead.
"""
from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass, field

import numpy as np

from dtcli.errors import ParameterError
from dtcli.experiments.data import Reading, sources
from dtcli.experiments.notes import Notes
from dtcli.experiments.pool import one_pool
from dtcli.io.limits import TRAIN_BYTES_PER_NODE_COUNT, check_node_records
from dtcli.measures.fitted import THRESHOLD_PARAMS

_SPREAD_ROWS = 64  # rows of the dataset whose S-pruned fit loads the test's kernels
_SPREAD_PERMUTATIONS = 100  # S-pruning's permutations in that fit


@dataclass
class PruningPath:
    """The weakest-link steps of an unpruned tree: alpha 0 first, then each step's
    effective alpha, with the total leaf risk and the leaves left after it, and the alpha
    in rpart's units (cp: over the root's risk)."""

    alphas: np.ndarray
    impurities: np.ndarray
    leaves: np.ndarray
    cps: np.ndarray

    def csv(self) -> str:
        return "ccp_alpha,impurity,n_leaves,cp\n" + "".join(
            f"{float(a)!r},{float(r)!r},{n},{float(c)!r}\n"
            for a, r, n, c in zip(self.alphas, self.impurities, self.leaves, self.cps))

    def svg(self, title: str) -> str:
        """Impurity and leaves against alpha, drawn as SVG."""
        from dtcli.export.plots import pruning_path

        return pruning_path([float(a) for a in self.alphas], [float(r) for r in self.impurities],
                            [int(n) for n in self.leaves], title)


@dataclass
class Training:
    """What `dtcli.train` returns: the fitted `model` (with `pruning_path=True`, the
    unpruned tree and its `path`), the `dataset` it was fitted on, `source` (the data as
    given, which the model file records) and the `warnings` about the data and the fit."""

    model: object
    dataset: object
    source: str | None
    warnings: list[str] = field(default_factory=list)
    path: PruningPath | None = None
    preset: str | None = None

    def save(self, path: str) -> None:
        """Write the model file (JSON; '-' for stdout)."""
        from dtcli.model import save_model

        save_model(self.model, path, target=self.dataset.target, source=self.source)

    def summary(self, written_to: str | None = None) -> str:
        """The one line `dtree train` says on stderr (ending with where the model was
        written, if `written_to`)."""
        data = self.dataset
        if self.path is not None:
            return (f"pruning path of the unpruned {self.model.criterion} tree on {data.source} "
                    f"({self.model.tree_.node_count} nodes): {len(self.path.alphas)} steps, "
                    f"risk = {self.model.ccp_risk}")
        written = "" if written_to is None else f"; model written to {written_to}"
        decision = getattr(self.model, "decision_", None)
        if decision is not None:
            written = (f"; predicts {decision['positive']} at p >= {decision['threshold']:.6g}"
                       + written)
        shape = (f"{data.source}, target column '{data.target}': {data.X.shape[0]} rows, "
                 f"{data.X.shape[1]} features, {len(data.classes)} classes; ")
        kind = getattr(self.model, "model_kind", None)
        if kind == "fdf":
            facts = self.model.facts()
            return (f"trained FDF on {shape}{facts['n_trees']} trees, {facts['n_leaves']} "
                    f"rules, {facts['n_nodes']} nodes, longest rule {facts['depth']}; fit in "
                    f"{self.model.fit_seconds_:.3f} s{written}")
        if kind == "forest":
            return _forest_summary(self.model, shape) + written
        tree = self.model.tree_
        if kind == "c45":
            return (f"trained {self.model.preset_} on {data.source}, target column "
                    f"'{data.target}': {data.X.shape[0]} rows; {tree.node_count} nodes, "
                    f"{tree.n_leaves} leaves; fit in {self.model.fit_seconds_:.3f} s{written}")
        preset = f" (--preset {self.preset})" if self.preset else ""
        pruned = f"pruned ({self.model.pruning}): " if self.model.pruning else ""
        return (f"trained {self.model.criterion} tree{preset} on {shape}{pruned}"
                f"{tree.node_count} nodes, {tree.n_leaves} leaves, depth {tree.max_depth}; "
                f"training accuracy {training_accuracy(self.model, data):.4f}; fit in "
                f"{self.model.fit_seconds_:.3f} s{written}")


def _forest_summary(forest, shape: str) -> str:
    nodes = np.mean([e.tree_.node_count for e in forest.estimators_])
    leaves = "" if forest.leaf_model == "counts" else ", naive bayes leaves"
    oob = ("" if not hasattr(forest, "oob_score_")
           else f"; out-of-bag accuracy {forest.oob_score_:.4f}")
    return (f"trained a forest of {len(forest.estimators_)} {forest.criterion} trees on "
            f"{shape}{nodes:.1f} nodes per tree{leaves}{oob}; fit in "
            f"{forest.fit_seconds_:.3f} s")


def train(data, method="gini", *, jobs: int | None = None, seed: int = 0,
          scheduler: str | None = None, grid=None, tune_cv: int | None = None,
          pruning_path: bool = False, target=None, drop=(), input_format=None,
          header: bool = True, delimiter=None, force: bool = False, quiet: bool = False,
          threshold=None, threshold_metric: str | None = None, cost=None, positive=None,
          **options) -> Training:
    """Fit `method` on one dataset (a path, Dataset, (X, y) pair or DataFrame).

    `method`: an unfitted estimator of dtcli (DecisionTreeClassifier,
    RandomForestClassifier, FDFClassifier, a preset's), or a method object or --criteria
    string ("entropy", "tsallis:q=2.5", "gini*100", "fdf", "j48"); `options`: the tree
    options (max_depth=3, pruning="ccp", ...; an estimator keeps its own). A criterion
    parameter or tree option given as "auto" is chosen first by a grid search (`grid`,
    `tune_cv` folds, seeded by `seed`). `scheduler`: fit a forest's trees on that Dask
    cluster. `pruning_path`: the unpruned tree and its cost-complexity path instead.
    `threshold` (a probability, or "auto" with `threshold_metric` or `cost`) and
    `positive`: the decision threshold the model stores (dtcli/measures/fitted.py)."""
    model, search = _model_of(method, options, jobs, seed, grid, tune_cv)
    model = with_threshold(model, threshold=threshold, threshold_metric=threshold_metric,
                           cost=cost, positive=positive)
    return fit_model(data, model, search=search, scheduler=scheduler, pruning_path=pruning_path,
                     jobs=jobs, quiet=quiet,
                     reading=Reading(target, tuple(drop), input_format, header, delimiter, force))


@one_pool
def fit_model(data, model, *, search=None, scheduler=None, pruning_path: bool = False,
              jobs=None, quiet: bool = False, reading: Reading = Reading(),
              preset: str | None = None, saved: bool = False) -> Training:
    """`train` of an estimator checked already (the command builds it from its options),
    after `search` (experiments.tuning.TrainingSearch) when a parameter is auto. `saved`:
    the model will be written as a model file, whose memory is checked too (io.limits)."""
    if pruning_path and getattr(model, "model_kind", None) != "tree":
        raise ParameterError("pruning_path applies to a single tree (--model tree)")
    notes = Notes(quiet)
    source = sources(data, reading)[0]
    dataset = source.load(reading.force)
    if saved:
        check_node_records(len(dataset.y), len(dataset.classes), dataset.target,
                           dataset.source, TRAIN_BYTES_PER_NODE_COUNT)
    notes.warn(dataset.warnings)
    if search is not None:
        leaves = {k: model.get_params(deep=False)[k]
                  for k in ("leaf_model", "leaf_params", *THRESHOLD_PARAMS)}
        model = search.tuned_tree(dataset, jobs, quiet).set_params(**leaves)
    if preset is not None:
        model.preset_ = preset
    kind = getattr(model, "model_kind", None)
    if kind == "tree":
        load_kernels(model, dataset)
    elif kind == "forest":
        load_kernels(_forest_tree(model), dataset)
    result = Training(model, dataset, source.path, list(dataset.warnings), preset=preset)
    if pruning_path:
        result.path = _pruning_path(model, dataset)
        return result
    fitted = fit(model, dataset, scheduler)
    notes.warn(fitted)
    result.warnings += fitted
    return result


def with_threshold(model, **decision):
    """`model` with the decision threshold parameters given (those not None), seeded as
    the model is for "auto"'s inner cross-validation."""
    given = {k: v for k, v in decision.items() if v is not None}
    if given and "threshold" not in given:
        raise ParameterError(f"{', '.join(given)} apply to a decision threshold: give "
                             "threshold (--threshold P or auto) too")
    return model.set_params(**given) if given else model


def _model_of(method, options: dict, jobs, seed: int, grid, tune_cv):
    """(estimator, TrainingSearch or None) of train's `method` and tree options."""
    from dtcli.crossval.method_syntax import one_method
    from dtcli.crossval.methods import Method, Tree, Tuned
    from dtcli.crossval.tree_options import RESAMPLING, TreeOptions
    from dtcli.estimator import DecisionTreeClassifier
    from dtcli.experiments.tuning import TrainingSearch, tree_options
    from dtcli.tuning.grid import AUTO

    if not isinstance(method, (str, Method)):  # an estimator
        if options or grid or tune_cv:
            raise ParameterError("an estimator given to train keeps its own parameters: "
                                 "give options, grid and tune_cv with a method name instead")
        return method, None
    method = one_method(method)
    options = tree_options(options)
    if not (isinstance(method, Tuned) or AUTO in options.values() or grid):
        model = method.estimator(TreeOptions(**options).check(), seed)
        if "n_jobs" in model.get_params(deep=False):
            model.set_params(n_jobs=jobs)
        return model, None
    fields = [f.name for f in dataclasses.fields(TreeOptions) if f.name not in RESAMPLING]
    if isinstance(method, Tuned):
        params = {**dict(method.fixed), **{k: AUTO for k in method.tuned if k not in fields}}
        options = {**dict(method.options), **options,
                   **{k: AUTO for k in method.tuned if k in fields}}
    elif isinstance(method, Tree) and method.leaves is None and not method.options:
        params = dict(method.params)
    else:
        raise ParameterError(f"train tunes a tree's parameters; {method.label} is not one")
    defaults = TreeOptions()
    tree = {"criterion": method.criterion, "criterion_params": params,
            **{name: getattr(defaults, name) for name in fields}, **options}
    search = TrainingSearch.of(tree, grid, tune_cv, seed)
    untuned = search.untuned(tree)
    options = {k: v for k, v in untuned.items() if k not in ("criterion", "criterion_params")}
    return DecisionTreeClassifier(criterion=method.criterion,
                                  criterion_params=untuned["criterion_params"] or None,
                                  n_jobs=jobs,
                                  **TreeOptions(**options).check().estimator_params()), search


def _forest_tree(forest):
    """One tree of the forest's options: what loads the kernels the forest's trees run."""
    from dtcli.estimator import DecisionTreeClassifier

    allowed = DecisionTreeClassifier().get_params()
    params = {k: v for k, v in forest.get_params(deep=False).items() if k in allowed}
    return DecisionTreeClassifier(**{**params, "n_jobs": 1, "max_features": None,
                                     "random_state": 0, "leaf_model": "counts",
                                     "leaf_params": None})


def _pruning_path(model, dataset) -> PruningPath:
    """The tree refitted unpruned, and its weakest-link steps."""
    from dtcli.pruning.cost_complexity import model_links

    model.set_params(pruning=None).fit_dataset(dataset)
    _, alphas, impurities, leaves = model_links(model)
    root = impurities[-1]  # the risk of the root alone
    return PruningPath(alphas, impurities, leaves, alphas / root if root > 0 else alphas)


def load_kernels(model, dataset) -> None:
    """Load (or compile) the units (engine/forms.py) that fitting the tree `model` on
    `dataset` runs, through the one function that compiles or loads units; and
    S-pruning's test, which compiles on first use (a small S-pruned fit)."""
    from dtcli.crossval.warm import fit_tasks
    from dtcli.engine.warm import compile_units

    tasks = fit_tasks(dataset, model.criterion, tuple((model.criterion_params or {}).items()),
                      model.class_weight is not None)
    units = [unit for task in tasks for unit in task.units()]
    compile_units(units, here=units)
    if model.pruning == "s-pruning":  # its test's kernels (announced if cold)
        from dtcli.pruning.significance import check_work

        # a test of too much work is refused on the whole data before any kernel loads;
        # the kernels do not depend on the number of permutations
        check_work(model.permutations, model.significance, len(dataset.y),
                   len(dataset.classes), model.pruning_mode == "exact")
        _spruned_fit(model, dataset)


def _spruned_fit(model, dataset) -> None:
    """An S-pruned fit of `model` on up to _SPREAD_ROWS rows spread over `dataset` (every
    class of a class-sorted file), weighted as the whole dataset's class weights weigh
    them, with at most _SPREAD_PERMUTATIONS permutations."""
    from dtcli.crossval.batch import subset
    from dtcli.validation import row_weights

    rows = np.unique(np.linspace(0, len(dataset.y) - 1, _SPREAD_ROWS).astype(np.int64))
    weights = row_weights(None, model.class_weight, dataset.y,
                          np.array(dataset.classes, dtype=object))
    small = subset(dataset, rows)
    if np.unique(small.y).shape[0] < 2:
        return
    # a decision threshold is left out: its inner fits run the same kernels
    params = {**model.get_params(deep=False), "class_weight": None, "n_jobs": 1,
              "leaf_model": "counts", "threshold": None, "threshold_metric": None,
              "cost": None, "permutations": min(model.permutations, _SPREAD_PERMUTATIONS)}
    type(model)(**params).fit_dataset(small, sample_weight=None if weights is None
                                      else weights[rows])


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
    Naive Bayes leaves' predictions, or its decisions at its decision threshold)."""
    if getattr(model, "leaf_model_", None) is None and getattr(model, "threshold_", None) is None:
        return model.tree_.training_accuracy()
    return float((model.predicted_index(model.proba_from_matrix(dataset.X)) == dataset.y).mean())
