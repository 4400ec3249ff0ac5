"""Parameter grids: parsing `NAME=SPEC` entries, the papers' default grids, grid points.

A grid entry names one parameter and its values: a range `q=0.1:10:0.1`
(start, stop and step, stop included when the steps reach it), a list
`q=0.5,1.5,2.5`, or one value. Several entries make the cartesian product of
their values, the first entry varying slowest. Ranges are counted in decimal
arithmetic, so `0.1:10:0.1` is exactly the 100 values 0.1, 0.2, ..., 10.0 as
they are written (0.3, not 0.30000000000000004), and a grid point's value is
the float its text reads as.

A parameter is either one of the criterion's (`q`, `alpha`, ...) or a tree
option (`TreeOptions`' fields: `min_samples_leaf`, `max_depth`, ...): any
estimator parameter that a cross-validation task carries can be tuned.
"""
from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation

from dtcli.errors import ParameterError

# Most values a grid may hold (a typo such as q=0:10:0.0001 would run for days).
MAX_POINTS = 100_000
AUTO = "auto"
# How evaluate and compare score a tuned method (dtcli.tuning.methods).
SELECTIONS = ("nested", "paper")


def _tenths(low: int, high: int) -> tuple[float, ...]:
    return tuple(float(Decimal(i) / 10) for i in range(low, high + 1))


def _twentieths(low: int, high: int) -> tuple[float, ...]:
    return tuple(float(Decimal(i) / 20) for i in range(low, high + 1))


# The grids the papers searched, by parameter name: Tsallis paper section 5.1 (q in
# [0.1, 10] by 0.1); PIDT paper section 4.1 (alpha and beta in {0.05, 0.10, ..., 1.0};
# gamma in {0.1, ..., 0.9, 1.5, 2.0, ..., 5.0}; S-pruning's significance in {0.01, 0.05,
# 0.1}). `significance` is a tree option, the only one with a paper's grid (OPTION_GRIDS).
DEFAULT_GRIDS: dict[str, tuple[float, ...]] = {
    "q": _tenths(1, 100),
    "alpha": _twentieths(1, 20),
    "beta": _twentieths(1, 20),
    "gamma": _tenths(1, 9) + tuple(float(Decimal(i) / 2) for i in range(3, 11)),
    "significance": (0.01, 0.05, 0.1),
}
OPTION_GRIDS = ("significance",)


def _number(text: str, entry: str) -> Decimal:
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        raise ParameterError(f"--grid: {text.strip()!r} in {entry!r} is not a number") from None
    if not value.is_finite():
        raise ParameterError(f"--grid: {text.strip()!r} in {entry!r} is not a finite number")
    return value


def parse_values(spec: str, entry: str) -> tuple[float, ...]:
    """The values of one grid entry's right-hand side: `START:STOP:STEP`, `A,B,C` or `A`."""
    if ":" in spec:
        parts = spec.split(":")
        if len(parts) != 3:
            raise ParameterError(f"--grid: expected START:STOP:STEP in {entry!r}")
        start, stop, step = (_number(p, entry) for p in parts)
        if step <= 0 or stop < start:
            raise ParameterError(f"--grid: {entry!r} needs STEP > 0 and STOP >= START")
        count = int((stop - start) / step) + 1
        if count > MAX_POINTS:
            raise ParameterError(f"--grid: {entry!r} has {count} values, more than {MAX_POINTS}")
        return tuple(float(start + i * step) for i in range(count))
    values = tuple(float(_number(p, entry)) for p in spec.split(","))
    if len(set(values)) != len(values):
        raise ParameterError(f"--grid: {entry!r} lists a value twice")
    return values


def parse_grid(entries: Sequence[str]) -> dict[str, tuple[float, ...]]:
    """--grid values (`NAME=SPEC`, repeatable, or several separated by spaces) as
    {name: values}, in the order given; a name given twice is an error."""
    grid: dict[str, tuple[float, ...]] = {}
    for entry in (part for value in entries for part in value.split()):
        name, sep, spec = entry.partition("=")
        name = name.strip()
        if not sep or not name or not spec.strip():
            raise ParameterError(f"--grid: expected NAME=VALUES, got {entry!r}")
        if name in grid:
            raise ParameterError(f"--grid: {name} is given twice; give each parameter once")
        grid[name] = parse_values(spec, entry)
    return grid


def option_names() -> tuple[str, ...]:
    """The tree options a grid may vary (the fields of a task's `TreeOptions`)."""
    from dtcli.crossval.tree_options import RESAMPLING, TreeOptions

    return tuple(f.name for f in dataclasses.fields(TreeOptions)
                 if f.name not in ("class_weight", *RESAMPLING))


def default_grid(criterion: str, names: Sequence[str] | None = None) -> dict[str, tuple[float, ...]]:
    """The papers' grid of every parameter of `criterion` in `names` (default: all of its
    parameters that have one), or of a tree option that has one (`OPTION_GRIDS`: S-pruning's
    significance); ParameterError if a named parameter has none."""
    from dtcli import criteria

    params = [p.name for p in criteria.get(criterion).params]
    wanted = params if names is None else list(names)
    grid = {}
    for name in wanted:
        if name in OPTION_GRIDS:
            grid[name] = DEFAULT_GRIDS[name]
            continue
        if name not in params:
            raise ParameterError(f"criterion '{criterion}' has no parameter '{name}' "
                                 f"(parameters: {', '.join(params) or 'none'})")
        if name not in DEFAULT_GRIDS:
            raise ParameterError(f"no default grid for {criterion} parameter {name!r}; give "
                                 f"--grid {name}=VALUES")
        grid[name] = DEFAULT_GRIDS[name]
    if not grid:
        raise ParameterError(f"criterion {criterion!r} has no parameter to tune; give --grid")
    return grid


def check_names(criterion: str, grid: Mapping[str, Sequence[float]]) -> None:
    """ParameterError unless every name is a parameter of the criterion or a tree option,
    and every value is in the parameter's range."""
    from dtcli import criteria

    criterion_params = {p.name for p in criteria.get(criterion).params}
    options = option_names()
    for name, values in grid.items():
        if name in criterion_params:
            for value in values:
                criteria.get(criterion).param_vector({name: value})
        elif name not in options:
            valid = ", ".join(sorted(criterion_params) + list(options))
            raise ParameterError(f"--grid: {name!r} is neither a parameter of {criterion} nor "
                                 f"a tree option (valid: {valid})")
    size = 1
    for values in grid.values():
        size *= len(values)
    if size > MAX_POINTS:
        raise ParameterError(f"--grid has {size} points, more than {MAX_POINTS}")


def auto_options(tree: Mapping) -> list[str]:
    """The tree options of a command's (or estimator's) parameters given as "auto"."""
    return [name for name in OPTION_GRIDS if tree.get(name) == AUTO]


def points(grid: Mapping[str, Sequence[float]]) -> list[dict[str, float]]:
    """The grid's points (dicts name -> value), the first parameter varying slowest."""
    names = list(grid)
    return [dict(zip(names, combo)) for combo in itertools.product(*(grid[n] for n in names))]


def describe(grid: Mapping[str, Sequence[float]]) -> dict[str, list[float]]:
    """The grid as JSON records it."""
    return {name: [float(v) for v in values] for name, values in grid.items()}
