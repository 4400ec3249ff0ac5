"""Commands that measure trees: evaluate (one criterion or a saved model) and compare."""
from __future__ import annotations

import click
from click.core import ParameterSource

from dtcli.cli.options import (CONTEXT, SectionedCommand, class_weight_option, data_options,
                               force_option,
                               jobs_option, output_format_option, output_option, quiet_option,
                               refuse_unmarked_stdin, stderr_console, target_options,
                               tree_options)
from dtcli.cli.analyses_options import analysis_options
from dtcli.cli.pruning_options import PRUNING_PARAMS, pruning_options, pruning_params
from dtcli.cli.tune_command import (TUNING_KEYS, evaluate_tuned, open_store, tuned_columns,
                                    tuned_method_options)
from dtcli.errors import ParameterError
from dtcli.params import MAX_REPEATS
from dtcli.evaluate.report import ALPHA, FORMATS, METRICS


def _tree_options_without(*names):
    """`tree_options` minus the named parameters: compare takes --criteria instead of
    --criterion/--param."""
    def decorate(func):
        holder = tree_options(lambda: None)
        kept = [p for p in holder.__click_params__ if p.name not in names]
        func.__click_params__ = getattr(func, "__click_params__", []) + kept
        return func
    return decorate


def _cv_options(func):
    options = [
        click.option("--cv", type=click.IntRange(min=2), default=10, show_default=True,
                     help="Number of stratified folds."),
        click.option("--repeats", "-r", type=click.IntRange(1, MAX_REPEATS), default=1, show_default=True,
                     help="Repeat the cross-validation with different fold assignments."),
        click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
                     help="Seed of the fold assignment (folds depend only on it, the labels "
                          "and the repeat)."),
        jobs_option("one worker process per core (default: the cores other processes "
                    "leave idle, or one for a run of a few seconds)"),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _run_options(func):
    """--results and --scheduler, as compare and evaluate take them."""
    func = click.option("--scheduler", metavar="tcp://HOST:PORT",
                        help='Run on this Dask cluster instead of local processes '
                             '(pip install "dtcli[dask]").')(func)
    return click.option("--results", "results_path", metavar="FILE.jsonl",
                        help="Append each finished fold to FILE and skip the folds already "
                             "in it.")(func)


def _report_options(func):
    func = output_option("Write the report here (- for stdout).", formats=FORMATS)(func)
    return output_format_option(FORMATS, "table",
                                "A table for people; json, csv or markdown for scripts.")(func)


def _given(ctx, names) -> list[str]:
    """The options among `names` that the user set on the command line."""
    return [name for name in names if ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE]


def _flag(ctx, name: str) -> str:
    param = next(p for p in ctx.command.params if p.name == name)
    return max(param.opts, key=len)


def _refuse(ctx, names, reason: str) -> None:
    given = _given(ctx, names)
    if given:
        raise ParameterError(f"{_flag(ctx, given[0])} {reason}")


def _warn(lines) -> None:
    console = stderr_console()
    for line in lines:
        console.print(f"warning: {line}", style="yellow")


def _run_grid(*args, quiet: bool, runner=None, **kwargs):
    """runner.run_grid (or `runner`, a function that calls it) with a progress bar; Ctrl-C,
    SIGTERM or SIGHUP stop with one line and exit code 128 + the signal (130 for Ctrl-C)."""
    from dtcli.errors import interrupt_exit_code, signals_as_interrupts
    from dtcli.evaluate.report import progress_bar
    from dtcli.evaluate.runner import run_grid

    try:
        with signals_as_interrupts(), progress_bar("cross-validating",
                                                   enabled=not quiet) as progress:
            return (runner or run_grid)(*args, progress=progress, **kwargs)
    except KeyboardInterrupt as exc:
        stderr_console().print(f"interrupted; {_saved(kwargs.get('store'))}", markup=False,
                               highlight=False, soft_wrap=True)
        raise SystemExit(interrupt_exit_code(exc)) from None


