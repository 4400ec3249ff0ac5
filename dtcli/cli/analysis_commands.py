"""Commands that rank methods without running compare's folds of methods: `rank TABLE`
(Demsar's statistics on scores you bring), `sweep` (the skew sweep) and `frontier` (the
pruning frontier), each with only the options it takes. `compare --table`,
`--imbalance` and `--frontier` still run them for one release, with a note."""
from __future__ import annotations

import click

from dtcli.cli.experiment_options import experiment_options, report_options, stack, without
from dtcli.cli.options import CONTEXT, SectionedCommand, quiet_option
from dtcli.cli.pruning_options import pruning_options
from dtcli.reporting.report import METRICS

# what the frontier sweeps itself (the other pruning options hold at every point)
FRONTIER_SETS = ("pruning", "ccp_alpha", "confidence", "pruning_folds", "significance")


def deprecated(old: str, new: str) -> None:
    """The one line an old spelling says before it runs."""
    click.echo(f"dtree: `{old}` is deprecated and will be removed in the next release; "
               f"use `{new}`", err=True)


def statistics_options(func):
    """The rank statistics' options, as compare and rank take them."""
    options = [
        click.option("--base", metavar="NAME",
                     help="The control: wins/ties/losses, Bonferroni-Dunn, Holm and Wilcoxon "
                          "signed-rank tests of this method against each other one "
                          "(default: the last one listed)."),
        click.option("--sd", "show_sd", is_flag=True,
                     help="Show the std over folds beside each mean."),
        click.option("--cd-diagram", metavar="FILE.svg",
                     help="Write the critical-difference diagram."),
        click.option("--posthoc", type=click.Choice(["after-rejection", "always"]),
                     default="after-rejection", show_default=True,
                     help="When to report the post-hoc tests (Nemenyi, Bonferroni-Dunn, Holm) "
                          "and the CD diagram's groups: only after the Iman-Davenport test "
                          "rejects (Demsar 2006), or always, labelled as shown regardless."),
        click.option("--report", "report_path", metavar="FILE.html",
                     help="Write the comparison as one self-contained HTML page (tables, CD "
                          "diagram, fold scores, tests in words)."),
        click.option("--reference", metavar="FILE.csv",
                     help="Print these published figures beside ours (a table as rank "
                          "reads), matched by dataset name and method, with the rank "
                          "agreement."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def write_comparison(result, output: str, output_format: str, show_sd: bool,
                     report_path: str | None) -> None:
    """compare's and rank's report (a Comparison): the HTML page if asked, then the
    tables."""
    from dtcli.atomic import open_output

    if report_path is not None:
        from dtcli.export.compare_report import write_report

        write_report(result.document, report_path)
    with open_output(output) as handle:
        result.render(handle, output_format, show_sd=show_sd)


def rank_table(table_path: str, *, lower_is_better: bool, base, posthoc: str, reference,
               cd_diagram, report_path, output: str, output_format: str, show_sd: bool,
               bayes: bool = False, rope: float = 0.01, seed: int = 0):
    from dtcli.experiments.comparison import compare_scores

    result = compare_scores(table_path, lower_is_better=lower_is_better, base=base,
                            posthoc=posthoc, reference=reference, cd_diagram=cd_diagram,
                            outputs={"--output": output, "--report": report_path},
                            bayes=bayes, rope=rope, seed=seed)
    write_comparison(result, output, output_format, show_sd, report_path)


@click.command(cls=SectionedCommand, context_settings=CONTEXT)
@click.argument("table_path", metavar="TABLE")
@click.option("--lower-is-better", is_flag=True, help="Smaller scores are better.")
@statistics_options
@click.option("--bayes", is_flag=True,
              help="Add the Bayesian signed-rank test across datasets (Benavoli et al. 2017) "
                   "of --base against each other method: P(better), P(equivalent), P(worse). "
                   "A table has no fold scores: no correlated t-test per dataset.")
@click.option("--rope", type=click.FloatRange(min=0), default=0.01, show_default=True,
              help="With --bayes: the region of practical equivalence, in the scores' units.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="With --bayes: the seed of the posterior samples.")
@report_options
@quiet_option("Nothing on stderr but errors.")
def rank(table_path, lower_is_better, base, show_sd, cd_diagram, posthoc, bayes, rope, seed,
         report_path, reference, output, output_format, quiet):
    """Rank the methods of a TABLE of scores with Demsar's statistics.

    TABLE (CSV): a header row, then one row per dataset, its name first and
    one score per method. Reported as by `compare`: average ranks, the
    Friedman and Iman-Davenport tests, the post-hoc tests and, against
    --base, wins/ties/losses and Wilcoxon's signed-rank test.

    \b
    Example:
      dtree rank docs/reference/ihd_table3_accuracy_balanced.csv --base iHDw
      dtree rank docs/reference/ihd_table3_accuracy_balanced.csv --base iHDw \\
          --bayes --rope 1
    """
    from click.core import ParameterSource

    context = click.get_current_context()
    for name in ("rope", "seed"):
        if not bayes and context.get_parameter_source(name) == ParameterSource.COMMANDLINE:
            raise click.UsageError(f"--{name} applies to --bayes")
    rank_table(table_path, lower_is_better=lower_is_better, base=base, posthoc=posthoc,
               reference=reference, cd_diagram=cd_diagram, report_path=report_path,
               output=output, output_format=output_format, show_sd=show_sd, bayes=bayes,
               rope=rope, seed=seed)


def run_analysis(kind: str, *, data, spec_path, criteria, metric, cv, repeats, seed, jobs,
                 results_path, scheduler, reading, output, output_format, quiet, plot, tree,
                 ratios=None, minority=None) -> None:
    """Run the skew sweep (`kind` "sweep": `dtcli.skew_sweep`) or the pruning frontier
    (`dtcli.frontier`), and write its report and plot."""
    from dtcli.atomic import open_output
    from dtcli.cli.pruning_options import pruning_params
    from dtcli.cli.tune_command import TUNING_KEYS
    from dtcli.experiments import analyses

    options = {key: value for key, value in tree.items() if key not in TUNING_KEYS}
    if kind == "frontier":  # the options it sets, at their defaults
        defaults = click.command()(pruning_options(lambda **_: None)).make_context("", []).params
        options = {**{name: defaults[name] for name in FRONTIER_SETS}, **options}
    options.update(pruning_params(options))
    common = dict(spec=spec_path, cv=cv, repeats=repeats, seed=seed, jobs=jobs,
                  results=results_path, scheduler=scheduler, target=reading.target,
                  drop=reading.drop, input_format=reading.format, header=reading.header,
                  delimiter=reading.delimiter, force=reading.force, quiet=quiet,
                  outputs={"--plot": plot, "--output": output})
    methods = ",".join(criteria)
    if kind == "frontier":
        result = analyses.frontier(list(data), methods, metric=metric, **common, **options)
    else:
        result = analyses.skew_sweep(list(data), methods, ratios=ratios, minority=minority,
                                     metric=metric, **common, **options)
    if plot is not None:
        with open_output(plot) as handle:
            handle.write(result.plot())
    with open_output(output) as handle:
        result.render(output_format, handle)


def _analysis_options(metric: str):
    """What sweep and frontier share: DATA, --spec, --criteria, --metric and --plot."""
    def decorate(func):
        options = [
            click.argument("data", nargs=-1),
            click.option("--spec", "spec_path", metavar="FILE.toml",
                         help="Datasets with their own target and dropped columns "
                              "(docs/reproduce.md); paths are relative to the file."),
            click.option("--criteria", "criteria_entries", multiple=True, metavar="LIST",
                         help="Comma-separated methods as compare takes them (gini,hddt); "
                              "repeatable. Default: every distinct criterion."),
            click.option("--metric", "-m", type=click.Choice(list(METRICS)), default=metric,
                         show_default=True, metavar="NAME",
                         help=f"The score: {', '.join(METRICS)}."),
            click.option("--plot", metavar="FILE.svg", help="Also write the plot as SVG."),
        ]
        return stack(*options)(func)
    return decorate


def _reading(target, drop, data_format, no_header, delimiter, force):
    from dtcli.experiments.data import Reading

    return Reading(target, tuple(drop), data_format, not no_header, delimiter, force)


@click.command(cls=SectionedCommand, context_settings=CONTEXT)
@_analysis_options("auc")
@click.option("--ratios", default="1,2,5,10,20,50", show_default=True, metavar="LIST",
              help="The majority : minority ratios each training fold is resampled to, by "
                   "leaving out minority rows (test folds untouched).")
@click.option("--minority", metavar="LABEL",
              help="The class resampled against the rest (default: the smaller of two).")
@experiment_options(pruning_options)
def sweep(data, spec_path, criteria_entries, metric, plot, ratios, minority, cv, repeats, seed,
          jobs, results_path, scheduler, target, drop, data_format, no_header, delimiter,
          output, output_format, force, quiet, **tree):
    """The skew sweep: each method's --metric as the classes grow apart.

    Every method runs on the same folds at every ratio; reported: the score
    per ratio, its slope against ln(ratio), and the rank tests per ratio
    (docs/analyses.md).

    \b
    Example:
      dtree sweep examples/imbalanced/new-thyroid1.dat --criteria gini,hddt \\
          --ratios 1,5,20 --cv 5
    """
    run_analysis("sweep", data=data, spec_path=spec_path, criteria=criteria_entries,
                 metric=metric, cv=cv, repeats=repeats, seed=seed, jobs=jobs,
                 results_path=results_path, scheduler=scheduler,
                 reading=_reading(target, drop, data_format, no_header, delimiter, force),
                 output=output, output_format=output_format, quiet=quiet, plot=plot,
                 tree=tree, ratios=ratios, minority=minority)


@click.command(cls=SectionedCommand, context_settings=CONTEXT)
@_analysis_options("accuracy")
@experiment_options(without(pruning_options, *FRONTIER_SETS))
def frontier(data, spec_path, criteria_entries, metric, plot, cv, repeats, seed, jobs,
             results_path, scheduler, target, drop, data_format, no_header, delimiter, output,
             output_format, force, quiet, **tree):
    """The pruning frontier: tree size against --metric, every pruning method.

    Each pruning method of each method is swept over its parameter on the same
    folds; reported: mean leaves against mean --metric, each method's Pareto
    front and the overall one (docs/analyses.md).

    \b
    Example:
      dtree frontier examples/imbalanced/new-thyroid1.dat --criteria gini --cv 5
    """
    run_analysis("frontier", data=data, spec_path=spec_path, criteria=criteria_entries,
                 metric=metric, cv=cv, repeats=repeats, seed=seed, jobs=jobs,
                 results_path=results_path, scheduler=scheduler,
                 reading=_reading(target, drop, data_format, no_header, delimiter, force),
                 output=output, output_format=output_format, quiet=quiet, plot=plot,
                 tree=tree)
