"""S-pruning's permutation test of one node's split, run in the growth step (jitted).

A tested node is a node whose split the growth step has chosen (and the
`min_gain` rule kept): its training rows (rows of weight 0 left out) and the
feature its split chose. `test_split`, the function of the growth step's
level.SplitTest, copies the node's words of that feature, packed as the
engine packs them (presort.py: rank, class, row) and sorted, so the engine's
own search (`splitter.search_numeric` / `search_nominal`, with the same
criterion, count tables, `min_samples_leaf`, missing-value passes, nominal
subset search and tie rule as the growth) scores the feature: first on the
node's labels (the observed score G), then on shuffled labels. A shuffle
permutes the (class, row) parts of the words over the node's positions,
leaving the ranks where they are: every label, with its row's weight, moves
to another row's value (a Fisher-Yates shuffle drawn from rng.py, keyed by
(seed, shuffle number, node key, draw), where a node's key is a hash of its
path from the root: level.give_keys), so a node's shuffles depend only on
the node.

The node's result: how many shuffles were scored and how many scored at
least G (up to the engine's tie tolerance, splitter.TIE_EPS); in the default
mode, for two-class scores convex in a threshold's class counts (decreases
of a concave impurity, HDDT's squared distance), the p-value without
shuffles where it can be had: a bound that proves it small
(`_hypergeometric_bound`), or its exact value over all shuffles
(`_lattice_p_value`). A node that fails becomes a leaf before its rows are
routed, so its subtree is never grown.

Every node is a pure function of its rows and its key: which thread or
driver tests it has no effect on the results.
"""
import math

import numpy as np

from dtcli.criteria.counts import CountTables
from dtcli.criteria.kernels import NODE_ROWS, node_term, split_score
from dtcli.engine import splitter
from dtcli.engine.level import Columns, Level
from dtcli.engine.rng import below
from dtcli.engine.searches import example_search_arguments, call_search
from dtcli.engine.splitter import new_found
from dtcli.jit.flags import inline_njit, njit, njit_form
from dtcli.jit.indirect import Signature, caller

# A first-run argument of the searches: an int literal would compile them again.
FIRST = np.int64(0)
ONE = np.int64(1)


def sequential_bounds(n_shuffles, significance, risk):
    """For L = 1..n_shuffles shuffles with g of them at least the observed score:
    split_at_most[L], the largest g with P(Bin(L, s) <= g) <= risk / n_shuffles, and
    leaf_from[L], the smallest g with P(Bin(L, s) >= g) <= risk / n_shuffles
    (s = significance). g <= split_at_most[L] puts the p-value's Clopper-Pearson
    upper bound below s, g >= leaf_from[L] its lower bound above s, each at
    level risk / n_shuffles: over all looks at one node, a wrong side at most
    `risk` (union bound). The work grows as s x n_shuffles^2: computed in blocks of
    L (`_bounds_block`) of a fraction of a second each, so that a stop (a signal)
    is handled between them."""
    n_shuffles = np.int64(n_shuffles)
    split_at_most = np.full(n_shuffles + 1, -1, np.int64)
    leaf_from = np.arange(1, n_shuffles + 2, dtype=np.int64)
    lo = np.int64(1)
    while lo <= n_shuffles:
        # steps per L: about its leaf_from, L s plus a few standard deviations; a block
        # at most doubles L, so its last L costs at most twice its first
        per_n = lo * min(max(significance, 1e-3), 1.0) + 10.0 * math.sqrt(lo) + 10.0
        hi = min(n_shuffles + 1, lo + max(1, int(BOUNDS_BLOCK_WORK / per_n)), 2 * lo + 1000)
        _bounds_block(n_shuffles, float(significance), float(risk), lo, np.int64(hi),
                      split_at_most, leaf_from)
        lo = np.int64(hi)
    return split_at_most, leaf_from


BOUNDS_BLOCK_WORK = 2_000_000  # steps of `_bounds_block`'s inner loop per call (~0.1 s)


