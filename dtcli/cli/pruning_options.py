"""Options of pruning and leaf probabilities (train, evaluate, compare): the estimator's
`pruning`, `ccp_alpha`, ... parameters (docs/pruning.md)."""
from __future__ import annotations

import click

from dtcli.params import MAX_PERMUTATIONS

# the estimator parameters these options set, in the order of the options
PRUNING_PARAMS = ("pruning", "ccp_alpha", "cp", "ccp_risk", "confidence", "subtree_raising",
                  "pruning_folds", "significance", "permutations", "pruning_mode",
                  "leaf_estimate", "m")
# The library's names (pruning.methods.METHODS, pruning.risk.RISKS,
# leaf_estimate.LEAF_ESTIMATES; a test checks they agree): those modules import numpy,
# which `dtree --help` must not.
METHOD_NAMES = ("ccp", "rpart", "pessimistic", "reduced-error", "s-pruning")
MODE_NAMES = ("default", "exact")
RISK_NAMES = ("impurity", "error")
ESTIMATE_NAMES = ("frequency", "laplace", "m-estimate")


def _ccp_alpha(ctx, param, value):
    if value is None or value in ("auto", "auto-1se"):
        return value
    return _cp(ctx, param, value, ", auto or auto-1se")


def _cp(ctx, param, value, others=""):
    if value is None:
        return value
    try:
        alpha = float(value)
    except ValueError:
        alpha = -1.0
    if not alpha >= 0 or alpha == float("inf"):
        raise click.BadParameter(f"expected a number >= 0{others}, got {value!r}", ctx, param)
    return alpha


def _significance(ctx, param, value):
    if value == "auto":
        return value
    try:
        level = float(value)
    except ValueError:
        level = -1.0
    if not 0 <= level <= 1:
        raise click.BadParameter(f"expected a number in [0, 1] or auto, got {value!r}", ctx,
                                 param)
    return level


def pruning_options(func):
    """--pruning and its parameters, --leaf-estimate and --m."""
    options = [
        click.option("--pruning", type=click.Choice(["none", *METHOD_NAMES]), default="none",
                     show_default=True,
                     help="Prune the grown tree: ccp (cost-complexity, CART), rpart (R "
                          "rpart's own cp rule, at --cp), pessimistic "
                          "(C4.5 / J48), reduced-error (J48 -R), s-pruning (PIDT's "
                          "permutation test of each split)."),
        click.option("--ccp-alpha", metavar="A|auto|auto-1se", callback=_ccp_alpha,
                     help="ccp: the complexity parameter, or auto (internal cross-validation) "
                          "or auto-1se (with the 1-SE rule)  [default: auto]"),
        click.option("--cp", metavar="CP", callback=_cp,
                     help="ccp: rpart's complexity parameter, alpha over the root's risk, "
                          "instead of --ccp-alpha; rpart: the cp of rpart's own rule "
                          "(default 0.01: rpart's default tree)."),
        click.option("--ccp-risk", type=click.Choice(RISK_NAMES), default="impurity",
                     show_default=True,
                     help="ccp: node risk, the criterion's impurity (misclassification error "
                          "for criteria without one) or the error."),
        click.option("--confidence", type=click.FloatRange(0, 0.5, min_open=True), default=0.25,
                     show_default=True, help="pessimistic: C4.5's confidence factor CF."),
        click.option("--subtree-raising/--no-subtree-raising", default=True, show_default=True,
                     help="pessimistic: let a node's largest branch replace it."),
        click.option("--pruning-folds", type=click.IntRange(min=2), metavar="N",
                     help="reduced-error: folds, one held out to prune on (default 3); "
                          "ccp auto: cross-validation folds (default 10)."),
        click.option("--significance", metavar="S|auto", callback=_significance,
                     default="0.05", show_default=True,
                     help="s-pruning: a split whose permutation p-value is above this "
                          "becomes a leaf; auto: tuned over 0.01, 0.05, 0.1 (the PIDT "
                          "paper's grid; not in compare, whose entries take "
                          "significance=auto)."),
        click.option("--permutations", type=click.IntRange(1, MAX_PERMUTATIONS), default=1000,
                     show_default=True, help="s-pruning: label shuffles per tested node; a test "
                     "estimated at over an hour of one core is refused (docs/pruning.md)."),
        click.option("--pruning-mode", type=click.Choice(MODE_NAMES), default="default",
                     show_default=True,
                     help="s-pruning: exact (every shuffle at every node, the paper's) or "
                          "default (the same decisions, stopping early at a stated risk)."),
        click.option("--leaf-estimate", type=click.Choice(ESTIMATE_NAMES), default="frequency",
                     show_default=True,
                     help="Leaf class probabilities: counts, Laplace (n_k+1)/(n+K), or "
                          "m-estimate (n_k+m p_k)/(n+m)."),
        click.option("--m", "m", type=click.FloatRange(0, min_open=True), default=2.0,
                     show_default=True, help="m-estimate: weight of the class prior."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def pruning_params(options: dict) -> dict:
    """Take the pruning options out of a command's keyword arguments, as estimator
    parameters; ccp_alpha None when not given (`methods.effective_ccp_alpha`)."""
    params = {name: options.pop(name) for name in PRUNING_PARAMS}
    if params["pruning"] == "none":
        params["pruning"] = None
    return params
