"""Impurity decreases and gain ratios (jitted, inlined into the engine's scans).

A gain is the parent's impurity minus the size-weighted impurities of the
children (tsallis-unified-criterion.txt, eq. 5; parameterised-impurities-s-pruning.txt,
section 3). Each criterion gives its impurity as a "mass" (impurity times the
node's total weight), f(counts, total, params, tables) with params in registry
order, and `impurity_decrease` makes its kernel; `tsallis_gain_ratio` makes the
gain ratios'. Parameters at which a criterion is a classic one never get here:
the registry runs the classic one (`reduces_to`). Logarithms are natural (nats).
docs/criteria.md has the formulas, our readings of the papers and the
measurements behind the choices made here.
"""
import math

from dtcli.criteria.counts import TINY, count_power, has_table, xlogx
from dtcli.criteria.elementary import fast_log, fast_power
from dtcli.criteria.kernels import ByForm, Kernel
from dtcli.jit.flags import inline_njit


@inline_njit
def power(x, exponent):
    """x ** exponent for x >= 0, exact and free for the common exponent 1, by the C
    library's pow (a polynomial pays only where the scan vectorises: pg_pair).
    Rounding a hair below 0 counts as 0."""
    return x if exponent == 1.0 else max(x, 0.0) ** exponent


@inline_njit
def tsallis_term(c, log_total, q_minus_1):
    """c (1 - p^(q-1)) / (q-1) with ln p = ln c - log_total; -c ln p at q = 1.

    Summed over classes and divided by the total this is the Tsallis entropy
    (tsallis-unified-criterion.txt, eq. 1). Written as
    -c expm1((q-1) ln p) / (q-1): no cancellation near q = 1 and no overflow
    for large q (ln p <= 0).
    """
    if c <= 0.0:
        return 0.0
    log_p = math.log(c) - log_total
    if q_minus_1 == 0.0:
        return -c * log_p
    return -c * math.expm1(q_minus_1 * log_p) / q_minus_1


@inline_njit
def sum_of_squares(counts):
    s = 0.0
    for k in range(len(counts)):  # not `for c in counts`: an array iterator costs a reference count
        s += counts[k] * counts[k]
    return s


@inline_njit
def gini_impurity(counts, total):
    """Gini index 1 - sum p_i^2 (gini-entropy-splitting.txt, section 1.1)."""
    if total <= 0.0:
        return 0.0
    return 1.0 - sum_of_squares(counts) / (total * total)


@inline_njit
def gini_mass(counts, total):
    """total x Gini index = total - sum c_k^2 / total: one division (the scan's
    cost). max(): a node of zero weight (weights may be 0) has mass 0, branch-free."""
    return total - sum_of_squares(counts) / max(total, TINY)


@inline_njit
def shannon_mass(counts, total, tables):
    """total x Shannon entropy in nats (gini-entropy-splitting.txt, eq. 1.1):
    total ln total - sum_i c_i ln c_i."""
    s = xlogx(total, tables)
    for k in range(len(counts)):
        s -= xlogx(counts[k], tables)
    return s


@inline_njit
def child_class_xlogx(counts, tables):
    """sum_i c_i ln c_i."""
    s = 0.0
    for k in range(len(counts)):
        s += xlogx(counts[k], tables)
    return s


@inline_njit
def shannon_entropy(counts, total, tables):
    return shannon_mass(counts, total, tables) / total if total > 0.0 else 0.0


@inline_njit
def tsallis_entropy(counts, total, q, tables, power):
    """Tsallis entropy S_q = (1 - sum p_i^q) / (q - 1), q > 0 (tsallis-unified-criterion.txt,
    eq. 1); `power` is the table of c ** q (tables.power0 or tables.power1) or None. q = 1 is
    Shannon's -sum p_i ln p_i exactly (Theorem 1) and q = 2 is the Gini index exactly
    (Theorem 2), with their own arithmetic."""
    if q == 2.0:
        return gini_impurity(counts, total)
    if has_table(power):  # then |q - 1| >= TABLE_ORDER_GAP (count_tables)
        s = 0.0
        for i in range(len(counts)):
            s += count_power(counts[i], power, q)
        value = (1.0 - s / count_power(total, power, q)) / (q - 1.0)
        return value if total > 0.0 else 0.0
    if total <= 0.0:
        return 0.0
    if q == 1.0:
        return shannon_entropy(counts, total, tables)
    log_total = math.log(total)
    s = 0.0
    for i in range(len(counts)):
        s += tsallis_term(counts[i], log_total, q - 1.0)
    return s / total


@inline_njit
def renyi_entropy(counts, total, gamma, tables, power):
    """Renyi entropy ln(sum p^g) / (1 - g), g > 0 (parameterised-impurities-s-pruning.txt,
    eq. 3), from the Tsallis entropy of the same order: sum p^g = 1 - (g-1) S_g,
    so R_g = -log1p(-(g-1) S_g) / (g-1), stable near g = 1 and Shannon at g = 1.
    With a power table |g - 1| >= TABLE_ORDER_GAP: no cancellation in 1 + y, and
    the vectorisable log serves."""
    s = tsallis_entropy(counts, total, gamma, tables, power)
    if has_table(power):
        return -fast_log(1.0 - (gamma - 1.0) * s) / (gamma - 1.0)
    if gamma == 1.0:
        return s
    return -math.log1p(-(gamma - 1.0) * s) / (gamma - 1.0)


