"""Presets: a name for a method the user of another tool knows, with the settings that
make dtree grow that tool's trees (`dtree train DATA --preset j48`; `--criteria j48` in
evaluate and compare). Options given beside a preset override its settings; the model
file records the preset's name."""
from __future__ import annotations

from dataclasses import dataclass, field

from dtcli.errors import ParameterError


def _whole(name: str, key: str, value: float) -> int:
    if float(value) != int(value):
        raise ParameterError(f"--criteria: {name}'s {key} must be a whole number")
    return int(value)


def _flag(name: str, key: str, value: float) -> bool:
    if value not in (0, 1):
        raise ParameterError(f"--criteria: {name}'s {key} must be 0 or 1")
    return bool(value)


@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    settings: dict = field(default_factory=dict)  # the estimator's parameters
    # a --criteria entry's parameters: name -> (setting, reader of the entry's number)
    entry_params: dict = field(default_factory=dict)
    # the run's (or the entry's) tree options that are settings of the preset too
    tree_options: tuple[str, ...] = ()

    def estimator(self, overrides: dict | None = None):
        """The preset's estimator with `overrides` (parameter: value) in place,
        validated (ParameterError)."""
        from dtcli.c45 import J48Classifier

        unknown = sorted(set(overrides or {}) - set(self.settings))
        if unknown:
            raise ParameterError(f"preset {self.name} has no setting {', '.join(unknown)} "
                                 f"(it has {', '.join(self.settings)})")
        model = J48Classifier(**{**self.settings, **(overrides or {})})
        model.options()
        model.preset_ = self.name
        return model


PRESETS = {
    "j48": Preset("j48", "C4.5 as Weka's J48 grows and prunes it, at J48's defaults "
                  "(-C 0.25 -M 2); docs/c45.md",
                  {"min_samples_leaf": 2, "pruning": "pessimistic", "confidence": 0.25,
                   "subtree_raising": True, "leaf_estimate": "frequency",
                   "binary_splits": False},
                  entry_params={
                      "min_samples_leaf": ("min_samples_leaf", _whole),
                      "unpruned": ("pruning", lambda name, key, v:
                                   None if _flag(name, key, v) else "pessimistic"),
                      "binary_splits": ("binary_splits", _flag)},
                  tree_options=("confidence", "subtree_raising", "leaf_estimate")),
}


def get(name: str) -> Preset:
    try:
        return PRESETS[name]
    except KeyError:
        raise ParameterError(f"unknown preset '{name}' (presets: {', '.join(PRESETS)})") from None


def from_entry(name: str, params: dict, tree_options: dict) -> dict:
    """The preset's settings for a --criteria entry (`j48:unpruned=1:binary_splits=1`):
    its parameters in place, and the tree options the preset shares (j48: confidence,
    subtree_raising, leaf_estimate, the entry's or the run's). A pruning other than
    the preset's own is refused."""
    preset = get(name)
    settings = dict(preset.settings)
    for key, value in params.items():
        if key not in preset.entry_params:
            raise ParameterError(f"--criteria: {name} has no parameter '{key}' (it takes "
                                 f"{', '.join(preset.entry_params)})")
        setting, read = preset.entry_params[key]
        settings[setting] = read(name, key, value)
    if tree_options.get("pruning") not in (None, settings["pruning"], "pessimistic"):
        raise ParameterError(f"--criteria: {name} prunes as its tool does (unpruned=1 for "
                             f"none), not with pruning={tree_options['pruning']}")
    settings.update({key: tree_options[key] for key in preset.tree_options
                     if key in tree_options})
    preset.estimator(settings)
    return settings
