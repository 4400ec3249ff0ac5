"""`dtcli.tune` (`dtree tune`): a grid search by cross-validation; and what the other
experiments run for tuned methods: nested cross-validation (`run_tuned_methods`) and
the search `train` runs before fitting (`TrainingSearch`).

    result = dtcli.tune("glass.csv", "tsallis", {"q": "0.5:5:0.5"}, cv=10, target="Type")
    result.best_params          # {'q': 1.5}
"""
from __future__ import annotations

from dtcli.errors import ParameterError
from dtcli.crossval.methods import Tree, Tuned
from dtcli.experiments.data import Reading, one_source, refuse_outputs
from dtcli.experiments.notes import Notes, open_store, saved
from dtcli.experiments.results import Tuning
from dtcli.experiments.pool import one_pool


@one_pool
def tune(data, method="tsallis", grid=None, *, cv: int = 5, repeats: int = 1, seed: int = 0,
         metric: str = "accuracy", jobs: int | None = None, results: str | None = None,
         scheduler: str | None = None, target=None, drop=(), input_format=None,
         header: bool = True, delimiter=None, force: bool = False, quiet: bool = False,
         outputs: dict | None = None, positive: str | None = None, cost=None,
         cost_matrix: str | None = None, threshold=None, threshold_metric: str | None = None,
         **options) -> Tuning:
    """Score every point of `grid` ({name: values or "START:STOP:STEP"}, or --grid
    texts; default: the papers' grid of the method's `auto` parameters, or of all its
    parameters) on the same seeded folds of one dataset; `method` a criterion's name, a
    Tree or a tuned method (`tsallis:q=auto`); `options` the trees' options (the
    estimator's parameters; one given as "auto" is searched over its default grid);
    `positive` the class of the positive-class measures (default: the rarest); `cost`,
    `cost_matrix`, `threshold`, `threshold_metric` as `compare`'s."""
    from dtcli.measures import positive_label, with_positive
    from dtcli.measures.thresholds import decision_about, with_decisions
    from dtcli.crossval.tasks import Protocol, check_class_weight, check_protocol
    from dtcli.tuning.report import search_document
    from dtcli.tuning.search import grid_search

    notes = Notes(quiet)
    criterion, params = _criterion_of(method)
    source = one_source(data, Reading(target, tuple(drop), input_format, header, delimiter))
    refuse_outputs({**(outputs or {}), "--results": results}, {"DATA": source.path})
    search = make_search({**tree_options(options), "criterion": criterion,
                          "criterion_params": params}, grid, metric)
    protocol = Protocol(cv, repeats, seed)
    decisions = {"cost": cost, "cost_matrix": cost_matrix, "threshold": threshold,
                 "threshold_metric": threshold_metric}
    dataset = with_decisions(with_positive([source.load(force)], [source.name], positive),
                             [source.name], metric, **decisions)[0]
    check_class_weight([source.name], [dataset], search.options)
    notes.warn(dataset.warnings + check_protocol([source.name], [dataset], protocol))
    store = open_store(results, notes)
    result = run_searching(notes, lambda **run: grid_search(source.name, dataset, search,
                                                            protocol, **run),
                           jobs=jobs, store=store, scheduler=scheduler)
    doc = search_document(result, {"dataset": source.name, "source": source.path or source.name,
                                   "criterion": search.criterion, "fixed": dict(search.fixed),
                                   "positive": positive_label(dataset),
                                   **decision_about(decisions),
                                   "options": search.options.estimator_params()})
    return Tuning(doc, result)


def _criterion_of(method) -> tuple[str, dict]:
    """The criterion and parameters (auto ones as "auto") a search starts from."""
    from dtcli.crossval.method_syntax import one_method

    if isinstance(method, str) and ":" not in method and "," not in method:
        return method, {}
    method = one_method(method)
    if isinstance(method, Tuned):
        return method.criterion, {**dict(method.fixed), **{n: "auto" for n in method.tuned}}
    if isinstance(method, Tree) and method.leaves is None and not method.options:
        return method.criterion, dict(method.params)
    raise ParameterError(f"tune searches a tree's parameters; {method.label} is not one "
                         "(give its own options as tree options)")


def tree_options(options: dict) -> dict:
    """The trees' options as the estimator names them (TreeOptions' fields), checked by
    name: {name: value} of those given."""
    import dataclasses

    from dtcli.crossval.tasks import TreeOptions

    known = [f.name for f in dataclasses.fields(TreeOptions)]
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ParameterError(f"unknown tree option '{unknown[0]}' (tree options: "
                             f"{', '.join(known)})")
    return dict(options)


def make_search(tree: dict, grid, metric: str):
    """A `search.Search` from the tree options (criterion and criterion_params among
    them) and a grid; "auto" parameters and, without a grid, every parameter of the
    criterion take the papers' default grid."""
    from dtcli.crossval.tasks import TreeOptions
    from dtcli.tuning.grid import AUTO, auto_options, default_grid
    from dtcli.tuning.search import Search

    tree = dict(tree)
    criterion, params = tree.pop("criterion"), dict(tree.pop("criterion_params") or {})
    grid = grid_of(grid)
    options_auto = auto_options(tree)
    for name in options_auto:  # the grid gives their values
        del tree[name]
    auto = [name for name, value in params.items() if value == AUTO] + options_auto
    if auto or not grid:
        grid = {**default_grid(criterion, auto or None), **grid}
    fixed = tuple((k, v) for k, v in params.items() if v != AUTO and k not in grid)
    return Search(criterion, grid, fixed, TreeOptions(**tree).check(), metric)


