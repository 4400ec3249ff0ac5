"""`TreeOptions`: the stopping rules, class weights, pruning and leaf estimate of every
tree in a cross-validation run, generated from DecisionTreeClassifier's declaration."""
from __future__ import annotations

import dataclasses
import inspect

from dtcli.estimator import DecisionTreeClassifier


class _TreeOptionsMethods:
    """The methods of `TreeOptions` (below: its fields are generated)."""

    def __post_init__(self):
        if isinstance(self.class_weight, dict):
            object.__setattr__(self, "class_weight", tuple(sorted(self.class_weight.items())))

    def estimator_params(self) -> dict:
        """The options as `DecisionTreeClassifier` takes them (and reports record them)."""
        from dtcli.pruning.methods import effective_ccp_alpha

        params = dataclasses.asdict(self)
        for name in RESAMPLING:
            del params[name]
        if isinstance(self.class_weight, tuple):
            params["class_weight"] = dict(self.class_weight)
        params["ccp_alpha"] = effective_ccp_alpha(self.pruning, self.ccp_alpha, self.cp)
        return params

    def identity(self) -> dict:
        """The options as they enter a task's key: those of the first results files always,
        any other (class weights, pruning, leaf estimates, options added since) only when
        not at its default, so that a run without them keeps the keys (and stored
        results) it had before there were any."""
        params = self.estimator_params()
        defaults = TreeOptions().estimator_params()
        key = {name: value for name, value in params.items()
               if name in _FIRST_OPTIONS or value != defaults[name]}
        key.update({name: getattr(self, name) for name in RESAMPLING
                    if getattr(self, name) is not None})
        return key

    def check(self) -> "TreeOptions":
        """Validate the options (ParameterError) before any data is read."""
        model = DecisionTreeClassifier(**self.estimator_params())
        model.stop_rules()
        model.pruning_method()
        return self


# The estimator's parameters that a method or a call sets (its criterion, a forest's draws,
# its leaves' models, threads), not every tree of a run alike; TreeOptions has the others.
_PER_METHOD = ("criterion", "criterion_params", "nominal_features", "n_jobs", "max_features",
               "random_state", "leaf_model", "leaf_params",
               # a run's decisions are the dataset's (measures/thresholds.py Decision)
               "threshold", "threshold_metric", "cost", "positive")
# where a run's default differs from the estimator's: None is auto for ccp, else 0
# (pruning.methods.effective_ccp_alpha)
_RUN_DEFAULTS = {"ccp_alpha": None}
RESAMPLING = ("imbalance", "minority")  # the skew sweep's, not the estimator's
# the options of the first stored results: in every task's key
_FIRST_OPTIONS = ("max_depth", "min_samples_split", "min_samples_leaf", "min_gain")


def _annotation(parameter: inspect.Parameter):
    return "object" if parameter.annotation is inspect.Parameter.empty else parameter.annotation


def _option_fields() -> list[tuple[str, object, dataclasses.Field]]:
    """TreeOptions' fields: the estimator's parameters in its order (DecisionTreeClassifier
    .PARAMS, the order of the `options` that reports and results files write), defaults
    from its signature; then the skew sweep's resampling."""
    signature = inspect.signature(DecisionTreeClassifier).parameters
    fields = [(name, _annotation(signature[name]),
               dataclasses.field(default=_RUN_DEFAULTS.get(name, signature[name].default)))
              for name in DecisionTreeClassifier.PARAMS if name not in _PER_METHOD]
    # majority : minority ratio of the training rows (crossval/resample.py), and the
    # minority class (None: the smaller)
    return fields + [("imbalance", "float | None", dataclasses.field(default=None)),
                     ("minority", "str | None", dataclasses.field(default=None))]


TreeOptions = dataclasses.make_dataclass(
    "TreeOptions", _option_fields(), bases=(_TreeOptionsMethods,), frozen=True,
    namespace={"__module__": __name__, "__doc__": """The stopping rules, class weights,
    pruning and leaf estimate of every tree in a run (as `train`'s options): the
    estimator's parameters of those names, generated from its declaration.

    `class_weight`: None, "balanced", or {label: weight} (kept as sorted (label, weight)
    pairs, so that the options stay hashable and their key does not depend on order).
    """})
