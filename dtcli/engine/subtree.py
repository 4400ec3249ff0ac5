"""Grow whole subtrees of small nodes, each in one call (jitted).

Below `builder.SUBTREE_BYTES` of packed words, a node's segments in both
buffers fit in a core's second-level cache, so its whole subtree is grown
there, level by level, by one thread, with the same steps as the level loop
over large nodes: split search (splitter), the growth step (level.grow_step:
choice of feature, acceptance, category sets, `split_level`), partition.
Subtrees own disjoint rows of both buffers, of `goes_left` and of
the node store (nodes.py), so threads grow them side by side without
locks, and each comes out the same whichever thread grows it. Each call
appends its nominal splits' categories to a buffer of its own, which it returns
(nodes.py: source -1 - lo).
"""
import itertools

import numpy as np

from dtcli.engine import splitter
from dtcli.engine.jit import njit, njit_form
from dtcli.engine.level import Level, Step, grow_step_nominal, grow_step_numeric
from dtcli.engine.partition import partition
from dtcli.engine.rng import draw_features
from dtcli.engine.splitter import new_found


# The first work item of the kernels' ranges: an int literal would make numba compile
# them once more, for the literal's own type.
FIRST = np.int64(0)


def _subtree_grower(two_classes: bool, skip_runs: bool, has_numeric: bool,
                    has_nominal: bool, screened: bool):
    """grow_subtrees for one form of data and criterion (see splitter.NUMERIC_SEARCH); the
    flags are constants of the closure (and its only variables: see
    splitter._numeric_search), so a form compiles only the searches it calls
    (numeric-only data never the nominal one). `screened`: features are screened
    by a second criterion (`screen` = its code, parameters and tables;
    splitter.pick_screened); unscreened forms are given the criterion itself there."""

    def grow_subtrees(buffers, roots, root_counts, order, numeric, nominal, columns, rows,
                      criterion, screen, rules, min_gain, random_key, goes_left, store, lo, hi):
        """Grow the subtrees of roots order[lo:hi]; roots[r] = (start, end, depth, slot,
        buffer) with class counts root_counts[r], all nodes that may split; `columns`
        and `rows` are level.Columns and level.Rows, `criterion` and `screen` (code,
        params, tables). Returns the categories of the call's nominal splits: (source,
        codes, sides) (nodes.py)."""
        n_features = buffers[0].shape[0]
        n_classes = root_counts.shape[1]
        leaf_rule = (rules.min_samples_leaf, rules.min_weight)  # as the search reads it
        shifts = rows.shifts
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
        for r in range(lo, hi):
            root = order[r]
            for field in range(4):
                ints[0, field, 0] = roots[root, field]
            for k in range(n_classes):
                counts[0, 0, k] = root_counts[root, k]
            source = roots[root, 4]
            now = 0
            m = 1
            while m > 0:
                words = buffers[source]
                level = Level(ints[now, 0, :m], ints[now, 1, :m], ints[now, 2, :m],
                              counts[now, :m], ints[now, 3, :m])
                found = new_found(n_features, m)
                mask = np.empty((n_features, m), np.uint8)
                draw_features(random_key, level.slots, rules.max_features, mask)
                # the screening criterion's results: only its scores are read
                screen_found = new_found(n_features, m) if screened else found
                if has_numeric and two_classes and skip_runs:
                    search = splitter.search_numeric_two_skip
                elif has_numeric and two_classes:
                    search = splitter.search_numeric_two
                elif has_numeric and skip_runs:
                    search = splitter.search_numeric_many_skip
                else:
                    search = splitter.search_numeric_many
                if has_numeric:
                    search(words, level, numeric, mask, columns, rows, criterion, leaf_rule,
                           found, FIRST, numeric.shape[0] * m)
                    if screened:
                        search(words, level, numeric, mask, columns, rows, screen, leaf_rule,
                               screen_found, FIRST, numeric.shape[0] * m)
                if has_nominal:
                    splitter.search_nominal(words, level, nominal, mask, columns, rows,
                                            criterion, leaf_rule, found, FIRST,
                                            nominal.shape[0] * m)
                    if screened:
                        splitter.search_nominal(words, level, nominal, mask, columns, rows,
                                                screen, leaf_rule, screen_found, FIRST,
                                                nominal.shape[0] * m)
                    room = set_state[0]
                    for j in range(m):
                        room += level.ends[j] - level.starts[j]
                    if room > set_codes.shape[0]:
                        set_codes, set_sides = _grown(set_codes, set_sides, room)
                children = (ints[1 - now, 0], ints[1 - now, 1], ints[1 - now, 2],
                            counts[1 - now], ints[1 - now, 3])
                step = Step((set_spans, set_codes, set_sides, set_state), goes_left, store,
                            children, moving)
                if has_nominal:
                    m, n_moving = grow_step_nominal(words, level, found, screened,
                                                    screen_found.score, columns, rows, rules,
                                                    min_gain, step)
                else:
                    m, n_moving = grow_step_numeric(words, level, found, screened,
                                                    screen_found.score, columns, rows, rules,
                                                    min_gain, step)
                partition(words, buffers[1 - source], moving[0][:n_moving],
                          moving[1][:n_moving], moving[2][:n_moving], goes_left, shifts.row_mask,
                          FIRST, n_features * n_moving)
                source = 1 - source
                now = 1 - now
        return set_state[1], set_codes[:set_state[0]], set_sides[:set_state[0]]

    flags = (two_classes, skip_runs, has_numeric, has_nominal, screened)
    return njit_form(grow_subtrees, "".join("1" if flag else "0" for flag in flags))


@njit
def _grown(codes, sides, at_least):
    """codes and sides copied into arrays of twice at_least entries."""
    bigger_codes = np.empty(2 * at_least, np.int64)
    bigger_sides = np.empty(2 * at_least, np.uint8)
    for i in range(codes.shape[0]):
        bigger_codes[i] = codes[i]
        bigger_sides[i] = sides[i]
    return bigger_codes, bigger_sides


# By (two classes, skip runs, numeric features, nominal features, screened); numba
# compiles a form on first use.
GROWERS = {form: _subtree_grower(*form) for form in itertools.product((False, True), repeat=5)}
