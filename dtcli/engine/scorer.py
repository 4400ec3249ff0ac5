"""A criterion as the compiled drivers take it (searches.py makes them).

Its own module so that the growth step (level.py), which receives one for
its per-node test, need not import the searches, which import the growth
step's records.
"""
from typing import NamedTuple

import numpy as np

from dtcli.criteria.counts import CountTables
from dtcli.criteria.kernels import param_tuple


class Scorer(NamedTuple):
    """The addresses of a criterion's numeric and nominal searches (0: not needed, or no
    criterion at all), its parameters (kernels.param_tuple) and its count tables (a
    counts.CountTables whose every field is an array: an empty one where the search
    computes)."""

    numeric: np.int64
    nominal: np.int64
    params: tuple
    tables: CountTables


_EMPTY = np.zeros(0)
# No criterion: the screen of a fit without one, and the scorer of no per-node test.
NO_SCORER = Scorer(np.int64(0), np.int64(0), param_tuple(np.zeros(0)),
                   CountTables(_EMPTY, _EMPTY, _EMPTY, _EMPTY))
