"""Every split criterion against a slow, obviously correct reference written from its paper.

The reference functions below work on plain lists of class counts, follow
the papers' formulas term by term (probabilities first, then the sums the
papers write) and share no code with dtcli.criteria.kernels. The other
criteria test files import them. Paper files are in ../shared/papers/.
"""
from __future__ import annotations

import decimal
import math
from itertools import product

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dtcli.criteria import CRITERIA, score
from dtcli.criteria.hellinger import CCP_TIE_WEIGHT

# --- impurities: parameterised-impurities-s-pruning.txt eq. (1)-(10),
# --- tsallis-unified-criterion.txt eq. (1); logarithms natural.


def probabilities(counts):
    total = sum(counts)
    return [c / total for c in counts] if total > 0 else [0.0] * len(counts)


def gini(counts):
    return 1.0 - sum(p * p for p in probabilities(counts))


def shannon(counts):
    return -sum(p * math.log(p) for p in probabilities(counts) if p > 0)


def tsallis(counts, q):
    if q == 1:
        return shannon(counts)
    return (1.0 - sum(p ** q for p in probabilities(counts) if p > 0)) / (q - 1.0)


def renyi(counts, gamma):
    if gamma == 1:
        return shannon(counts)
    if sum(counts) == 0:
        return 0.0
    return math.log(sum(p ** gamma for p in probabilities(counts) if p > 0)) / (1.0 - gamma)


def alpha_beta(counts, alpha, beta):
    return sum(p ** alpha * (1.0 - p) ** beta for p in probabilities(counts) if p > 0)


IMPURITY = {
    "gini": lambda c, p: gini(c),
    "entropy": lambda c, p: shannon(c),
    "tsallis": lambda c, p: tsallis(c, p["q"]),
    "renyi": lambda c, p: renyi(c, p["gamma"]),
    "pe": lambda c, p: shannon(c) ** p["alpha"],
    "pg": lambda c, p: gini(c) ** p["alpha"],
    "pt": lambda c, p: tsallis(c, p["gamma"]) ** p["alpha"],
    "pr": lambda c, p: renyi(c, p["gamma"]) ** p["alpha"],
    "ge": lambda c, p: gini(c) ** p["alpha"] + shannon(c) ** p["beta"],
    "abi": lambda c, p: alpha_beta(c, p["alpha"], p["beta"]),
}


def gain(impurity, parent, left, right):
    """Parent impurity minus the size-weighted child impurities (an empty child weighs 0)."""
    n = sum(parent)
    children = sum(sum(child) / n * impurity(child) for child in (left, right) if sum(child) > 0)
    return impurity(parent) - children


def gain_ratio(parent, left, right, q=1.0):
    """Tsallis paper eq. (4); at q = 1 the iHD paper's eq. (4)-(5)."""
    g = gain(lambda c: tsallis(c, q), parent, left, right)
    split_info = tsallis([sum(left), sum(right)], q)
    return g / split_info if split_info > 0 else 0.0


# --- ihd-inter-node-hellinger-distance.txt ------------------------------------------------

def dcsm_measure(partitions, parent):
    """M of eq. (6) for a list of partitions of the node `parent`."""
    n_u = sum(parent)
    d_u = sum(1 for c in parent if c > 0)
    m = 0.0
    for part in partitions:
        n_v = sum(part)
        if n_v == 0:
            continue
        d_v = sum(1 for c in part if c > 0)
        delta = d_v / d_u
        a = probabilities(part)
        m += n_v / n_u * d_v * math.exp(d_v) * sum(
            a_k * math.exp(delta * (1 - a_k ** 2)) for a_k in a)
    return m


def dcsm(parent, left, right):
    """Oriented for maximisation: M(node unsplit) - M(split)."""
    return dcsm_measure([parent], parent) - dcsm_measure([left, right], parent)


