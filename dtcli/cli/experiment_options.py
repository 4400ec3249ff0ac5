"""Option bundles of the commands that run experiments (evaluate, compare, tune's kin,
sweep, frontier): the cross-validation protocol, where runs go, and the report."""
from __future__ import annotations

import click

from dtcli.cli.options import (class_weight_option, data_options, force_option, jobs_option,
                               output_format_option, output_option, quiet_option,
                               target_options, tree_options)
from dtcli.reporting.report import FORMATS


def stack(*decorators):
    """One decorator: `decorators` in the order they would be written above a function."""
    def decorate(func):
        for decorator in reversed(decorators):
            func = decorator(func)
        return func
    return decorate


def without(bundle, *names):
    """An option bundle (tree_options, pruning_options, ...) minus the named parameters:
    compare takes --criteria instead of --criterion/--param, frontier sets the pruning."""
    def decorate(func):
        kept = [p for p in bundle(lambda: None).__click_params__ if p.name not in names]
        func.__click_params__ = getattr(func, "__click_params__", []) + kept
        return func
    return decorate


def tree_options_without(*names):
    return without(tree_options, *names)


def cv_options(func):
    options = [
        click.option("--cv", type=click.IntRange(min=2), default=10, show_default=True,
                     help="Number of stratified folds."),
        click.option("--repeats", "-r", type=click.IntRange(min=1), default=1, show_default=True,
                     help="Repeat the cross-validation with different fold assignments."),
        click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
                     help="Seed of everything random: the fold assignment (folds depend "
                          "only on it, the labels and the repeat) and the forests' draws."),
        jobs_option("one worker process per core (default: the cores other processes "
                    "leave idle, or one for a run of a few seconds)"),
    ]
    return stack(*options)(func)


def folds_option(func):
    """--folds: evaluate's and compare's fold scheme (dtree's own, or Weka's)."""
    return click.option("--folds", "fold_scheme", type=click.Choice(["dtree", "weka"]),
                        default="dtree", show_default=True,
                        help="weka: Weka's stratified folds for --seed (J48 -x 10 -s 1 is "
                             "--cv 10 --seed 1 --folds weka), rows in the file's order.")(func)


def run_options(func):
    """--results and --scheduler, as compare and evaluate take them."""
    func = click.option("--scheduler", metavar="tcp://HOST:PORT",
                        help='Run on this Dask cluster instead of local processes '
                             '(pip install "dtcli[dask]").')(func)
    return click.option("--results", "results_path", metavar="FILE.jsonl",
                        help="Append each finished fold to FILE and skip the folds already "
                             "in it.")(func)


def report_options(func):
    func = output_option("Write the report here (- for stdout).", formats=FORMATS)(func)
    return output_format_option(FORMATS, "table",
                                "A table for people; json, csv or markdown for scripts.")(func)


def experiment_options(pruning, *, folds: bool = False, after_pruning=(), after_report=()):
    """The options of a cross-validated run of methods over datasets (compare, sweep,
    frontier), in their --help order: the folds, where runs go, the data, the trees
    (methods come from --criteria), their `pruning` bundle, the report, --force, -q;
    `after_pruning` and `after_report` are a command's own bundles at those places."""
    return stack(cv_options, *((folds_option,) if folds else ()), run_options, target_options,
                 data_options, tree_options_without("criterion", "criterion_params"),
                 class_weight_option, pruning, *after_pruning, report_options, *after_report,
                 force_option, quiet_option("No progress bar or notes on stderr."))
