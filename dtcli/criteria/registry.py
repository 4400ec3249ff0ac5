"""Names, parameters, sources and engine flags of the split criteria, in pure Python.

A criterion is defined by one entry here: its name, summary and paper, its
parameters, the family module its kernel is written in, its engine flags
(`EngineFlags`) and its node impurity; codes.py gives it its kernel and its code (an
int whose class carries the kernel), read on first use (`Criterion.code`), so that
listing the criteria, checking parameters and loading models import no numba. The
engine sees that code and a float64 parameter vector. docs/criteria.md explains every
entry and says how to add a criterion.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Callable, Mapping, NamedTuple

import numpy as np

from dtcli.criteria import proportions
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
    code: int  # the criterion's code (an IntEnum member, codes.py)
    params: np.ndarray  # float64 parameter vector
    tables: tuple[str, ...]  # count tables its kernel reads (counts.TABLE_KINDS)
    skip_runs: bool  # thresholds inside runs of one class cannot win (boundary points)
    score_all_two_class: bool  # but two-class fits score every threshold anyway
    screen: "EngineCriterion | None"  # the criterion screening features (C4.5), if any

    def compiled_form(self) -> tuple:
        """What selects the engine's compiled code: everything but the parameter vector."""
        screen = self.screen.compiled_form() if self.screen is not None else ()
        return (int(self.code), *self.tables, int(self.skip_runs),
                int(self.score_all_two_class), *screen)


@dataclass(frozen=True)
class EngineFlags:
    """How the engine runs a criterion, besides its kernel."""
    # The count tables its kernel reads (counts.TABLE_KINDS), made once per fit with
    # integer weights.
    tables: tuple[str, ...] = ()
    # Only thresholds between value groups of different classes can win: true
    # when the score is (quasi-)convex along a run of one class, e.g. the decrease of a
    # concave impurity or a gain ratio (tests check it per criterion, on the reference
    # scores along random runs and in the engine against every threshold).
    boundary_points: bool = False
    # (parameter, bound): boundary points hold where the parameter is at most the bound
    # (Renyi entropy is concave for gamma <= 1 only).
    boundary_points_up_to: tuple[str, float] | None = None
    # Two-class fits score every threshold instead of skipping runs: finding the runs
    # costs more than the score when it is cheap and vectorised (measured per
    # criterion: docs/criteria.md, "Boundary points" under "Speed and compilation").
    score_all_two_class: bool = False
    # Parameter values at which the criterion is a classic one, exactly (Tsallis
    # q = 2 is Gini): ((("q", 2.0),), "gini"). The engine then runs the classic
    # criterion, so the trees are identical and as fast; the model keeps the name.
    reduces_to: tuple[tuple[tuple[tuple[str, float], ...], str], ...] = ()
    # C4.5's average-gain rule, behind a switch parameter: (switch, screening criterion).
    # With the switch at 1, only the features whose best split scores at least the
    # average under the screening criterion compete (see `Criterion.screen_for`).
    screen: tuple[str, str] | None = None
    # Two classes: the score is convex in a threshold's class-1 count with its minimum 0
    # at its mean (the decrease of a concave impurity; HDDT's squared distance, 2 - 2 x a
    # sum of geometric means of counts), so S-pruning's hypergeometric bound and exact
    # lattice count hold for it (pruning/significance.py).
    convex_in_counts: bool = False


@dataclass(frozen=True)
class Criterion:
    name: str
    summary: str  # one line: what it is and when to use it
    source: str  # paper file and equation
    family: str  # the module of dtcli/criteria/ its kernel is written in (codes.KERNELS)
    params: tuple[Param, ...] = ()
    flags: EngineFlags = EngineFlags()
    # The impurity whose decrease it scores, of class proportions (proportions.py), for
    # cost-complexity pruning's node risk; None: it scores splits by something else, and
    # that risk is the error rate (pruning/risk.py).
    node_impurity: Callable[[np.ndarray, Mapping[str, float]], np.ndarray] | None = None

    @property
    def code(self):
        """An int whose class tells numba which kernel to compile (codes.py; the first
        use imports the kernels)."""
        from dtcli.criteria.codes import CODES

        return CODES[self.name]

    @property
    def kernel(self):
        """Its scoring functions (kernels.Kernel: the engine inlines them)."""
        return type(self.code).kernel

    def for_engine(self, values: Mapping[str, float] | None = None) -> tuple[Criterion, np.ndarray]:
        """The criterion the engine runs for these parameters, and its parameter vector."""
        vector = self.param_vector(values)
        given = {p.name: float(v) for p, v in zip(self.params, vector)}
        for point, classic in self.flags.reduces_to:
            if all(given[name] == value for name, value in point):
                engine = CRITERIA[classic]
                return engine, engine.param_vector()
        if self.flags.boundary_points_up_to is not None:
            name, bound = self.flags.boundary_points_up_to
            if given[name] <= bound:
                flags = dataclasses.replace(self.flags, boundary_points=True)
                return dataclasses.replace(self, flags=flags), vector
        return self, vector

    def engine(self, values: Mapping[str, float] | None = None) -> EngineCriterion:
        """What the engine runs for these parameters: `for_engine` and `screen_for`."""
        runs, vector = self.for_engine(values)
        screen = self.screen_for(values)
        return EngineCriterion(runs.code, vector, runs.flags.tables, runs.flags.boundary_points,
                               runs.flags.score_all_two_class, screen and screen.engine())

    def screen_for(self, values: Mapping[str, float] | None = None) -> Criterion | None:
        """The criterion that screens features for these parameters, if any.

        Quinlan's C4.5 (1993, chapter 2) takes the test of largest gain ratio
        among those whose information gain is at least the average gain of the
        tests examined. The engine scores every feature's best split by both
        criteria; a node's features whose screening score is below the average
        over its features with a valid split drop out, and the best of the rest
        wins (engine.splitter.pick_screened).
        """
        if self.flags.screen is None:
            return None
        switch, by = self.flags.screen
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