def hellinger_binary(pos, neg):
    """Eq. (7): pos[t], neg[t] are the counts of the two classes in partition t."""
    n_pos, n_neg = sum(pos), sum(neg)
    return math.sqrt(sum((math.sqrt(p / n_pos) - math.sqrt(q / n_neg)) ** 2
                         for p, q in zip(pos, neg)))


def hddt(parent, left, right):
    """Eq. (7); for more than two classes the one-versus-all maximum of section 2.3."""
    distances = []
    for j, n_j in enumerate(parent):
        if n_j == 0 or n_j == sum(parent):
            continue
        pos = [left[j], right[j]]
        neg = [sum(left) - left[j], sum(right) - right[j]]
        distances.append(hellinger_binary(pos, neg))
    return max(distances, default=0.0)


def class_confidence_proportions(child, parent):
    """CCP of eq. (8)-(9), CC(X -> y) = N_Xy / N_y. For two classes
    CCP(X -> y) = CC(X -> y) / (CC(X -> y) + CC(X -> not y)) as written; for more,
    each CC over the sum of all classes' CC (our reading, docs/criteria.md)."""
    present = [j for j, n in enumerate(parent) if n > 0]
    cc = {j: child[j] / parent[j] for j in present}
    if len(present) == 2:
        y, not_y = present
        denominator = cc[y] + cc[not_y]
        return ([cc[y] / denominator, cc[not_y] / denominator] if denominator > 0 else [0, 0],
                denominator / 2)
    total = sum(cc.values())
    return [cc[j] / total if total > 0 else 0.0 for j in present], total / len(present)


def ccpdt(parent, left, right):
    """Information gain with CCP in place of p(y|X), each child weighted by its share of
    the class-balanced node; plus CCP_TIE_WEIGHT x HDDT^2 as the tie-break (section 2.4)."""
    k = sum(1 for n in parent if n > 0)
    children = 0.0
    for child in (left, right):
        ccp, weight = class_confidence_proportions(child, parent)
        children += weight * -sum(p * math.log(p) for p in ccp if p > 0)
    return math.log(k) - children + CCP_TIE_WEIGHT * hddt(parent, left, right) ** 2


def squared_hellinger(p, q):
    """Eq. (12): D_H^2(P || Q) = 1 - sum_j sqrt(p_j q_j)."""
    return 1.0 - sum(math.sqrt(a * b) for a, b in zip(p, q))


def ihd(parent, left, right):
    """Eq. (13)."""
    n, p = sum(parent), probabilities(parent)
    return sum(sum(child) / n * squared_hellinger(probabilities(child), p)
               for child in (left, right) if sum(child) > 0)


def ihd_weight(child, parent):
    """Eq. (15), over the classes present in the parent."""
    return 1.0 - math.prod(child[j] / parent[j] for j in range(len(parent)) if parent[j] > 0)


def ihdw(parent, left, right):
    """Eq. (16)."""
    n, p = sum(parent), probabilities(parent)
    return sum(sum(child) / n * squared_hellinger(probabilities(child), p)
               * ihd_weight(child, parent) for child in (left, right) if sum(child) > 0)


def reference_score(name, parent, left, right, params=None):
    """The reference score of any criterion; params default as in the registry."""
    values = {p.name: p.default for p in CRITERIA[name].params}
    values.update(params or {})
    if name in IMPURITY:
        return gain(lambda c: IMPURITY[name](c, values), parent, left, right)
    if name == "gain-ratio":
        return gain_ratio(parent, left, right)
    if name == "tsallis-gain-ratio":
        return gain_ratio(parent, left, right, values["q"])
    return {"dcsm": dcsm, "hddt": hddt, "ccpdt": ccpdt, "ihd": ihd, "ihdw": ihdw}[name](
        parent, left, right)


# --- strategies ---------------------------------------------------------------------------