def _saved(store) -> str:
    """What an interrupted run kept, truthfully: the folds written to --results by it."""
    if store is None or not store.path:
        return "nothing was saved (use --results FILE to keep finished folds)"
    if store.written == 0:
        kept = (f"; {store.path} still holds the {len(store.cells)} folds of earlier runs"
                if store.cells else "")
        return f"no fold finished in this run, none was saved{kept}"
    plural = "s" if store.written != 1 else ""
    return (f"{store.written} finished fold{plural} of this run saved in {store.path} "
            f"({len(store.cells)} in all); rerun to continue")


_TREE = ("criterion", "criterion_params", "max_depth", "min_samples_split", "min_samples_leaf",
         "min_weight_fraction_leaf", "min_gain", "class_weight") + PRUNING_PARAMS
_CV = ("cv", "repeats", "seed", "jobs")


@click.command(cls=SectionedCommand, context_settings=CONTEXT)
@click.argument("inputs", metavar="[MODEL] DATA", nargs=-1, required=True)
@target_options
@data_options
@tree_options
@class_weight_option
@pruning_options
@_cv_options
@_run_options
@tuned_method_options
@_report_options
@force_option
@quiet_option("No progress bar or notes on stderr.")
@click.pass_context
def evaluate(ctx, inputs, target, drop, data_format, no_header, delimiter, cv, repeats, seed,
             jobs, results_path, scheduler, output, output_format, force, quiet, **tree):
    """Measure a tree on labelled DATA: cross-validate a criterion, or score a saved MODEL.

    With DATA alone, stratified k-fold cross-validation of the tree that
    `train` would grow with the same options; with MODEL DATA, the saved model's
    metrics on DATA (its class column is the model's target unless --target
    names another). Metrics: accuracy, balanced_accuracy, auc (ROC AUC for two
    classes, Hand & Till's M for more), log_loss (mean -ln p of the true class,
    p clipped to at least 1e-15), f1_macro, n_nodes, n_leaves, depth,
    fit_seconds, predict_seconds; mean and std (n - 1) over folds. Then, from
    the confusion matrix summed over folds (as Weka reports them): precision,
    recall, F1 and support per class, g_mean (geometric mean of the recalls of
    the classes present), mcc (Matthews correlation) and kappa (Cohen's); and
    the matrix itself, in every format (csv: four tables separated by an empty
    line).

    \b
    Example:
      dtree evaluate examples/ecoli2.dat --criterion entropy --cv 10 --repeats 3
      dtree evaluate examples/iris.csv -f json | jq .accuracy.mean
      dtree evaluate iris.json examples/iris.csv
    """
    if len(inputs) > 2:
        raise click.UsageError("expected DATA, or MODEL DATA", ctx)
    named = {"model": inputs[0], "data": inputs[1]} if len(inputs) == 2 else {"data": inputs[0]}
    _refuse_outputs_over_inputs({"--results": results_path, "--output": output}, named)
    refuse_unmarked_stdin(inputs[-1], data_format)
    tuning = {key: tree.pop(key) for key in TUNING_KEYS}
    if len(inputs) == 2:
        _refuse(ctx, _TREE + _CV + TUNING_KEYS + ("drop", "force", "results_path", "scheduler"),
                "applies to cross-validating DATA; a saved MODEL is evaluated as it is")
        doc = _evaluate_model(*inputs, target, data_format, no_header, delimiter)
    else:
        run = {"jobs": jobs, "store": open_store(results_path), "scheduler": scheduler}
        doc = _cross_validate(inputs[0], target, drop, data_format, no_header, delimiter, cv,
                              repeats, seed, run, quiet, tree, force, tuning)
    from dtcli.atomic import open_output
    from dtcli.evaluate.report import render_evaluation

    with open_output(output) as handle:
        render_evaluation(doc, output_format, handle)
        if "tuning" in doc and output_format in ("table", "markdown"):
            from dtcli.tuning.report import render_tuning

            render_tuning(doc["tuning"], output_format, handle)


