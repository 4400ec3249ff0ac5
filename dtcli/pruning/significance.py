"""S-pruning: keep a split only if a permutation test finds its score significant.

PIDT's S-condition (parameterised-impurities-s-pruning.txt, section 3): at a
node N with data D whose best split is on attribute Xc with gain G, shuffle
the labels of D t times and measure the best gain of Xc again each time,
giving a vector V of t gains. The p-value is "the fraction of cases in which
the gain obtained with the random labels was higher than or equal to the gain
obtained with the original labels": p = #{v in V: v >= G} / t (the observed
labels are not counted, in the numerator or the denominator). If p > s, the
significance level, the S-condition holds and N becomes a leaf.

Here the gain is the criterion's own score of the split (an impurity
decrease for the impurities; a gain ratio, a Hellinger distance, DCSM's or
CCPDT's score for the others: the statistic of the test is whatever the
search maximises), and "measure the best gain of Xc again" is the engine's
own search of that one feature, with the same candidate thresholds,
`min_samples_leaf`, missing-value passes, nominal subset search and tie rule
(permutation.py).

The paper prunes while growing, and so does this: the test is the growth
step's per-node test (level.accept_splits, `PermutationTest` here), run on
each node whose split the search chose, before its rows are routed; a node
that fails becomes a leaf and its subtree is never grown.

Two modes:

- `exact`: all t shuffles at every tested node, the paper's procedure.
- `default`: the same decisions, for a fraction of the cost, at a stated risk.
  For a two-class score convex in a threshold's class counts (Gini, Shannon
  entropy, HDDT: registry.EngineFlags.convex_in_counts) on a numeric feature with unit weights, no
  shuffles: a node whose
  hypergeometric bound on p (`permutation._hypergeometric_bound`) is at most
  s splits, and a node without missing values of the feature gets its exact
  p over all shuffles (`permutation._lattice_p_value`). Elsewhere shuffles
  are drawn one at a time (the same shuffles as `exact`, in the same order)
  and the node is decided as soon as one of these holds: more than s t
  shuffles reached G (exact mode would prune it too); too few shuffles are
  left for exact mode to prune; or the Clopper-Pearson interval of p after L
  shuffles, at level RISK / t per look, lies wholly below or above s
  (`permutation.sequential_bounds`). Risk: a node decided by the interval is
  decided as its true p-value (over all shuffles) would be, except with
  probability at most RISK (10^-3); the bound and the exact count are never
  wrong about the true p-value; the other stops agree with exact mode given
  the same shuffles. docs/pruning-significance.md has the details.

`p_values` hold p for every tested node (NaN elsewhere): exact, #{v >= G}/t;
default, #{v >= G}/L after the L shuffles drawn, or where none were
(`n_shuffles` 0) the bound (at most s) or the exact p.
"""
from __future__ import annotations

import functools
import numbers
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from dtcli.criteria.registry import by_code
from dtcli.engine.builder import Prepared, StopRules, grow
from dtcli.engine.forms import Part
from dtcli.engine.nodes import n_slots
from dtcli.engine.searches import compiled
from dtcli.errors import ParameterError
from dtcli.jit.indirect import address
from dtcli.params import MAX_PERMUTATIONS
from dtcli.engine.tree import Tree

MODES = ("default", "exact")
# Per node, the chance that the default mode's Clopper-Pearson stop decides otherwise
# than the true p-value would.
RISK = 1e-3


def _bounded(code) -> tuple[bool, bool]:
    """Whether the hypergeometric bound and the exact lattice count hold for the criterion
    of this engine code (registry.EngineFlags.convex_in_counts), and whether its scan
    compares squares (a finish, such as HDDT's square root, maps them to its score)."""
    criterion = by_code(code)
    return criterion.flags.convex_in_counts, criterion.kernel.finishes


