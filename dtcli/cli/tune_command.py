"""`dtree tune`: choose a criterion's parameters (or tree options) by cross-validation."""
from __future__ import annotations

import click

from dtcli.cli.options import (CONTEXT, SectionedCommand, class_weight_option, data_options,
                               force_option,
                               jobs_option, output_format_option, output_option, quiet_option,
                               refuse_unmarked_stdin, stderr_console, target_options,
                               tree_options)
from dtcli.cli.pruning_options import pruning_options, pruning_params
from dtcli.errors import ParameterError
from dtcli.evaluate.report import METRICS
from dtcli.params import MAX_REPEATS


def grid_option(func):
    return click.option(
        "--grid", "-g", "grid_entries", multiple=True, metavar="NAME=VALUES",
        help="Values to try: a range q=0.1:10:0.1 (stop included), a list q=0.5,1.5,2.5; "
             "repeatable, the points are the product. NAME: a criterion parameter or a tree "
             "option (min_samples_leaf, max_depth, ...). Default: the papers' grid of every "
             "parameter of the criterion (q: 0.1 to 10 by 0.1; alpha, beta: 0.05 to 1 by "
             "0.05; gamma: 0.1 to 0.9 and 1.5 to 5 by 0.5).")(func)


@click.command(cls=SectionedCommand, context_settings=CONTEXT)
@click.argument("data")
@target_options
@data_options
@tree_options
@class_weight_option
@pruning_options
@grid_option
@click.option("--cv", type=click.IntRange(min=2), default=5, show_default=True,
              help="Number of stratified folds.")
@click.option("--repeats", "-r", type=click.IntRange(1, MAX_REPEATS), default=1, show_default=True,
              help="Repeat the cross-validation with different fold assignments.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Seed of the folds, shared by every grid point.")
@click.option("--metric", "-m", type=click.Choice(list(METRICS)), default="accuracy",
              show_default=True, metavar="NAME",
              help=f"The score to choose by: {', '.join(METRICS)}.")
@jobs_option("one worker process per core (default: all, or one for a small search)")
@click.option("--results", "results_path", metavar="FILE.jsonl",
              help="Append each finished fold to FILE and skip the folds already in it.")
@click.option("--scheduler", metavar="tcp://HOST:PORT",
              help='Run on this Dask cluster instead of local processes (pip install "dtcli[dask]").')
@output_option("Write the report here (- for stdout).")
@output_format_option(("table", "json"), "table", "A table and a plot for people; json for scripts.")
@click.option("--plot", "plot_path", metavar="FILE.svg",
              help="Draw the score against the parameter, with a band of one std over folds "
                   "(a heat map for two parameters), as SVG.")
