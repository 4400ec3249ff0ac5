"""Commands that measure trees: evaluate (one criterion or a saved model) and compare."""
from __future__ import annotations

import click

from dtcli.cli.analyses_options import deprecated_analysis_options
from dtcli.cli.analysis_commands import statistics_options
from dtcli.cli.experiment_options import (cv_options, experiment_options, folds_option,
                                          report_options, run_options)
from dtcli.cli.options import (CONTEXT, SectionedCommand, class_weight_option, data_options,
                               decision_options, force_option, output_format_option,
                               output_option, positive_option, quiet_option,
                               refuse_unmarked_stdin, target_options, tree_options,
                               DECISION_KEYS)
from dtcli.cli.preset_options import evaluate_preset, preset_options
from dtcli.cli.pruning_options import pruning_options, pruning_params
from dtcli.cli.tune_command import TUNING_KEYS, tuned_method_options, tuning_keywords
from dtcli.cli.unused_options import refuse
from dtcli.errors import ParameterError
from dtcli.reporting.report import METRICS


def _tree_names() -> tuple[str, ...]:
    """The parameters of the tree option bundles (tree, class weight, pruning), in the
    order --help lists them (a decorator's parameters are kept last first)."""
    return tuple(p.name for bundle in (tree_options, class_weight_option, pruning_options)
                 for p in reversed(bundle(lambda: None).__click_params__))


_CV = ("cv", "repeats", "seed", "fold_scheme", "jobs")


@click.command(cls=SectionedCommand, context_settings=CONTEXT)
@click.argument("inputs", metavar="[MODEL] DATA", nargs=-1, required=True)
@target_options
@data_options
@tree_options
@class_weight_option
@pruning_options
@preset_options
@cv_options
@folds_option
@run_options
@tuned_method_options
@report_options
@click.option("--plot", "plot_path", metavar="FILE.svg",
              help="Write the reliability diagram of the pooled out-of-fold probabilities "
                   "(accuracy against confidence in 15 equal-width bins, with their counts).")
@positive_option
@decision_options
@force_option
@quiet_option("No progress bar or notes on stderr.")
@click.pass_context
def evaluate(ctx, inputs, target, drop, data_format, no_header, delimiter, cv, repeats, seed,
             jobs, fold_scheme, results_path, scheduler, output, output_format, plot_path,
             positive, force, quiet, preset, binary_splits, **tree):
    """Measure a tree on labelled DATA: cross-validate a criterion, or score a saved MODEL.

    With DATA alone, stratified k-fold cross-validation of the tree that
    `train` would grow with the same options; with MODEL DATA, the saved model's
    metrics on DATA (its class column is the model's target unless --target
    names another). Every measure of `dtree metrics` (accuracy, auc,
    average_precision, mcc, brier, ece, precision/recall/f1 of the --positive
    class, ...): mean and std (n - 1) over folds. Then, from the confusion
    matrix summed over folds (as Weka reports them): precision, recall, F1 and
    support per class, and pooled g_mean, mcc and kappa; and the matrix itself,
    in every format (csv: four tables separated by an empty line). --plot: the
    reliability diagram of the pooled out-of-fold probabilities.

    \b
    Example:
      dtree evaluate examples/ecoli2.dat --criterion entropy --cv 10 --repeats 3
      dtree evaluate examples/iris.csv -f json | jq .accuracy.mean
      dtree evaluate iris.json examples/iris.csv
      dtree evaluate examples/ecoli2.dat --plot calibration.svg
    """
    if len(inputs) > 2:
        raise click.UsageError("expected DATA, or MODEL DATA", ctx)
    named = {"model": inputs[0], "data": inputs[1]} if len(inputs) == 2 else {"data": inputs[0]}
    _refuse_outputs_over_inputs({"--results": results_path, "--output": output,
                                 "--plot": plot_path}, named)
    refuse_unmarked_stdin(inputs[-1], data_format)
    tuning = tuning_keywords({key: tree.pop(key) for key in TUNING_KEYS})
    decisions = {key: tree.pop(key) for key in DECISION_KEYS}
    if len(inputs) == 2:
        refuse(ctx, _tree_names() + _CV + TUNING_KEYS + DECISION_KEYS
               + ("drop", "force", "results_path", "scheduler", "preset",
                  "binary_splits"),
               "applies to cross-validating DATA; a saved MODEL is evaluated as it is")
        from dtcli.experiments.evaluation import score_model

        result = score_model(*inputs, target=target, input_format=data_format,
                             header=not no_header, delimiter=delimiter, positive=positive)
    else:
        from dtcli.crossval.method_syntax import command_method
        from dtcli.experiments.evaluation import evaluate as run_evaluation

        from dtcli.cli.unused_options import refuse_unused

        tree.update(pruning_params(tree))
        method = evaluate_preset(preset, binary_splits, tree)
        refuse_unused(ctx, tree)
        criterion, params = tree.pop("criterion"), dict(tree.pop("criterion_params"))
        method = method or command_method(criterion, params)
        result = run_evaluation(inputs[0], method, cv=cv, repeats=repeats, seed=seed,
                                folds=fold_scheme,
                                jobs=jobs, results=results_path, scheduler=scheduler,
                                target=target, drop=drop, input_format=data_format,
                                header=not no_header, delimiter=delimiter, force=force,
                                quiet=quiet, positive=positive, **decisions, **tuning,
                                **tree)
    from dtcli.atomic import open_output

    doc = result.document
    if plot_path is not None:
        with open_output(plot_path) as handle:
            handle.write(result.calibration_plot())
    with open_output(output) as handle:
        result.render(handle, output_format)


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
                   "criteria: fdf[:PARAM=VALUE...] (the FDF forest) and CRITERION+nb or "
                   "CRITERION+nb-gaussian (trees with Naive Bayes leaves); docs/fdf.md.")