# Every criterion (codes.KERNELS has its kernel; its code is its position).
CRITERIA: dict[str, Criterion] = {c.name: c for c in (
    Criterion("gini",
              "Gini index gain (CART); the usual default.",
              "L. Breiman, J. H. Friedman, R. A. Olshen and C. J. Stone, Classification and "
              f"Regression Trees, Wadsworth 1984; as in {_IHD}, eq. (1), (3)",
              "impurity",
              flags=EngineFlags(boundary_points=True, score_all_two_class=True,
                                convex_in_counts=True),
              node_impurity=proportions.gini),
    Criterion("entropy",
              "Shannon information gain in nats (ID3).",
              "J. R. Quinlan, Induction of decision trees, Machine Learning 1, 1986; as in "
              f"{_IHD}, eq. (1)-(2)",
              "impurity",
              flags=EngineFlags(("xlogx",), boundary_points=True, convex_in_counts=True),
              node_impurity=proportions.entropy),
    Criterion("gain-ratio",
              "Information gain over split information (C4.5); on large noisy data cap "
              "the depth or set average_gain=1 (C4.5's rule: only features with at least "
              "the average information gain compete), else trees grow very deep.",
              f"{_IHD}, eq. (4)-(5); {_TSALLIS}, eq. (4); "
              "J. R. Quinlan, C4.5: Programs for Machine Learning, Morgan Kaufmann 1993, ch. 2, "
              "for average_gain",
              "impurity",
              params=(Param("average_gain", 0.0, low=0.0, high=1.0, choices=(0.0, 1.0)),),
              flags=EngineFlags(("xlogx",), boundary_points=True,
                                screen=("average_gain", "entropy"))),
    Criterion("tsallis",
              "Tsallis entropy gain (q=1 entropy, q=2 gini); tune q per data set by grid search.",
              f"{_TSALLIS}, eq. (1), (5)",
              "impurity",
              params=(_order("q", 2.0),),
              flags=EngineFlags(("power0",), boundary_points=True,
                                reduces_to=(((("q", 1.0),), "entropy"),
                                            ((("q", 2.0),), "gini"))),
              node_impurity=proportions.tsallis),
    Criterion("tsallis-gain-ratio",
              "Tsallis gain over Tsallis split information (q=1 gain ratio); smaller trees.",
              f"{_TSALLIS}, eq. (4)",
              "impurity",
              params=(_order("q", 1.0),),
              flags=EngineFlags(("xlogx", "power0"), boundary_points=True,
                                reduces_to=(((("q", 1.0),), "gain-ratio"),))),
    Criterion("renyi",
              "Renyi entropy gain (gamma=1 entropy); not concave for gamma > 1, may stop early.",
              f"{_PIDT}, eq. (3)",
              "impurity",
              params=(_order("gamma", 1.0),),
              flags=EngineFlags(("power0",), boundary_points_up_to=("gamma", 1.0),
                                reduces_to=(((("gamma", 1.0),), "entropy"),)),
              node_impurity=proportions.renyi),
    Criterion("pe",
              "Parameterised entropy E^alpha gain (alpha=1 entropy); tune alpha by CV.",
              f"{_PIDT}, eq. (5)",
              "impurity",
              params=(_exponent("alpha"),),
              flags=EngineFlags(("xlogx",), boundary_points=True,
                                reduces_to=(((("alpha", 1.0),), "entropy"),)),
              node_impurity=proportions.pe),
    Criterion("pg",
              "Parameterised Gini G^alpha gain (alpha=1 gini); tune alpha by CV.",
              f"{_PIDT}, eq. (6)",
              "impurity",
              params=(_exponent("alpha"),),
              flags=EngineFlags(boundary_points=True,
                                reduces_to=(((("alpha", 1.0),), "gini"),)),
              node_impurity=proportions.pg),
    Criterion("pt",
              "Parameterised Tsallis T_gamma^alpha gain (defaults: gini); tune by CV.",
              f"{_PIDT}, eq. (4), (8)",
              "impurity",
              params=(_exponent("alpha"), _order("gamma", 2.0)),
              flags=EngineFlags(("xlogx", "power1"), boundary_points=True,
                                reduces_to=(((("alpha", 1.0), ("gamma", 2.0)), "gini"),
                                            ((("alpha", 1.0), ("gamma", 1.0)), "entropy"))),
              node_impurity=proportions.pt),
    Criterion("pr",
              "Parameterised Renyi R_gamma^alpha gain (defaults: entropy); tune by CV.",
              f"{_PIDT}, eq. (3), (7)",
              "impurity",
              params=(_exponent("alpha"), _order("gamma", 1.0)),
              flags=EngineFlags(("xlogx", "power1"), boundary_points_up_to=("gamma", 1.0),
                                reduces_to=(((("alpha", 1.0), ("gamma", 1.0)), "entropy"),)),
              node_impurity=proportions.pr),
    Criterion("ge",
              "Gini^alpha + entropy^beta gain (entropy in nats); two shape parameters.",
              f"{_PIDT}, eq. (9)",
              "impurity",
              params=(_exponent("alpha"), _exponent("beta")),
              flags=EngineFlags(("xlogx",), boundary_points=True),
              node_impurity=proportions.ge),
    Criterion("abi",
              "Alpha-beta impurity sum p^alpha (1-p)^beta gain (defaults: gini).",
              f"{_PIDT}, eq. (10)",
              "impurity",
              params=(_exponent("alpha"), _exponent("beta")),
              flags=EngineFlags(("power0", "power1"), boundary_points=True,
                                reduces_to=(((("alpha", 1.0), ("beta", 1.0)), "gini"),)),
              node_impurity=proportions.abi),
    Criterion("dcsm",
              "Distinct class based split measure, M(node) - M(split); small trees, "
              "skew-sensitive.",
              f"{_IHD}, eq. (6)",
              "dcsm",
              flags=EngineFlags(boundary_points=True)),
    Criterion("hddt",
              "Hellinger distance (one-versus-all maximum for >2 classes); "
              "skew-insensitive, for imbalanced classes.",
              f"{_IHD}, eq. (7), section 2.3",
              "hellinger",
              flags=EngineFlags(("sqrt",), boundary_points=True, score_all_two_class=True,
                                convex_in_counts=True)),
    Criterion("ccpdt",
              "Information gain of class confidence proportions, ties by HDDT; "
              "skew-insensitive, for imbalanced classes.",
              f"{_IHD}, eq. (8)-(9), section 2.4",
              "hellinger",
              flags=EngineFlags(("xlogx", "sqrt"), boundary_points=True)),
    Criterion("ihd",
              "Inter-node Hellinger distance; prefers mutually exclusive children, "
              "balanced or imbalanced classes.",
              f"{_IHD}, eq. (12)-(13)",
              "hellinger",
              flags=EngineFlags(("sqrt",), boundary_points=True, score_all_two_class=True)),
    Criterion("ihdw",
              "Weighted iHD; purer children, best on imbalanced classes in its paper.",
              f"{_IHD}, eq. (15)-(16)",
              "hellinger",
              # boundary points: no proof, and no counterexample found (docs/criteria.md)
              flags=EngineFlags(("sqrt",), boundary_points=True, score_all_two_class=True)),
)}