def _evaluate_model(model_path, data, target, data_format, no_header, delimiter) -> dict:
    from dtcli.errors import DataError
    from dtcli.evaluate.report import evaluation_document
    from dtcli.evaluate.runner import evaluate_model, summarize
    from dtcli.io import load_features
    from dtcli.model import load_model

    model, meta = load_model(model_path)
    target = target or meta.get("target")
    X, columns = load_features(data, model.features_, labels_of=[target], format=data_format,
                               header=not no_header, delimiter=delimiter)
    labels = columns.get(target)
    if labels is None:
        raise DataError(f"{data}: no class column '{target}' to evaluate against; "
                        "name it with --target")
    fit_seconds = float(meta.get("training", {}).get("fit_seconds") or 0.0)
    result, n_rows = evaluate_model(model, fit_seconds, X, labels, data)
    about = {"model": model_path, "dataset": data, "target": target, "n_rows": n_rows,
             "criterion": meta.get("criterion", {"name": meta.get("kind"), "params": {}}),
             "options": meta["options"]}
    return evaluation_document(summarize([result]), model.classes_, about)


def _cross_validate(data, target, drop, data_format, no_header, delimiter, cv, repeats, seed,
                    run, quiet, tree, force, tuning) -> dict:
    from dtcli.evaluate.report import evaluation_document
    from dtcli.evaluate.runner import summarize
    from dtcli.evaluate.spec import specs_from_paths
    from dtcli.evaluate.tasks import (CriterionChoice, Protocol, TreeOptions, forest_size,
                                      check_class_weight, check_protocol)

    from dtcli.cli.unused_options import refuse_unused
    from dtcli.tuning.grid import auto_options

    tree.update(pruning_params(tree))
    refuse_unused(click.get_current_context(), tree)
    protocol = Protocol(cv, repeats, seed)
    spec = specs_from_paths([data], target=target, drop=drop, format=data_format,
                            header=not no_header, delimiter=delimiter)[0]
    if "auto" in tree["criterion_params"].values() or auto_options(tree):
        dataset = spec.load(force)
        _warn(dataset.warnings + check_protocol([spec.name], [dataset], protocol))
        return evaluate_tuned(spec, dataset, tree, tuning, protocol, quiet=quiet, **run)
    if tuning["grid_entries"] or tuning["inner_cv"]:
        raise ParameterError("--grid and --inner-cv apply to a --param given as auto")
    name, trees = forest_size(tree.pop("criterion"))  # gini*100: a forest
    choice = CriterionChoice(name, tuple(tree.pop("criterion_params").items()), (), trees)
    params = choice.resolved()
    options = TreeOptions(**tree).check()
    dataset = spec.load(force)
    check_class_weight([spec.name], [dataset], options)
    _warn(dataset.warnings + check_protocol([spec.name], [dataset], protocol))
    if run["scheduler"] is not None:
        from dtcli.evaluate.distributed import check_address

        check_address(run["scheduler"])
    grid = _run_grid([spec.name], [dataset], [choice], options, protocol, quiet=quiet, **run)
    about = {"dataset": spec.name, "source": data, "target": dataset.target,
             "n_rows": int(len(dataset.y)), "criterion": {"name": choice.name, "params": params},
             **({"forest": {"n_estimators": trees, "max_features": "sqrt"}} if trees else {}),
             "options": options.estimator_params(), "cv": cv, "repeats": repeats, "seed": seed}
    return evaluation_document(summarize(grid.cells[(0, 0)]), dataset.classes, about)


@click.command(cls=SectionedCommand, context_settings=CONTEXT)
@click.argument("data", nargs=-1)
@click.option("--spec", "spec_path", metavar="FILE.toml",
              help="Datasets with their own target and dropped columns (see docs/reproduce.md); "
                   "paths are relative to the file.")
@click.option("--criteria", "criteria_entries", multiple=True, metavar="LIST",
              help="Comma-separated NAME or NAME:PARAM=VALUE[:PARAM=VALUE...], e.g. "
                   "gini,entropy,tsallis:q=2.5,tsallis:q=0.5; NAME*N is a random forest of "
                   "N such trees (gini*100); repeatable. Default: every "
                   "criterion of `dtree criteria` that is not another one at its default "
                   "parameters (tsallis at q=2 is gini, renyi at gamma=1 entropy, ...). Two "
                   "spellings of one method (gini,tsallis:q=2) are refused: a method tied "
                   "with itself distorts the ranks and the tests. Methods beside the "
                   "criteria: fdf[:PARAM=VALUE...] (the FDF forest), CRITERION+nb or "
                   "CRITERION+nb-gaussian (trees with Naive Bayes leaves; docs/fdf.md) and "
                   "j48[:PARAM=VALUE...] (Weka's J48; docs/c45.md).")
