"""The criteria as the engine calls them: a code picks the criterion's functions (jitted).

A criterion scores one candidate binary split from the class-count vectors of
the parent node and its two children plus a small parameter vector; larger is
better. It is split in two so that the engine pays once per node for what
depends only on the parent:

    term = node_term(code, params, tables, parent, n_parent, node)
    score = split_score(code, params, tables, parent, left, right,
                        n_parent, n_left, n_right, node, term)

`n_*` are the totals of the count vectors (passed because the engine tracks
them anyway); `node` is a scratch array (NODE_ROWS x classes) for constants
per class of the parent (`scratch_rows`); `tables` are counts.count_tables
(or counts.NO_TABLES). Counts are float64 so that sample weights fit the same code.

A criterion's functions form a `Kernel` record, declared in its registry
entry and written in the module of its family (impurity, dcsm, hellinger). Its
code is an int, but the only member of an IntEnum class of its own, which the
registry generates and which carries the kernel: numba types an IntEnum member
by its class, so the split searches (engine/searches.py) are compiled once per
criterion used, and the overloads below put only that criterion's arithmetic
into the scan loop, at the price of a first compilation of each criterion's
search (docs/criteria.md, "Speed and compilation"). The disk cache is keyed on the sources of every module that
defines kernels (jit/cache.py): an edit here recompiles what inlines it.
"""
from collections import namedtuple
from typing import Callable, NamedTuple

import numpy as np
from numba.core import types
from numba.core.errors import TypingError
from numba.extending import overload

from dtcli.jit.flags import njit

# The most scratch rows a criterion family uses (`scratch_rows`); the engine
# allocates this many per node.
NODE_ROWS = 6

# The engine takes a criterion's parameters as a tuple of this many floats, padded
# with zeros: a value of a tuple is in a register, where a scan's read of params[k]
# from an array is repeated at every threshold (a store to the scores might change
# it, as far as the compiler knows), which kept scans from vectorising.
PARAM_SLOTS = 3


def param_tuple(vector: np.ndarray) -> tuple[float, ...]:
    """A parameter vector as the engine takes it (PARAM_SLOTS floats)."""
    if len(vector) > PARAM_SLOTS:
        raise ValueError(f"at most {PARAM_SLOTS} criterion parameters, not {len(vector)}")
    return tuple(float(v) for v in vector) + (0.0,) * (PARAM_SLOTS - len(vector))


def scratch_rows(*names: str):
    """The rows of the scratch `node` that a criterion family's functions use, by name
    (a named tuple of row indices; numba reads it as constants).

    node_term writes per-class constants of the parent there for the score to read
    at every threshold: with more than two classes the compiler cannot keep them in
    registers and recomputed them per threshold. A score may also store its terms
    per class there, so that the loop computing them has no sum or maximum across
    classes and vectorises. Each family numbers its rows from 0: a node's scratch
    serves one criterion."""
    if len(names) > NODE_ROWS:
        raise ValueError(f"{len(names)} scratch rows; raise kernels.NODE_ROWS")
    return namedtuple("ScratchRows", names)(*range(len(names)))


class ByForm(NamedTuple):
    """A split score given per form of the count vectors (2-tuples or arrays), for
    when a branch on counts.is_pair is not enough: the other form's code is then
    not compiled at all (see PG and DCSM in the registry)."""
    pair: Callable
    many: Callable


def _no_tie_score(code, params, tables, parent, left, right, n_parent, n_left, n_right, node):
    return 0.0


def _unchanged(code, score):
    return score


class Kernel(NamedTuple):
    """A criterion's functions (see the module docstring). `tie_score` is a second
    measure that breaks ties, at most `tie_bound` (CCPDT); `finish` maps the score
    the scan compares to the criterion's value, monotonically (HDDT compares
    squared distances: one square root per scan, not per threshold)."""
    node_term: Callable
    split_score: Callable | ByForm
    tie_score: Callable = _no_tie_score
    tie_bound: float = 0.0
    finish: Callable = _unchanged

    @property
    def finishes(self) -> bool:
        """Whether the scan compares something other than the score (`finish` maps it)."""
        return self.finish is not _unchanged


