"""Presets: a name for a method the user of another tool knows, with the settings that
make dtree grow that tool's trees (`dtree train DATA --preset j48`; `--criteria j48` in
evaluate and compare). Options given beside a preset override its settings; the model
file records the preset's name. A preset's model is Weka's J48 (dtcli.c45's
J48Classifier) or a DecisionTreeClassifier with the tool's settings (rpart)."""
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


def _j48(settings: dict):
    from dtcli.c45 import J48Classifier

    model = J48Classifier(**settings)
    model.options()
    return model


def _tree(settings: dict):
    from dtcli.estimator import DecisionTreeClassifier

    model = DecisionTreeClassifier(**settings)
    model.stop_rules()
    model.pruning_method()
    return model


MODELS = {"j48": _j48, "tree": _tree}  # a preset's `model`: its estimator, validated


@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    model: str  # a key of MODELS
    settings: dict = field(default_factory=dict)  # the estimator's parameters
    # a --criteria entry's parameters: name -> (setting, reader of the entry's number,
    # the entry's number for a setting)
    entry_params: dict = field(default_factory=dict)
    # the run's (or the entry's) tree options that are settings of the preset too
    tree_options: tuple[str, ...] = ()

    def estimator(self, overrides: dict | None = None):
        """The preset's estimator with `overrides` (parameter: value) in place,
        validated (ParameterError)."""
        unknown = sorted(set(overrides or {}) - set(self.settings))
        if unknown:
            raise ParameterError(f"preset {self.name} has no setting {', '.join(unknown)} "
                                 f"(it has {', '.join(self.settings)})")
        model = MODELS[self.model]({**self.settings, **(overrides or {})})
        model.preset_ = self.name
        return model

    def entry_values(self, settings: dict) -> dict[str, float]:
        """A --criteria entry's parameters as `settings` set them."""
        return {key: show(settings[setting])
                for key, (setting, _, show) in self.entry_params.items()}


PRESETS = {
    "j48": Preset("j48", "C4.5 as Weka's J48 grows and prunes it, at J48's defaults "
                  "(-C 0.25 -M 2); docs/c45.md", "j48",
                  {"min_samples_leaf": 2, "pruning": "pessimistic", "confidence": 0.25,
                   "subtree_raising": True, "leaf_estimate": "frequency",
                   "binary_splits": False},
                  entry_params={
                      "min_samples_leaf": ("min_samples_leaf", _whole, float),
                      "unpruned": ("pruning", lambda name, key, v:
                                   None if _flag(name, key, v) else "pessimistic",
                                   lambda pruning: float(pruning is None)),
                      "binary_splits": ("binary_splits", _flag, float)},
                  tree_options=("confidence", "subtree_raising", "leaf_estimate")),
    # rpart(y ~ ., method = "class") at rpart.control's defaults; docs/pruning.md
    # (ccp_risk: rpart's units where --pruning ccp replaces rpart's own rule)
    "rpart": Preset("rpart", "CART as R's rpart grows and prunes it, at its defaults "
                    "(gini, minsplit 20, minbucket 7, maxdepth 30, cp 0.01 by rpart's own "
                    "rule on the misclassification risk); docs/pruning.md", "tree",
                    {"criterion": "gini", "min_samples_split": 20, "min_samples_leaf": 7,
                     "max_depth": 30, "pruning": "rpart", "ccp_risk": "error", "cp": 0.01},
                    entry_params={"minsplit": ("min_samples_split", _whole, float),
                                  "minbucket": ("min_samples_leaf", _whole, float),
                                  "maxdepth": ("max_depth", _whole, float)},
                    tree_options=("cp",)),
}


def get(name: str) -> Preset:
    try:
        return PRESETS[name]
    except KeyError:
        raise ParameterError(f"unknown preset '{name}' (presets: {', '.join(PRESETS)})") from None


def from_entry(name: str, params: dict, tree_options: dict) -> dict:
    """The preset's settings for a --criteria entry (`j48:unpruned=1:binary_splits=1`,
    `rpart:minbucket=5:cp=0.02`): its parameters in place, and the tree options the
    preset shares (j48: confidence, subtree_raising, leaf_estimate; rpart: cp; the
    entry's or the run's, where set). A pruning other than the preset's own is refused."""
    preset = get(name)
    settings = dict(preset.settings)
    for key, value in params.items():
        if key not in preset.entry_params:
            raise ParameterError(f"--criteria: {name} has no parameter '{key}' (it takes "
                                 f"{', '.join(preset.entry_params)})")
        setting, read, _ = preset.entry_params[key]
        settings[setting] = read(name, key, value)
    if tree_options.get("pruning") not in (None, settings["pruning"],
                                           preset.settings["pruning"]):
        raise ParameterError(f"--criteria: {name} prunes as its tool does (unpruned=1 for "
                             f"none), not with pruning={tree_options['pruning']}")
    settings.update({key: tree_options[key] for key in preset.tree_options
                     if tree_options.get(key) is not None})
    preset.estimator(settings)
    return settings