@click.option("--metric", "-m", type=click.Choice(list(METRICS)), default="accuracy",
              show_default=True, metavar="NAME",
              help=f"The score to rank criteria by: {', '.join(METRICS)}.")
@click.option("--base", metavar="NAME",
              help="The control: wins/ties/losses, Bonferroni-Dunn, Holm and Wilcoxon "
                   "signed-rank tests of this criterion against each other one (default: the "
                   "last one listed).")
@click.option("--sd", "show_sd", is_flag=True, help="Show the std over folds beside each mean.")
@click.option("--cd-diagram", metavar="FILE.svg", help="Write the critical-difference diagram.")
@click.option("--report", "report_path", metavar="FILE.html",
              help="Write the comparison as one self-contained HTML page (tables, CD diagram, "
                   "fold scores, tests in words).")
@click.option("--reference", metavar="FILE.csv",
              help="Print these published figures beside ours (a table as for --table), "
                   "matched by dataset name and criterion, with the rank agreement.")
@click.option("--table", "table_path", metavar="FILE.csv",
              help="Compare the methods of this table instead of running trees: a header row, "
                   "then one row per dataset, name first, one score per method.")
@click.option("--lower-is-better", is_flag=True, help="With --table: smaller scores are better.")
@analysis_options
@_cv_options
@_run_options
@target_options
@data_options
@_tree_options_without("criterion", "criterion_params")
@class_weight_option
@pruning_options
@tuned_method_options
@_report_options
@force_option
@quiet_option("No progress bar or notes on stderr.")
@click.pass_context
def compare(ctx, data, spec_path, criteria_entries, metric, base, show_sd, cd_diagram, report_path,
            reference, table_path, lower_is_better, cv, repeats, seed, jobs, results_path,
            scheduler, target, drop, data_format, no_header, delimiter, output, output_format,
            force, quiet, imbalance, minority, frontier, plot, **tree):
    """Compare split criteria over datasets, with Demsar's rank statistics.

    Every criterion runs on the same stratified folds of every dataset (files
    DATA... and/or a --spec file). Reported: the dataset x criterion table of
    mean --metric (best per row marked; split into column groups when wider
    than the terminal), average ranks, the Friedman and Iman-Davenport tests,
    the Nemenyi critical difference at alpha 0.05 with the pairs that differ;
    against --base: wins/ties/losses, the Bonferroni-Dunn and Holm tests and
    Wilcoxon's signed-rank test (exact p up to 100 datasets); a warning when
    there are too few datasets for the tests to mean much; and, with
    --cd-diagram, the critical-difference diagram as SVG. With --table, the
    same statistics on a table of scores you bring.

    \b
    Example:
      dtree compare examples/imbalanced/*.dat --criteria gini,entropy,gain-ratio \\
          --metric auc --cv 10 --cd-diagram cd.svg --results runs.jsonl
      dtree compare examples/imbalanced/*.dat --criteria gini,hddt,ihdw --report report.html
      dtree compare --table docs/reference/ihd_table3_accuracy_balanced.csv --base iHDw
    """
    from dtcli.evaluate.comparison import render_comparison

    tuning = {key: tree.pop(key) for key in TUNING_KEYS}
    if imbalance is not None or frontier:
        from dtcli.cli.analyses_options import run_analysis

        return run_analysis(ctx, locals())
    _refuse(ctx, ("minority", "plot"), "applies to --imbalance or --frontier")
    if table_path is not None:
        _refuse(ctx, ("spec_path", "criteria_entries", "metric", "results_path", "scheduler",
                      "target", "drop", "data_format", "no_header", "delimiter", "force")
                + _CV + _TREE + TUNING_KEYS,
                "does not apply to --table, which compares the scores of the table")
        if data:
            raise ParameterError("--table compares a table of scores; give no DATA files")
        _refuse_outputs_over_inputs({"--cd-diagram": cd_diagram, "--report": report_path,
                                     "--output": output},
                                    {"--table": table_path, "--reference": reference})
        doc = _compare_table(table_path, lower_is_better, base)
    else:
        _refuse(ctx, ("lower_is_better",), "applies to --table; a --metric knows its direction")
        doc = _compare_criteria(data, spec_path, criteria_entries, metric, base, cv, repeats,
                                seed, jobs, results_path, scheduler, target, drop, data_format,
                                no_header, delimiter, quiet, tree, force,
                                outputs={"--results": results_path, "--cd-diagram": cd_diagram,
                                         "--report": report_path, "--output": output},
                                reference=reference, tuning=tuning)
    _warn(doc["warnings"])
    if reference is not None:
        from dtcli.evaluate.reference import reference_comparison

        doc["reference"] = reference_comparison(doc, reference)
    if cd_diagram is not None:
        _write_cd_diagram(doc, cd_diagram)
    if report_path is not None:
        from dtcli.export.compare_report import write_report

        write_report(doc, report_path)
    from dtcli.atomic import open_output

    with open_output(output) as handle:
        render_comparison(doc, output_format, handle, show_sd=show_sd)
        if "tuning" in doc and output_format in ("table", "markdown"):
            from dtcli.tuning.report import render_tuning

            render_tuning(doc["tuning"], output_format, handle)