@force_option
@quiet_option("No progress bar or notes on stderr.")
def tune(data, target, drop, data_format, no_header, delimiter, grid_entries, cv, repeats, seed,
         metric, jobs, results_path, scheduler, output, output_format, plot_path, force, quiet,
         **tree):
    """Choose parameters by cross-validated grid search on DATA.

    Every grid point is scored on the same seeded stratified folds (Tsallis at
    q=2 scores exactly what gini does); printed: each point's mean and std of
    --metric, the best point, and a plot of the score against the parameter
    (a heat map for two). --param fixes other criterion parameters. The best
    score is optimistic, as the folds chose it: `dtree evaluate --param q=auto`
    measures tuning honestly, by nested cross-validation.

    \b
    Example:
      dtree tune examples/balanced/glass.csv -t Type --drop Id --criterion tsallis \\
          --grid q=0.1:10:0.1 --cv 10 --min-samples-leaf 5
      dtree tune examples/balanced/wine.csv -c pt --grid alpha=0.25,0.5,1 --grid gamma=0.5:3:0.5 -f json
      dtree tune examples/balanced/pima.csv -c pe --grid alpha=0.05:1:0.05 \\
          --pruning s-pruning --significance auto --permutations 200
      dtree tune examples/balanced/wine.csv -c tsallis --grid q=0.5:5:0.5 --plot q.svg
    """
    from dtcli.atomic import open_output, refuse_output_over_input
    from dtcli.cli.unused_options import refuse_unused
    from dtcli.evaluate.spec import specs_from_paths
    from dtcli.evaluate.tasks import Protocol, check_class_weight, check_protocol
    from dtcli.tuning.report import render_search, search_document
    from dtcli.tuning.search import grid_search

    refuse_output_over_input(output, "--output", {"DATA": data})
    refuse_output_over_input(results_path, "--results", {"DATA": data, "--output": output})
    refuse_output_over_input(plot_path, "--plot", {"DATA": data, "--output": output,
                                                   "--results": results_path})
    refuse_unmarked_stdin(data, data_format)
    tree.update(pruning_params(tree))
    refuse_unused(click.get_current_context(), tree)
    search = make_search(tree, grid_entries, metric)
    if plot_path is not None and len(search.grid) > 2:
        raise click.UsageError(f"--plot draws one or two parameters; the grid has "
                               f"{len(search.grid)} ({', '.join(search.grid)})")
    protocol = Protocol(cv, repeats, seed)
    spec = specs_from_paths([data], target=target, drop=drop, format=data_format,
                            header=not no_header, delimiter=delimiter)[0]
    dataset = spec.load(force)
    check_class_weight([spec.name], [dataset], search.options)
    warn(dataset.warnings + check_protocol([spec.name], [dataset], protocol))
    result = run_search(lambda **run: grid_search(spec.name, dataset, search, protocol, **run),
                        jobs=jobs, store=open_store(results_path), scheduler=scheduler,
                        quiet=quiet)
    doc = search_document(result, {"dataset": spec.name, "source": data,
                                   "criterion": search.criterion, "fixed": dict(search.fixed),
                                   "options": search.options.estimator_params()})
    with open_output(output) as handle:
        render_search(doc, output_format, handle)
    if plot_path is not None:
        from dtcli.export.plots import search_plot

        with open_output(plot_path) as handle:
            handle.write(search_plot(doc))


def make_search(tree: dict, grid_entries, metric: str):
    """A `search.Search` from the tree options and --grid entries; "auto" parameters and,
    without --grid, every parameter of the criterion take the papers' default grid."""
    from dtcli.evaluate.tasks import TreeOptions
    from dtcli.tuning.grid import AUTO, auto_options, default_grid, parse_grid
    from dtcli.tuning.search import Search

    tree = dict(tree)
    criterion, params = tree.pop("criterion"), dict(tree.pop("criterion_params") or {})
    grid = parse_grid(grid_entries)
    options_auto = auto_options(tree)
    for name in options_auto:  # the grid gives their values
        del tree[name]
    auto = [name for name, value in params.items() if value == AUTO] + options_auto
    if auto or not grid:
        grid = {**default_grid(criterion, auto or None), **grid}
    fixed = tuple((k, v) for k, v in params.items() if v != AUTO and k not in grid)
    return Search(criterion, grid, fixed, TreeOptions(**tree).check(), metric)


def warn(lines) -> None:
    console = stderr_console()
    for line in lines:
        console.print(f"warning: {line}", style="yellow")


def open_store(results_path: str | None):
    """The --results store (in memory without a path), saying if lines were damaged."""
    from dtcli.evaluate.results import ResultStore

    store = ResultStore(results_path)
    if store.repaired:
        warn([store.repair_note()])
    return store


def run_search(search, *, jobs, store, scheduler, quiet):
    """search(jobs=, store=, scheduler=, progress=) with a progress bar; Ctrl-C stops with
    one line."""
    from dtcli.errors import interrupt_exit_code, signals_as_interrupts
    from dtcli.evaluate.report import progress_bar

    if scheduler is not None:
        from dtcli.evaluate.distributed import check_address

        check_address(scheduler)
    try:
        with signals_as_interrupts(), progress_bar("tuning", enabled=not quiet) as progress:
            return search(jobs=jobs, store=store, scheduler=scheduler, progress=progress)
    except KeyboardInterrupt as exc:
        where = (f"finished folds are saved in {store.path}; rerun to continue"
                 if store.path else "use --results FILE to keep finished folds")
        stderr_console().print(f"interrupted; {where}")
        raise SystemExit(interrupt_exit_code(exc)) from None


