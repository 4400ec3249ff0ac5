"""exp and log in plain arithmetic, for the criteria's scans (jitted, inlined).

numba compiles math.exp and math.log to calls of the C library, one value at a
time: a scan that calls one does not vectorise. These versions are a range
reduction (by the float's exponent bits for the log) plus a polynomial,
branch-free, so a scan that uses them can: DCSM's exp per class, Renyi's log
per child (with count tables), two-class CCPDT's logs and two-class PG's power
per child (docs/criteria.md, "Speed and compilation", has the measurements).
Where count tables keep the scan from vectorising anyway (gathers do not pay on
this hardware), the C library's functions are as fast, and stay. Accuracy:
within 8 units in the last place (fast_power: 8 units times |exponent ln x|,
the rounding of its logarithm carried into the power;
tests/test_criteria_elementary.py checks against math).
"""
import math

import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

from dtcli.jit.flags import inline_njit


@intrinsic
def _bits_of(typingctx, x):
    """The IEEE 754 bits of a float64, as an int64."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))
    return types.int64(types.float64), codegen


@intrinsic
def _float_of(typingctx, bits):
    """The float64 with these IEEE 754 bits."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(types.int64), codegen


_LN2_HI = 6.93147180369123816490e-01  # ln 2 in two parts: k ln 2 exact for |k| < 2^20
_LN2_LO = 1.90821492927058770002e-10
_SQRT_2 = math.sqrt(2.0)
_MANTISSA = (1 << 52) - 1
_ONE_BITS = 1023 << 52
# 2 / (2k + 1), k = 1..10: ln m = 2 atanh f = 2f + f sum_k 2 f^2k / (2k + 1)
_A1, _A2, _A3, _A4, _A5, _A6, _A7, _A8, _A9, _A10 = (2.0 / (2 * k + 1) for k in range(1, 11))
# 1 / k!, k = 2..13
_F2, _F3, _F4, _F5, _F6, _F7, _F8, _F9, _F10, _F11, _F12, _F13 = (
    1.0 / math.factorial(k) for k in range(2, 14))
_SQRT_E = math.exp(0.5)


@inline_njit
def fast_log(x):
    """ln x for a positive, normal, finite x: x = m 2^e with m in [sqrt(2)/2, sqrt(2)),
    ln m = 2 atanh((m - 1) / (m + 1)) by its series to f^21 (|f| < 0.172: remainder
    below 1e-18), plus e ln 2."""
    bits = _bits_of(x)
    m = _float_of((bits & _MANTISSA) | _ONE_BITS)  # in [1, 2)
    e = (bits >> 52) - 1023
    high = m > _SQRT_2
    m = m * 0.5 if high else m
    e = e + 1 if high else e
    f = (m - 1.0) / (m + 1.0)
    f2 = f * f
    f4 = f2 * f2
    f8 = f4 * f4
    series = ((_A1 + f2 * _A2) + f4 * (_A3 + f2 * _A4)
              + f8 * ((_A5 + f2 * _A6) + f4 * (_A7 + f2 * _A8) + f8 * (_A9 + f2 * _A10)))
    k = float(e)
    return k * _LN2_HI + (2.0 * f + (f * f2 * series + k * _LN2_LO))


@inline_njit
def _exp_reduced(r):
    """e^r for |r| <= ln 2 / 2 (0.347): Taylor to degree 13 (remainder < 5e-18;
    < 1e-20 for |r| <= 1/4), in Estrin's scheme (short dependency chains)."""
    r2 = r * r
    r4 = r2 * r2
    r8 = r4 * r4
    low = (1.0 + r) + r2 * (_F2 + r * _F3)
    mid = (_F4 + r * _F5) + r2 * (_F6 + r * _F7)
    high = (_F8 + r * _F9) + r2 * (_F10 + r * _F11) + r4 * (_F12 + r * _F13)
    return low + r4 * mid + r8 * high


@inline_njit
def exp_unit(x):
    """e^x for x in [0, 1] (a little beyond is fine), with no range reduction:
    e^0.5 (e^y)^2, y = (x - 0.5) / 2. DCSM's exponents delta (1 - a^2) lie there."""
    p = _exp_reduced((x - 0.5) * 0.5)
    return _SQRT_E * (p * p)


_INV_LN2 = 1.0 / math.log(2.0)
_SMALLEST_NORMAL = 2.2250738585072014e-308  # fast_log's domain starts here


@inline_njit
def fast_exp(x):
    """e^x for -708 <= x <= 709 (below, e^-708 = 3.3e-308: 2^k stays a normal float):
    x = k ln 2 + r, |r| <= ln 2 / 2, e^r by _exp_reduced's series (remainder below
    5e-18 there), times 2^k built from its exponent bits."""
    x = max(x, -708.0)
    k = math.floor(x * _INV_LN2 + 0.5)
    r = (x - k * _LN2_HI) - k * _LN2_LO
    return _exp_reduced(r) * _float_of((np.int64(k) + 1023) << 52)


@inline_njit
def fast_power(x, exponent):
    """x ** exponent for x >= 0 and exponent > 0, as e^(exponent ln x) by fast_exp and
    fast_log, branch-free: two-class scans that use it vectorise. 0 at 0 and below
    (a count rounded a hair below); results below e^-708 are not exact (fast_exp).
    Relative error about |exponent ln x| units in the last place."""
    y = fast_exp(exponent * fast_log(max(x, _SMALLEST_NORMAL)))  # either way: no branch
    return y if x > 0.0 else 0.0
