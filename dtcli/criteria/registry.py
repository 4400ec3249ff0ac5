"""Names, parameters and sources of the split criteria.

The registry is the only place that maps a criterion's name to its kernel
code; the engine sees an int code and a float64 parameter vector.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from dtcli.criteria import kernels
from dtcli.errors import ParameterError


@dataclass(frozen=True)
class Param:
    name: str
    default: float
    low: float = -math.inf
    high: float = math.inf
    low_open: bool = False  # low itself excluded
    high_open: bool = False
    excluded: tuple[float, ...] = ()

    def describe_range(self) -> str:
        left = "(" if self.low_open else "["
        right = ")" if self.high_open else "]"
        text = f"{left}{_fmt(self.low)}, {_fmt(self.high)}{right}"
        if self.excluded:
            text += " except " + ", ".join(_fmt(x) for x in self.excluded)
        return text

    def accepts(self, value: float) -> bool:
        if not math.isfinite(value) or value in self.excluded:
            return False
        above = value > self.low if self.low_open else value >= self.low
        below = value < self.high if self.high_open else value <= self.high
        return above and below


def _fmt(x: float) -> str:
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:g}"


@dataclass(frozen=True)
class Criterion:
    name: str
    code: int
    summary: str  # one line: what it is and when to use it
    source: str  # paper file and equation
    params: tuple[Param, ...] = ()
    # Only thresholds between value groups of different classes can win: true
    # for the decrease of a concave impurity (tests check it per criterion).
    boundary_points: bool = False

    def param_vector(self, values: Mapping[str, float] | None = None) -> np.ndarray:
        """Validated float64 parameter vector in declaration order."""
        values = dict(values or {})
        known = {p.name for p in self.params}
        for name in values:
            if name not in known:
                valid = ", ".join(sorted(known)) or "none"
                raise ParameterError(
                    f"criterion '{self.name}' has no parameter '{name}' (parameters: {valid})")
        vector = np.empty(max(len(self.params), 1), dtype=np.float64)
        vector[0] = 0.0
        for i, param in enumerate(self.params):
            try:
                value = float(values.get(param.name, param.default))
            except (TypeError, ValueError):
                raise ParameterError(
                    f"criterion '{self.name}': parameter {param.name}="
                    f"{values[param.name]!r} is not a number") from None
            if not param.accepts(value):
                raise ParameterError(
                    f"criterion '{self.name}': parameter {param.name}={value:g} is out of "
                    f"range; valid range is {param.describe_range()}")
            vector[i] = value
        return vector


CRITERIA: dict[str, Criterion] = {c.name: c for c in (
    Criterion("gini", kernels.GINI,
              "Gini index gain (CART); the usual default.",
              "gini-entropy-splitting.txt, section 1.1", boundary_points=True),
    Criterion("entropy", kernels.ENTROPY,
              "Shannon information gain in nats (ID3).",
              "gini-entropy-splitting.txt, eq. (1.1)", boundary_points=True),
    Criterion("gain-ratio", kernels.GAIN_RATIO,
              "Information gain over split information (C4.5); penalises unbalanced splits.",
              "tsallis-unified-criterion.txt, eq. (4)"),
)}


def get(name: str) -> Criterion:
    try:
        return CRITERIA[name]
    except KeyError:
        raise ParameterError(
            f"unknown criterion '{name}'; choose from {', '.join(CRITERIA)}") from None


def resolve(name: str, params: Mapping[str, float] | None = None) -> tuple[int, np.ndarray]:
    """Kernel code and validated parameter vector for a criterion name."""
    criterion = get(name)
    return criterion.code, criterion.param_vector(params)


def score(name: str, parent, left, right, params: Mapping[str, float] | None = None) -> float:
    """Score one split from count vectors, through the same kernels as the engine."""
    code, vector = resolve(name, params)
    parent = np.asarray(parent, dtype=np.float64)
    left = np.asarray(left, dtype=np.float64)
    right = np.asarray(right, dtype=np.float64)
    n_parent, n_left, n_right = parent.sum(), left.sum(), right.sum()
    term = kernels.node_term(code, vector, parent, n_parent)
    return kernels.split_score(code, vector, parent, left, right,
                               n_parent, n_left, n_right, term)
