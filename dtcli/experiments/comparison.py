"""`dtcli.compare` (`dtree compare`): methods over datasets on the same folds, with
Demsar's rank statistics.

    result = dtcli.compare(["a.dat", "b.dat", "c.dat"], "gini,entropy,ihd", cv=10,
                           metric="auc", leaf_estimate="laplace")
    result.ranks, result.friedman, result.cd_diagram()
"""
from __future__ import annotations

from typing import NamedTuple

from dtcli.errors import ParameterError
from dtcli.crossval.methods import Tuned
from dtcli.experiments.data import Reading, refuse_outputs, sources
from dtcli.experiments.notes import Notes, open_store, saved
from dtcli.experiments.results import Comparison
from dtcli.experiments.tuning import run_tuned_methods, tree_options, tuning_document
from dtcli.experiments.pool import one_pool


@one_pool
def compare(datasets=None, methods=None, *, spec: str | None = None, cv: int = 10,
            repeats: int = 1, seed: int = 0, folds: str = "dtree", metric: str = "accuracy",
            base: str | None = None,
            jobs: int | None = None, results: str | None = None, scheduler: str | None = None,
            grid=None, inner_cv: int | None = None, selection: str = "nested",
            tune_metric: str = "accuracy", reference: str | None = None,
            posthoc: str = "after-rejection",
            cd_diagram: str | None = None, target=None, drop=(), input_format=None,
            header: bool = True, delimiter=None, force: bool = False, quiet: bool = False,
            outputs: dict | None = None, store=None, positive: str | None = None,
            bayes: bool = False, rope: float = 0.01, cost=None, cost_matrix: str | None = None,
            threshold=None, threshold_metric: str | None = None, **options) -> Comparison:
    """Every method of `methods` (objects or --criteria strings; default: every
    distinct criterion) on the same stratified folds of every dataset of `datasets`
    (and of the `spec` file), ranked by `metric`. Keywords as the command's options:
    `jobs` worker processes, `results` a JSON-lines file that keeps every finished fold
    (a rerun skips them), `scheduler` a Dask cluster, `grid`, `inner_cv`, `selection`
    and `tune_metric` for tuned methods (`tsallis:q=auto`), `reference` a table of
    published figures shown beside ours, `cd_diagram` a file for the SVG diagram,
    `posthoc` "always" to report the post-hoc tests even when the omnibus test does not
    reject (Demsar's procedure, the default, runs them after a rejection only); `store` a
    results.ResultStore shared by several calls, in place of `results` (dtree reproduce);
    `positive` the class of the positive-class measures, which every dataset must have
    (default: each one's rarest, named in document["positive"]); `bayes` adds the Bayesian
    signed-rank test across datasets and the correlated t-test per dataset of the base
    against each other method, with a region of practical equivalence of `rope` in the
    metric's units (document["bayes"], `Comparison.bayes`; dtcli/reporting/bayes.py);
    `cost` ("FN=10,FP=1") or `cost_matrix` (a CSV) the costs of the expected_cost measure,
    `threshold` (a probability or "auto") and `threshold_metric` the decisions of two-class
    datasets (dtcli/measures/thresholds.py);
    `folds` "weka": Weka's stratified folds for `seed` (sampling/weka_folds.py);
    `options`: every tree's options, named as the estimator's parameters
    (min_samples_leaf=5, class_weight="balanced", pruning="ccp", ...)."""
    from dtcli.reporting.comparison import comparison_document
    from dtcli.measures import positive_label
    from dtcli.measures.thresholds import decision_about, with_decisions
    from dtcli.reporting.report import METRICS

    _check_rope(rope)
    run = prepare_run(datasets, methods, spec=spec, cv=cv, repeats=repeats, seed=seed,
                      folds=folds, results=results, scheduler=scheduler, reading=Reading(
                          target, tuple(drop), input_format, header, delimiter),
                      force=force, quiet=quiet, outputs={"--cd-diagram": cd_diagram,
                                                         **(outputs or {})},
                      inputs={"--reference": reference}, options=options, store=store,
                      positive=positive)
    notes, fixed, tuned, names, loaded, options, protocol, store, found = run
    decisions = {"cost": cost, "cost_matrix": cost_matrix, "threshold": threshold,
                 "threshold_metric": threshold_metric}
    loaded = with_decisions(loaded, names, metric, **decisions)
    if not tuned and (grid or inner_cv):
        raise ParameterError("--grid and --inner-cv apply to --criteria entries with auto "
                             "parameters (tsallis:q=auto)")
    labels = [m.label for m in fixed] + [t.label for t in tuned]  # tuned methods last
    if base is not None and base not in labels:
        raise ParameterError(f"--base {base!r} is not one of the compared criteria "
                             f"({', '.join(labels)})")
    if cd_diagram is not None and len(names) < 2:
        raise ParameterError("--cd-diagram needs at least two datasets")
    folds: dict[tuple[str, str], list[dict]] = {}
    means, stds, repeat_stds = ([[] for _ in names] for _ in range(3))
    grid_run = None
    if fixed:
        grid_run = cross_validate(notes, names, loaded, [m.choice for m in fixed], options,
                                  protocol, jobs=jobs, store=store, scheduler=scheduler)
        if results:
            notes.say(f"{grid_run.reused} fold(s) taken from {results}, {grid_run.computed} "
                      "computed")
        means, stds, repeat_stds = grid_run.table(metric)
        folds.update({(names[d], fixed[c].label): cell for (d, c), cell in grid_run.cells.items()})
    if tuned:
        from dtcli.tuning.methods import cell, folds_of

        tuning = {"grid": grid, "inner_cv": inner_cv, "selection": selection,
                  "tune_metric": tune_metric}
        inner, nested = run_tuned_methods(names, loaded, tuned, tuning, options, protocol,
                                          jobs=jobs, store=store, scheduler=scheduler,
                                          notes=notes)
        for d, name in enumerate(names):
            for method in tuned:
                chosen = folds_of(nested[method.label][d], selection)
                folds[(name, method.label)] = chosen
                mean, std, repeat_std = cell(chosen, metric, protocol.cv, protocol.repeats)
                means[d].append(mean)
                stds[d].append(std)
                repeat_stds[d].append(repeat_std)
    about = {"metric": metric, "cv": cv, "repeats": repeats, "seed": seed,
             **({"folds": protocol.folds} if protocol.folds != "dtree" else {}),
             "options": options.estimator_params(),
             "sources": {s.name: s.path or s.name for s in found},
             "positive": {name: positive_label(d) for name, d in zip(names, loaded)},
             **decision_about(decisions)}
    doc = comparison_document(names, labels, means, stds, higher_is_better=METRICS[metric],
                              base=base, repeat_stds=repeat_stds if repeats > 1 else None,
                              about=about, posthoc=posthoc)
    doc["timing"] = grid_run.timing() if grid_run is not None else {}
    # every fold's score, by dataset and method (the report's plots: export/compare_report.py)
    doc["fold_scores"] = {name: {label: [fold["metrics"][metric] for fold in folds[name, label]]
                                 for label in labels} for name in names}
    if tuned:
        doc["tuning"] = tuning_document(names, tuned, nested, tuning, inner, metric)
    if bayes:
        from dtcli.reporting.bayes import bayes_document

        doc["bayes"] = bayes_document(doc, doc["fold_scores"], cv, rope, seed)
    if len(names) == 1 and all("calibration" in f for key in folds for f in folds[key]):
        from dtcli.crossval.runner import pooled_calibration

        # one dataset: each method's reliability diagram (the report draws them)
        doc["calibration"] = {label: pooled_calibration(folds[names[0], label])
                              for label in labels}
    return _finished(Comparison(doc, {key: folds[key] for key in
                                      ((d, m) for d in names for m in labels)}),
                     notes, reference, cd_diagram)


