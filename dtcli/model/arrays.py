"""Compact arrays in model files: dtype, shape and the little-endian bytes in base64
(a forest's trees, Naive Bayes leaves), read back with every field checked."""
from __future__ import annotations

import base64
import binascii
import math

import numpy as np

_DTYPES = {"int64": "<i8", "float64": "<f8", "uint8": "u1"}


def encode_array(array: np.ndarray, dtype: str) -> dict:
    """`array` as a compact array of `dtype` (a key of _DTYPES)."""
    data = np.ascontiguousarray(array, dtype=_DTYPES[dtype]).tobytes()
    return {"dtype": dtype, "shape": list(array.shape), "data": base64.b64encode(data).decode()}


def decode_compact(value, dtype: str, shape, fail) -> np.ndarray:
    """The array a compact array `value` holds, of `dtype` and `shape` (a tuple; an int:
    any shape of that many dimensions); for anything else `fail(message)` raises, the
    message following the array's name."""
    ndim = shape if isinstance(shape, int) else len(shape)
    given = value.get("shape") if isinstance(value, dict) else None
    if (not isinstance(value, dict) or value.get("dtype") != dtype
            or not isinstance(given, list) or len(given) != ndim
            or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in given)
            or (not isinstance(shape, int) and given != list(shape))
            or not isinstance(value.get("data"), str)):
        fail(f" must be a compact {dtype} array of "
             + (f"{ndim} dimensions" if isinstance(shape, int) else f"shape {list(shape)}"))
    try:
        data = base64.b64decode(value["data"], validate=True)
    except (binascii.Error, ValueError):
        fail(".data is not base64")
    code = np.dtype(_DTYPES[dtype])
    if len(data) != code.itemsize * math.prod(given):  # (exact: no int64 to wrap around)
        fail(f" holds {len(data)} bytes, not {given} {dtype} values")
    return np.frombuffer(data, dtype=code).astype(code.newbyteorder("="), copy=True).reshape(given)