def tuning_options(func):
    """train's options for parameters given as auto: --grid and --tune-cv."""
    func = click.option("--tune-cv", type=click.IntRange(min=2), metavar="N",
                        help="Folds of the search that chooses the auto parameters "
                             "(default: 10; seed 0, accuracy).")(func)
    return grid_option(func)


class TrainingSearch:
    """The search `train` runs first when a parameter is auto (or --grid is given)."""

    def __init__(self, search, tree: dict, protocol):
        self.search, self.tree, self.protocol = search, tree, protocol

    def untuned(self, tree: dict) -> dict:
        """The tree options without the searched values (checked before data is read)."""
        from dtcli.evaluate.tasks import TreeOptions
        from dtcli.tuning.grid import auto_options

        params = {k: v for k, v in (tree["criterion_params"] or {}).items()
                  if k not in self.search.grid}
        return {**tree, "criterion_params": params,
                **{name: getattr(TreeOptions(), name) for name in auto_options(tree)}}

    def tuned_tree(self, dataset, jobs, quiet):
        """Search on `dataset`, then the estimator with the best point's values, whose
        `tuning_` records the search (written into the model file)."""
        from dtcli.cli.options import make_tree
        from dtcli.tuning.record import tuning_record
        from dtcli.tuning.search import grid_search

        check_protocol_for(dataset, self.protocol)
        result = run_search(lambda **run: grid_search(dataset.source, dataset, self.search,
                                                      self.protocol, **run),
                            jobs=jobs, store=open_store(None), scheduler=None, quiet=quiet)
        choice, options = self.search.candidate(result.best_params)
        model = make_tree(self.tree["criterion"], dict(choice.params), jobs=jobs,
                          **{k: v for k, v in options.estimator_params().items()})
        model.tuning_ = tuning_record(result)
        if not quiet:
            chosen = ", ".join(f"{k}={v:g}" for k, v in result.best_params.items())
            stderr_console().print(f"tuned {chosen}: {result.search.metric} "
                                   f"{result.best_score:.4f} in {self.protocol.cv}-fold CV")
        return model


def check_protocol_for(dataset, protocol) -> None:
    from dtcli.evaluate.tasks import check_protocol

    warn(check_protocol([dataset.source], [dataset], protocol))


def tuned_search(tree: dict, grid_entries, tune_cv) -> TrainingSearch | None:
    """None when train has nothing to tune (no auto parameter, no --grid)."""
    from dtcli.evaluate.tasks import Protocol
    from dtcli.tuning.grid import AUTO, auto_options

    auto = [k for k, v in (tree["criterion_params"] or {}).items() if v == AUTO]
    if not auto and not auto_options(tree) and not grid_entries:
        if tune_cv is not None:
            raise ParameterError("--tune-cv applies when a --param is auto or --grid is given")
        return None
    search = make_search(tree, grid_entries, "accuracy")
    return TrainingSearch(search, tree, Protocol(tune_cv or 10, 1, 0))


TUNING_KEYS = ("grid_entries", "inner_cv", "selection", "tune_metric")


