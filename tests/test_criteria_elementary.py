"""The criteria's vectorisable exp and log (dtcli/criteria/elementary.py) against the
C library's, over the ranges the kernels use."""
import math

import numba
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dtcli.criteria.elementary import exp_unit, fast_exp, fast_log, fast_power

ULPS = 8  # the module's promise

log_ = numba.njit(lambda x: fast_log(x))
exp_unit_ = numba.njit(lambda x: exp_unit(x))
exp_ = numba.njit(lambda x: fast_exp(x))
power_ = numba.njit(lambda x, exponent: fast_power(x, exponent))
for compiled in (log_, exp_unit_, exp_):
    compiled(1.0)  # compile now, not inside hypothesis' deadline
power_(0.5, 0.5)


def within_ulps(value, exact):
    return abs(value - exact) <= ULPS * math.ulp(exact)


@given(x=st.floats(min_value=2.3e-308, max_value=1.7e308))
def test_log(x):
    assert within_ulps(log_(x), math.log(x))


@pytest.mark.parametrize("x", [1.0, 2.0, 0.5, math.sqrt(2.0), math.nextafter(math.sqrt(2.0), 0),
                               1.0 + 2 ** -52, 1.0 - 2 ** -53, 2.3e-308, 1.7e308])
def test_log_at_the_edges_of_its_reduction(x):
    assert within_ulps(log_(x), math.log(x))


@given(x=st.floats(-0.01, 1.01))
def test_exp_on_the_unit_interval(x):
    assert within_ulps(exp_unit_(x), math.exp(x))


@given(x=st.floats(-708.0, 709.0))
def test_exp(x):
    assert within_ulps(exp_(x), math.exp(x))


@pytest.mark.parametrize("x", [0.0, -0.0, 1.0, -1.0, math.log(2.0) / 2, -math.log(2.0) / 2,
                               -708.0, 709.0])
def test_exp_at_the_edges_of_its_reduction(x):
    assert within_ulps(exp_(x), math.exp(x))


@given(x=st.floats(2.3e-308, 1.0), exponent=st.floats(0.01, 4.0))
def test_power_loses_only_what_the_rounding_of_its_exponent_costs(x, exponent):
    """e^(a ln x) carries ln x's rounding, |a ln x| units in the last place, into the
    result; the impurities it raises (PG) are in [0, 1]."""
    exact = x ** exponent
    if exact < 1e-300:  # fast_exp stops at e^-708
        return
    allowed = ULPS * max(1.0, abs(exponent * math.log(x)))
    assert abs(power_(x, exponent) - exact) <= allowed * math.ulp(exact)


@pytest.mark.parametrize("x", [0.0, -1e-17])
def test_power_of_zero_and_of_a_count_rounded_below_zero_is_zero(x):
    assert power_(x, 0.5) == 0.0