# Parameters: defaults, the classic limits and values away from them.
PARAMS = {
    "gini": [{}], "entropy": [{}], "gain-ratio": [{}], "dcsm": [{}], "hddt": [{}],
    "ccpdt": [{}], "ihd": [{}], "ihdw": [{}],
    "tsallis": [{}, {"q": 1.0}, {"q": 0.5}, {"q": 1.5}, {"q": 3.7}],
    "tsallis-gain-ratio": [{}, {"q": 2.0}, {"q": 0.3}, {"q": 2.6}],
    "renyi": [{}, {"gamma": 0.5}, {"gamma": 2.0}, {"gamma": 4.0}],
    "pe": [{}, {"alpha": 0.5}, {"alpha": 0.05}],
    "pg": [{}, {"alpha": 0.5}, {"alpha": 0.1}],
    "pt": [{}, {"alpha": 0.5, "gamma": 1.5}, {"alpha": 0.3, "gamma": 0.5}],
    "pr": [{}, {"alpha": 0.5, "gamma": 2.0}, {"alpha": 0.9, "gamma": 0.4}],
    "ge": [{}, {"alpha": 0.5, "beta": 0.3}],
    "abi": [{}, {"alpha": 0.5, "beta": 0.5}, {"alpha": 0.2, "beta": 0.9}],
}
CASES = [(name, params) for name in CRITERIA for params in PARAMS[name]]
CASE_IDS = [name + "".join(f"-{k}={v:g}" for k, v in params.items()) for name, params in CASES]


def test_every_criterion_has_reference_cases():
    assert set(PARAMS) == set(CRITERIA)


@st.composite
def split_counts(draw, weighted=False):
    """(parent, left, right) count lists with left + right = parent and both children
    non-empty; integer counts, or fractional ones as sample weights give."""
    k = draw(st.integers(2, 5))
    if weighted:
        cell = st.floats(0.0, 20.0, allow_nan=False).map(lambda x: round(x, 3))
    else:
        cell = st.integers(0, 30).map(float)
    left = draw(st.lists(cell, min_size=k, max_size=k))
    right = draw(st.lists(cell, min_size=k, max_size=k))
    parent = [a + b for a, b in zip(left, right)]
    assume(sum(left) > 0 and sum(right) > 0)
    assume(sum(1 for c in parent if c > 0) >= 2)  # the engine splits impure nodes only
    return parent, left, right


def close(a, b):
    return a == pytest.approx(b, rel=1e-9, abs=1e-11)


# --- kernel == reference -------------------------------------------------------------------

@pytest.mark.parametrize("name,params", CASES, ids=CASE_IDS)
@settings(max_examples=60, deadline=None)
@given(counts=split_counts())
def test_kernel_matches_reference(name, params, counts):
    parent, left, right = counts
    assert close(score(name, parent, left, right, params),
                 reference_score(name, parent, left, right, params))


@pytest.mark.parametrize("name", list(CRITERIA))
@settings(max_examples=40, deadline=None)
@given(counts=split_counts(weighted=True))
def test_kernel_matches_reference_on_weighted_counts(name, counts):
    parent, left, right = counts
    assert close(score(name, parent, left, right), reference_score(name, parent, left, right))


# --- properties every criterion has ----------------------------------------------------------

@pytest.mark.parametrize("name,params", CASES, ids=CASE_IDS)
@settings(max_examples=30, deadline=None)
@given(counts=split_counts(), data=st.data())
def test_symmetric_and_invariant_to_relabelling(name, params, counts, data):
    parent, left, right = counts
    s = score(name, parent, left, right, params)
    assert close(score(name, parent, right, left, params), s)
    order = data.draw(st.permutations(range(len(parent))))
    relabel = lambda c: [c[j] for j in order]  # noqa: E731
    assert close(score(name, relabel(parent), relabel(left), relabel(right), params), s)