# What a test may cost: a request whose estimated work on one core exceeds
# MAX_TEST_SECONDS is refused before it starts (MAX_PERMUTATIONS bounds memory only).
# The estimate is one level of the tree (a level's tested nodes hold at most all
# rows, each shuffled `permutations` times; a tree tests its rows once per level, so
# the whole test takes that times the depth it reaches) plus, in the default mode, the
# stopping table (permutation.sequential_bounds, about s x t^2 / 2 steps, computed
# once per process). Measured (docs/pruning-significance.md, "What a test costs"):
# a shuffle costs SHUFFLE_SECONDS plus, per row, ROW_SECONDS and CLASS_SECONDS per
# class; a step of the table TABLE_STEP_SECONDS.
MAX_TEST_SECONDS = 3600.0
SHUFFLE_SECONDS = 4e-6
ROW_SECONDS = 30e-9
CLASS_SECONDS = 5e-9
TABLE_STEP_SECONDS = 80e-9


def _work_seconds(permutations: float, n_rows: int, n_classes: int,
                  significance: float, exact: bool) -> tuple[float, float]:
    """(one level's shuffles, the stopping table) in estimated seconds on one core."""
    shuffle = SHUFFLE_SECONDS + n_rows * (ROW_SECONDS + n_classes * CLASS_SECONDS)
    table = 0.0 if exact else (TABLE_STEP_SECONDS * min(max(significance, 1e-3), 1.0)
                               * permutations * permutations / 2)
    return permutations * shuffle, table


def _duration(seconds: float) -> str:
    return f"{seconds / 3600:.1f} hours" if seconds >= 5400 else f"{seconds / 60:.0f} minutes"


def check_work(permutations: int, significance: float, n_rows: int, n_classes: int,
               exact: bool) -> None:
    """Refuse, in one line, a permutation test whose estimated work exceeds
    MAX_TEST_SECONDS (module constants), saying the estimate and how to lower it."""
    level, table = _work_seconds(permutations, n_rows, n_classes, significance, exact)
    if level + table <= MAX_TEST_SECONDS:
        return
    # the most permutations that fit: the root of table x (t / T)^2 + level x t / T = limit
    a, b = table / permutations ** 2, level / permutations
    most = int(MAX_TEST_SECONDS / b if a == 0 else
               (-b + (b * b + 4 * a * MAX_TEST_SECONDS) ** 0.5) / (2 * a))
    parts = [f"{_duration(level)} a level of the tree"] + (
        [f"{_duration(table)} for the sequential stopping table"] if table >= 60 else [])
    raise ParameterError(
        f"permutations={permutations} on {n_rows} rows of {n_classes} classes could take "
        f"S-pruning's test about {' and '.join(parts)} on one core, more than "
        f"{MAX_TEST_SECONDS / 3600:g} hour: use at most {max(most, 1)} permutations"
        + (", or mode exact" if table > level else ""))


def check_parameters(significance, permutations, mode) -> None:
    if (not isinstance(significance, numbers.Real) or isinstance(significance, bool)
            or not 0.0 <= significance <= 1.0):
        raise ParameterError(f"significance must be a number in [0, 1], got {significance!r}")
    if (not isinstance(permutations, numbers.Integral) or isinstance(permutations, bool)
            or permutations < 1):
        raise ParameterError(f"permutations must be an integer >= 1, got {permutations!r}")
    if permutations > MAX_PERMUTATIONS:  # the sequential test keeps a bound per shuffle
        raise ParameterError(f"permutations must be at most {MAX_PERMUTATIONS}, got "
                             f"{permutations}")
    if mode not in MODES:
        raise ParameterError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")