def by_code(code: int) -> Criterion:
    """The criterion of an engine code (its position in CRITERIA)."""
    return _BY_CODE[int(code)]


_BY_CODE = tuple(CRITERIA.values())


def get(name: str) -> Criterion:
    try:
        return CRITERIA[name]
    except KeyError:
        raise ParameterError(
            f"unknown criterion '{name}'; choose from {', '.join(CRITERIA)}") from None


def score(name: str, parent, left, right, params: Mapping[str, float] | None = None) -> float:
    """Score one split from count vectors as the engine does: through the classic
    criterion at its special parameters, and with the count tables, as in an
    unweighted fit, when the counts are integers. The parameters go in as the engine
    passes them (a tuple), so that the criterion's functions compiled for the engine's
    search serve here too."""
    from dtcli.criteria.counts import NO_TABLES, count_tables
    from dtcli.criteria.kernels import param_tuple, score_split

    criterion, vector = get(name).for_engine(params)
    parent, left, right = (np.asarray(c, dtype=np.float64) for c in (parent, left, right))
    tables = NO_TABLES
    if all(np.array_equal(c, np.round(c)) and (c >= 0).all() for c in (parent, left, right)):
        tables = count_tables(criterion.flags.tables, int(parent.sum()), vector)
    return score_split(criterion.code, param_tuple(vector), tables, parent, left, right)