def _form_of(function, parent_is_pair):
    """The function itself, or its form for these counts if given per form (ByForm)."""
    if isinstance(function, ByForm):
        return function.pair if parent_is_pair else function.many
    return function


def _kernel(code_type, which):
    """The `which` function of the Kernel of a code's numba type (an IntEnum class
    of one member, made by the registry, carrying its kernel)."""
    if not isinstance(code_type, types.IntEnumMember) or not hasattr(code_type.instance_class,
                                                                     "kernel"):
        raise TypingError(f"a criterion code must be a registry code (registry.get(name).code "
                          f"gives it), not {code_type}")
    return getattr(code_type.instance_class.kernel, which)


def node_term(code, params, tables, parent, n_parent, node):
    """The part of a criterion that depends on the parent only (computed once per
    (feature, node) pair, not per threshold), returned, and constants per class
    written into `node` (NODE_ROWS x classes).

    Jitted callers get the criterion's own function inlined (see the module
    docstring); Python callers run it uncompiled.
    """
    return code.kernel.node_term(code, params, tables, parent, n_parent, node)


def split_score(code, params, tables, parent, left, right, n_parent, n_left, n_right, node,
                term):
    """Score of one candidate split (larger is better); `term` and `node` are what
    `node_term` of the parent returned and wrote."""
    score = _form_of(code.kernel.split_score, isinstance(parent, tuple))
    return score(code, params, tables, parent, left, right, n_parent, n_left, n_right, node, term)


def tie_score(code, params, tables, parent, left, right, n_parent, n_left, n_right, node):
    """A criterion's tie-break term, 0 <= tie_score <= tie_bound(code): its score is
    split_score + tie_score. The engine adds it only where the sum could beat the
    best so far (`splitter.with_tie`), which picks the same split. 0 for most criteria."""
    return code.kernel.tie_score(code, params, tables, parent, left, right, n_parent, n_left,
                                 n_right, node)


def tie_bound(code):
    """The largest tie_score of the criterion; 0.0 if it has none (a constant of its
    compilation: the engine's tie code is dropped)."""
    return code.kernel.tie_bound


def finish_score(code, score):
    """The criterion's value of a score split_score (+ tie_score) gave; the scan compares
    scores, and finishes the best."""
    return code.kernel.finish(code, score)


@overload(node_term, inline="always")
def _node_term_of(code, params, tables, parent, n_parent, node):
    return _kernel(code, "node_term")


@overload(split_score, inline="always")
def _split_score_of(code, params, tables, parent, left, right, n_parent, n_left, n_right, node,
                    term):
    return _form_of(_kernel(code, "split_score"), isinstance(parent, types.BaseTuple))


@overload(tie_score, inline="always")
def _tie_score_of(code, params, tables, parent, left, right, n_parent, n_left, n_right, node):
    return _kernel(code, "tie_score")


@overload(tie_bound, inline="always")
def _tie_bound_of(code):
    bound = _kernel(code, "tie_bound")
    return lambda code: bound


@overload(finish_score, inline="always")
def _finish_score_of(code, score):
    return _kernel(code, "finish")


@njit
def score_split(code, params, tables, parent, left, right):
    """node_term, then split_score plus tie_score, finished, compiled: what
    `registry.score` calls."""
    n_parent, n_left, n_right = parent.sum(), left.sum(), right.sum()
    node = np.zeros((NODE_ROWS, parent.shape[0]))
    term = node_term(code, params, tables, parent, n_parent, node)
    return finish_score(code, split_score(code, params, tables, parent, left, right, n_parent,
                                          n_left, n_right, node, term)
                        + tie_score(code, params, tables, parent, left, right, n_parent, n_left,
                                    n_right, node))
