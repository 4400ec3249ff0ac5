"""Names, parameters and sources of the split criteria.

The registry is the only place that maps a criterion's name to its kernel
code; the engine sees an int code (an IntEnum member: see kernels) and a
float64 parameter vector. docs/criteria.md explains every entry.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Mapping, NamedTuple

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
    choices: tuple[float, ...] = ()  # when given, the only values allowed (a switch: 0, 1)

    def describe_range(self) -> str:
        if self.choices:
            return " or ".join(_fmt(x) for x in self.choices)
        left = "(" if self.low_open or math.isinf(self.low) else "["
        right = ")" if self.high_open or math.isinf(self.high) else "]"
        text = f"{left}{_fmt(self.low)}, {_fmt(self.high)}{right}"
        if self.excluded:
            text += " except " + ", ".join(_fmt(x) for x in self.excluded)
        return text

    def accepts(self, value: float) -> bool:
        if not math.isfinite(value) or value in self.excluded:
            return False
        if self.choices:
            return value in self.choices
        above = value > self.low if self.low_open else value >= self.low
        below = value < self.high if self.high_open else value <= self.high
        return above and below


def _fmt(x: float) -> str:
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:g}"


class EngineCriterion(NamedTuple):
    """A criterion as the engine runs it, at given parameters (`Criterion.engine`)."""
    code: int  # kernels code (an IntEnum member)
    params: np.ndarray  # float64 parameter vector
    tables: tuple[str, ...]  # count tables its kernel reads (kernels.TABLE_KINDS)
    skip_runs: bool  # thresholds inside runs of one class cannot win (boundary points)
    score_all_two_class: bool  # but two-class fits score every threshold anyway
    screen: "EngineCriterion | None"  # the criterion screening features (C4.5), if any

    def compiled_form(self) -> tuple:
        """What selects the engine's compiled code: everything but the parameter vector."""
        screen = self.screen.compiled_form() if self.screen is not None else ()
        return (int(self.code), *self.tables, int(self.skip_runs),
                int(self.score_all_two_class), *screen)


@dataclass(frozen=True)
class Criterion:
    name: str
    code: int  # a kernels code: an int whose class tells numba which kernel to compile
    summary: str  # one line: what it is and when to use it
    source: str  # paper file and equation
    params: tuple[Param, ...] = ()
    # Only thresholds between value groups of different classes can win: true
    # when the score is (quasi-)convex along a run of one class, e.g. the decrease of a
    # concave impurity or a gain ratio (tests check it per criterion, on the reference
    # scores along random runs and in the engine against every threshold).
    boundary_points: bool = False
    # (parameter, bound): boundary points hold where the parameter is at most the bound
    # (Renyi entropy is concave for gamma <= 1 only).
    boundary_points_up_to: tuple[str, float] | None = None
    # Two-class fits score every threshold instead of skipping runs: finding the runs
    # costs more than the score when it is cheap and vectorised (measured per criterion,
    # 100k x 20, one thread: gini 0.32 s against 0.50 s skipping; iHDw 0.45 against
    # 0.48 s; iHD 0.38-0.40 against 0.41 s; but CCPDT 0.63 against 0.47 s and DCSM
    # 1.07 against 0.94 s, whose scores vectorise too, skip).
    score_all_two_class: bool = False
    # Parameter values at which the criterion is a classic one, exactly (Tsallis
    # q = 2 is Gini): ((("q", 2.0),), "gini"). The engine then runs the classic
    # criterion, so the trees are identical and as fast; the model keeps the name.
    reduces_to: tuple[tuple[tuple[tuple[str, float], ...], str], ...] = ()
    # The count tables its kernel reads (kernels.TABLE_KINDS), made once per unweighted fit.
    tables: tuple[str, ...] = ()
    # C4.5's average-gain rule, behind a switch parameter: (switch, screening criterion).
    # With the switch at 1, only the features whose best split scores at least the
    # average under the screening criterion compete (see `screen_for`).
    screen: tuple[str, str] | None = None

    def for_engine(self, values: Mapping[str, float] | None = None) -> tuple[Criterion, np.ndarray]:
        """The criterion the engine runs for these parameters, and its parameter vector."""
        vector = self.param_vector(values)
        given = {p.name: float(v) for p, v in zip(self.params, vector)}
        for point, classic in self.reduces_to:
            if all(given[name] == value for name, value in point):
                engine = CRITERIA[classic]
                return engine, engine.param_vector()
        if self.boundary_points_up_to is not None:
            name, bound = self.boundary_points_up_to
            if given[name] <= bound:
                return dataclasses.replace(self, boundary_points=True), vector
        return self, vector

    def engine(self, values: Mapping[str, float] | None = None) -> EngineCriterion:
        """What the engine runs for these parameters: `for_engine` and `screen_for`."""
        runs, vector = self.for_engine(values)
        screen = self.screen_for(values)
        return EngineCriterion(runs.code, vector, runs.tables, runs.boundary_points,
                               runs.score_all_two_class, screen and screen.engine())

    def screen_for(self, values: Mapping[str, float] | None = None) -> Criterion | None:
        """The criterion that screens features for these parameters, if any.

        Quinlan's C4.5 (1993, chapter 2) takes the test of largest gain ratio
        among those whose information gain is at least the average gain of the
        tests examined. The engine scores every feature's best split by both
        criteria; a node's features whose screening score is below the average
        over its features with a valid split drop out, and the best of the rest
        wins (engine.splitter.pick_screened).
        """
        if self.screen is None:
            return None
        switch, by = self.screen
        vector = self.param_vector(values)
        on = vector[[p.name for p in self.params].index(switch)] == 1.0
        return CRITERIA[by] if on else None

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


