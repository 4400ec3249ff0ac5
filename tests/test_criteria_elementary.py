"""The criteria's vectorisable exp and log (dtcli/criteria/elementary.py) against the
C library's, over the ranges the kernels use."""
import math

import numba
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dtcli.criteria.elementary import exp_unit, fast_log

ULPS = 8  # the module's promise

log_ = numba.njit(lambda x: fast_log(x))
exp_unit_ = numba.njit(lambda x: exp_unit(x))
for compiled in (log_, exp_unit_):
    compiled(1.0)  # compile now, not inside hypothesis' deadline


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