def tuned_method_options(func):
    """evaluate's and compare's options for methods with auto parameters."""
    from dtcli.tuning.grid import SELECTIONS

    options = [
        grid_option,
        click.option("--inner-cv", type=click.IntRange(min=2), metavar="N",
                     help="Folds of the search inside each outer training fold that chooses "
                          "auto parameters (default: --cv)."),
        click.option("--selection", type=click.Choice(SELECTIONS), default="nested",
                     show_default=True,
                     help="The score of a tuned method that the table and the tests use: "
                          "nested (chosen inside each outer training fold: honest) or paper "
                          "(chosen on the outer folds it is scored on); both are reported."),
        click.option("--tune-metric", type=click.Choice(list(METRICS)), default="accuracy",
                     show_default=True, metavar="NAME",
                     help="The score auto parameters are chosen by."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def tuned_columns(names, datasets, methods, tuning: dict, options, protocol, metric, *, jobs,
                  store, scheduler, quiet, keep=False):
    """Tuned methods' (means, stds, repeat_stds), one row per dataset, one column per
    method, under --selection, and the report of both selections (`methods.tuning_report`;
    the `metric` of every outer fold under --selection, "fold_scores"; with `keep`, also
    the `Nested` results by method, under "nested")."""
    from dtcli.evaluate.tasks import Protocol
    from dtcli.tuning.grid import parse_grid
    from dtcli.tuning.methods import cell, folds_of, run_tuned, tuning_report

    inner = Protocol(tuning["inner_cv"] or protocol.cv, 1, protocol.seed)
    for name, dataset in zip(names, datasets):
        n = len(dataset.y)
        rows = n - -(-n // protocol.cv)  # of the smallest training fold
        if inner.cv > rows:
            raise ParameterError(f"--inner-cv {inner.cv} (default: --cv) is more folds than the "
                                 f"training folds of dataset '{name}' have rows ({rows})")
    nested = run_search(lambda **run: run_tuned(names, datasets, methods,
                                                parse_grid(tuning["grid_entries"]), options,
                                                protocol, inner, tuning["tune_metric"], **run),
                        jobs=jobs, store=store, scheduler=scheduler, quiet=quiet)
    cells = [[cell(folds_of(nested[m.label][d], tuning["selection"]), metric, protocol.cv,
                   protocol.repeats) for m in methods] for d in range(len(names))]
    report = {m.label: tuning_report(names, nested[m.label], metric) for m in methods}
    folds = {name: {m.label: [f["metrics"][metric]
                              for f in folds_of(nested[m.label][d], tuning["selection"])]
                    for m in methods} for d, name in enumerate(names)}
    return ([[c[0] for c in row] for row in cells], [[c[1] for c in row] for row in cells],
            [[c[2] for c in row] for row in cells],
            {"selection": tuning["selection"], "inner_cv": inner.cv,
             "tune_metric": tuning["tune_metric"], "methods": report, "fold_scores": folds,
             **({"nested": nested} if keep else {})})


def evaluate_tuned(spec, dataset, tree: dict, tuning: dict, protocol, *, jobs, store, scheduler,
                   quiet) -> dict:
    """`evaluate` of a criterion with auto parameters: the nested (or, with --selection
    paper, the papers') cross-validation of the tuned tree, as evaluate reports a fixed
    one, with the tuning report (`methods.tuning_report`) in "tuning"."""
    from dtcli.evaluate.report import evaluation_document
    from dtcli.evaluate.runner import summarize
    from dtcli.evaluate.tasks import check_class_weight
    from dtcli.tuning.methods import TunedMethod, folds_of

    from dtcli.evaluate.tasks import TreeOptions
    from dtcli.tuning.grid import auto_options

    tree = dict(tree)
    criterion, params = tree.pop("criterion"), dict(tree.pop("criterion_params") or {})
    options_auto = auto_options(tree)
    for name in options_auto:  # the grid gives their values
        del tree[name]
    options = TreeOptions(**tree).check()
    auto = tuple(k for k, v in params.items() if v == "auto") + tuple(options_auto)
    fixed = tuple((k, v) for k, v in params.items() if v != "auto")
    label = criterion + "".join(f":{k}={v if v == 'auto' else f'{v:g}'}" for k, v in params.items())
    label += "".join(f":{name}=auto" for name in options_auto)
    method = TunedMethod(label, criterion, fixed, auto)
    check_class_weight([spec.name], [dataset], options)
    _, _, _, report = tuned_columns([spec.name], [dataset], [method], tuning, options, protocol,
                                    tuning["tune_metric"], jobs=jobs, store=store,
                                    scheduler=scheduler, quiet=quiet, keep=True)
    nested = report.pop("nested")[label][0]
    del report["fold_scores"]  # evaluate reports the folds itself
    about = {"dataset": spec.name, "source": spec.path, "target": dataset.target,
             "n_rows": int(len(dataset.y)), "criterion": {"name": criterion, "params": params},
             "options": options.estimator_params(), "cv": protocol.cv,
             "repeats": protocol.repeats, "seed": protocol.seed}
    doc = evaluation_document(summarize(folds_of(nested, tuning["selection"])), dataset.classes,
                              about)
    doc["tuning"] = report
    return doc
