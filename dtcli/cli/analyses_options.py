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


def run_analysis(ctx, given: dict) -> None:
    """Run the analysis that compare's options `given` ask for and write its report."""
    from click.core import ParameterSource

    from dtcli.atomic import open_output
    from dtcli.cli import evaluate_commands as compare
    from dtcli.cli.pruning_options import pruning_params
    from dtcli.cli.tune_command import TUNING_KEYS
    from dtcli.errors import ParameterError
    from dtcli.experiments.comparison import prepare_run
    from dtcli.experiments.data import Reading
    from dtcli.experiments.notes import saved

    analysis = "--frontier" if given["frontier"] else "--imbalance"
    if given["frontier"] and given["imbalance"] is not None:
        raise ParameterError("--imbalance and --frontier are separate analyses; run one at "
                             "a time")
    compare._refuse(ctx, ("table_path", "lower_is_better", "base", "cd_diagram", "report_path",
                          "reference", "show_sd") + TUNING_KEYS, f"does not apply to {analysis}")
    if given["frontier"]:
        compare._refuse(ctx, ("pruning", "ccp_alpha", "confidence", "pruning_folds",
                              "significance", "minority"),
                        "does not apply to --frontier, which sweeps every pruning method")
    metric = given["metric"]
    if analysis == "--imbalance" and (ctx.get_parameter_source("metric")
                                      != ParameterSource.COMMANDLINE):
        metric = "auc"
    tree = {key: value for key, value in given["tree"].items() if key not in TUNING_KEYS}
    tree.update(pruning_params(tree))
    notes, fixed, tuned, names, datasets, options, protocol, store, _ = prepare_run(
        list(given["data"]), ",".join(given["criteria_entries"]), spec=given["spec_path"],
        cv=given["cv"], repeats=given["repeats"], seed=given["seed"],
        results=given["results_path"], scheduler=given["scheduler"],
        reading=Reading(given["target"], tuple(given["drop"]), given["data_format"],
                        not given["no_header"], given["delimiter"]),
        force=given["force"], quiet=given["quiet"],
        outputs={"--plot": given["plot"], "--output": given["output"]}, inputs={},
        options=tree)
    if tuned:
        raise ParameterError(f"{analysis}: tune parameters in a separate run; give the "
                             "--criteria entries fixed parameters")
    choices = [method.choice for method in fixed]
    about = {"cv": protocol.cv, "repeats": protocol.repeats, "seed": protocol.seed,
             "options": options.estimator_params()}
    from dtcli.analyses import report

    run = {"jobs": given["jobs"], "store": store, "scheduler": given["scheduler"]}
    if given["frontier"]:
        from dtcli.analyses.frontier import frontier

        def analyse(progress):
            return frontier(names, datasets, choices, options, protocol, metric=metric,
                            progress=progress, **run)
        render, plot = report.render_frontier, report.frontier_svg
    else:
        from dtcli.analyses.skew import parse_ratios, skew_sweep

        ratios = parse_ratios(given["imbalance"])

        def analyse(progress):
            return skew_sweep(names, datasets, choices, options, protocol, ratios,
                              metric=metric, minority=given["minority"], progress=progress,
                              **run)
        render, plot = report.render_sweep, report.sweep_svg
    result = notes.run("cross-validating", analyse, lambda: saved(store))
    result.about = about
    doc = result.to_json()
    notes.warn([f"dataset '{name}' cannot reach ratio(s) "
                f"{', '.join(f'{r:g}' for r in unreached)} (its training folds are more "
                "imbalanced than that): skipped there"
                for name, unreached in doc.get("skipped", {}).items()])
    if given["plot"] is not None:
        with open_output(given["plot"]) as handle:
            handle.write(plot(doc))
    with open_output(given["output"]) as handle:
        render(doc, given["output_format"], handle)
