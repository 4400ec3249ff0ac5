"""dtree reproduce: a paper's table re-run in one command (dtcli/analyses/reproduce.py)."""
from __future__ import annotations

import click

from dtcli.cli.options import (CONTEXT, SectionedCommand, jobs_option, output_format_option,
                               output_option, quiet_option)

_PAPERS = ("ihd",)  # dtcli.analyses.reproduce.PAPERS, without importing numpy for --help
_FORMATS = ("table", "json", "csv", "markdown")


@click.command(cls=SectionedCommand, context_settings=CONTEXT)
@click.argument("paper", type=click.Choice(_PAPERS), metavar="PAPER")
@click.option("--quick", is_flag=True,
              help="One dataset per table: checks the path, tests nothing (a warning says so).")
@click.option("--examples", "examples_dir", metavar="DIR",
              help="The project's examples/ folder (default: the one beside dtcli, else "
                   "./examples).")
@click.option("--report", "report_path", metavar="FILE.md",
              help="Also write the report as markdown to FILE.")
@click.option("--results", "results_path", metavar="FILE.jsonl",
              help="Append each finished fold to FILE and skip the folds already in it.")
@click.option("--scheduler", metavar="tcp://HOST:PORT",
              help='Run on this Dask cluster instead of local processes (pip install '
                   '"dtcli[dask]").')
@jobs_option("one worker process per core (default: the cores other processes leave idle)")
@output_option("Write the report here (- for stdout).", formats=_FORMATS)
@output_format_option(_FORMATS, "table", "A table for people; json, csv or markdown for scripts.")
@quiet_option("No progress bar or notes on stderr.")
def reproduce(paper, quick, examples_dir, report_path, results_path, scheduler, jobs, output,
              output_format, quiet):
    """Re-run a paper's tables on its datasets that ship in examples/, ours beside its.

    Runs the paper's protocol (ihd: one stratified 10-fold CV, seed 0, unpruned
    trees of its eight criteria; Table 4, AUC on the 13 imbalanced files, and
    Table 3, accuracy on the 10 balanced ones), prints our means with the
    paper's in brackets, the rank agreement (average ranks of both, Spearman's
    rho), the mean differences, Wilcoxon's test of ours against the paper's per
    method, and whether the paper's conclusion holds on ours (docs/reproduce.md).

    \b
    Example:
      dtree reproduce ihd --results runs.jsonl
      dtree reproduce ihd --quick -f json
    """
    from dtcli.analyses.report import render_reproduction
    from dtcli.analyses.reproduce import default_examples
    from dtcli.analyses.reproduce import reproduce as run_paper
    from dtcli.atomic import open_output
    from dtcli.experiments.data import refuse_outputs
    from dtcli.experiments.notes import Notes, open_store, saved

    refuse_outputs({"--results": results_path, "--report": report_path, "--output": output},
                   {})
    notes = Notes(quiet)
    if quick:
        notes.warn(["--quick: one dataset per table; the statistics and the paper's "
                    "conclusion are not tested"])
    store = open_store(results_path, notes)
    result = notes.run("cross-validating",
                       lambda progress: run_paper(paper, examples_dir or default_examples(),
                                                  quick=quick, jobs=jobs, store=store,
                                                  scheduler=scheduler, progress=progress),
                       lambda: saved(store))
    doc = result.to_json()
    if report_path is not None:
        with open_output(report_path) as handle:
            render_reproduction(doc, "markdown", handle)
    with open_output(output) as handle:
        render_reproduction(doc, output_format, handle)