@njit
def _bounds_block(n_shuffles, significance, risk, lo, hi, split_at_most, leaf_from):
    """sequential_bounds' entries L = lo..hi-1, written into its arrays."""
    level = risk / n_shuffles
    if significance <= 0.0 or significance >= 1.0:  # Bin(L, s) is a point mass
        for n in range(lo, hi):
            if significance <= 0.0:
                leaf_from[n] = 1
            else:
                split_at_most[n] = n - 1
        return
    odds = math.log(significance) - math.log1p(-significance)
    for n in range(lo, hi):
        log_pmf = n * math.log1p(-significance)  # ln P(Bin(n, s) = 0)
        below_g = 0.0  # P(Bin(n, s) <= g - 1)
        for g in range(n + 1):
            if 1.0 - below_g <= level:  # P(>= g) = 1 - P(<= g - 1)
                leaf_from[n] = g
                break
            below_g += math.exp(log_pmf)
            if below_g <= level:
                split_at_most[n] = g
            log_pmf += math.log((n - g) / (g + 1.0)) + odds


@njit
def log_factorials(n):
    """ln k! for k = 0..n (lgamma, not a running sum of logs, whose rounding grows)."""
    out = np.empty(n + 1)
    for k in range(n + 1):
        out[k] = math.lgamma(k + 1.0)
    return out


@inline_njit
def _log_choose(n, k, log_fact):
    return log_fact[np.int64(n)] - log_fact[np.int64(k)] - log_fact[np.int64(n - k)]


@njit
def _decrease(code, params, tables, parent, n_parent, n_left, k, node, term):
    """The criterion's two-class score of a split sending n_left rows left, k of them
    of class 1. Out of line: the bound calls it from four places, and each inlined
    copy of a criterion costs compilation time."""
    return split_score(code, params, tables, parent, (n_left - k, k),
                       (parent[0] - n_left + k, parent[1] - k), n_parent, n_left,
                       n_parent - n_left, node, term)


@njit
def _tails(n, n1, n_left, upper, lower, log_fact):
    """P(K >= upper) + P(K <= lower) for K hypergeometric (n rows, n1 of class 1,
    n_left drawn), each tail bounded by its first term over 1 - the ratio of
    successive terms: the ratios fall away from the mode (the pmf is log-concave),
    so the tail is at most that geometric series. 1 where a tail reaches the mode."""
    n0 = n - n1
    total = 0.0
    if upper <= min(n_left, n1):
        ratio = (n1 - upper) * (n_left - upper) / ((upper + 1.0) * (n0 - n_left + upper + 1.0))
        if ratio >= 1.0:
            return 1.0
        total += math.exp(_log_choose(n1, upper, log_fact)
                          + _log_choose(n0, n_left - upper, log_fact)
                          - _log_choose(n, n_left, log_fact)) / (1.0 - ratio)
    if lower >= max(0.0, n_left - n0):
        ratio = lower * (n0 - n_left + lower) / ((n1 - lower + 1.0) * (n_left - lower + 1.0))
        if ratio >= 1.0:
            return 1.0
        total += math.exp(_log_choose(n1, lower, log_fact)
                          + _log_choose(n0, n_left - lower, log_fact)
                          - _log_choose(n, n_left, log_fact)) / (1.0 - ratio)
    return total


@inline_njit
def _two_class_node(code, params, tables, counts):
    """(parent counts as a pair, the criterion's scratch and node term) of a two-class
    node, for `_decrease`."""
    parent_array = np.empty(2)
    parent_array[0], parent_array[1] = counts[0], counts[1]
    node = np.zeros((NODE_ROWS, 2))
    term = node_term(code, params, tables, parent_array, counts[0] + counts[1], node)
    return (counts[0], counts[1]), node, term