@pytest.mark.parametrize("name,params", CASES, ids=CASE_IDS)
def test_finite_on_pure_and_empty_children(name, params):
    cases = [([5, 3], [5, 0], [0, 3]),  # both children pure
             ([5, 3, 2], [5, 0, 0], [0, 3, 2]),
             ([5, 3, 0], [0, 0, 0], [5, 3, 0]),  # empty child, absent class
             ([4, 4], [4, 4], [0, 0]),
             ([1, 1], [1, 0], [0, 1])]
    for parent, left, right in cases:
        assert math.isfinite(score(name, parent, left, right, params))


@pytest.mark.parametrize("name,params", CASES, ids=CASE_IDS)
@settings(max_examples=30, deadline=None)
@given(parent=st.lists(st.integers(0, 20), min_size=2, max_size=5),
       scale=st.sampled_from([0.25, 0.5, 0.75]))
def test_zero_for_a_split_that_keeps_the_class_distribution(name, params, parent, scale):
    """Orientation: a useless split scores 0, so min_gain = 0 keeps only informative ones."""
    parent = [4.0 * c for c in parent]
    assume(sum(1 for c in parent if c > 0) >= 2)
    left = [scale * c for c in parent]
    right = [c - a for c, a in zip(parent, left)]
    assert score(name, parent, left, right, params) == pytest.approx(0.0, abs=1e-12)


# The engine skips thresholds inside runs of one class for the criteria that set
# boundary_points; this is the property it relies on, on the reference scores.
RUN_ENDS = [(i, (name, params)) for i, (name, params) in zip(CASE_IDS, CASES)
            if CRITERIA[name].for_engine(params)[0].flags.boundary_points]


@st.composite
def runs_of_one_class(draw):
    """(parent, lefts): a run of rows of one class moving, step by step, from the right
    child to the left one; the rest of both children fixed (weighted or not)."""
    parent, left, right = draw(split_counts(weighted=draw(st.booleans())))
    run_class = draw(st.integers(0, len(parent) - 1))
    steps = draw(st.integers(2, 12))
    step = draw(st.sampled_from([1.0, 0.5, 2.75]))
    parent = list(parent)
    parent[run_class] += steps * step
    lefts = []
    for t in range(steps + 1):
        moved = list(left)
        moved[run_class] += t * step
        lefts.append(moved)
    return parent, lefts


@pytest.mark.parametrize("name,params", [c for _, c in RUN_ENDS], ids=[i for i, _ in RUN_ENDS])
@settings(max_examples=100, deadline=None)
@given(run=runs_of_one_class())
def test_best_threshold_along_a_run_of_one_class_is_at_its_ends(name, params, run):
    parent, lefts = run
    scores = [reference_score(name, parent, left, [p - a for p, a in zip(parent, left)], params)
              for left in lefts if 0 < sum(left) < sum(parent)]
    assume(len(scores) >= 3)
    assert max(scores[1:-1]) <= max(scores[0], scores[-1]) + 1e-9 * (1 + abs(max(scores)))


# Renyi entropy is not concave for gamma > 1 (see the next test); the rest are >= 0.
NONNEGATIVE = [(i, case) for i, case in zip(CASE_IDS, CASES)
               if case[0] not in ("renyi", "pr") or case[1].get("gamma", 1.0) <= 1.0]


@pytest.mark.parametrize("name,params", [c for _, c in NONNEGATIVE],
                         ids=[i for i, _ in NONNEGATIVE])
@settings(max_examples=40, deadline=None)
@given(counts=split_counts())
def test_never_negative(name, params, counts):
    parent, left, right = counts
    assert score(name, parent, left, right, params) >= -1e-12


def test_renyi_gain_can_be_negative_above_gamma_one():
    """Renyi entropy is not concave for gamma > 1: a split can raise it. Why renyi and
    pr are not listed as concave, skip no thresholds, and may stop at min_gain = 0."""
    parent, left, right = [6, 1, 1], [1, 1, 1], [5, 0, 0]
    for name, params in (("renyi", {"gamma": 4.0}), ("pr", {"alpha": 1.0, "gamma": 4.0})):
        assert reference_score(name, parent, left, right, params) < -0.02
        assert close(score(name, parent, left, right, params),
                     reference_score(name, parent, left, right, params))


