"""Presets: a name for a method the user of another tool knows, with the settings that
make dtree grow that tool's trees (`dtree train DATA --preset j48`; `--criteria j48` in
evaluate and compare). Options given beside a preset override its settings; the model
file records the preset's name."""
from __future__ import annotations

from dataclasses import dataclass, field

from dtcli.errors import ParameterError


@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    settings: dict = field(default_factory=dict)  # the estimator's parameters
    integers: tuple[str, ...] = ()  # settings given as whole numbers in --criteria entries

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
                  integers=("min_samples_leaf",)),
}


def get(name: str) -> Preset:
    try:
        return PRESETS[name]
    except KeyError:
        raise ParameterError(f"unknown preset '{name}' (presets: {', '.join(PRESETS)})") from None


def from_entry(name: str, params: dict) -> dict:
    """The settings of a --criteria entry `j48:confidence=0.1:binary_splits=1`: numbers
    as the entry gives them, read as the preset's settings (flags from 0/1; pruning
    from 0 for none)."""
    preset = get(name)
    settings = dict(preset.settings)
    for key, value in params.items():
        if key not in settings:
            raise ParameterError(f"--criteria: {name} has no parameter '{key}' (it takes "
                                 f"{', '.join(k for k in settings if k != 'leaf_estimate')})")
        default = settings[key]
        if isinstance(default, bool) or key == "pruning":
            if value not in (0, 1):
                raise ParameterError(f"--criteria: {name}'s {key} must be 0 or 1")
            settings[key] = bool(value) if isinstance(default, bool) else (
                "pessimistic" if value else None)
        elif key in preset.integers:
            if float(value) != int(value):
                raise ParameterError(f"--criteria: {name}'s {key} must be a whole number")
            settings[key] = int(value)
        elif isinstance(default, float):
            settings[key] = float(value)
        else:
            raise ParameterError(f"--criteria: {name}'s {key} is set by --leaf-estimate")
    preset.estimator(settings)
    return settings
