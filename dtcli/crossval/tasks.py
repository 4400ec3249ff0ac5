"""What a cross-validation runs: criteria, tree options, protocol, tasks and their keys.

Every task has a key (`task_key`): a hash of the dataset's content (X, y, the
feature kinds, the number of classes), the criterion with all its parameters
(defaults filled in), the tree options (class weights only when given, so that
the keys of runs without them are those of dtree releases before them), the
number of folds, the seed, the repeat and the fold, and dtree's version
(another release may grow other trees). `dtcli.crossval.runner` runs the tasks
and keeps their results under these keys.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import inspect
import json
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dtcli._version import __version__
from dtcli.crossval.entry_options import format_option
from dtcli.errors import ParameterError
from dtcli.estimator import DecisionTreeClassifier
from dtcli.io.dataset import Dataset
from dtcli.params import MAX_REPEATS, MAX_TREES

RESULTS_FORMAT = 1  # part of every task key: bump it when the meaning of a result changes


@dataclass(frozen=True)
class CriterionChoice:
    """The runner's record of a fixed method (crossval/methods.py: a method's `choice`):
    its name as written in --criteria (`gini`, `gini+nb`, `fdf`), its parameters, the
    tree options its entry sets for its own trees (entry_options.ENTRY_OPTIONS) and the
    size of its forest (0: one tree). Task keys are made from it."""

    name: str
    params: tuple[tuple[str, float], ...] = ()
    options: tuple[tuple[str, object], ...] = ()
    trees: int = 0  # 0: one tree; N: a forest of N trees

    @property
    def label(self) -> str:
        """How reports name it: 'gini', 'tsallis:q=2.5', 'gini:pruning=ccp', 'gini*100'."""
        return (self.name + "".join(f":{k}={v:g}" for k, v in self.params)
                + "".join(format_option(k, v) for k, v in self.options)
                + (f"*{self.trees}" if self.trees else ""))

    def tree_options(self, options: "TreeOptions") -> "TreeOptions":
        """The command's tree options with this entry's own in their place."""
        return dataclasses.replace(options, **dict(self.options)) if self.options else options

    def resolved(self) -> dict[str, float]:
        """Every parameter of the criterion, defaults filled in; validates the choice."""
        from dtcli import criteria
        from dtcli.crossval import methods

        if methods.is_method(self.name):  # fdf, gini+nb, ...
            return methods.resolved(self.name, dict(self.params))

        criterion = criteria.get(self.name)
        vector = criterion.param_vector(dict(self.params))
        return {p.name: float(vector[i]) for i, p in enumerate(criterion.params)}


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
               "random_state", "leaf_model", "leaf_params")
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


@dataclass(frozen=True)
class Protocol:
    """Stratified `cv`-fold cross-validation, repeated `repeats` times, seeded."""

    cv: int = 10
    repeats: int = 1
    seed: int = 0


@dataclass(frozen=True)
class Task:
    """One fold of one criterion on one dataset: all a worker needs besides the data."""

    dataset: int  # index into the datasets shipped to the workers
    criterion: str
    params: tuple[tuple[str, float], ...]
    options: TreeOptions
    cv: int
    seed: int
    repeat: int
    fold: int
    entry_options: tuple[tuple[str, object], ...] = ()  # what its --criteria entry set
    trees: int = 0  # a forest of this many trees (CriterionChoice.trees)

    @property
    def choice(self) -> CriterionChoice:
        return CriterionChoice(self.criterion, self.params, self.entry_options, self.trees)


def dataset_digest(dataset: Dataset) -> str:
    """Hash of what a tree sees of a dataset: X, y, feature kinds and categories, classes."""
    digest = hashlib.sha256()
    for array in (np.ascontiguousarray(dataset.X, dtype=np.float64),
                  np.ascontiguousarray(dataset.y, dtype=np.int64)):
        digest.update(str(array.shape).encode())
        digest.update(array.tobytes())
    digest.update(json.dumps([[f.kind, len(f.categories)] for f in dataset.features]).encode())
    digest.update(str(len(dataset.classes)).encode())
    return digest.hexdigest()[:32]


@functools.lru_cache(maxsize=256)
def _method_identity(choice: CriterionChoice, options: TreeOptions) -> tuple[dict, dict]:
    """(choice.resolved(), options.identity()): the same for every fold of a method, and
    most of a task key's cost (a compare has tens of thousands of keys)."""
    return choice.resolved(), options.identity()


def task_key(digest: str, choice: CriterionChoice, options: TreeOptions, cv: int, seed: int,
             repeat: int, fold: int) -> str:
    """The identity of a task's result (see the module docstring)."""
    params, options_identity = _method_identity(choice, options)
    identity = {"format": RESULTS_FORMAT, "dtree": __version__, "data": digest,
                "criterion": choice.name, "params": params, "options": options_identity,
                "cv": cv, "seed": seed, "repeat": repeat, "fold": fold}
    if choice.trees:  # single trees keep the keys they had before forests
        identity["trees"] = choice.trees
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:32]


def check_protocol(names: Sequence[str], datasets: Sequence[Dataset],
                   protocol: Protocol) -> list[str]:
    """Raise ParameterError if a dataset is too small for the folds; return warnings."""
    if protocol.cv < 2:
        raise ParameterError(f"--cv must be at least 2, got {protocol.cv}")
    if not 1 <= protocol.repeats <= MAX_REPEATS:
        raise ParameterError(f"--repeats must be in [1, {MAX_REPEATS}], got {protocol.repeats}")
    warnings = []
    for name, dataset in zip(names, datasets):
        n = len(dataset.y)
        if protocol.cv > n:
            raise ParameterError(f"--cv {protocol.cv} is more folds than dataset '{name}' "
                                 f"has rows ({n})")
        counts = np.bincount(dataset.y, minlength=len(dataset.classes))
        smallest = int(np.argmin(counts))
        if counts[smallest] < protocol.cv:
            warnings.append(
                f"dataset '{name}': class '{dataset.classes[smallest]}' has {counts[smallest]} "
                f"rows, fewer than --cv {protocol.cv}: some test folds lack it (their AUC "
                "covers the classes present, or is left out if only one is)")
    return warnings


def check_class_weight(names: Sequence[str], datasets: Sequence[Dataset],
                       options: TreeOptions) -> None:
    """Raise ParameterError if a class weight names a label that is not a class of every
    dataset (before any task runs, rather than in the first task of that dataset)."""
    if not isinstance(options.class_weight, tuple):
        return
    for name, dataset in zip(names, datasets):
        unknown = [label for label, _ in options.class_weight if label not in dataset.classes]
        if unknown:
            raise ParameterError(f"--class-weight: dataset '{name}' has no class "
                                 f"{', '.join(map(repr, unknown))} (its classes: "
                                 f"{', '.join(dataset.classes)})")