# --- exact identities and limits ---------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(counts=split_counts())
def test_classic_special_cases_are_exact(counts):
    """Tsallis q=2 is Gini and q=1 Shannon (Theorems 1-2), Renyi gamma=1 Shannon,
    PE/PG with alpha=1 entropy/Gini, the Tsallis gain ratio at q=1 the gain ratio:
    bit for bit, so that trees are identical (the registry runs the classic
    criterion at these parameters)."""
    parent, left, right = counts
    g, h = score("gini", parent, left, right), score("entropy", parent, left, right)
    assert score("tsallis", parent, left, right, {"q": 2.0}) == g
    assert score("pg", parent, left, right, {"alpha": 1.0}) == g
    assert score("pt", parent, left, right, {"alpha": 1.0, "gamma": 2.0}) == g
    assert score("tsallis", parent, left, right, {"q": 1.0}) == h
    assert score("renyi", parent, left, right, {"gamma": 1.0}) == h
    assert score("pe", parent, left, right, {"alpha": 1.0}) == h
    assert score("pr", parent, left, right, {"alpha": 1.0, "gamma": 1.0}) == h
    assert (score("tsallis-gain-ratio", parent, left, right, {"q": 1.0})
            == score("gain-ratio", parent, left, right))
    assert close(score("abi", parent, left, right, {"alpha": 1.0, "beta": 1.0}), g)


@pytest.mark.parametrize("name,param", [("tsallis", "q"), ("renyi", "gamma"),
                                        ("tsallis-gain-ratio", "q")])
@settings(max_examples=40, deadline=None)
@given(counts=split_counts(), eps=st.sampled_from([1e-3, 1e-6, 1e-9, 1e-12, 1e-15]),
       sign=st.sampled_from([-1.0, 1.0]))
def test_limit_at_one_is_continuous_and_stable(name, param, counts, eps, sign):
    """q -> 1 approaches Shannon smoothly: no cancellation blows up near 1."""
    parent, left, right = counts
    at_one = score(name, parent, left, right, {param: 1.0})
    near = score(name, parent, left, right, {param: 1.0 + sign * eps})
    assert near == pytest.approx(at_one, rel=50 * eps + 1e-12, abs=50 * eps + 1e-13)


def tsallis_decimal(counts, q, digits=60):
    """eq. (1) in 60-digit decimal arithmetic: the naive formula, made exact enough."""
    with decimal.localcontext() as ctx:
        ctx.prec = digits
        q = decimal.Decimal(q)
        total = sum(decimal.Decimal(c) for c in counts)
        s = sum(((decimal.Decimal(c) / total).ln() * q).exp() for c in counts if c > 0)
        return (1 - s) / (q - 1)


@settings(max_examples=40, deadline=None)
@given(counts=split_counts(), eps=st.sampled_from([1e-4, 1e-7, 1e-10, 1e-13]),
       sign=st.sampled_from([-1.0, 1.0]))
def test_near_one_matches_a_high_precision_reference(counts, eps, sign):
    """Near q = 1 the naive (1 - sum p^q) / (q - 1) loses digits to cancellation; the
    kernel's expm1 form does not."""
    parent, left, right = counts
    q = 1.0 + sign * eps
    n = sum(parent)
    exact = tsallis_decimal(parent, q) - sum(
        decimal.Decimal(sum(c)) / decimal.Decimal(n) * tsallis_decimal(c, q)
        for c in (left, right))
    assert close(score("tsallis", parent, left, right, {"q": q}), float(exact))


