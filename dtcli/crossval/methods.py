"""What `evaluate`, `compare` and `tune` run, as objects: a `Tree` of any criterion with
its parameters and its own tree options (Naive Bayes leaves with `leaves`), a `Forest`
of such trees, `FDF`, and a `Tuned` method whose parameters a search chooses.
`method_syntax.parse_methods` reads them from the --criteria syntax:

- `CRITERION[:P=V...]` a tree; `CRITERION+nb` (`gini+nb`, `tsallis+nb:q=2.5`) with
  Naive Bayes leaves, numeric features cut into MDL bins, `CRITERION+nb-gaussian`
  with normal densities (dtcli.leaves.naive_bayes, default options otherwise). The
  run's tree options (--max-depth, --min-samples-leaf, ...) apply as to any tree.
- `*N` after a tree's method makes it a random forest of N such trees: `gini+nb*100`
  is a forest of 100 gini trees with Naive Bayes leaves (max_features sqrt, bootstrap
  samples, seeded by the run's seed; ensemble/forest.py).
- `fdf[:min_samples_leaf=N][:max_depth=N][:min_gain=X][:nb_min_samples=N][:alpha=X]`:
  the FDF forest (dtcli.fdf) with these parameters (FDFClassifier's defaults
  otherwise); the run's tree options do not apply to it. `fdf-average[:...]`: the
  same with combine="average" (the trees a sample matches, weighted by GenGain).
- `j48[:min_samples_leaf=N][:unpruned=1][:binary_splits=1]`: C4.5 as Weka's J48
  grows it (a `Preset`: dtcli.presets, dtcli.c45; J48's -M, -U, -B); the confidence,
  subtree_raising and leaf_estimate options (the entry's or the run's) are its -C,
  -S and -A; its other tree options do not apply.
- a parameter `auto` (or `@METHOD`): a `Tuned` method (dtcli.tuning.methods).

Every fixed method has a `choice` (`tasks.CriterionChoice`: the runner's record of it,
from which a task's results-file key is made) and a `label` (how reports name it).
Plain trees take the batch path (`batch.run_tasks`: every fold from one presort); the
others fit their `estimator` on each training fold (`batch.run_method_task`).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from dtcli import presets
from dtcli.crossval.entry_options import format_option
from dtcli.errors import ParameterError

if TYPE_CHECKING:
    from dtcli.crossval.tree_options import TreeOptions

FDF_COMBINE = {"fdf": "select", "fdf-average": "average"}
LEAF_SUFFIXES = {"+nb": "mdl", "+nb-gaussian": "gaussian"}
_FDF_INTEGERS = ("min_samples_leaf", "max_depth", "nb_min_samples")


def _pairs(values, convert=None) -> tuple:
    """A mapping or pairs as a tuple of (name, value) pairs, in the order given."""
    items = values.items() if isinstance(values, Mapping) else (values or ())
    return tuple((str(k), convert(v) if convert else v) for k, v in items)


@dataclass(frozen=True)
class CriterionChoice:
    """The runner's record of a fixed method (a `Method`'s `choice`, below):
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

        if is_method(self.name):  # fdf, gini+nb, ...
            return resolved(self.name, dict(self.params))

        criterion = criteria.get(self.name)
        vector = criterion.param_vector(dict(self.params))
        return {p.name: float(vector[i]) for i, p in enumerate(criterion.params)}


class Method:
    """What every method knows: its `label`, its `identity` (what decides the models it
    fits: two methods of one identity fit the same ones) and whether the runner grows
    it on the batch path."""

    batch = False
    label: str
    identity: tuple

    def __str__(self) -> str:
        return self.label


class Fixed(Method):
    """A method without tuned parameters: the runner runs its `choice`."""

    @property
    def label(self) -> str:
        return self.choice.label

    @property
    def identity(self) -> tuple:
        return method_identity(self.choice)


@dataclass(frozen=True)
class Tree(Fixed):
    """A tree of `criterion` at `params`, with its own tree `options` (pruning,
    leaf_estimate, ...: entry_options.ENTRY_OPTIONS; the run's options otherwise) and
    Naive Bayes `leaves` ("mdl" or "gaussian") or none. `Tree("tsallis", {"q": 2.5})`."""

    criterion: str = "gini"
    params: tuple[tuple[str, float], ...] = ()
    options: tuple[tuple[str, object], ...] = ()
    leaves: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "params", _pairs(self.params, float))
        object.__setattr__(self, "options", _pairs(self.options))
        if self.leaves is not None and self.leaves not in LEAF_SUFFIXES.values():
            raise ParameterError(f"leaves must be None or one of "
                                 f"{', '.join(LEAF_SUFFIXES.values())}, got {self.leaves!r}")

    @property
    def batch(self) -> bool:
        return self.leaves is None

    @property
    def name(self) -> str:
        """The criterion, with the suffix of its leaves (gini+nb)."""
        suffix = {v: k for k, v in LEAF_SUFFIXES.items()}.get(self.leaves, "")
        return self.criterion + suffix

    @property
    def choice(self):
        return CriterionChoice(self.name, self.params, self.options)

    def estimator_params(self, options) -> dict:
        """DecisionTreeClassifier's parameters under the run's tree options (TreeOptions)."""
        leaves = ({} if self.leaves is None else
                  {"leaf_model": "naive-bayes", "leaf_params": {"numeric": self.leaves}})
        return {"criterion": self.criterion, "criterion_params": dict(self.params),
                **leaves, **self.choice.tree_options(options).estimator_params()}

    def estimator(self, options, seed: int = 0):
        from dtcli.estimator import DecisionTreeClassifier

        return DecisionTreeClassifier(n_jobs=1, **self.estimator_params(options))


