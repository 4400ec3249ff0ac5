"""Remember the numba types of the arguments numba cannot type quickly.

A jitted function's dispatcher types each argument in C from a fingerprint,
except values it has no fingerprint for: an IntEnum member (a criterion's
kernel code: its class picks the compiled kernel) and any tuple holding one
(the criterion's (code, params, tables) record). Those it types in Python,
about 0.3 ms per call of a subtree grower on each fit, more than growing a
small tree takes. Their numba type depends only on the enum's class, the
arrays' dtype, dimensions, layout and flags and the scalars' Python types,
so `remember_types` keys the type on those and asks numba once per key.
"""
from __future__ import annotations

import enum

import numpy as np

_INT64 = range(-(1 << 63), 1 << 63)


def _key(value):
    """What the numba type of `value` depends on (see the module docstring)."""
    if isinstance(value, np.ndarray):
        flags = value.flags
        return (np.ndarray, value.dtype.str, value.ndim, flags.c_contiguous,
                flags.f_contiguous, flags.writeable, flags.aligned)
    if isinstance(value, tuple):  # a named tuple is typed by its class
        keys = tuple(map(_key, value))
        return None if None in keys else (type(value), *keys)
    if isinstance(value, enum.Enum) or value is None or isinstance(value, (float, np.generic)):
        return (type(value),)
    if isinstance(value, int):  # bool too; numba types a Python int by its range
        return (type(value), value in _INT64)
    return None  # anything else: numba's own typing, not remembered


def remember_types(dispatcher) -> None:
    """Type `dispatcher`'s unfingerprinted arguments from a table keyed by `_key`."""
    known: dict = {}
    typeof_pyval = dispatcher.typeof_pyval

    def remembered(value):
        key = _key(value)
        if key is None:
            return typeof_pyval(value)
        if key not in known:
            known[key] = typeof_pyval(value)
        return known[key]

    dispatcher.typeof_pyval = remembered