@njit
def _band(code, params, tables, parent, n, n_left, node, term, bar, a, b):
    """(a, b): a split sending n_left of the node's n rows left scores at least `bar`
    exactly when its class-1 count K is <= a or >= b (the score is convex in K,
    0 at K's mean; a < K's least value or b > its largest: no such K). Walked
    from a previous threshold's (a, b), which differ little."""
    n1 = parent[1]
    mean = n_left * n1 / n
    k_max, k_min = min(n_left, n1), max(0.0, n_left - (n - n1))
    b = min(max(b, math.ceil(mean)), k_max + 1.0)
    while b - 1.0 >= math.ceil(mean) and _decrease(code, params, tables, parent, n, n_left,
                                                 b - 1.0, node, term) >= bar:
        b -= 1.0
    while b <= k_max and _decrease(code, params, tables, parent, n, n_left, b, node,
                                   term) < bar:
        b += 1.0
    a = max(min(a, math.floor(mean)), k_min - 1.0)
    while a + 1.0 <= math.floor(mean) and _decrease(code, params, tables, parent, n, n_left,
                                                  a + 1.0, node, term) >= bar:
        a += 1.0
    while a >= k_min and _decrease(code, params, tables, parent, n, n_left, a, node,
                                   term) < bar:
        a -= 1.0
    return a, b


@njit
def _lattice_p_value(words, m, min_leaf, shifts, code, params, tables, counts, bar):
    """The exact permutation p-value of a two-class convex score on a numeric
    feature with no missing values (unit weights): no shuffles.

    In the node's sorted order, the class-1 counts K_i of the first i rows of a
    shuffle form a path from (0, 0) to (n, n1), every path equally likely, and
    K_i moves up with probability (n1 - K_i) / (n - i). The shuffled best score
    is below `bar` exactly when, at every threshold the search may take, K_i
    stays strictly between that threshold's a and b (`_band`). So
    1 - p = P(the path stays in the band), carried forward row by row over the
    band's width only."""
    n, n1 = float(m), counts[1]
    n0 = counts[0]
    parent, node, term = _two_class_node(code, params, tables, counts)
    key_shift = shifts.key_shift
    top = np.int64(n1)
    prob = np.zeros(top + 2)
    step = np.zeros(top + 2)
    prob[0] = 1.0
    lo, hi = 0, 0  # K values that may hold probability
    a, b = 0.0, n1
    for i in range(m):  # rows placed: i, then i + 1
        new_hi = min(hi + 1, top)
        for k in range(lo, new_hi + 1):
            stays = prob[k] * (n0 - (i - k)) if k <= hi else 0.0
            rises = prob[k - 1] * (n1 - (k - 1)) if k - 1 >= lo else 0.0
            step[k] = (stays + rises) / (n - i)
        prob, step = step, prob
        hi = new_hi
        if i + 1 < m and (words[0, i + 1] >> key_shift) == (words[0, i] >> key_shift):
            continue
        n_left = i + 1.0
        if n_left < min_leaf or n - n_left < min_leaf:
            continue
        a, b = _band(code, params, tables, parent, n, n_left, node, term, bar, a, b)
        lo = max(lo, np.int64(a) + 1)
        hi = min(hi, np.int64(b) - 1)
        if lo > hi:
            return 1.0
    stay = 0.0
    for k in range(lo, hi + 1):
        stay += prob[k]
    return min(max(1.0 - stay, 0.0), 1.0)


@njit
def _hypergeometric_bound(words, m, stop, n_miss, min_leaf, shifts, code, params, tables,
                          counts, bar, limit, log_fact):
    """An upper bound on the permutation p-value of a two-class convex score on
    a numeric feature (unit weights), or a number above `limit` once the bound
    exceeds it.

    Under a shuffle of the labels, the class-1 count K of the rows a fixed
    threshold sends left is hypergeometric. For the decrease of a concave
    impurity (and HDDT's squared distance; `bar` on the scan's scale), the
    score of that threshold is convex in K with its minimum 0 at K's mean, so
    it reaches `bar` exactly when K <= a or K >= b. The shuffled best score
    reaches `bar` only if some threshold's does: the p-value is at
    most the sum, over every threshold the search may take (every boundary
    between values and `min_samples_leaf`, each way of the missing rows), of
    P(K <= a) + P(K >= b) (`_tails`). a and b move little from one threshold to
    the next, so they are walked, not searched."""
    n, n1 = float(m), counts[1]
    parent, node, term = _two_class_node(code, params, tables, counts)
    key_shift = shifts.key_shift
    total = 0.0
    upper = np.zeros(2)  # per direction of the missing rows: the walked b and a
    lower = np.zeros(2)
    for direction in range(2 if n_miss > 0 else 1):
        upper[direction], lower[direction] = n1, 0.0
    for i in range(stop):
        if i + 1 < stop and (words[0, i + 1] >> key_shift) == (words[0, i] >> key_shift):
            continue
        for direction in range(2 if n_miss > 0 else 1):
            n_left = i + 1.0 + (n_miss if direction == 1 else 0.0)
            if n_left < min_leaf or n - n_left < min_leaf:
                continue
            a, b = _band(code, params, tables, parent, n, n_left, node, term, bar,
                         lower[direction], upper[direction])
            upper[direction], lower[direction] = b, a
            total += _tails(n, n1, n_left, b, a, log_fact)
            if total > limit:
                return total
    return total