def _compare_table(path, lower_is_better, base) -> dict:
    from dtcli.evaluate.comparison import comparison_document
    from dtcli.evaluate.reference import read_score_table

    datasets, methods, values = read_score_table(path)
    return comparison_document(datasets, methods, values, higher_is_better=not lower_is_better,
                               base=base, about={"table": path})


def _refuse_outputs_over_inputs(outputs: dict[str, str | None], inputs: dict[str, str | None]):
    """ParameterError if an output option names an input file, or another output."""
    from dtcli.atomic import refuse_output_over_input

    for option, path in outputs.items():
        refuse_output_over_input(path, option, inputs)
        inputs = {**inputs, option: path}


def _compare_inputs(data, spec_path, criteria_entries, base, cv, repeats, seed, results_path,
                    scheduler, target, drop, data_format, no_header, delimiter, tree, force,
                    outputs, reference, tuning):
    """compare's datasets, methods, tree options, protocol and result store, checked:
    (names, specs, datasets, choices, tuned, labels, options, protocol, store)."""
    from dtcli.cli.unused_options import refuse_unused
    from dtcli.evaluate.results import ResultStore
    from dtcli.evaluate.tasks import (Protocol, TreeOptions, check_class_weight, check_protocol,
                                      parse_criteria)
    from dtcli.evaluate.spec import (check_distinct, check_unique, default_criteria, load_spec,
                                     specs_from_paths)

    if scheduler is not None:
        from dtcli.evaluate.distributed import check_address

        check_address(scheduler)
    from dtcli.tuning.methods import split_entries

    entries, tuned = split_entries(criteria_entries or [",".join(default_criteria())])
    choices = parse_criteria(entries) if entries or not tuned else []
    if not tuned and (tuning["grid_entries"] or tuning["inner_cv"]):
        raise ParameterError("--grid and --inner-cv apply to --criteria entries with auto "
                             "parameters (tsallis:q=auto)")
    check_distinct(choices)
    labels = [c.label for c in choices] + [t.label for t in tuned]  # tuned methods last
    if base is not None and base not in labels:
        raise ParameterError(f"--base {base!r} is not one of the compared criteria "
                             f"({', '.join(labels)})")
    tree.update(pruning_params(tree))
    refuse_unused(click.get_current_context(), tree,
                  entries_prune=any("pruning=" in entry for entry in criteria_entries or []))
    if tree["significance"] == "auto":
        raise ParameterError("--significance auto: in compare, tune it in a --criteria entry "
                             "(pe:alpha=auto:pruning=s-pruning:significance=auto)")
    options = TreeOptions(**tree).check()
    protocol = Protocol(cv, repeats, seed)
    specs = (load_spec(spec_path) if spec_path else []) + specs_from_paths(
        data, target=target, drop=drop, format=data_format, header=not no_header,
        delimiter=delimiter)
    if not specs:
        raise ParameterError("give DATA files, a --spec file or a --table to compare")
    check_unique(specs)
    if outputs.get("--cd-diagram") is not None and len(specs) < 2:
        raise ParameterError("--cd-diagram needs at least two datasets")
    _refuse_outputs_over_inputs(outputs, {"--spec file": spec_path, "--reference": reference,
                                          **{f"data file of '{s.name}'": s.path for s in specs}})
    datasets = [spec.load(force) for spec in specs]
    names = [spec.name for spec in specs]
    check_class_weight(names, datasets, options)
    _warn([w for d in datasets for w in d.warnings] + check_protocol(names, datasets, protocol))
    store = ResultStore(results_path)
    if store.repaired:  # said once even with --quiet: the line is gone from the file
        _warn([store.repair_note()])
    return names, specs, datasets, choices, tuned, labels, options, protocol, store