_TSALLIS = ("Y. Wang and S.-T. Xia, Unifying attribute splitting criteria of decision trees by "
            "Tsallis entropy, IEEE ICASSP 2017")
_PIDT = ("D. Stamate, W. Alghamdi, D. Stahl, D. Logofatu and A. Zamyatin, PIDT: a novel decision "
         "tree algorithm based on parameterised impurities and statistical pruning approaches, "
         "AIAI 2018 (IFIP AICT 519, Springer)")
_IHD = ("P. S. Akash, M. E. Kadir, A. A. Ali and M. Shoyaib, Inter-node Hellinger Distance based "
        "Decision Tree, IJCAI 2019")


def _order(name: str, default: float) -> Param:
    """An entropy order (Tsallis q, Renyi gamma): any q > 0; 1 is the Shannon limit."""
    return Param(name, default, low=0.0, low_open=True)


def _exponent(name: str) -> Param:
    """An exponent of the parameterised impurities, in (0, 1]; 1 leaves the impurity as is."""
    return Param(name, 1.0, low=0.0, high=1.0, low_open=True)


CRITERIA: dict[str, Criterion] = {c.name: c for c in (
    Criterion("gini", kernels.GINI,
              "Gini index gain (CART); the usual default.",
              "L. Breiman, J. H. Friedman, R. A. Olshen and C. J. Stone, Classification and "
              f"Regression Trees, Wadsworth 1984; as in {_IHD}, eq. (1), (3)", boundary_points=True,
              score_all_two_class=True),
    Criterion("entropy", kernels.ENTROPY,
              "Shannon information gain in nats (ID3).",
              "J. R. Quinlan, Induction of decision trees, Machine Learning 1, 1986; as in "
              f"{_IHD}, eq. (1)-(2)", boundary_points=True,
              tables=("xlogx",)),
    Criterion("gain-ratio", kernels.GAIN_RATIO,
              "Information gain over split information (C4.5); on large noisy data cap "
              "the depth or set average_gain=1 (C4.5's rule: only features with at least "
              "the average information gain compete), else trees grow very deep.",
              f"{_IHD}, eq. (4)-(5); {_TSALLIS}, eq. (4); "
              "J. R. Quinlan, C4.5: Programs for Machine Learning, Morgan Kaufmann 1993, ch. 2, "
              "for average_gain",
              params=(Param("average_gain", 0.0, low=0.0, high=1.0, choices=(0.0, 1.0)),),
              boundary_points=True, tables=("xlogx",), screen=("average_gain", "entropy")),
    Criterion("tsallis", kernels.TSALLIS,
              "Tsallis entropy gain (q=1 entropy, q=2 gini); tune q per data set by grid search.",
              f"{_TSALLIS}, eq. (1), (5)", params=(_order("q", 2.0),), boundary_points=True,
              reduces_to=(((("q", 1.0),), "entropy"), ((("q", 2.0),), "gini")),
              tables=("power0",)),
    Criterion("tsallis-gain-ratio", kernels.TSALLIS_GAIN_RATIO,
              "Tsallis gain over Tsallis split information (q=1 gain ratio); smaller trees.",
              f"{_TSALLIS}, eq. (4)", params=(_order("q", 1.0),), boundary_points=True,
              reduces_to=(((("q", 1.0),), "gain-ratio"),),
              tables=("xlogx", "power0")),
    Criterion("renyi", kernels.RENYI,
              "Renyi entropy gain (gamma=1 entropy); not concave for gamma > 1, may stop early.",
              f"{_PIDT}, eq. (3)", params=(_order("gamma", 1.0),),
              boundary_points_up_to=("gamma", 1.0),
              reduces_to=(((("gamma", 1.0),), "entropy"),),
              tables=("power0",)),
    Criterion("pe", kernels.PE,
              "Parameterised entropy E^alpha gain (alpha=1 entropy); tune alpha by CV.",
              f"{_PIDT}, eq. (5)", params=(_exponent("alpha"),), boundary_points=True,
              reduces_to=(((("alpha", 1.0),), "entropy"),),
              tables=("xlogx",)),
    Criterion("pg", kernels.PG,
              "Parameterised Gini G^alpha gain (alpha=1 gini); tune alpha by CV.",
              f"{_PIDT}, eq. (6)", params=(_exponent("alpha"),), boundary_points=True,
              reduces_to=(((("alpha", 1.0),), "gini"),)),
    Criterion("pt", kernels.PT,
              "Parameterised Tsallis T_gamma^alpha gain (defaults: gini); tune by CV.",
              f"{_PIDT}, eq. (4), (8)", params=(_exponent("alpha"), _order("gamma", 2.0)),
              boundary_points=True,
              reduces_to=(((("alpha", 1.0), ("gamma", 2.0)), "gini"),
                          ((("alpha", 1.0), ("gamma", 1.0)), "entropy")),
              tables=("xlogx", "power1")),
    Criterion("pr", kernels.PR,
              "Parameterised Renyi R_gamma^alpha gain (defaults: entropy); tune by CV.",
              f"{_PIDT}, eq. (3), (7)", params=(_exponent("alpha"), _order("gamma", 1.0)),
              boundary_points_up_to=("gamma", 1.0),
              reduces_to=(((("alpha", 1.0), ("gamma", 1.0)), "entropy"),),
              tables=("xlogx", "power1")),
    Criterion("ge", kernels.GE,
              "Gini^alpha + entropy^beta gain (entropy in nats); two shape parameters.",
              f"{_PIDT}, eq. (9)", params=(_exponent("alpha"), _exponent("beta")),
              boundary_points=True,
              tables=("xlogx",)),
    Criterion("abi", kernels.ABI,
              "Alpha-beta impurity sum p^alpha (1-p)^beta gain (defaults: gini).",
              f"{_PIDT}, eq. (10)", params=(_exponent("alpha"), _exponent("beta")),
              boundary_points=True,
              reduces_to=(((("alpha", 1.0), ("beta", 1.0)), "gini"),),
              tables=("power0", "power1")),
    Criterion("dcsm", kernels.DCSM,
              "Distinct class based split measure, M(node) - M(split); small trees, "
              "skew-sensitive.",
              f"{_IHD}, eq. (6)", boundary_points=True),
    Criterion("hddt", kernels.HDDT,
              "Hellinger distance (one-versus-all maximum for >2 classes); "
              "skew-insensitive, for imbalanced classes.",
              f"{_IHD}, eq. (7), section 2.3", boundary_points=True, score_all_two_class=True,
              tables=("sqrt",)),
    Criterion("ccpdt", kernels.CCPDT,
              "Information gain of class confidence proportions, ties by HDDT; "
              "skew-insensitive, for imbalanced classes.",
              f"{_IHD}, eq. (8)-(9), section 2.4", boundary_points=True,
              tables=("xlogx", "sqrt")),
    Criterion("ihd", kernels.IHD,
              "Inter-node Hellinger distance; prefers mutually exclusive children, "
              "balanced or imbalanced classes.",
              f"{_IHD}, eq. (12)-(13)", boundary_points=True, score_all_two_class=True,
              tables=("sqrt",)),
    Criterion("ihdw", kernels.IHDW,
              "Weighted iHD; purer children, best on imbalanced classes in its paper.",
              # boundary points: no proof, and no counterexample found (docs/criteria.md)
              f"{_IHD}, eq. (15)-(16)", boundary_points=True, score_all_two_class=True,
              tables=("sqrt",)),
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
    """Score one split from count vectors as the engine does: through the classic
    criterion at its special parameters, and with the count tables, as in an
    unweighted fit, when the counts are integers."""
    criterion, vector = get(name).for_engine(params)
    parent, left, right = (np.asarray(c, dtype=np.float64) for c in (parent, left, right))
    tables = kernels.NO_TABLES
    if all(np.array_equal(c, np.round(c)) and (c >= 0).all() for c in (parent, left, right)):
        tables = kernels.count_tables(criterion.tables, int(parent.sum()), vector)
    return kernels.score_split(criterion.code, vector, tables, parent, left, right)
