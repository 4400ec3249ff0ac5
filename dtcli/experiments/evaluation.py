"""`dtcli.evaluate` (`dtree evaluate`): one method cross-validated on one dataset, or a
tuned one by nested cross-validation.

    result = dtcli.evaluate("ecoli2.dat", "entropy", cv=10, repeats=3)
    result.mean("auc"), result.std("auc"), result.scores["auc"]
"""
from __future__ import annotations

from dtcli.errors import ParameterError
from dtcli.crossval.methods import Forest, Tuned
from dtcli.experiments.comparison import cross_validate
from dtcli.experiments.data import Reading, one_source, refuse_outputs
from dtcli.experiments.notes import Notes, open_store
from dtcli.experiments.results import Evaluation
from dtcli.experiments.tuning import run_tuned_methods, tree_options, tuning_document
from dtcli.experiments.pool import one_pool


@one_pool
def evaluate(data, method="gini", *, cv: int = 10, repeats: int = 1, seed: int = 0,
             folds: str = "dtree",
             jobs: int | None = None, results: str | None = None, scheduler: str | None = None,
             grid=None, inner_cv: int | None = None, selection: str = "nested",
             tune_metric: str = "accuracy", target=None, drop=(), input_format=None,
             header: bool = True, delimiter=None, force: bool = False, quiet: bool = False,
             outputs: dict | None = None, positive: str | None = None, cost=None,
             cost_matrix: str | None = None, threshold=None,
             threshold_metric: str | None = None, **options) -> Evaluation:
    """Stratified `cv`-fold cross-validation (`repeats` times, seeded) of `method` (an
    object or a --criteria string) on one dataset (a path, Dataset, (X, y) pair or
    DataFrame). A tuned method (`tsallis:q=auto`, or a tree option given as "auto") is
    scored by nested cross-validation (`selection="paper"`: the papers' protocol), with
    both selections' report under document["tuning"]. Keywords as `compare`'s; the
    positive class (`positive`, default the rarest) is named in document["positive"];
    with `threshold`, each fold's decision threshold is in document["thresholds"];
    `folds` "weka": Weka's folds for `seed` (J48 -x 10 -s 1 is cv=10, seed=1)."""
    from dtcli.measures import with_positive
    from dtcli.measures.thresholds import decision_about, with_decisions
    from dtcli.crossval.method_syntax import one_method, with_tuned_options
    from dtcli.crossval.tasks import Protocol, TreeOptions, check_class_weight, check_protocol
    from dtcli.tuning.grid import auto_options

    notes = Notes(quiet)
    method = one_method(method)
    options = tree_options(options)
    method = with_tuned_options(method, auto_options(options))
    source = one_source(data, Reading(target, tuple(drop), input_format, header, delimiter))
    refuse_outputs({"--results": results, **(outputs or {})}, {"data": source.path})
    protocol = Protocol(cv, repeats, seed, folds)
    tuning = {"grid": grid, "inner_cv": inner_cv, "selection": selection,
              "tune_metric": tune_metric}
    decisions = {"cost": cost, "cost_matrix": cost_matrix, "threshold": threshold,
                 "threshold_metric": threshold_metric}

    def load():
        dataset = with_positive([source.load(force)], [source.name], positive)
        return with_decisions(dataset, [source.name], tune_metric, **decisions)[0]

    if isinstance(method, Tuned):
        dataset = load()
        notes.warn(dataset.warnings + check_protocol([source.name], [dataset], protocol))
        return _evaluate_tuned(source, dataset, method, options, tuning, protocol, notes,
                               jobs=jobs, store=open_store(results, notes), scheduler=scheduler)
    if grid or inner_cv:
        raise ParameterError("--grid and --inner-cv apply to a --param given as auto")
    choice = method.choice
    params = choice.resolved()
    options = TreeOptions(**options).check()
    dataset = load()
    check_class_weight([source.name], [dataset], options)
    notes.warn(dataset.warnings + check_protocol([source.name], [dataset], protocol))
    if scheduler is not None:
        from dtcli.scheduler.connection import check_address

        check_address(scheduler)
    store = open_store(results, notes)
    run = cross_validate(notes, [source.name], [dataset], [choice], options, protocol,
                         jobs=jobs, store=store, scheduler=scheduler)
    forest = ({"forest": {"n_estimators": method.n_trees, "max_features": "sqrt"}}
              if isinstance(method, Forest) else {})
    about = {"dataset": source.name, "source": source.path or source.name,
             "target": dataset.target, "n_rows": int(len(dataset.y)),
             "criterion": {"name": choice.name, "params": params}, **forest,
             "options": options.estimator_params(), "cv": cv, "repeats": repeats, "seed": seed,
             **decision_about(decisions),
             **({"folds": folds} if folds != "dtree" else {})}
    return _evaluation(run.cells[(0, 0)], dataset, about)