class Run(NamedTuple):
    """What a run over datasets has read and checked (`prepare_run`)."""

    notes: Notes
    fixed: list  # methods without tuned parameters
    tuned: list  # Tuned methods
    names: list  # the datasets' names
    datasets: list
    options: object  # tasks.TreeOptions
    protocol: object  # tasks.Protocol
    store: object  # results.ResultStore
    found: list  # the datasets' sources


def prepare_run(datasets, methods, *, spec, cv, repeats, seed, results, scheduler, reading,
                force, quiet, outputs, inputs, options, store=None, positive=None,
                folds="dtree") -> Run:
    """The methods (default: every distinct criterion), datasets, tree options, protocol
    and results store of a run over datasets (compare, and compare's analyses), checked
    before any tree grows."""
    from dtcli.crossval.method_syntax import as_methods
    from dtcli.crossval.methods import check_distinct
    from dtcli.crossval.spec import default_criteria
    from dtcli.crossval.tasks import Protocol, TreeOptions, check_class_weight, check_protocol
    from dtcli.measures import with_positive

    notes = Notes(quiet)
    if scheduler is not None:
        from dtcli.scheduler.connection import check_address

        check_address(scheduler)
    methods = as_methods(methods if methods else ",".join(default_criteria()))
    fixed = [m for m in methods if not isinstance(m, Tuned)]
    tuned = [m for m in methods if isinstance(m, Tuned)]
    check_distinct([m.choice for m in fixed])
    options = tree_options(options)
    if options.get("significance") == "auto":
        raise ParameterError("--significance auto: in compare, tune it in a --criteria entry "
                             "(pe:alpha=auto:pruning=s-pruning:significance=auto)")
    options = TreeOptions(**options).check()
    protocol = Protocol(cv, repeats, seed, folds)
    found = sources(datasets, reading, spec)
    if not found:
        raise ParameterError("give DATA files, a --spec file or a --table to compare")
    refuse_outputs({"--results": results, **outputs},
                   {"--spec file": spec, **inputs,
                    **{f"data file of '{s.name}'": s.path for s in found}})
    names = [s.name for s in found]
    loaded = with_positive([s.load(force) for s in found], names, positive)
    check_class_weight(names, loaded, options)
    notes.warn([w for d in loaded for w in d.warnings] + check_protocol(names, loaded, protocol))
    return Run(notes, fixed, tuned, names, loaded, options, protocol,
               open_store(results, notes) if store is None else store, found)