@inline_njit
def alpha_beta_mass(counts, total, alpha, beta, tables):
    """total x ABI, ABI = sum p_i^alpha (1 - p_i)^beta (parameterised-impurities-s-pruning.txt,
    eq. 10), as sum c^alpha (n - c)^beta / n^(alpha + beta - 1)."""
    if total <= 0.0:
        return 0.0
    s = 0.0
    for i in range(len(counts)):
        c = counts[i]
        if c > 0.0:
            s += (count_power(c, tables.power0, alpha)
                  * count_power(max(total - c, 0.0), tables.power1, beta))
    return s * total / (count_power(total, tables.power0, alpha) * count_power(total, tables.power1, beta))


# --- each criterion's mass f(counts, total, params, tables) ----------------------------

@inline_njit
def gini(counts, total, params, tables):
    return gini_mass(counts, total)


@inline_njit
def entropy(counts, total, params, tables):
    return shannon_mass(counts, total, tables)


@inline_njit
def tsallis(counts, total, params, tables):
    return total * tsallis_entropy(counts, total, params[0], tables, tables.power0)


@inline_njit
def renyi(counts, total, params, tables):
    return total * renyi_entropy(counts, total, params[0], tables, tables.power0)


@inline_njit
def pe(counts, total, params, tables):
    """PE = E^alpha, eq. (5)."""
    return total * power(shannon_entropy(counts, total, tables), params[0])


@inline_njit
def pg(counts, total, params, tables):
    """PG = G^alpha, eq. (6)."""
    return total * power(gini_impurity(counts, total), params[0])


@inline_njit
def pg_pair(counts, total, params, tables):
    """pg for two classes, G^alpha by fast_power: no table loads or calls, so the
    scan vectorises, at the price of a longer first compilation of its two-class
    form. With more classes (scalar scans) the C library's pow is faster."""
    g = gini_mass(counts, total) / max(total, TINY)
    return total * (g if params[0] == 1.0 else fast_power(g, params[0]))


@inline_njit
def pt(counts, total, params, tables):
    """PT = T_gamma^alpha, eq. (8); params (alpha, gamma)."""
    return total * power(tsallis_entropy(counts, total, params[1], tables, tables.power1), params[0])


@inline_njit
def pr(counts, total, params, tables):
    """PR = R_gamma^alpha, eq. (7); params (alpha, gamma)."""
    return total * power(renyi_entropy(counts, total, params[1], tables, tables.power1), params[0])


@inline_njit
def ge(counts, total, params, tables):
    """GE = G^alpha + E^beta, eq. (9); at alpha = beta = 1 the sum of the two masses
    (no division by the total, no power)."""
    g_mass = gini_mass(counts, total)
    e_mass = shannon_mass(counts, total, tables)
    if params[0] == 1.0 and params[1] == 1.0:
        return g_mass + e_mass
    inverse = 1.0 / max(total, TINY)
    return total * (power(g_mass * inverse, params[0])
                    + power(e_mass * inverse, params[1]))


@inline_njit
def abi(counts, total, params, tables):
    return alpha_beta_mass(counts, total, params[0], params[1], tables)


@inline_njit
def order_one(params):
    return 1.0


@inline_njit
def order_q(params):
    return params[0]


def impurity_decrease(mass, pair_mass=None):
    """The kernel of a gain: parent impurity minus the size-weighted child impurities
    (tsallis-unified-criterion.txt, eq. 5; parameterised-impurities-s-pruning.txt,
    section 3), from the impurity's mass (total x impurity): the size weights
    cancel, and the division by the parent's total is a multiplication by
    its inverse, which the compiler hoists out of the scan. `pair_mass`, if
    given, is the mass the two-class scan uses instead (a ByForm split score:
    the many-class form then does not carry its code, which numba lowers before
    the compiler drops it)."""
    def node_term(code, params, tables, parent, n_parent, node):
        return mass(parent, n_parent, params, tables) / n_parent

    if pair_mass is None:
        return Kernel(node_term, _decrease_score(mass))
    return Kernel(node_term, ByForm(_decrease_score(pair_mass), _decrease_score(mass)))


def _decrease_score(mass):
    def split_score(code, params, tables, parent, left, right, n_parent, n_left, n_right, node,
                    term):
        return term - ((mass(left, n_left, params, tables) + mass(right, n_right, params, tables))
                       * (1.0 / n_parent))

    return split_score


def tsallis_gain_ratio(order):
    """The kernel of the Tsallis gain ratio of order q = order(params):
    the Tsallis gain over the Tsallis entropy of the split proportions
    (tsallis-unified-criterion.txt, eq. 4). At q = 1 it is C4.5's gain ratio,
    information gain over split information (ihd-inter-node-hellinger-distance.txt,
    eq. 4-5), computed in masses."""
    def node_term(code, params, tables, parent, n_parent, node):
        if order(params) == 1.0:
            return child_class_xlogx(parent, tables)
        return tsallis_entropy(parent, n_parent, order(params), tables, tables.power0)

    def split_score(code, params, tables, parent, left, right, n_parent, n_left, n_right, node,
                    term):
        q = order(params)
        if q == 1.0:
            # In masses (total x entropy) the 1/n_parent of gain and split information
            # cancel, and the split information's mass is part of the gain's:
            # gain mass = split mass + sum_t sum_j N_tj ln N_tj - sum_j N_j ln N_j (term).
            split_mass = shannon_mass((n_left, n_right), n_parent, tables)
            gain_mass = (split_mass - term + child_class_xlogx(left, tables)
                         + child_class_xlogx(right, tables))
            return gain_mass / split_mass if split_mass > 0.0 else 0.0
        gain = term - (n_left * tsallis_entropy(left, n_left, q, tables, tables.power0)
                       + n_right * tsallis_entropy(right, n_right, q, tables, tables.power0)) / n_parent
        split_info = tsallis_entropy((n_left, n_right), n_parent, q, tables, tables.power0)
        return gain / split_info if split_info > 0.0 else 0.0

    return Kernel(node_term, split_score)
