"""Methods that `evaluate` and `compare` run beside the split criteria, in the same
--criteria syntax:

- `CRITERION+nb` (`gini+nb`, `tsallis+nb:q=2.5`): the criterion's tree with Naive
  Bayes leaves, numeric features cut into MDL bins; `CRITERION+nb-gaussian`: numeric
  features as normal densities (dtcli.leaves.naive_bayes, default options otherwise). The run's tree
  options (--max-depth, --min-samples-leaf, ...) apply as to any tree.
- `fdf[:min_samples_leaf=N][:max_depth=N][:min_gain=X][:nb_min_samples=N][:alpha=X]`:
  the FDF forest (dtcli.fdf) with these parameters (FDFClassifier's defaults
  otherwise); the run's tree options do not apply to it. `fdf-average[:...]`: the
  same with combine="average" (the trees a sample matches, weighted by GenGain).

- `j48[:min_samples_leaf=N][:unpruned=1][:binary_splits=1]`: C4.5 as Weka's J48
  grows it (dtcli.presets, dtcli.c45; J48's -M, -U, -B); the confidence,
  subtree_raising and leaf_estimate options (the entry's or the run's) are its -C,
  -S and -A; its other tree options do not apply.

`*N` after a tree's method makes it a random forest of N such trees (tasks.forest_size):
`gini+nb*100` is a forest of 100 gini trees with Naive Bayes leaves; FDF takes none.
"""
from __future__ import annotations

from dtcli import presets
from dtcli.errors import ParameterError

FDF_COMBINE = {"fdf": "select", "fdf-average": "average"}
LEAF_SUFFIXES = {"+nb": "mdl", "+nb-gaussian": "gaussian"}
_FDF_INTEGERS = ("min_samples_leaf", "max_depth", "nb_min_samples")


def is_method(name: str) -> bool:
    return name in FDF_COMBINE or name in presets.PRESETS or leaf_suffix(name) is not None


def leaf_suffix(name: str) -> str | None:
    for suffix in sorted(LEAF_SUFFIXES, key=len, reverse=True):
        if name.endswith(suffix):
            return suffix
    return None


def tree_criterion(name: str) -> str | None:
    """The split criterion a method's tree uses (None for FDF)."""
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
        preset = presets.get(name)
        settings = presets.from_entry(name, params, {})
        return {key: float(settings[setting] not in (None, False)) if key != "min_samples_leaf"
                else settings[setting] for key, (setting, _) in preset.entry_params.items()}
    from dtcli import criteria

    criterion = criteria.get(tree_criterion(name))
    vector = criterion.param_vector(params)
    return {p.name: float(vector[i]) for i, p in enumerate(criterion.params)}


def identity(name: str, params: dict) -> tuple[str, tuple]:
    """What decides the model a method fits (see spec.method_identity)."""
    if name in FDF_COMBINE or name in presets.PRESETS:
        return name, tuple(sorted(resolved(name, params).items()))
    from dtcli import criteria

    engine, vector = criteria.get(tree_criterion(name)).for_engine(params)
    return engine.name + leaf_suffix(name), tuple(float(v) for v in vector)


def make_estimator(name: str, params: dict, tree_params: dict):
    """The estimator of a method; `tree_params` are the run's tree options."""
    if name in FDF_COMBINE:
        from dtcli.fdf.estimator import FDFClassifier

        if tree_params.get("class_weight") is not None:
            raise ParameterError("--class-weight does not apply to fdf, which counts rows")
        return FDFClassifier(combine=FDF_COMBINE[name], **_fdf_params(params))
    if name in presets.PRESETS:
        if tree_params.get("class_weight") is not None:
            raise ParameterError(f"--class-weight does not apply to {name}")
        return presets.get(name).estimator(presets.from_entry(name, params, tree_params))
    from dtcli.estimator import DecisionTreeClassifier

    return DecisionTreeClassifier(criterion=tree_criterion(name), criterion_params=params,
                                  n_jobs=1, **leaf_params(name), **tree_params)


def leaf_params(name: str) -> dict:
    """The estimator parameters of a tree method's leaves ({} for plain counts)."""
    suffix = leaf_suffix(name)
    if suffix is None:
        return {}
    return {"leaf_model": "naive-bayes", "leaf_params": {"numeric": LEAF_SUFFIXES[suffix]}}