def _compare_criteria(data, spec_path, criteria_entries, metric, base, cv, repeats, seed, jobs,
                      results_path, scheduler, target, drop, data_format, no_header, delimiter,
                      quiet, tree, force, outputs, reference, tuning) -> dict:
    from dtcli.evaluate.comparison import comparison_document

    names, specs, datasets, choices, tuned, labels, options, protocol, store = _compare_inputs(
        data, spec_path, criteria_entries, base, cv, repeats, seed, results_path, scheduler,
        target, drop, data_format, no_header, delimiter, tree, force, outputs, reference,
        tuning)
    means, stds, repeat_stds = ([[] for _ in names] for _ in range(3))
    if choices:
        grid = _run_grid(names, datasets, choices, options, protocol, jobs=jobs, store=store,
                         scheduler=scheduler, quiet=quiet)
        if results_path and not quiet:
            stderr_console().print(f"{grid.reused} fold(s) taken from {results_path}, "
                                   f"{grid.computed} computed")
        means, stds, repeat_stds = grid.table(metric)
    if tuned:
        columns = tuned_columns(names, datasets, tuned, tuning, options, protocol, metric,
                                jobs=jobs, store=store, scheduler=scheduler, quiet=quiet)
        for table, extra in zip((means, stds, repeat_stds), columns):
            for row, more in zip(table, extra):
                row.extend(more)
    about = {"metric": metric, "cv": cv, "repeats": repeats, "seed": seed,
             "options": options.estimator_params(),
             "sources": {spec.name: spec.path for spec in specs}}
    doc = comparison_document(names, labels, means, stds, higher_is_better=METRICS[metric],
                              base=base, repeat_stds=repeat_stds if repeats > 1 else None,
                              about=about)
    doc["timing"] = grid.timing() if choices else {}
    doc["fold_scores"] = grid.fold_scores(metric) if choices else {d: {} for d in names}
    if tuned:
        for name, scores in columns[3].pop("fold_scores").items():
            doc["fold_scores"][name].update(scores)
        doc["tuning"] = columns[3]
    return doc


def _write_cd_diagram(doc: dict, path: str) -> None:
    from dtcli.atomic import open_output
    from dtcli.evaluate.cd_diagram import critical_difference_svg

    if doc["nemenyi"] is None:
        raise ParameterError("--cd-diagram needs at least two datasets")
    methods = doc["criteria"]
    pairs = [(methods.index(a), methods.index(b)) for a, b in doc["nemenyi"]["significant_pairs"]]
    what = doc.get("metric") or doc.get("table", "scores")
    svg = critical_difference_svg(methods, [doc["average_ranks"][m] for m in methods],
                                  doc["nemenyi"]["cd"], pairs,
                                  title=f"{what}: {len(doc['datasets'])} datasets, Nemenyi "
                                        f"alpha {ALPHA}")
    with open_output(path) as handle:
        handle.write(svg)