def test_large_orders_do_not_overflow():
    parent, left, right = [500, 300, 2], [480, 10, 2], [20, 290, 0]
    for q in (50.0, 1e3, 1e6):
        assert math.isfinite(score("tsallis", parent, left, right, {"q": q}))
        assert close(score("tsallis", parent, left, right, {"q": q}),
                     reference_score("tsallis", parent, left, right, {"q": q}))


# --- the iHD paper's properties (section 3.1, Theorem 3) -----------------------------------

def all_lefts(parent):
    return [list(map(float, a)) for a in product(*(range(int(c) + 1) for c in parent))]


@pytest.mark.parametrize("name", ["ihd", "ihdw"])
@settings(max_examples=25, deadline=None)
@given(parent=st.lists(st.integers(1, 6), min_size=2, max_size=4), data=st.data())
def test_disjoint_children_maximise_at_fixed_sizes(name, parent, data):
    """Exclusivity preference (Theorems 1-2): among splits with the same child sizes,
    one sending whole classes to each side scores highest."""
    parent = list(map(float, parent))
    side = data.draw(st.lists(st.booleans(), min_size=len(parent), max_size=len(parent)))
    assume(any(side) and not all(side))
    disjoint = [c if s else 0.0 for c, s in zip(parent, side)]
    n_left = sum(disjoint)
    best = max(score(name, parent, a, [c - x for c, x in zip(parent, a)])
               for a in all_lefts(parent) if sum(a) == n_left)
    exclusive = score(name, parent, disjoint, [c - x for c, x in zip(parent, disjoint)])
    assert exclusive == pytest.approx(best, rel=1e-12, abs=1e-15)


@settings(max_examples=40, deadline=None)
@given(parent=st.lists(st.integers(1, 40), min_size=3, max_size=6))
def test_ihdw_theorem_3_most_balanced_disjoint_split_wins(parent):
    """Among splits into disjoint class subsets, iHDw = 1 - rho^1.5 - (1-rho)^1.5 (eq. 17),
    maximal for the subset whose share rho is nearest 1/2."""
    parent = list(map(float, parent))
    n = sum(parent)
    splits = []
    for side in product([True, False], repeat=len(parent)):
        if any(side) and not all(side):
            left = [c if s else 0.0 for c, s in zip(parent, side)]
            rho = sum(left) / n
            s = score("ihdw", parent, left, [c - a for c, a in zip(parent, left)])
            assert s == pytest.approx(1 - rho ** 1.5 - (1 - rho) ** 1.5, rel=1e-12)
            splits.append((s, abs(rho - 0.5)))
    best_score = max(s for s, _ in splits)
    most_balanced = min(d for _, d in splits)
    assert best_score == pytest.approx(max(s for s, d in splits if d == most_balanced),
                                       rel=1e-12)


# --- the iHD paper's introduction example ----------------------------------------------------

INTRO_PARENT = [40.0, 20.0, 10.0, 10.0]  # A, B, C, D
SPLIT_X = ([40.0, 0.0, 0.0, 10.0], [0.0, 20.0, 10.0, 0.0])  # A and D left
SPLIT_Y = ([40.0, 0.0, 5.0, 5.0], [0.0, 20.0, 5.0, 5.0])  # A, 5 C and 5 D left


def test_intro_example_hddt_cannot_tell_x_from_y_but_ihd_prefers_x():
    hddt_x = score("hddt", INTRO_PARENT, *SPLIT_X)
    hddt_y = score("hddt", INTRO_PARENT, *SPLIT_Y)
    assert hddt_x == pytest.approx(hddt_y, rel=1e-15)
    assert hddt_x == pytest.approx(math.sqrt(5 / 6 + (1 - math.sqrt(1 / 6)) ** 2))  # class B
    assert score("ihd", INTRO_PARENT, *SPLIT_X) > score("ihd", INTRO_PARENT, *SPLIT_Y) + 0.01
    assert score("ihdw", INTRO_PARENT, *SPLIT_X) > score("ihdw", INTRO_PARENT, *SPLIT_Y) + 0.01