class PermutationTest:
    """S-pruning as the growth step's test of each split (builder.grow's `test`):
    significance level s, t = `permutations` shuffles per node, the shuffles keyed by
    `seed` (rng.seed_of(random_state)) and each node's key (level.give_keys: a hash of
    its path from the root, whose key is the growth's `stream`). After growth,
    `p_values` and `n_shuffles` hold each node of the tree's p-value and shuffles
    scored (NaN and -1 where not tested)."""

    def __init__(self, significance: float = 0.05, permutations: int = 1000,
                 mode: str = "default", seed: int = 0):
        check_parameters(significance, permutations, mode)
        self.significance = float(significance)
        self.permutations = int(permutations)
        self.exact = mode == "exact"
        self.seed = seed
        self._record = None

    def record(self, criterion, searches, n_rows: int, n_classes: int, unit_weight: bool,
               root_key: int):
        """The level.SplitTest of a fit (builder.grow) of a registry.EngineCriterion with
        its searches.Searches, on n_rows rows of n_classes classes, unit-weighted or
        not, the root's key `root_key`."""
        from dtcli.engine.level import SplitTest
        from dtcli.pruning.permutation import BOUND, log_factorials, p_value_bound

        code = criterion.code
        check_work(self.permutations, self.significance, n_rows, n_classes, self.exact)
        convex, squares = _bounded(code)
        bounded = not self.exact and n_classes == 2 and unit_weight and convex
        tables = "".join("1" if f else "0" for f in searches.present)
        with _announced([Part("spruning-test")]
                        + ([Part(f"spruning-bound-{code.name.lower()}_t{tables}")] if bounded
                           else [])):
            test = _test_address()
            bound = (compiled(p_value_bound, (code, searches.present), BOUND)[1] if bounded
                     else np.int64(0))
        split_at_most, leaf_from = ((np.zeros(0, np.int64), np.zeros(0, np.int64)) if self.exact
                                    else _sequential_bounds(self.permutations, self.significance))
        self._record = SplitTest(
            test, searches.scorer, bound,
            (np.int64(self.seed), np.int64(self.permutations), self.significance, self.exact,
             convex and squares),
            (split_at_most, leaf_from, log_factorials(np.int64(n_rows))),
            np.empty(n_slots(n_rows), np.uint64), np.empty(n_slots(n_rows), np.uint8),
            np.full(n_slots(n_rows), np.nan), np.full(n_slots(n_rows), -1, np.int64),
            np.zeros(1, np.uint8))
        self._record.keys[0] = np.uint64(root_key)
        return self._record

    def collect(self, slots: np.ndarray) -> None:
        """Each node's results, from the slot of each node of the grown tree."""
        self.p_values = self._record.p_values[slots]
        self.n_shuffles = self._record.shuffles[slots]
        self._record = None


@dataclass(frozen=True)
class SPruning:
    tree: Tree  # the S-pruned tree
    p_values: np.ndarray  # per node, NaN where not tested
    n_shuffles: np.ndarray  # shuffles scored per node, -1 where not tested


def s_prune(prepared: Prepared, criterion, rules: StopRules, weights: np.ndarray | None = None,
            *, significance: float = 0.05, permutations: int = 1000, mode: str = "default",
            seed: int = 0, stream: int = 0, n_threads: int | None = None) -> SPruning:
    """The tree builder.grow(prepared, criterion, rules, weights, stream=stream) grows,
    S-pruned while it grows at significance level s with t = `permutations` shuffles per
    node (`PermutationTest`); the shuffles are keyed by `seed` and each node's path from
    the root: the result depends on nothing else, not on `n_threads`."""
    test = PermutationTest(significance, permutations, mode, seed)
    tree = grow(prepared, criterion, rules, weights, n_threads, stream=stream, test=test)
    return SPruning(tree, test.p_values, test.n_shuffles)


@contextmanager
def _announced(parts: list):
    """S-pruning's kernels compile (or load) on first use: cold ones are announced with
    progress as any first compilation is (jit/notice.py), and marked warm after."""
    from dtcli.engine.forms import is_warm, mark
    from dtcli.jit.cache import cache_root
    from dtcli.jit.notice import compile_progress

    cold = [part for part in parts if not is_warm(part)]
    if not cold or cache_root() is None:
        yield
        return
    with compile_progress(len(cold), "S-pruning's permutation test",
                          str(cache_root().parent)) as step:
        yield
        for part in cold:
            mark(part)
            step(part.name)


@functools.lru_cache(maxsize=1)
def _test_address() -> np.int64:
    """The address of permutation.test_split (compiled, or loaded, on first use)."""
    from dtcli.engine.level import TEST
    from dtcli.pruning.permutation import test_split

    return np.int64(address(test_split, TEST))


@functools.lru_cache(maxsize=8)
def _sequential_bounds(permutations: int, significance: float):
    """permutation.sequential_bounds at RISK, once per (t, s) (every fold of a
    cross-validation asks again; shared, never written: the growth step's SplitTest
    takes writable arrays, so that it is compiled for one type)."""
    from dtcli.pruning.permutation import sequential_bounds

    return sequential_bounds(permutations, significance, RISK)
