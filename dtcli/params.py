"""scikit-learn's parameter protocol (get_params, set_params, a repr of the changed
parameters), shared by the estimators: each lists its parameters in `PARAMS`."""
from __future__ import annotations

import numbers
from typing import Any

from dtcli.errors import ParameterError

INT64_MAX = 2**63 - 1
# The largest counts that can run, and that memory sized by them holds (the command
# line's options and the estimators take no more): one bound per shuffle in the
# sequential permutation test, a task per fold and repeat, a tree per estimator.
MAX_PERMUTATIONS = 1_000_000
MAX_REPEATS = 10_000
MAX_TREES = 100_000


class Parameters:
    PARAMS: tuple[str, ...] = ()

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.PARAMS}

    def set_params(self, **params):
        for name, value in params.items():
            if name not in self.PARAMS:
                raise ParameterError(f"unknown parameter '{name}' for {type(self).__name__}")
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        defaults = type(self)().get_params(deep=False)
        changed = {k: v for k, v in self.get_params(deep=False).items()
                   if not is_default(v, defaults[k])}
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in changed.items())})"


def is_default(value, default) -> bool:
    """Whether a parameter's value is its default (for repr)."""
    try:
        return bool(value == default)
    except ValueError:  # an array compares element-wise (a numpy mask of nominal_features)
        return False


def count_or_fraction(value, total: int, round_fraction=int) -> int | None:
    """scikit-learn's count-or-fraction parameters (max_features, max_samples): an
    integer in [1, total] as it is, a fraction in (0, 1] of total (rounded by
    `round_fraction`, at least 1); None for anything else."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value) if 1 <= value <= total else None
    if isinstance(value, numbers.Real) and 0.0 < value <= 1.0:
        return max(1, round_fraction(value * total))
    return None


def integer_param(estimator, name: str, low: int, allow_none: bool = False) -> int | None:
    """The estimator's parameter `name` as an integer >= low that fits an int64 (or None,
    if allowed)."""
    value = getattr(estimator, name)
    if value is None and allow_none:
        return None
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < low:
        raise ParameterError(f"{name} must be an integer >= {low}, got {value!r}")
    if value > INT64_MAX:
        raise ParameterError(f"{name} must be at most {INT64_MAX} (2^63 - 1), got {value}")
    return int(value)
