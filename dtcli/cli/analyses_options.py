"""compare's analyses (dtcli/analyses): --imbalance (the skew sweep), --frontier (the pruning
frontier) and their options, on the command's own datasets, methods, tree options and
protocol, read as compare reads them."""
from __future__ import annotations

import click


def analysis_options(func):
    options = [
        click.option("--imbalance", metavar="RATIOS",
                     help="The skew sweep: resample each training fold to these majority : "
                          "minority ratios (1,2,5,10,20,50) by leaving out minority rows, "
                          "test folds untouched; report each method's --metric (default "
                          "auc) per ratio, its slope against ln(ratio) and the rank tests "
                          "per ratio (docs/analyses.md)."),
        click.option("--minority", metavar="LABEL",
                     help="With --imbalance: the class resampled against the rest (default: "
                          "the smaller of two classes)."),
        click.option("--frontier", is_flag=True,
                     help="The pruning frontier: every pruning method of each criterion swept "
                          "over its parameter on the same folds; mean leaves against mean "
                          "--metric, the Pareto fronts and their reading (docs/analyses.md)."),
        click.option("--plot", metavar="FILE.svg",
                     help="With --imbalance or --frontier: write its plot as SVG."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def run_analysis(ctx, *, data, spec_path, criteria, metric, cv, repeats, seed, jobs,
                 results_path, scheduler, reading, output, output_format, quiet, imbalance,
                 minority, frontier, plot, tree) -> None:
    """Refuse compare's options that do not apply, run the analysis (`dtcli.skew_sweep`
    or `dtcli.frontier`) and write its report and plot."""
    from click.core import ParameterSource

    from dtcli.atomic import open_output
    from dtcli.cli.pruning_options import pruning_params
    from dtcli.cli.tune_command import TUNING_KEYS
    from dtcli.cli.unused_options import refuse
    from dtcli.errors import ParameterError
    from dtcli.experiments import analyses

    analysis = "--frontier" if frontier else "--imbalance"
    if frontier and imbalance is not None:
        raise ParameterError("--imbalance and --frontier are separate analyses; run one at "
                             "a time")
    refuse(ctx, ("table_path", "lower_is_better", "base", "cd_diagram", "report_path",
                 "reference", "show_sd") + TUNING_KEYS, f"does not apply to {analysis}")
    if frontier:
        refuse(ctx, ("pruning", "ccp_alpha", "confidence", "pruning_folds", "significance",
                     "minority"), "does not apply to --frontier, which sweeps every pruning method")
    if analysis == "--imbalance" and (ctx.get_parameter_source("metric")
                                      != ParameterSource.COMMANDLINE):
        metric = "auc"
    options = {key: value for key, value in tree.items() if key not in TUNING_KEYS}
    options.update(pruning_params(options))
    common = dict(spec=spec_path, cv=cv, repeats=repeats, seed=seed, jobs=jobs,
                  results=results_path, scheduler=scheduler, target=reading.target,
                  drop=reading.drop, input_format=reading.format, header=reading.header,
                  delimiter=reading.delimiter, force=reading.force, quiet=quiet,
                  outputs={"--plot": plot, "--output": output})
    methods = ",".join(criteria)
    if frontier:
        result = analyses.frontier(list(data), methods, metric=metric, **common, **options)
    else:
        result = analyses.skew_sweep(list(data), methods, ratios=imbalance, minority=minority,
                                     metric=metric, **common, **options)
    if plot is not None:
        with open_output(plot) as handle:
            handle.write(result.plot())
    with open_output(output) as handle:
        result.render(output_format, handle)