def _evaluation(folds: list[dict], dataset, about: dict) -> Evaluation:
    from dtcli.reporting.report import evaluation_document
    from dtcli.crossval.runner import summarize

    from dtcli.measures import positive_label

    about = {**about, "positive": positive_label(dataset)}
    document = evaluation_document(summarize(folds), dataset.classes, about)
    if all("threshold" in fold for fold in folds):
        document["thresholds"] = [fold["threshold"] for fold in folds]
    return Evaluation(document, folds)


def _evaluate_tuned(source, dataset, method: Tuned, options: dict, tuning: dict, protocol,
                    notes: Notes, **run) -> Evaluation:
    """The nested (or, with selection "paper", the papers') cross-validation of the
    tuned tree, reported as a fixed one is, with the tuning report in "tuning"."""
    from dtcli.crossval.tasks import TreeOptions, check_class_weight
    from dtcli.tuning.methods import folds_of

    options = TreeOptions(**{k: v for k, v in options.items() if k not in method.tuned}).check()
    check_class_weight([source.name], [dataset], options)
    inner, nested = run_tuned_methods([source.name], [dataset], [method], tuning, options,
                                      protocol, notes=notes, **run)
    fixed, options_of = dict(method.fixed), TreeOptions.__dataclass_fields__
    # the criterion's parameters in the order the method names them, tuned ones as auto
    names = [piece.partition("=")[0].strip() for piece in method.label.split(":")[1:]]
    params = {n: fixed.get(n, "auto") for n in names
              if n not in options_of and (n in fixed or n in method.tuned)}
    about = {"dataset": source.name, "source": source.path or source.name,
             "target": dataset.target, "n_rows": int(len(dataset.y)),
             "criterion": {"name": method.criterion, "params": params},
             "options": options.estimator_params(), "cv": protocol.cv,
             "repeats": protocol.repeats, "seed": protocol.seed}
    result = _evaluation(folds_of(nested[method.label][0], tuning["selection"]), dataset, about)
    result.document["tuning"] = tuning_document([source.name], [method], nested, tuning, inner,
                                                tuning["tune_metric"])
    return result


def score_model(model_path: str, data: str, *, target: str | None = None, input_format=None,
                header: bool = True, delimiter=None, positive: str | None = None) -> Evaluation:
    """A saved model's metrics on labelled data (`dtree evaluate MODEL DATA`): one "fold",
    the whole file; its class column is the model's target unless `target` names another;
    `positive` the class of the positive-class measures (default: the rarest of the rows)."""
    from dtcli.measures import positive_class
    from dtcli.errors import DataError
    from dtcli.reporting.report import evaluation_document
    from dtcli.crossval.runner import summarize
    from dtcli.crossval.scoring import evaluate_model
    from dtcli.io import load_features
    from dtcli.model import load_model
    import numpy as np

    model, meta = load_model(model_path)
    target = target or meta.get("target")
    X, columns = load_features(data, model.features_, labels_of=[target], format=input_format,
                               header=header, delimiter=delimiter)
    labels = columns.get(target)
    if labels is None:
        raise DataError(f"{data}: no class column '{target}' to evaluate against; "
                        "name it with --target")
    fit_seconds = float(meta.get("training", {}).get("fit_seconds") or 0.0)
    result, n_rows = evaluate_model(model, fit_seconds, X, labels, data, positive)
    matrix = result["confusion_matrix"]
    chosen = (str(positive) if positive is not None else
              model.classes_[positive_class(np.repeat(np.arange(len(matrix)),
                                                      [sum(row) for row in matrix]),
                                            len(matrix))])
    about = {"model": model_path, "dataset": data, "target": target, "n_rows": n_rows,
             "positive": str(chosen),
             "criterion": meta.get("criterion", {"name": meta.get("kind"), "params": {}}),
             "options": meta["options"],
             **({"decision": meta["decision"]} if "decision" in meta else {})}
    return Evaluation(evaluation_document(summarize([result]), model.classes_, about), [result])
