"""The permutation tests of S-pruning, one tree level of nodes at a time (jitted).

A tested node is a split node of the grown tree: its training rows (rows of
weight 0 left out) and the feature its split chose. `test_level` gives each
node of a level its rows' words of that feature, packed as the engine packs
them (presort.py: rank, class, row) and sorted by rank, so the engine's own
search (`splitter.search_numeric` / `search_nominal`, with the same criterion,
count tables, `min_samples_leaf`, missing-value passes, nominal subset search
and tie rule as the growth) scores the feature: first on the node's labels
(the observed score G), then on shuffled labels. A shuffle permutes the
(class, row) parts of the words over the node's positions, leaving the ranks
where they are: every label, with its row's weight, moves to another row's
value (a Fisher-Yates shuffle drawn from rng.py, keyed by (seed, shuffle
number, node key, draw), so a node's shuffles depend only on the node).

The node's result: how many shuffles were scored and how many scored at
least G (up to the engine's tie tolerance, splitter.TIE_EPS); in the default
mode, for two-class scores convex in a threshold's class counts (decreases
of a concave impurity, HDDT's squared distance), the p-value without
shuffles where it can be had: a bound that proves it small
(`_hypergeometric_bound`), or its exact value over all shuffles
(`_lattice_p_value`). Then the node's rows are
routed to its children (left rows first, in its range of `rows_out`), as
the tree's split sends them, for the next level.

Every node is a pure function of its rows and its key: the level's nodes run
on threads in chunks (threads.run_chunks) with no effect on the results.

One file: numba's cache keys a kernel on the engine's sources and its own
file only (jit/cache.py), so kernels split over two files here would run
stale code from the cache after an edit of the other.
"""
import math

import numpy as np

from dtcli.criteria.counts import CountTables
from dtcli.criteria.kernels import NODE_ROWS, node_term, split_score
from dtcli.engine import splitter
from dtcli.engine.level import Columns, Level, Rows
from dtcli.engine.predict import listed_side
from dtcli.engine.rng import below, random_bits
from dtcli.engine.searches import example_search_arguments, call_search
from dtcli.engine.splitter import new_found
from dtcli.jit.flags import inline_njit, njit, njit_form
from dtcli.jit.indirect import Signature, caller

# A first-run argument of the searches: an int literal would compile them again.
FIRST = np.int64(0)
ONE = np.int64(1)


@njit
def node_keys(children_left, children_right, root_key):
    """A key per node from its path alone: the root's is `root_key`, a child's a hash
    of its parent's and its side (rng.random_bits). No growth order, thread or
    node numbering enters it."""
    keys = np.empty(children_left.shape[0], np.uint64)
    keys[0] = np.uint64(root_key)
    for node in range(children_left.shape[0]):  # parents come before children
        if children_left[node] >= 0:
            keys[children_left[node]] = random_bits(keys[node], 1, 0, 0)
            keys[children_right[node]] = random_bits(keys[node], 2, 0, 0)
    return keys


@njit
def sequential_bounds(n_shuffles, significance, risk):
    """For L = 1..n_shuffles shuffles with g of them at least the observed score:
    split_at_most[L], the largest g with P(Bin(L, s) <= g) <= risk / n_shuffles, and
    leaf_from[L], the smallest g with P(Bin(L, s) >= g) <= risk / n_shuffles
    (s = significance). g <= split_at_most[L] puts the p-value's Clopper-Pearson
    upper bound below s, g >= leaf_from[L] its lower bound above s, each at
    level risk / n_shuffles: over all looks at one node, a wrong side at most
    `risk` (union bound)."""
    split_at_most = np.full(n_shuffles + 1, -1, np.int64)
    leaf_from = np.empty(n_shuffles + 1, np.int64)
    for n in range(n_shuffles + 1):
        leaf_from[n] = n + 1
    level = risk / n_shuffles
    if significance <= 0.0 or significance >= 1.0:  # Bin(L, s) is a point mass
        for n in range(1, n_shuffles + 1):
            if significance <= 0.0:
                leaf_from[n] = 1
            else:
                split_at_most[n] = n - 1
        return split_at_most, leaf_from
    odds = math.log(significance) - math.log1p(-significance)
    for n in range(1, n_shuffles + 1):
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
    return split_at_most, leaf_from