@dataclass(frozen=True)
class Forest(Fixed):
    """A random forest of `n_trees` such trees (max_features sqrt, bootstrap samples),
    seeded by the run's seed; its trees grow out (a tree's pruning and leaf estimate do
    not apply). `Forest(Tree("hddt"), 100)`."""

    tree: Tree = Tree()
    n_trees: int = 100

    def __post_init__(self):
        if not isinstance(self.tree, Tree):
            raise ParameterError(f"a forest's trees are a Tree, got {self.tree!r}")
        if isinstance(self.n_trees, bool) or not isinstance(self.n_trees, int) or self.n_trees < 1:
            raise ParameterError(f"a forest has at least one tree, got {self.n_trees!r}")

    @property
    def choice(self):
        return CriterionChoice(self.tree.name, self.tree.params, self.tree.options, self.n_trees)

    def estimator(self, options, seed: int = 0):
        from dtcli.ensemble.forest import RandomForestClassifier

        allowed = RandomForestClassifier().get_params()
        params = {k: v for k, v in self.tree.estimator_params(options).items() if k in allowed}
        return RandomForestClassifier(**params, n_estimators=self.n_trees, n_jobs=1,
                                      max_features="sqrt", random_state=seed)


@dataclass(frozen=True)
class FDF(Fixed):
    """The FDF forest (dtcli.fdf) at `params` (FDFClassifier's defaults otherwise),
    its trees' predictions combined by `combine` ("select" or "average"); the run's tree
    options do not apply to it. `FDF({"min_samples_leaf": 3})`."""

    params: tuple[tuple[str, float], ...] = ()
    combine: str = "select"

    def __post_init__(self):
        object.__setattr__(self, "params", _pairs(self.params, float))
        if self.combine not in FDF_COMBINE.values():
            raise ParameterError(f"combine must be one of {', '.join(FDF_COMBINE.values())}, "
                                 f"got {self.combine!r}")

    @property
    def choice(self):
        name = {v: k for k, v in FDF_COMBINE.items()}[self.combine]
        return CriterionChoice(name, self.params)

    def estimator(self, options, seed: int = 0):
        from dtcli.fdf.estimator import FDFClassifier

        if options.class_weight is not None:
            raise ParameterError("--class-weight does not apply to fdf, which counts rows")
        return FDFClassifier(combine=self.combine, **_fdf_params(dict(self.params)))


@dataclass(frozen=True)
class Preset(Fixed):
    """A preset's model (dtcli.presets: `j48`) with its entry parameters `params` and
    tree options `options` (those the preset takes: the run's otherwise).
    `Preset("j48", {"unpruned": 1})`."""

    name: str = "j48"
    params: tuple[tuple[str, float], ...] = ()
    options: tuple[tuple[str, object], ...] = ()

    def __post_init__(self):
        presets.get(self.name)
        object.__setattr__(self, "params", _pairs(self.params, float))
        object.__setattr__(self, "options", _pairs(self.options))

    @property
    def choice(self):
        return CriterionChoice(self.name, self.params, self.options)

    def estimator(self, options, seed: int = 0):
        tree_params = self.choice.tree_options(options).estimator_params()
        if tree_params.get("class_weight") is not None:
            raise ParameterError(f"--class-weight does not apply to {self.name}")
        return presets.get(self.name).estimator(
            presets.from_entry(self.name, dict(self.params), tree_params))


@dataclass(frozen=True)
class Tuned(Method):
    """A tree whose parameters `tuned` (criterion parameters or tree options) a grid
    search chooses (`dtcli.tuning.methods`), or, with `leader`, that takes the values the
    tuned method labelled so chose in the same fold (the Tsallis paper's "same q").
    `Tuned.of(Tree("tsallis"), ["q"])`; in --criteria, `tsallis:q=auto`."""

    label: str
    criterion: str
    fixed: tuple[tuple[str, float], ...]
    tuned: tuple[str, ...]
    # the method whose choices this one takes: its criterion as written (@tsallis), then
    # its label once the list is read
    leader: str | None = None
    options: tuple[tuple[str, object], ...] = ()  # its tree options, as a Tree's

    @classmethod
    def of(cls, tree: Tree, tuned, leader: "Tuned | None" = None) -> "Tuned":
        if tree.leaves is not None:
            raise ParameterError("a tuned method is a tree with plain leaves")
        tuned = (tuned,) if isinstance(tuned, str) else tuple(tuned)
        value = "auto" if leader is None else f"@{leader.criterion}"
        label = (tree.criterion + "".join(f":{k}={v:g}" for k, v in tree.params)
                 + "".join(f":{name}={value}" for name in tuned)
                 + "".join(format_option(k, v) for k, v in tree.options))
        return cls(label, tree.criterion, tree.params, tuned,
                   None if leader is None else leader.label, tree.options)

    @property
    def identity(self) -> tuple:
        return ("tuned", self.criterion, self.fixed, self.tuned, self.leader, self.options)


