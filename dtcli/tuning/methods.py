"""Tuned methods in `evaluate` and `compare`: parameters written `auto`, or `@METHOD`.

In a --criteria list, `tsallis:q=auto` is Tsallis entropy with q chosen by a
grid search (the papers' default grid, or --grid) inside each outer training
fold (nested cross-validation, `search.nested_many`), and
`tsallis-gain-ratio:q=@tsallis` is Tsallis gain ratio at the q that the
tuned tsallis method of the list chose in the same fold (the Tsallis paper's "same q").
An entry may set its own tree options as fixed entries do
(`pe:alpha=auto:pruning=s-pruning:significance=auto` tunes alpha and S-pruning's
significance together, over the papers' grids). Fixed
and tuned methods run on the same outer folds, so they compare fold by fold.

Each tuned method is reported two ways: `nested` (the honest score) and
`paper` (the point of best mean over the outer folds themselves, scored on
them: the papers' protocol), with their difference, the optimism; and the
parameters chosen in each outer fold.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from dtcli.errors import ParameterError
from dtcli.crossval.methods import Tuned
from dtcli.crossval.runner import mean_std, repeat_means
from dtcli.crossval.tasks import Protocol, TreeOptions
from dtcli.tuning.grid import SELECTIONS, default_grid
from dtcli.tuning.search import Nested, Search, follow, nested_many


def run_tuned(names, datasets, methods: Sequence[Tuned], grid: dict | None,
              options: TreeOptions, protocol: Protocol, inner: Protocol, metric: str,
              **run) -> dict[str, list[Nested]]:
    """Each tuned method's `Nested` per dataset, leaders before their followers."""
    done: dict[str, list[Nested]] = {}
    for method in sorted(methods, key=lambda m: m.leader is not None):
        own = dataclasses.replace(options, **dict(method.options)).check()
        search = Search(method.criterion, method_grid(method, grid or {}, own), method.fixed,
                        own, metric)
        if method.leader is None:
            done[method.label] = nested_many(names, datasets, search, protocol, inner, **run)
        else:
            done[method.label] = follow(names, datasets, search, done[method.leader], protocol,
                                        **run)
    return done


def method_grid(method: Tuned, grid: dict, options: TreeOptions) -> dict:
    """What `method` searches: the papers' grid of its auto parameters, with the --grid
    entries that apply to it (its criterion's parameters; tree options, a pruning
    method's parameters only where its trees are pruned by that method), so that one
    --grid serves PE (alpha) and ABI (alpha, beta), pruned and not, alike."""
    from dtcli import criteria
    from dtcli.pruning.methods import METHODS

    own = {p.name for p in criteria.get(method.criterion).params}
    others = {p.name for c in criteria.CRITERIA.values() for p in c.params} - own
    pruning = {name for spec in METHODS.values() for name in spec.params}
    used = set(METHODS[options.pruning].params) if options.pruning else set()
    fixed = {name for name, _ in method.fixed}
    applies = {name: values for name, values in grid.items() if name not in fixed and (
        name in own or name in used or (name not in pruning and name not in others))}
    return {**default_grid(method.criterion, method.tuned), **applies}


def folds_of(nested: Nested, selection: str) -> list[dict]:
    if selection not in SELECTIONS:
        raise ParameterError(f"--selection must be one of {', '.join(SELECTIONS)}")
    return nested.nested_folds() if selection == "nested" else nested.paper_folds()


def cell(folds: list[dict], metric: str, cv: int, repeats: int) -> tuple[float, float, float]:
    """(mean, std, std of the repeat means) of `metric` over fold results, as
    `runner.Grid.table` gives them for a fixed method."""
    values = [f["metrics"][metric] for f in folds]
    mean, std = mean_std(values)
    repeat_std = mean_std(repeat_means(folds, metric, cv))[1] if repeats > 1 else float("nan")
    return mean, std, repeat_std


def tuning_report(names: Sequence[str], nested: list[Nested], metric: str) -> dict:
    """Per dataset: `Nested.summary` (the tuning metric's nested and paper figures, the
    optimism, the points chosen) and the reported `metric` under both selections."""
    return {name: {**result.summary(),
                   "reported": {"metric": metric,
                                **{selection: mean_std([f["metrics"][metric]
                                                        for f in folds_of(result, selection)])[0]
                                   for selection in SELECTIONS}}}
            for name, result in zip(names, nested)}