@njit
def kept_nodes(children_left, children_right, make_leaf):
    """The nodes compact(tree, make_leaf) keeps, in order: none below a node made a
    leaf."""
    cut_off = np.zeros(children_left.shape[0], np.bool_)
    n_kept = 0
    for node in range(children_left.shape[0]):  # parents come before children
        n_kept += not cut_off[node]
        if children_left[node] >= 0 and (cut_off[node] or make_leaf[node]):
            cut_off[children_left[node]] = True
            cut_off[children_right[node]] = True
    kept = np.empty(n_kept, np.int64)
    n_kept = 0
    for node in range(children_left.shape[0]):
        if not cut_off[node]:
            kept[n_kept] = node
            n_kept += 1
    return kept


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
def ranks_by_row(words, key_shift, row_mask):
    """(features x rows) int64: the rank (category for nominal features) of every row;
    None if some feature's words do not hold every row once (words a growth with
    reuse=False wrote over)."""
    ranks = np.full(words.shape, -1, np.int64)
    for f in range(words.shape[0]):
        for i in range(words.shape[1]):
            ranks[f, np.int64(words[f, i] & row_mask)] = np.int64(words[f, i] >> key_shift)
    for f in range(words.shape[0]):
        for row in range(words.shape[1]):
            if ranks[f, row] < 0:
                return None
    return ranks


@njit
def _gather(rank_of, y, rows_in, start, m, f, shifts, words):
    """words[0, :m]: the words of feature f of rows_in[start:start + m], sorted (by
    rank first, as presort.py packs them)."""
    gathered = np.empty(m, np.uint64)
    for i in range(m):
        row = rows_in[start + i]
        gathered[i] = ((np.uint64(rank_of[f, row]) << shifts.key_shift)
                       | (np.uint64(y[row]) << shifts.class_shift) | np.uint64(row))
    gathered = np.sort(gathered)
    for i in range(m):
        words[0, i] = gathered[i]


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


@njit
def _route(words, m, start, shifts, missing_rank, nominal, listed, cut_rank,
           missing_left, rows_out):
    """Write the node's rows to rows_out[start:start + m] as its split sends them,
    left ones first; return how many go left. A nominal split's categories are
    codes[lo:hi] of listed = (codes, goes_left, lo, hi) (tree.py)."""
    codes, sides, lo, hi = listed
    left, right = start, start + m
    for i in range(m):
        rank = np.int64(words[0, i] >> shifts.key_shift)
        if rank == missing_rank:
            to_left = missing_left == 1
        elif nominal:
            side = listed_side(codes, sides, lo, hi, rank)
            to_left = side == 1 if side >= 0 else missing_left == 1
        else:
            to_left = rank <= cut_rank
        row = np.int64(words[0, i] & shifts.row_mask)
        if to_left:
            rows_out[left] = row
            left += 1
        else:
            right -= 1
            rows_out[right] = row
    return left - start