def method_of(choice) -> Method:
    """The method of a runner's record (tasks.CriterionChoice)."""
    if choice.name in FDF_COMBINE:
        return FDF(choice.params, FDF_COMBINE[choice.name])
    if choice.name in presets.PRESETS:
        return Preset(choice.name, choice.params, choice.options)
    suffix = leaf_suffix(choice.name)
    tree = Tree(choice.name[:-len(suffix)] if suffix else choice.name, choice.params,
                choice.options, LEAF_SUFFIXES.get(suffix))
    return Forest(tree, choice.trees) if choice.trees else tree


def is_method(name: str) -> bool:
    """Whether a record's name is a method beside the plain criteria (fdf, j48, gini+nb)."""
    return name in FDF_COMBINE or name in presets.PRESETS or leaf_suffix(name) is not None


def leaf_suffix(name: str) -> str | None:
    for suffix in sorted(LEAF_SUFFIXES, key=len, reverse=True):
        if name.endswith(suffix):
            return suffix
    return None


def tree_criterion(name: str) -> str | None:
    """The split criterion a method's tree uses (None for FDF and the presets)."""
    suffix = leaf_suffix(name)
    return name[:-len(suffix)] if suffix else (
        None if name in FDF_COMBINE or name in presets.PRESETS else name)


def _fdf_params(params: dict) -> dict:
    from dtcli.fdf.estimator import FDFClassifier

    model = FDFClassifier()
    values = model.get_params()
    del values["nominal_features"], values["combine"]
    for key, value in params.items():
        if key not in values:
            raise ParameterError(f"--criteria: fdf has no parameter '{key}' (it takes "
                                 f"{', '.join(values)})")
        if key in _FDF_INTEGERS and float(value) != int(value):
            raise ParameterError(f"--criteria: fdf's {key} must be a whole number")
        values[key] = int(value) if key in _FDF_INTEGERS else float(value)
    model.set_params(**values).stops()
    return values


def resolved(name: str, params: dict) -> dict:
    """A method's parameters with defaults filled in (ParameterError if invalid); FDF's
    max_depth only when given (its default is no limit)."""
    if name in FDF_COMBINE:
        return {key: value for key, value in _fdf_params(params).items() if value is not None}
    if name in presets.PRESETS:  # the entry's own parameters, with defaults
        return presets.get(name).entry_values(presets.from_entry(name, params, {}))
    from dtcli import criteria

    criterion = criteria.get(tree_criterion(name))
    vector = criterion.param_vector(params)
    return {p.name: float(vector[i]) for i, p in enumerate(criterion.params)}


def identity(name: str, params: dict) -> tuple[str, tuple]:
    """What decides the model a method fits (see method_identity)."""
    if name in FDF_COMBINE or name in presets.PRESETS:
        return name, tuple(sorted(resolved(name, params).items()))
    from dtcli import criteria

    engine, vector = criteria.get(tree_criterion(name)).for_engine(params)
    return engine.name + leaf_suffix(name), tuple(float(v) for v in vector)


def method_identity(choice) -> tuple:
    """What decides the trees a criterion choice (tasks.CriterionChoice) grows: the criterion
    the engine runs, its parameter vector, the tree options its entry sets (those not
    at their defaults) and the size of its forest (0: one tree). The registry maps a
    criterion at the parameters where it is a classic one to that one
    (`Criterion.for_engine`: Tsallis at q = 2 is Gini), so two choices with one identity
    grow identical trees."""
    from dtcli import criteria
    from dtcli.crossval.tree_options import TreeOptions

    if is_method(choice.name):  # fdf, gini+nb, ...
        name, vector = identity(choice.name, dict(choice.params))
    else:
        engine, values = criteria.get(choice.name).for_engine(dict(choice.params))
        name, vector = engine.name, tuple(float(v) for v in values)
    defaults = TreeOptions()
    options = tuple(sorted((k, str(v)) for k, v in choice.options if v != getattr(defaults, k)))
    return name, vector, options, choice.trees


def check_distinct(choices) -> None:
    """Refuse two choices that grow the same trees: a method compared with itself ties on
    every dataset, which shifts the average ranks and inflates k in Friedman's and the
    post-hoc tests (ParameterError naming both)."""
    seen = {}
    for choice in choices:
        identity = method_identity(choice)
        if identity in seen:
            raise ParameterError(
                f"--criteria: '{seen[identity].label}' and '{choice.label}' are the same "
                f"method (both grow {identity[0]}'s trees); keep one, as identical methods "
                "distort the ranks and the tests")
        seen[identity] = choice
