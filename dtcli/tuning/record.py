"""The `tuning` block of a model file: how `dtree train --param q=auto` chose its values.

    "tuning": {"metric": "accuracy", "grid": {"q": [0.1, ..., 10.0]},
               "protocol": {"cv": 10, "repeats": 1, "seed": 0},
               "best_params": {"q": 2.6}, "best_score": 0.61,
               "results": [{"params": {"q": 0.1}, "mean": 0.55, "std": 0.08}, ...]}

`check_tuning` validates it on load: the types, the grid's points in `results`
in grid order, `best_params` a point of the grid and the values the model was
trained with (its criterion parameters or tree options).
"""
from __future__ import annotations

from collections.abc import Callable

from dtcli.reporting.report import METRICS, clean
from dtcli.model.check import is_finite, is_int


def tuning_record(result) -> dict:
    """The block for a `search.SearchResult`."""
    from dtcli.tuning.grid import describe

    protocol = result.protocol
    return clean({"metric": result.search.metric, "grid": describe(result.search.grid),
                  "protocol": {"cv": protocol.cv, "repeats": protocol.repeats,
                               "seed": protocol.seed},
                  "best_params": result.best_params, "best_score": result.best_score,
                  "results": result.results()})


def _whole(value, low: int) -> bool:
    return is_int(value) and value >= low


def check_tuning(block, params: dict, options: dict, fail: Callable[[str], None]) -> dict:
    """`block` if it is a valid tuning record of a model trained with criterion `params`
    and tree `options`; else fail(message) (which raises)."""
    from dtcli.tuning.grid import points

    if not isinstance(block, dict):
        fail("tuning must be an object")
    if not isinstance(block.get("metric"), str) or block["metric"] not in METRICS:
        fail(f"tuning.metric must be one of {', '.join(METRICS)}")
    grid = block.get("grid")
    if not isinstance(grid, dict) or not grid or not all(
            isinstance(v, list) and v and all(map(is_finite, v)) for v in grid.values()):
        fail("tuning.grid must map each parameter to a non-empty list of numbers")
    protocol = block.get("protocol")
    if not (isinstance(protocol, dict) and _whole(protocol.get("cv"), 2)
            and _whole(protocol.get("repeats"), 1) and _whole(protocol.get("seed"), 0)):
        fail("tuning.protocol must give cv (>= 2), repeats (>= 1) and seed (>= 0)")
    best = block.get("best_params")
    if not isinstance(best, dict) or set(best) != set(grid) or any(
            best[name] not in grid[name] for name in grid):
        fail("tuning.best_params must be a point of tuning.grid")
    for name, value in best.items():
        used = params.get(name, options.get(name))
        if used is None or float(used) != float(value):
            fail(f"tuning.best_params.{name} = {value:g} is not the value the tree was "
                 "trained with")
    if block.get("best_score") is not None and not is_finite(block["best_score"]):
        fail("tuning.best_score must be a number or null")
    results = block.get("results")
    expected = points(grid)
    if not isinstance(results, list) or len(results) != len(expected):
        fail(f"tuning.results must list the {len(expected)} points of tuning.grid")
    for i, (row, point) in enumerate(zip(results, expected)):
        if not (isinstance(row, dict) and row.get("params") == point and all(
                row.get(k) is None or is_finite(row.get(k)) for k in ("mean", "std"))):
            fail(f"tuning.results[{i}] must be {{params, mean, std}} of grid point {point}")
    return block