def grid_of(grid) -> dict[str, tuple[float, ...]]:
    """A grid given as {name: values or "START:STOP:STEP" text} or as --grid texts."""
    from dtcli.tuning.grid import parse_grid, parse_values

    if not grid:
        return {}
    if isinstance(grid, dict):
        return {name: parse_values(values, f"{name}={values}") if isinstance(values, str)
                else tuple(float(v) for v in values) for name, values in grid.items()}
    return parse_grid([grid] if isinstance(grid, str) else list(grid))


def run_searching(notes: Notes, search, *, jobs, store, scheduler):
    """search(jobs=, store=, scheduler=, progress=) under a "tuning" progress bar."""
    if scheduler is not None:
        from dtcli.scheduler.connection import check_address

        check_address(scheduler)
    return notes.run("tuning", lambda progress: search(jobs=jobs, store=store,
                                                       scheduler=scheduler, progress=progress),
                     lambda: saved(store))


def run_tuned_methods(names, datasets, methods, tuning: dict, options, protocol, *, jobs, store,
                      scheduler, notes: Notes):
    """Each tuned method's `Nested` per dataset, by label (nested cross-validation on
    `protocol`'s outer folds; `tuning`: grid, inner_cv, tune_metric)."""
    from dtcli.crossval.tasks import Protocol
    from dtcli.tuning.methods import run_tuned

    inner = Protocol(tuning["inner_cv"] or protocol.cv, 1, protocol.seed)
    for name, dataset in zip(names, datasets):
        n = len(dataset.y)
        rows = n - -(-n // protocol.cv)  # of the smallest training fold
        if inner.cv > rows:
            raise ParameterError(f"--inner-cv {inner.cv} (default: --cv) is more folds than the "
                                 f"training folds of dataset '{name}' have rows ({rows})")
    return inner, run_searching(
        notes, lambda **run: run_tuned(names, datasets, methods, grid_of(tuning["grid"]),
                                       options, protocol, inner, tuning["tune_metric"], **run),
        jobs=jobs, store=store, scheduler=scheduler)


def tuning_document(names, methods, nested, tuning: dict, inner, metric: str) -> dict:
    """The report of both selections of every tuned method (`methods.tuning_report`)."""
    from dtcli.tuning.methods import tuning_report

    return {"selection": tuning["selection"], "inner_cv": inner.cv,
            "tune_metric": tuning["tune_metric"],
            "methods": {m.label: tuning_report(names, nested[m.label], metric) for m in methods}}


class TrainingSearch:
    """The search `train` runs first when a parameter is auto (or a grid is given)."""

    def __init__(self, search, tree: dict, protocol):
        self.search, self.tree, self.protocol = search, tree, protocol

    @classmethod
    def of(cls, tree: dict, grid, tune_cv, seed: int = 0) -> "TrainingSearch | None":
        """None when there is nothing to tune (no auto parameter, no grid)."""
        from dtcli.crossval.tasks import Protocol
        from dtcli.tuning.grid import AUTO, auto_options

        auto = [k for k, v in (tree["criterion_params"] or {}).items() if v == AUTO]
        if not auto and not auto_options(tree) and not grid:
            if tune_cv is not None:
                raise ParameterError("--tune-cv applies when a --param is auto or --grid is given")
            return None
        return cls(make_search(tree, grid, "accuracy"), tree, Protocol(tune_cv or 10, 1, seed))

    def untuned(self, tree: dict) -> dict:
        """The tree options without the searched values (checked before data is read)."""
        from dtcli.crossval.tasks import TreeOptions
        from dtcli.tuning.grid import auto_options

        params = {k: v for k, v in (tree["criterion_params"] or {}).items()
                  if k not in self.search.grid}
        return {**tree, "criterion_params": params,
                **{name: getattr(TreeOptions(), name) for name in auto_options(tree)}}

    def tuned_tree(self, dataset, jobs, quiet):
        """Search on `dataset`, then the estimator with the best point's values, whose
        `tuning_` records the search (written into the model file)."""
        from dtcli.estimator import DecisionTreeClassifier
        from dtcli.crossval.tasks import check_protocol
        from dtcli.tuning.record import tuning_record
        from dtcli.tuning.search import grid_search

        notes = Notes(quiet)
        notes.warn(check_protocol([dataset.source], [dataset], self.protocol))
        store = open_store(None, notes)
        result = run_searching(notes, lambda **run: grid_search(dataset.source, dataset,
                                                                self.search, self.protocol, **run),
                               jobs=jobs, store=store, scheduler=None)
        choice, options = self.search.candidate(result.best_params)
        model = DecisionTreeClassifier(criterion=self.tree["criterion"],
                                       criterion_params=dict(choice.params) or None, n_jobs=jobs,
                                       **options.estimator_params())
        model.tuning_ = tuning_record(result)
        chosen = ", ".join(f"{k}={v:g}" for k, v in result.best_params.items())
        notes.say(f"tuned {chosen}: {result.search.metric} {result.best_score:.4f} in "
                  f"{self.protocol.cv}-fold CV")
        return model
