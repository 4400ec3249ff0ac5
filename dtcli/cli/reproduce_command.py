"""dtree reproduce: a paper's table re-run in one command (dtcli/analyses/reproduce.py)."""
from __future__ import annotations

import click

from dtcli.cli.options import (CONTEXT, SectionedCommand, jobs_option, output_format_option,
                               output_option, quiet_option)

_PAPERS = ("ihd", "tsallis", "pidt", "fdf")  # dtcli.analyses.papers.PAPERS, without numpy
_FORMATS = ("table", "json", "csv", "markdown")


@click.command(cls=SectionedCommand, context_settings=CONTEXT)
@click.argument("paper", type=click.Choice(_PAPERS), metavar="PAPER")
@click.option("--quick", is_flag=True,
              help="Three small datasets per table (one for fdf), one repeat, small grids: "
                   "each claim gets a verdict on them, marked as a quick run's (a warning "
                   "says so).")
@click.option("--repeats", type=click.IntRange(1, 100), metavar="N",
              help="N repeats of the outer CV instead of the paper's (a warning says so; the "
                   "first N are the full run's folds).")
@click.option("--examples", "examples_dir", metavar="DIR",
              help="The project's examples/ folder (default: the one beside dtcli, else "
                   "./examples).")
@click.option("--report", "report_path", metavar="FILE.html|FILE.md",
              help="Also write the report to FILE: a page with the CD diagrams if it ends "
                   "in .html, else markdown.")
@click.option("--results", "results_path", metavar="FILE.jsonl",
              help="Append each finished fold to FILE and skip the folds already in it.")
@click.option("--scheduler", metavar="tcp://HOST:PORT",
              help='Run on this Dask cluster instead of local processes (pip install '
                   '"dtcli[dask]").')
@jobs_option("one worker process per core (default: the cores other processes leave idle)")
@output_option("Write the report here (- for stdout).", formats=_FORMATS)
@output_format_option(_FORMATS, "table", "A table for people; json, csv or markdown for scripts.")
@quiet_option("No progress bar or notes on stderr.")
def reproduce(paper, quick, repeats, examples_dir, report_path, results_path, scheduler, jobs,
              output, output_format, quiet):
    """Re-run a paper's tables on its datasets that ship in examples/, ours beside its.

    Runs the paper's protocol and prints, per table, our means with the paper's
    in brackets, the rank agreement (average ranks of both, Spearman's rho), the
    mean differences, Wilcoxon's test of ours against the paper's per method, and
    whether each of the paper's claims holds on ours (docs/reproduce.md):

    \b
    ihd      one 10-fold CV of unpruned trees of 8 criteria: Table 4 (AUC, 13
             imbalanced files) and Table 3 (accuracy, 10 balanced ones)
    tsallis  Table 1: 10 x 10-fold CV, minimum leaf 5, q tuned over 0.1..10
             (inner 10-fold CV), 7 datasets; accuracy and node counts
    pidt     section 4.1: 5-fold CV, 6 tuned impurities and entropy, gini, with
             and without S-pruning, minimum leaf 7, 4 datasets (no printed
             figures)
    fdf      Fig. 4: FDF against a forest of 1000 trees, log loss, 10 x 10-fold
             CV, 10 datasets (no printed figures)

    \b
    Example:
      dtree reproduce ihd --results runs.jsonl --report ihd.html
      dtree reproduce tsallis --quick -f json
    """
    from dtcli.analyses.report import render_reproduction
    from dtcli.experiments.analyses import reproduce as run_paper
    from dtcli.atomic import open_output
    from dtcli.experiments.data import refuse_outputs
    from dtcli.experiments.notes import Notes

    refuse_outputs({"--results": results_path, "--report": report_path, "--output": output},
                   {})
    if quick:
        Notes(quiet).warn(["--quick: three small datasets per table, one repeat, small grids; "
                           "the claims are tested on those, not on the paper's protocol"])
    if repeats is not None:
        Notes(quiet).warn([f"--repeats {repeats}: the outer CV repeated {repeats} time(s), "
                           "not as the paper's protocol says"])
    doc = run_paper(paper, quick=quick, repeats=repeats, examples=examples_dir, jobs=jobs,
                    results=results_path, scheduler=scheduler, quiet=quiet).document
    if report_path is not None:
        with open_output(report_path) as handle:
            if report_path.lower().endswith((".html", ".htm")):
                from dtcli.analyses.report_html import reproduction_html

                handle.write(reproduction_html(doc))
            else:
                render_reproduction(doc, "markdown", handle)
    with open_output(output) as handle:
        render_reproduction(doc, output_format, handle)
