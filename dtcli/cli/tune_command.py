"""`dtree tune`: choose a criterion's parameters (or tree options) by cross-validation."""
from __future__ import annotations

import click

from dtcli.cli.options import (CONTEXT, SectionedCommand, class_weight_option, data_options,
                               force_option,
                               jobs_option, output_format_option, output_option,
                               decision_options, positive_option, quiet_option,
                               DECISION_KEYS,
                               refuse_unmarked_stdin, target_options,
                               tree_options)
from dtcli.cli.pruning_options import pruning_options, pruning_params
from dtcli.reporting.report import METRICS


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
@click.option("--repeats", "-r", type=click.IntRange(min=1), default=1, show_default=True,
              help="Repeat the cross-validation with different fold assignments.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Seed of the folds, shared by every grid point.")
@click.option("--metric", "-m", type=click.Choice(list(METRICS)), default="accuracy",
              show_default=True, metavar="NAME",
              help="The score to choose by (`dtree metrics` lists them).")
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
@positive_option
@decision_options
@force_option
@quiet_option("No progress bar or notes on stderr.")
def tune(data, target, drop, data_format, no_header, delimiter, grid_entries, cv, repeats, seed,
         metric, jobs, results_path, scheduler, output, output_format, plot_path, positive,
         force, quiet, **tree):
    """Choose parameters by cross-validated grid search on DATA.

    Every grid point is scored on the same seeded stratified folds (Tsallis at
    q=2 scores exactly what gini does); printed: each point's mean and std of
    --metric, the best point, and a plot of the score against the parameter
    (a heat map for two). --param fixes other criterion parameters. The best
    score is optimistic, as the folds chose it: `dtree evaluate --param q=auto`
    measures tuning honestly, by nested cross-validation.

    \b
    Example:
      dtree tune examples/balanced/glass.csv -t Type --drop Id -c tsallis \\
          --grid q=0.1:10:0.1 --cv 10 --min-samples-leaf 5
      dtree tune examples/balanced/wine.csv -c pt --grid alpha=0.25,0.5,1 \\
          --grid gamma=0.5:3:0.5 -f json
      dtree tune examples/balanced/wine.csv -c tsallis --grid q=0.5:5:0.5 \\
          --plot q.svg
      dtree tune examples/balanced/pima.csv -c pe --grid alpha=0.05:1:0.05 \\
          --pruning s-pruning --significance auto --permutations 200
    """
    from dtcli.atomic import open_output
    from dtcli.cli.unused_options import refuse_unused
    from dtcli.crossval.method_syntax import command_method
    from dtcli.experiments.tuning import grid_of, tune as run_tuning
    from dtcli.tuning.grid import auto_options

    refuse_unmarked_stdin(data, data_format)
    tree.update(pruning_params(tree))
    refuse_unused(click.get_current_context(), tree)
    criterion, params = tree.pop("criterion"), dict(tree.pop("criterion_params") or {})
    searched = set(grid_of(grid_entries)) | set(auto_options(tree)) | {
        name for name, value in params.items() if value == "auto"}
    if plot_path is not None and len(searched) > 2:
        raise click.UsageError(f"--plot draws one or two parameters; the grid has "
                               f"{len(searched)} ({', '.join(sorted(searched))})")
    result = run_tuning(data, command_method(criterion, params), grid_entries, cv=cv,
                        repeats=repeats, seed=seed, metric=metric, jobs=jobs,
                        results=results_path, scheduler=scheduler, target=target, drop=drop,
                        input_format=data_format,
                        header=not no_header, delimiter=delimiter, force=force, quiet=quiet,
                        outputs={"--output": output, "--plot": plot_path}, positive=positive,
                        **{key: tree.pop(key) for key in DECISION_KEYS}, **tree)
    with open_output(output) as handle:
        result.render(handle, output_format)
    if plot_path is not None:
        from dtcli.export.plots import search_plot

        with open_output(plot_path) as handle:
            handle.write(search_plot(result.document))


def tuning_options(func):
    """train's options for parameters given as auto: --grid and --tune-cv."""
    func = click.option("--tune-cv", type=click.IntRange(min=2), metavar="N",
                        help="Folds of the search that chooses the auto parameters "
                             "(default: 10; folds seeded by --seed; accuracy).")(func)
    return grid_option(func)


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


def tuning_keywords(values: dict) -> dict:
    """The options of `tuned_method_options` as the library's keywords."""
    return {"grid": values["grid_entries"], "inner_cv": values["inner_cv"],
            "selection": values["selection"], "tune_metric": values["tune_metric"]}
