"""Grow whole subtrees of small nodes, each in one call (jitted).

Below `builder.SUBTREE_BYTES` of packed words, a node's segments (and the
partition's scratch) fit in a core's second-level cache, so its whole subtree is grown
there, level by level, by one thread, with the same steps as the level loop
over large nodes: split search (splitter), the growth step (level.grow_step:
choice of feature, acceptance, category sets, `split_level`), partition.
Subtrees own disjoint rows of the words, of `goes_left` and of
the node store (nodes.py), so threads grow them side by side without
locks, and each comes out the same whichever thread grows it. Each call
appends its nominal splits' categories to a buffer of its own, which it returns
(nodes.py: source -1 - lo).
"""
import numpy as np

from dtcli.engine.level import Level, Step, call_grow_step
from dtcli.engine.partition import partition
from dtcli.engine.rng import draw_features
from dtcli.engine.searches import call_search
from dtcli.engine.splitter import new_found
from dtcli.jit.flags import inline_njit, njit


# The first work item of the kernels' ranges: an int literal would make numba compile
# them once more, for the literal's own type.
FIRST = np.int64(0)


@njit
def grow_subtrees(words, roots, root_counts, order, numeric, nominal, columns, rows, criterion,
                  screen, rules, min_gain, test, random_key, goes_left, store, calls, lo, hi):
    """Grow the subtrees of roots order[lo:hi]; roots[r] = (start, end, depth, slot)
    with class counts root_counts[r], all nodes that may split; `columns`
    and `rows` are level.Columns and level.Rows, `criterion` the searches.Scorer of
    the criterion and `screen` that of the criterion screening features (C4.5's
    average-gain rule, splitter.pick_screened; no addresses: no screening), `test` the
    growth step's level.SplitTest, `calls` the growth step's level.StepCalls. Returns
    the categories of the call's nominal splits: (source, codes, sides) (nodes.py).
    Compiled once: the searches and the growth step are called by address."""
    n_features = words.shape[0]
    n_classes = root_counts.shape[1]
    leaf_rule = (rules.min_samples_leaf, rules.min_weight)  # as the search reads it
    shifts = rows.shifts
    screened = screen.numeric != 0 or screen.nominal != 0
    has_nominal = nominal.shape[0] > 0
    capacity = 1
    for r in range(lo, hi):
        capacity = max(capacity, roots[order[r], 1] - roots[order[r], 0])
    # two sets of level arrays (this level's nodes, the next's), swapped per level
    ints = np.empty((2, 4, capacity), np.int64)  # start, end, depth, slot
    counts = np.empty((2, capacity, n_classes))
    moving = (np.empty(capacity, np.int64), np.empty(capacity, np.int64),
              np.empty(capacity, np.int64))
    # the nominal splits' categories: at most a node's rows each, a level's rows in all
    set_codes = np.empty(capacity if has_nominal else 0, np.int64)
    set_sides = np.empty(capacity if has_nominal else 0, np.uint8)
    set_state = np.array([0, -1 - lo], np.int64)  # (used, source)
    set_spans = np.empty((capacity, 2), np.int64)
    sizes = np.zeros(2, np.int64)  # the growth step's: children, moving nodes
    for r in range(lo, hi):
        root = order[r]
        for field in range(4):
            ints[0, field, 0] = roots[root, field]
        for k in range(n_classes):
            counts[0, 0, k] = root_counts[root, k]
        now = 0
        m = 1
        while m > 0:
            level = Level(ints[now, 0, :m], ints[now, 1, :m], ints[now, 2, :m],
                          counts[now, :m], ints[now, 3, :m])
            found = new_found(n_features, m)
            mask = np.empty((n_features, m), np.uint8)
            draw_features(random_key, level.slots, rules.max_features, mask)
            # the screening criterion's results: only its scores are read
            screen_found = new_found(n_features, m) if screened else found
            search_level(words, level, numeric, nominal, mask, columns, rows, criterion,
                         leaf_rule, found)
            if screened:
                search_level(words, level, numeric, nominal, mask, columns, rows, screen,
                             leaf_rule, screen_found)
            if has_nominal:
                room = set_state[0]
                for j in range(m):
                    room += level.ends[j] - level.starts[j]
                if room > set_codes.shape[0]:
                    set_codes, set_sides = _grown(set_codes, set_sides, room)
            children = (ints[1 - now, 0], ints[1 - now, 1], ints[1 - now, 2],
                        counts[1 - now], ints[1 - now, 3])
            step = Step((set_spans, set_codes, set_sides, set_state), goes_left, store,
                        children, moving, sizes)
            call_grow_step(calls.grow_step, words, level, found, screened, screen_found.score,
                           columns, rows, rules, min_gain, test, step, calls.nominal_sets)
            m, n_moving = sizes[0], sizes[1]
            partition(words, moving[0][:n_moving],
                      moving[1][:n_moving], moving[2][:n_moving], goes_left, shifts.row_mask,
                      FIRST, n_features * n_moving)
            now = 1 - now
    return set_state[1], set_codes[:set_state[0]], set_sides[:set_state[0]]


@inline_njit
def search_level(words, level, numeric, nominal, mask, columns, rows, criterion, leaf_rule,
                 found):
    """Every (feature, node) pair of a level searched with `criterion` (a Scorer), in one
    thread, into `found`."""
    m = level.starts.shape[0]
    if numeric.shape[0] > 0:
        call_search(criterion.numeric, words, level, numeric, mask, columns, rows,
                    criterion.params, criterion.tables, leaf_rule, found, FIRST,
                    numeric.shape[0] * m)
    if nominal.shape[0] > 0:
        call_search(criterion.nominal, words, level, nominal, mask, columns, rows,
                    criterion.params, criterion.tables, leaf_rule, found, FIRST,
                    nominal.shape[0] * m)


@njit
def _grown(codes, sides, at_least):
    """codes and sides copied into arrays of twice at_least entries."""
    bigger_codes = np.empty(2 * at_least, np.int64)
    bigger_sides = np.empty(2 * at_least, np.uint8)
    for i in range(codes.shape[0]):
        bigger_codes[i] = codes[i]
        bigger_sides[i] = sides[i]
    return bigger_codes, bigger_sides