@njit
def _shuffle(words, m, key_shift, seed, shuffle, key, labels, shuffled):
    """shuffled[0, :m]: words[0, :m] with their (class, row) parts permuted by the
    Fisher-Yates shuffle keyed by (seed, shuffle, key): rng.below(i + 1, ...) is
    the i-th draw."""
    low_mask = (np.uint64(1) << key_shift) - np.uint64(1)
    for i in range(m):
        labels[i] = words[0, i] & low_mask
    for i in range(m - 1, 0, -1):
        other = below(i + 1, seed, shuffle, key, i)
        labels[i], labels[other] = labels[other], labels[i]
    for i in range(m):
        shuffled[0, i] = (words[0, i] & ~low_mask) | labels[i]


def p_value_bound(code, present: tuple):
    """For the criterion `code` (count tables as in searches.searches_for), the p-value
    of a node without shuffles (default mode; see test_split): `_hypergeometric_bound`,
    and where it exceeds the significance and the feature has no missing values,
    `_lattice_p_value`; written to out[0]. Compiled per criterion, called by address."""
    x0, x1, x2, x3 = present

    def bound(words, m, stop, min_leaf, shifts, params, tables, counts, bar, significance,
              log_fact, out):
        tables = CountTables(tables.xlogx if x0 else None, tables.power0 if x1 else None,
                             tables.power1 if x2 else None, tables.sqrt if x3 else None)
        out[0] = _hypergeometric_bound(words, m, stop, m - stop, min_leaf, shifts, code,
                                       params, tables, counts, bar, significance, log_fact)
        if out[0] > significance and stop == m:
            out[0] = _lattice_p_value(words, m, min_leaf, shifts, code, params, tables,
                                      counts, bar)

    return njit_form(bound, f"{code.name.lower()}_t{''.join('1' if f else '0' for f in present)}")


def _example_bound_arguments() -> tuple:
    """Values of the types `p_value_bound` takes (and test_split passes)."""
    search = example_search_arguments()
    return (search[0], np.int64(1), np.int64(1), np.int64(1), search[5].shifts, search[6],
            search[7], np.zeros(2), 0.0, 0.0, np.zeros(1), np.zeros(1))


BOUND = Signature.of("a p-value bound", *_example_bound_arguments())
call_bound = caller(BOUND)