def p_value_bound(code, present: tuple):
    """For the criterion `code` (count tables as in searches.searches_for), the p-value
    of a node without shuffles (default mode; see test_level): `_hypergeometric_bound`,
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
    """Values of the types `p_value_bound` takes (and test_level passes)."""
    search = example_search_arguments()
    return (search[0], np.int64(1), np.int64(1), np.int64(1), search[5].shifts, search[6],
            search[7], np.zeros(2), 0.0, 0.0, np.zeros(1), np.zeros(1))


BOUND = Signature.of("a p-value bound", *_example_bound_arguments())
call_bound = caller(BOUND)


@njit
def test_level(data, criterion, bound, test, level, out, lo, hi):
    """Test nodes lo..hi-1 of a level and route their rows.

    data = (rank_of (features x rows: each row's rank per feature), y, weights,
    unit_weight, is_nominal, missing_rank, n_categories, values, offsets (the
    numeric features' values by rank, presort.py), shifts, min_leaf);
    criterion = the searches.Scorer of the tree's criterion; bound = the address of
    its `p_value_bound` (0: shuffles only: not two classes, unit weights and a score
    convex in a threshold's class counts (significance.BOUNDED_CODES), or exact mode);
    test = (seed, n_shuffles, significance, exact, split_at_most, leaf_from,
    ln k! for k = 0..rows (`log_factorials`; the bound's), whether the scan
    compares the squares of the scores (HDDT; the bound's));
    level = (rows_in, rows_out, starts, ends, features, thresholds, missing_left,
    categories, counts, keys): node j's rows are rows_in[starts[j]:ends[j]],
    its split sends present values <= thresholds[j] (numeric) left, or (nominal)
    the categories its set in categories = the level's (category_offsets,
    category_codes, category_goes_left) (tree.py) sends left;
    out = (observed score, shuffles scored, shuffles at least as good, the p-value
    computed without shuffles (the hypergeometric bound if it is at most s, else
    the lattice path p-value; inf if none), rows sent left, whether it splits).
    """
    rank_of, y, weights, unit_weight, is_nominal, missing_rank, n_categories, values, \
        offsets, shifts, min_leaf = data
    leaf_rule = (min_leaf, 0.0)  # the search's: no weight rule (s-pruning refuses one)
    seed, n_shuffles, significance, exact, split_at_most, leaf_from, log_fact, \
        squared = test
    rows_in, rows_out, starts, ends, features, thresholds, missing_left, categories, \
        counts, keys = level
    set_offsets, set_codes, set_sides = categories
    observed, shuffled, at_least, computed, n_left_out, split = out
    key_shift = shifts.key_shift
    n_classes = counts.shape[1]
    capacity = 1
    for j in range(lo, hi):
        capacity = max(capacity, ends[j] - starts[j])
    words = np.empty((1, capacity), np.uint64)
    shuffled_words = np.empty((1, capacity), np.uint64)
    labels = np.empty(capacity, np.uint64)
    one_start = np.zeros(1, np.int64)
    one_end = np.zeros(1, np.int64)
    parents = np.empty((1, n_classes))
    feature_zero = np.zeros(1, np.int64)
    mask = np.ones((1, 1), np.uint8)
    node_missing = np.empty(1, np.int64)
    node_categories = np.empty(1, np.int64)
    # the search's records for one node and one feature (feature 0 of `words`)
    node = Level(one_start, one_end, np.zeros(1, np.int64), parents, np.zeros(1, np.int64))
    columns = Columns(is_nominal, node_categories, node_missing, values, offsets)
    rows = Rows(shifts, weights, unit_weight)
    found = new_found(1, 1)
    score = found.score
    p_value = np.empty(1)
    limit = significance * n_shuffles  # the exact test splits when g <= limit
    for j in range(lo, hi):
        start, end, f = starts[j], ends[j], features[j]
        m = end - start
        _gather(rank_of, y, rows_in, start, m, f, shifts, words)
        one_end[0] = m
        node_missing[0] = missing_rank[f]
        node_categories[0] = n_categories[f]
        for k in range(n_classes):
            parents[0, k] = counts[j, k]
        nominal = is_nominal[f] == 1
        stop = m
        while stop > 0 and np.int64(words[0, stop - 1] >> key_shift) == missing_rank[f]:
            stop -= 1
        computed[j] = math.inf
        bar = math.inf
        n_done, n_hits = 0, 0
        for i in range(m):  # trial -1 scores the node's own labels
            shuffled_words[0, i] = words[0, i]
        trial = -1
        while True:
            if trial >= 0:
                if not exact and (n_hits > limit or n_hits + (n_shuffles - n_done) <= limit
                                  or (n_done > 0 and (n_hits <= split_at_most[n_done]
                                                      or n_hits >= leaf_from[n_done]))):
                    break
                if n_done == n_shuffles:
                    break
                _shuffle(words, m, key_shift, seed, n_done, keys[j], labels,
                         shuffled_words)
            score[0, 0] = -math.inf
            call_search(criterion.nominal if nominal else criterion.numeric, shuffled_words,
                        node, feature_zero, mask, columns, rows, criterion.params,
                        criterion.tables, leaf_rule, found, FIRST, ONE)
            if trial >= 0:
                if score[0, 0] >= bar:
                    n_hits += 1
                n_done += 1
            else:
                observed[j] = score[0, 0]
                bar = score[0, 0] - splitter.TIE_EPS * (1.0 + abs(score[0, 0]))
                if bound != 0 and not nominal:
                    # the bar on the scan's scale: HDDT's scan compares squares
                    raw_bar = (bar if not squared else bar * bar if bar > 0.0
                               else -math.inf)
                    call_bound(bound, words, m, stop, min_leaf, shifts, criterion.params,
                               criterion.tables, counts[j], raw_bar, significance, log_fact,
                               p_value)
                    computed[j] = p_value[0]
                    if computed[j] <= significance or stop == m:
                        break
            trial += 1
        shuffled[j], at_least[j] = n_done, n_hits
        if computed[j] < math.inf:
            leaf = computed[j] > significance
        else:
            leaf = n_hits > limit or (not exact and n_hits >= leaf_from[n_done])
        split[j] = 0 if leaf else 1
        cut_rank = -1
        if not nominal:  # the largest rank the threshold sends left
            cut_rank = np.searchsorted(values[offsets[f]:offsets[f + 1]], thresholds[j],
                                       side="right") - 1
        n_left_out[j] = _route(words, m, start, shifts, missing_rank[f], nominal,
                               (set_codes, set_sides, set_offsets[j], set_offsets[j + 1]),
                               cut_rank, missing_left[j], rows_out)
