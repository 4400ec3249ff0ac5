"""compare's old spellings of the analyses, kept for one release: --imbalance (now
`dtree sweep --ratios`), --minority, --frontier (`dtree frontier`) and --plot, hidden
from compare's --help; the options compare takes that an analysis does not are
refused, then the analysis runs as its own command runs it, after a note."""
from __future__ import annotations

import click


def deprecated_analysis_options(func):
    options = [
        click.option("--imbalance", metavar="RATIOS", hidden=True),
        click.option("--minority", metavar="LABEL", hidden=True),
        click.option("--frontier", is_flag=True, hidden=True),
        click.option("--plot", metavar="FILE.svg", hidden=True),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def run_deprecated_analysis(ctx, *, imbalance, minority, frontier, metric, **run) -> None:
    """Refuse compare's options that do not apply, say the new spelling, run the
    analysis (`dtcli.skew_sweep` or `dtcli.frontier`)."""
    from click.core import ParameterSource

    from dtcli.cli.analysis_commands import FRONTIER_SETS, deprecated, run_analysis
    from dtcli.cli.tune_command import TUNING_KEYS
    from dtcli.cli.unused_options import refuse
    from dtcli.errors import ParameterError

    analysis = "--frontier" if frontier else "--imbalance"
    if frontier and imbalance is not None:
        raise ParameterError("--imbalance and --frontier are separate analyses; run one at "
                             "a time")
    refuse(ctx, ("table_path", "lower_is_better", "base", "cd_diagram", "report_path",
                 "reference", "show_sd") + TUNING_KEYS, f"does not apply to {analysis}")
    if frontier:
        refuse(ctx, FRONTIER_SETS + ("minority",),
               "does not apply to --frontier, which sweeps every pruning method")
        deprecated("compare --frontier", "dtree frontier")
        return run_analysis("frontier", metric=metric, **run)
    if ctx.get_parameter_source("metric") != ParameterSource.COMMANDLINE:
        metric = "auc"
    deprecated("compare --imbalance RATIOS", "dtree sweep --ratios RATIOS")
    return run_analysis("sweep", metric=metric, ratios=imbalance, minority=minority, **run)
