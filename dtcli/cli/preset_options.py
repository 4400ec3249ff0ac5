"""`train --preset NAME` (dtcli/presets.py) and the options only a preset's model takes.
J48's model is trained instead of a tree: options given beside it override its settings,
and any option it does not use is refused in one line. rpart's is a tree: its settings
take the place of the tree options not given, and train goes on as for any tree."""
from __future__ import annotations

import click
from click.core import ParameterSource

from dtcli.errors import ParameterError

# train's options a preset's settings come from (the others must stay unset)
_SETTINGS = {"min_samples_leaf": "min_samples_leaf", "pruning": "pruning",
             "confidence": "confidence", "subtree_raising": "subtree_raising",
             "leaf_estimate": "leaf_estimate", "binary_splits": "binary_splits"}
_ALWAYS = {"data", "target", "drop", "data_format", "no_header", "delimiter", "output", "force",
           "quiet", "preset", "jobs",
           # the decision threshold the model stores (dtcli/measures/fitted.py)
           "positive", "cost", "threshold", "threshold_metric"}


def preset_options(func):
    from dtcli.presets import PRESETS

    func = click.option("--binary-splits", is_flag=True,
                        help="--preset j48: split a nominal feature into one category and "
                             "the rest (J48's -B) instead of one branch per category.")(func)
    return click.option("--preset", type=click.Choice(sorted(PRESETS)), metavar="NAME",
                        help="Train another tool's method: j48 (C4.5 as Weka's J48, -C 0.25 "
                             "-M 2; docs/c45.md) or rpart (R's rpart: gini, minsplit 20, "
                             "minbucket 7, cp 0.01; docs/pruning.md). Options given beside "
                             "it override its settings; j48's: --pruning none (-U), "
                             "--no-subtree-raising (-S), --confidence (-C), "
                             "--min-samples-leaf (-M), --leaf-estimate laplace (-A), "
                             "--binary-splits (-B); rpart's: any tree option (--cp, "
                             "--min-samples-split for minsplit, --min-samples-leaf for "
                             "minbucket, ...).")(func)


def _given() -> set[str]:
    context = click.get_current_context()
    return {name for name in context.params
            if context.get_parameter_source(name) == ParameterSource.COMMANDLINE}


def preset_model(preset: str | None, binary_splits: bool):
    """J48's estimator with the options given on the command line in place (None without
    --preset or for a tree preset); refuses --binary-splits without it."""
    from dtcli.presets import get

    context = click.get_current_context()
    given = _given()
    if preset is None or get(preset).model == "tree":
        if binary_splits:
            raise click.UsageError("--binary-splits applies to --preset j48 only")
        return None
    refused = sorted(given - set(_SETTINGS) - _ALWAYS)
    if refused:
        flag = next(max(p.opts, key=len) for p in context.command.params if p.name == refused[0])
        raise click.UsageError(f"{flag} does not apply to --preset {preset}")
    overrides = {key: context.params[name] for name, key in _SETTINGS.items() if name in given}
    if "pruning" in overrides:
        if overrides["pruning"] not in ("none", "pessimistic"):
            raise click.UsageError(f"--preset {preset} prunes with --pruning pessimistic or none")
        overrides["pruning"] = None if overrides["pruning"] == "none" else "pessimistic"
    try:
        return get(preset).estimator(overrides)
    except ParameterError as exc:
        raise click.UsageError(str(exc)) from None


def tree_preset(preset: str | None, tree: dict, model_kind: str) -> None:
    """A tree preset's settings (rpart's) in `tree`, train's tree options with the pruning
    parameters, for each option not given on the command line. A --pruning other than
    the preset's leaves out the preset's pruning parameters, and a --ccp-alpha its cp."""
    from dtcli.presets import get
    from dtcli.pruning.methods import METHODS

    if preset is None or get(preset).model != "tree":
        return
    if model_kind != "tree":
        raise click.UsageError(f"--preset {preset} trains a single tree (--model tree)")
    given = _given()
    settings = dict(get(preset).settings)
    if "pruning" in given and tree["pruning"] != settings["pruning"]:
        kept = METHODS[tree["pruning"]].params if tree["pruning"] else ()
        for name in METHODS[settings["pruning"]].params:
            if name not in kept:  # --pruning ccp keeps the cp: the exact minimiser at it
                settings.pop(name, None)
    if "ccp_alpha" in given:
        settings.pop("cp", None)
    tree.update({key: value for key, value in settings.items() if key not in given})


def evaluate_preset(preset: str | None, binary_splits: bool, tree: dict):
    """evaluate's --preset NAME: the preset as a method (crossval.methods.Preset), as
    `--criteria NAME` is in compare, with the options given beside it as its entry
    parameters (j48: --min-samples-leaf, --pruning none, --binary-splits; rpart:
    --min-samples-split, --min-samples-leaf, --max-depth) or as the tree options it
    takes (--confidence, --cp, ...); any other tree option is refused, as train refuses
    it. None without --preset. `tree` (the tree options with the pruning parameters)
    gets the preset's pruning where none was given, so that its parameters
    (--confidence, --cp) are not refused as unused."""
    from dtcli.crossval.methods import Preset
    from dtcli.presets import from_entry, get

    if preset is None:
        if binary_splits:
            raise click.UsageError("--binary-splits applies to --preset j48 only")
        return None
    given = _given()
    for name in ("criterion", "criterion_params"):
        if name in given:
            raise click.UsageError(f"--preset {preset} is the method: give no --criterion "
                                   "or --param beside it")
    spec = get(preset)
    if binary_splits and "binary_splits" not in spec.settings:
        raise click.UsageError("--binary-splits applies to --preset j48 only")
    used = ({setting for setting, _, _ in spec.entry_params.values()} | set(spec.tree_options)
            | {"pruning"})
    refused = sorted(name for name in given if name in tree and name not in used)
    if refused:
        context = click.get_current_context()
        flag = next(max(p.opts, key=len) for p in context.command.params if p.name == refused[0])
        raise click.UsageError(f"{flag} does not apply to --preset {preset}")
    settings = {name: tree[name] for name in given if name in tree}
    if binary_splits:
        settings["binary_splits"] = True
    params = {key: show(settings[setting]) for key, (setting, _, show)
              in spec.entry_params.items() if setting in settings}
    if "pruning" not in given:
        tree["pruning"] = spec.settings["pruning"]
    try:
        from_entry(preset, params, tree)
    except ParameterError as exc:
        raise click.UsageError(str(exc).removeprefix("--criteria: ")) from None
    return Preset(preset, params)