def compare_scores(table: str, *, lower_is_better: bool = False, base: str | None = None,
                   reference: str | None = None, cd_diagram: str | None = None,
                   posthoc: str = "after-rejection", outputs: dict | None = None,
                   bayes: bool = False, rope: float = 0.01, seed: int = 0) -> Comparison:
    """The same statistics on a table of scores you bring (`dtree compare --table`): a CSV
    with a header row, then one row per dataset, its name first, one score per method;
    `bayes`: the Bayesian signed-rank test (no fold scores: no correlated t-test)."""
    _check_rope(rope)
    from dtcli.reporting.comparison import comparison_document
    from dtcli.reporting.reference import read_score_table

    refuse_outputs({"--cd-diagram": cd_diagram, **(outputs or {})},
                   {"--table": table, "--reference": reference})
    datasets, methods, values = read_score_table(table)
    doc = comparison_document(datasets, methods, values, higher_is_better=not lower_is_better,
                              base=base, about={"table": table}, posthoc=posthoc)
    if bayes:
        from dtcli.reporting.bayes import bayes_document

        doc["bayes"] = bayes_document(doc, None, None, rope, seed)
    return _finished(Comparison(doc, {}), Notes(), reference, cd_diagram)


def _check_rope(rope: float) -> None:
    if not (isinstance(rope, (int, float)) and 0 <= rope < float("inf")):
        raise ParameterError(f"--rope must be a non-negative number, got {rope!r}")


def _finished(result: Comparison, notes: Notes, reference, cd_diagram) -> Comparison:
    """The comparison's warnings said, the `reference` figures beside it, its diagram
    written to `cd_diagram`."""
    notes.warn(result.document["warnings"])
    if reference is not None:
        from dtcli.reporting.reference import reference_comparison

        result.document["reference"] = reference_comparison(result.document, reference)
    if cd_diagram is not None:
        from dtcli.atomic import open_output

        svg = result.cd_diagram()
        with open_output(cd_diagram) as handle:
            handle.write(svg)
    return result


def cross_validate(notes: Notes, names, datasets, choices, options, protocol, *, jobs, store,
                   scheduler):
    """runner.run_grid under a "cross-validating" progress bar."""
    from dtcli.crossval.runner import run_grid

    return notes.run("cross-validating",
                     lambda progress: run_grid(names, datasets, choices, options, protocol,
                                               jobs=jobs, store=store, scheduler=scheduler,
                                               progress=progress),
                     lambda: saved(store))