@njit
def test_split(words, level, j, f, columns, rows, min_leaf, test):
    """S-pruning's test of node j's split on feature f: the function of its
    level.SplitTest, called by the growth step (level.accept_splits) with the level's
    `words` and `min_leaf` = min_samples_leaf (the search's: S-pruning refuses a weight
    rule). At the node's slot: its key is test.keys' (level.give_keys); whether the split
    stands (1) or the node becomes a leaf (0) goes to test.verdicts, its p-value and the
    shuffles scored to test.p_values and test.shuffles.

    The node's words of f are copied and sorted whole, by (rank, class, row): the
    shuffles are keyed by position, and that order does not depend on how the rows
    reached the node. The engine's own search (test.scorer's) scores the copy: first
    the node's labels (the observed score G), then shuffled labels, as the module
    docstring says; in the default mode, for a two-class convex score (test.bound
    nonzero), first the p-value without shuffles (`p_value_bound`).
    """
    scorer, bound = test.scorer, test.bound
    seed, n_shuffles, significance, exact, squared = test.settings
    split_at_most, leaf_from, log_fact = test.stops
    shifts = rows.shifts
    key_shift = shifts.key_shift
    start, end, slot = level.starts[j], level.ends[j], level.slots[j]
    m = end - start
    node_words = np.empty((1, m), np.uint64)
    node_words[0, :] = np.sort(words[f, start:end])
    shuffled_words = np.empty((1, m), np.uint64)
    labels = np.empty(m, np.uint64)
    counts = level.counts[j]
    parents = np.empty((1, counts.shape[0]))
    parents[0, :] = counts
    one_end = np.empty(1, np.int64)
    one_end[0] = m
    # the search's records for one node and one feature (feature 0 of node_words)
    node = Level(np.zeros(1, np.int64), one_end, np.zeros(1, np.int64), parents,
                 np.zeros(1, np.int64))
    node_categories = np.empty(1, np.int64)
    node_categories[0] = columns.n_categories[f]
    missing_rank = columns.missing_rank[f]
    node_missing = np.empty(1, np.int64)
    node_missing[0] = missing_rank
    one = Columns(columns.is_nominal, node_categories, node_missing, columns.X)
    leaf_rule = (min_leaf, 0.0)
    feature_zero = np.zeros(1, np.int64)
    mask = np.ones((1, 1), np.uint8)
    found = new_found(1, 1)
    score = found.score
    p_value = np.empty(1)
    limit = significance * n_shuffles  # the exact test splits when g <= limit
    nominal = columns.is_nominal[f] == 1
    stop = m
    while stop > 0 and np.int64(node_words[0, stop - 1] >> key_shift) == missing_rank:
        stop -= 1
    computed = math.inf
    bar = math.inf
    n_done, n_hits = 0, 0
    for i in range(m):  # trial -1 scores the node's own labels
        shuffled_words[0, i] = node_words[0, i]
    trial = -1
    while True:
        if trial >= 0:
            if not exact and (n_hits > limit or n_hits + (n_shuffles - n_done) <= limit
                              or (n_done > 0 and (n_hits <= split_at_most[n_done]
                                                  or n_hits >= leaf_from[n_done]))):
                break
            # the stop flag at every shuffle: one shuffle of a node of a million rows
            # takes ~0.05 s, a block of them could take seconds
            if n_done == n_shuffles or test.stop[0] != 0:
                break
            _shuffle(node_words, m, key_shift, seed, n_done, test.keys[slot], labels,
                     shuffled_words)
        score[0, 0] = -math.inf
        call_search(scorer.nominal if nominal else scorer.numeric, shuffled_words, node,
                    feature_zero, mask, one, rows, scorer.params, scorer.tables, leaf_rule,
                    found, FIRST, ONE)
        if trial >= 0:
            if score[0, 0] >= bar:
                n_hits += 1
            n_done += 1
        else:
            bar = score[0, 0] - splitter.TIE_EPS * (1.0 + abs(score[0, 0]))
            if bound != 0 and not nominal:
                # the bar on the scan's scale: HDDT's scan compares squares
                raw_bar = bar if not squared else bar * bar if bar > 0.0 else -math.inf
                call_bound(bound, node_words, m, stop, min_leaf, shifts, scorer.params,
                           scorer.tables, counts, raw_bar, significance, log_fact, p_value)
                computed = p_value[0]
                if computed <= significance or stop == m:
                    break
        trial += 1
    if computed < math.inf:
        leaf = computed > significance
    else:
        leaf = n_hits > limit or (not exact and n_hits >= leaf_from[n_done])
    test.shuffles[slot] = n_done
    test.p_values[slot] = (n_hits / n_done if n_done > 0
                           else computed if computed < math.inf else math.nan)
    test.verdicts[slot] = 0 if leaf else 1