@click.option("--metric", "-m", type=click.Choice(list(METRICS)), default="accuracy",
              show_default=True, metavar="NAME",
              help="The score to rank criteria by (`dtree metrics` lists them with their "
                   "direction).")
@statistics_options
@click.option("--bayes", is_flag=True,
              help="Add Bayesian comparisons of --base against each other method: the "
                   "signed-rank test across datasets (Benavoli et al. 2017) and the correlated "
                   "t-test per dataset (Corani and Benavoli 2015): P(better), P(equivalent), "
                   "P(worse); seeded by --seed.")
@click.option("--rope", type=click.FloatRange(min=0), default=0.01, show_default=True,
              help="With --bayes: the region of practical equivalence, in --metric's units.")
@click.option("--table", "table_path", hidden=True)  # deprecated: dtree rank TABLE
@click.option("--lower-is-better", is_flag=True, hidden=True)
@experiment_options(pruning_options, folds=True,
                    after_pruning=(tuned_method_options, deprecated_analysis_options),
                    after_report=(positive_option, decision_options))
@click.pass_context
def compare(ctx, data, spec_path, criteria_entries, metric, base, show_sd, cd_diagram, posthoc,
            report_path, reference, table_path, lower_is_better, bayes, rope, cv, repeats, seed,
            jobs, fold_scheme, results_path,
            scheduler, target, drop, data_format, no_header, delimiter, output, output_format,
            positive, force, quiet, imbalance, minority, frontier, plot, **tree):
    """Compare split criteria over datasets, with Demsar's rank statistics.

    Every criterion runs on the same stratified folds of every dataset (files
    DATA... and/or a --spec file). Reported: the dataset x criterion table of
    mean --metric (best per row marked; split into column groups when wider
    than the terminal), average ranks, the Friedman and Iman-Davenport tests,
    then, once the Iman-Davenport test rejects (or with --posthoc always), the
    Nemenyi critical difference at alpha 0.05 with the pairs that differ and,
    against --base, the Bonferroni-Dunn and Holm tests; against --base:
    wins/ties/losses and Wilcoxon's signed-rank test (exact p up to 100
    datasets); a warning when there are too few datasets for the tests to
    mean much; and, with --cd-diagram, the critical-difference diagram as
    SVG. The same statistics on a table of scores you bring: `dtree rank`;
    the skew sweep and the pruning frontier: `dtree sweep`, `dtree frontier`.

    \b
    Example:
      dtree compare examples/imbalanced/*.dat --criteria gini,entropy,gain-ratio \\
          --metric auc --cv 10 --cd-diagram cd.svg --results runs.jsonl
      dtree compare examples/imbalanced/*.dat --criteria gini,hddt,ihdw \\
          --report report.html
    """
    from dtcli.crossval.method_syntax import refuse_blank

    refuse_blank(criteria_entries)
    if imbalance is not None or frontier:
        from dtcli.cli.analyses_options import run_deprecated_analysis
        from dtcli.experiments.data import Reading

        refuse(ctx, ("positive", "bayes", "rope") + DECISION_KEYS,
               "does not apply to --imbalance or --frontier")
        for key in DECISION_KEYS:
            tree.pop(key)
        refuse(ctx, ("fold_scheme",), "applies to compare's own table, not to --imbalance or "
               "--frontier")
        return run_deprecated_analysis(
            ctx, data=data, spec_path=spec_path, criteria=criteria_entries, metric=metric,
            cv=cv, repeats=repeats, seed=seed, jobs=jobs, results_path=results_path,
            scheduler=scheduler, reading=Reading(target, tuple(drop), data_format,
                                                 not no_header, delimiter, force),
            output=output, output_format=output_format, quiet=quiet, imbalance=imbalance,
            minority=minority, frontier=frontier, plot=plot, tree=tree)
    refuse(ctx, ("minority", "plot"), "applies to --imbalance or --frontier")
    decisions = {key: tree.pop(key) for key in DECISION_KEYS}
    if not bayes:
        refuse(ctx, ("rope",), "applies to --bayes")
    tuning = tuning_keywords({key: tree.pop(key) for key in TUNING_KEYS})
    if table_path is not None:
        from dtcli.cli.analysis_commands import deprecated, rank_table

        refuse(ctx, ("spec_path", "criteria_entries", "metric", "results_path", "scheduler",
                     "target", "drop", "data_format", "no_header", "delimiter", "force",
                     "positive", "bayes", "rope") + DECISION_KEYS + _CV + _tree_names()
               + TUNING_KEYS,
               "does not apply to --table, which compares the scores of the table")
        if data:
            raise ParameterError("--table compares a table of scores; give no DATA files")
        deprecated("compare --table TABLE", "dtree rank TABLE")
        return rank_table(table_path, lower_is_better=lower_is_better, base=base,
                          posthoc=posthoc, reference=reference, cd_diagram=cd_diagram,
                          report_path=report_path, output=output, output_format=output_format,
                          show_sd=show_sd)
    from dtcli.cli.analysis_commands import write_comparison
    from dtcli.cli.unused_options import refuse_unused
    from dtcli.experiments.comparison import compare as run_comparison

    refuse(ctx, ("lower_is_better",), "applies to --table; a --metric knows its direction")
    tree.update(pruning_params(tree))
    refuse_unused(ctx, tree, entries_prune=any("pruning=" in entry for entry in criteria_entries))
    result = run_comparison(list(data), ",".join(criteria_entries), spec=spec_path, cv=cv,
                            repeats=repeats, seed=seed, folds=fold_scheme, metric=metric,
                            base=base, jobs=jobs,
                            results=results_path, scheduler=scheduler, reference=reference,
                            posthoc=posthoc, cd_diagram=cd_diagram, target=target, drop=drop,
                            input_format=data_format, header=not no_header,
                            delimiter=delimiter, force=force, quiet=quiet,
                            outputs={"--output": output, "--report": report_path},
                            positive=positive, bayes=bayes, rope=rope, **decisions, **tuning,
                            **tree)
    write_comparison(result, output, output_format, show_sd, report_path)


def _refuse_outputs_over_inputs(outputs: dict[str, str | None], inputs: dict[str, str | None]):
    from dtcli.experiments.data import refuse_outputs

    refuse_outputs(outputs, inputs)


@click.command(cls=SectionedCommand, context_settings=CONTEXT)
@output_format_option(["table", "json"], "table", "Table for people, JSON for scripts.")
@output_option("Write here (- for stdout).", formats=("table", "json"))
@quiet_option("No notes on stderr (metrics writes none).")
def metrics(output_format, output, quiet):
    """List the measures of a fold: what --metric, --tune-metric and the reports take.

    Each with its direction (higher or lower is better: ranks, wins and the
    CD diagram follow it) and definition; docs/measures.md has the references.

    \b
    Example:
      dtree metrics
      dtree compare examples/imbalanced/*.dat --metric average_precision
    """
    import json

    from dtcli.atomic import open_output
    from dtcli.measures import MEASURES, listing

    with open_output(output) as handle:
        if output_format == "json":
            handle.write(json.dumps([{"name": m.name, "definition": m.definition,
                                      "higher_is_better": m.higher_is_better}
                                     for m in MEASURES], indent=1) + "\n")
        else:
            handle.write(listing())
