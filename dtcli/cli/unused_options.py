"""Options the chosen model, pruning or leaf estimate would ignore are refused, in one line
(exit code 2): `--confidence 0.1 --pruning ccp` or `--trees 50` on a single tree ask for
something dtree would silently not do."""
from __future__ import annotations

from click.core import ParameterSource

from dtcli.errors import ParameterError

_PRUNING_OPTIONS = ("ccp_alpha", "cp", "ccp_risk", "confidence", "subtree_raising", "pruning_folds",
                    "significance", "permutations", "pruning_mode")
_NAIVE_BAYES_OPTIONS = ("nb_numeric", "nb_min_samples")


def _given(ctx, name: str) -> bool:
    return (any(p.name == name for p in ctx.command.params)
            and ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE)


def _flag(ctx, name: str) -> str:
    """The option's name, both of a flag's (--subtree-raising/--no-subtree-raising)."""
    param = next(p for p in ctx.command.params if p.name == name)
    return "/".join([max(param.opts, key=len), *param.secondary_opts])


def refuse(ctx, names, reason: str) -> None:
    """ParameterError `--option reason` for the first of `names` given on the command line."""
    given = [name for name in names if _given(ctx, name)]
    if given:
        param = next(p for p in ctx.command.params if p.name == given[0])
        raise ParameterError(f"{max(param.opts, key=len)} {reason}")


def refuse_unused(ctx, tree: dict, *, entries_prune: bool = False, model_kind: str = "tree",
                  leaf_model: str = "counts", pruning_path: bool = False) -> None:
    """ParameterError naming the first option given on the command line `ctx` that the
    model would ignore. `tree`: the tree options with the pruning parameters (`pruning`
    None for none); `entries_prune`: some --criteria entry sets its own pruning, which
    the pruning options may then be for; `pruning_path`: train writes the cost-complexity
    path, whose node risk is --ccp-risk's."""
    from dtcli.pruning.methods import AUTO_ALPHAS, METHODS

    pruning = tree["pruning"]
    for name in _PRUNING_OPTIONS:
        users = [method for method, spec in METHODS.items() if name in spec.params]
        if (not _given(ctx, name) or pruning in users or entries_prune
                or (pruning_path and name == "ccp_risk")):
            continue
        raise ParameterError(f"{_flag(ctx, name)} applies to --pruning {' or '.join(users)}"
                             + (f", not {pruning}" if pruning else ""))
    if (pruning == "ccp" and _given(ctx, "pruning_folds")
            and ((_given(ctx, "ccp_alpha") and tree["ccp_alpha"] not in AUTO_ALPHAS)
                 or tree.get("cp") is not None)):
        raise ParameterError("--pruning-folds applies to --ccp-alpha auto or auto-1se (the "
                             "folds choose alpha), not to a given alpha or cp")
    if _given(ctx, "m") and tree["leaf_estimate"] != "m-estimate":
        raise ParameterError("--m applies to --leaf-estimate m-estimate")
    if model_kind != "fdf" and leaf_model == "counts":
        for name in _NAIVE_BAYES_OPTIONS:
            if _given(ctx, name):
                raise ParameterError(f"{_flag(ctx, name)} applies to --leaf-model naive-bayes")
    if model_kind == "tree" and _given(ctx, "n_estimators"):
        raise ParameterError("--trees applies to --model forest (a single tree is one tree)")
