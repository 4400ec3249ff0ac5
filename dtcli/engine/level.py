"""The growth step: one level of growth after the split search (jitted, serial).

A level is a list of nodes that may split, each the rows [start, end) of
the segments of one word buffer, with its depth, class counts and slot in
the node store (nodes.py). After the split search (splitter), `grow_step`
is the rest of a level's growth, the one step both drivers take (the level
loop over large nodes, builder, after searching on all threads; the subtree
loop over small ones, subtree):

1. pick each node's feature (`splitter.pick_features`, or C4.5's screened
   pick);
2. `accept_splits`, the extension point where a node's chosen split may be
   rejected: the `min_gain` rule, then a per-node test called by address
   (`SplitTest`: S-pruning's permutation test, pruning/permutation.py), so
   that a node the test makes a leaf never grows its subtree (with a test,
   `give_keys` then gives each split's children their keys);
3. list the categories of the nominal splits (`nominal_sets`);
4. `split_level`: record every node (its split, or a leaf), route the rows
   of the split nodes (`goes_left`), record the children that cannot split
   as leaves at once, and list the others (the next level) with the nodes
   whose rows must be partitioned into the children's order.

The partition follows, on all threads in the level loop. A test grows every
criterion's trees through each driver alone and requires identical trees
(tests/test_grow_many.py).
"""
import functools
import math
from typing import NamedTuple

import numpy as np

from dtcli.engine.nodes import child_slots, new_store, no_span, write_leaf, write_node
from dtcli.engine.presort import WordLayout
from dtcli.engine.rng import random_bits
from dtcli.engine.scorer import NO_SCORER, Scorer
from dtcli.engine.splitter import (TIE_EPS, Found, nominal_left_set, pick_features,
                                   pick_screened)
from dtcli.jit.flags import inline_njit, njit
from dtcli.jit.indirect import Signature, address, caller


class Level(NamedTuple):
    """The nodes of a level that may split: rows [starts, ends) of one word buffer,
    their depth, class counts (node x class) and slot in the node store."""

    starts: np.ndarray
    ends: np.ndarray
    depth: np.ndarray
    counts: np.ndarray
    slots: np.ndarray


class Choice(NamedTuple):
    """Each node's chosen feature (`best`, -1 for none: splitter.pick_features) and the
    search's results per (feature, node) (`found`, a splitter.Found)."""

    best: np.ndarray
    found: tuple


class Columns(NamedTuple):
    """What the prepared data says of each feature (presort.py): nominal or not, its
    categories, the rank of its missing values, and the data itself, X (rows x
    features, float64), where a threshold's two values are read by row: a presort of
    every feature's distinct values would take 8 bytes per row x feature more."""

    is_nominal: np.ndarray
    n_categories: np.ndarray
    missing_rank: np.ndarray
    X: np.ndarray


class Rows(NamedTuple):
    """How to read a packed word (shifts = key, class, class mask, row mask) and weigh
    its row (weights by row, or every row 1 when unit_weight)."""

    shifts: tuple
    weights: np.ndarray
    unit_weight: bool


class Rules(NamedTuple):
    """The stopping rules as the kernels read them (builder.StopRules.for_fit): no
    feature limit is NO_LIMIT (the largest int64); min_weight is the least weight of a
    child, min_weight_fraction_leaf times the fit's total weight (0: no such rule)."""

    max_depth: np.int64
    min_samples_split: np.int64
    min_samples_leaf: np.int64
    max_features: np.int64
    min_weight: np.float64


class Step(NamedTuple):
    """What a growth step writes besides the level's own records: the nominal splits'
    category sets (`nominal_sets`: spans, codes, goes_left, state), where each row goes
    (by row of the prepared data), the node store (nodes.py), the next level's nodes
    (`children`: starts, ends, depth, counts, slots), the split nodes whose rows move
    (`moving`: starts, ends, left sizes) and how many of each (`sizes`: children,
    moving nodes)."""

    sets: tuple
    goes_left: np.ndarray
    store: tuple
    children: tuple
    moving: tuple
    sizes: np.ndarray


class SplitTest(NamedTuple):
    """A test of each node's chosen split, which `accept_splits` runs after the
    `min_gain` rule: the function at `address` (0: no test) is called with the node's
    rows, its chosen feature and this record, and writes whether the split stands to
    `verdicts` (1, or 0: a leaf) at the node's slot of the node store. S-pruning's
    permutation test (pruning/permutation.test_split) is the one test: it scores with
    `scorer` (the fit's criterion), `bound` (the address of its p-value bound, 0: none),
    `settings` = (seed, shuffles, significance, exact, squared) and `stops` =
    (split_at_most, leaf_from, ln k!) (permutation.py), keys its shuffles by the node's
    `keys` entry (a hash of its path from the root: `give_keys`), and writes each tested
    node's p-value and shuffles scored to `p_values` and `shuffles`; all by slot.
    `stop[0]`, set by the Python side when dtree is stopped (threads.run_stoppable), ends
    a running test within a block of shuffles."""

    address: np.int64
    scorer: Scorer
    bound: np.int64
    settings: tuple
    stops: tuple
    keys: np.ndarray
    verdicts: np.ndarray
    p_values: np.ndarray
    shuffles: np.ndarray
    stop: np.ndarray


NO_TEST = SplitTest(np.int64(0), NO_SCORER, np.int64(0),
                    (np.int64(0), np.int64(0), 0.0, False, False),
                    (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)),
                    np.zeros(0, np.uint64), np.zeros(0, np.uint8), np.zeros(0),
                    np.zeros(0, np.int64), np.zeros(1, np.uint8))


class StepCalls(NamedTuple):
    """The addresses (jit/indirect.py) of the growth step and of `nominal_sets` (0 for
    data without nominal features, which never compiles it)."""

    grow_step: np.int64
    nominal_sets: np.int64


@njit
def can_split(n_rows, depth, counts, rules):
    """The stopping rules (a Rules) that need no search (called from Python too)."""
    classes = 0
    weight = 0.0
    for k in range(counts.shape[0]):
        classes += counts[k] > 0.0
        weight += counts[k]
    return (depth < rules.max_depth and n_rows >= rules.min_samples_split
            and n_rows >= 2 * rules.min_samples_leaf and classes > 1
            and (rules.min_weight == 0.0 or weight >= 2.0 * rules.min_weight))


@inline_njit
def midpoint(a, b):
    """Overflow-safe midpoint that never rounds up to b (x <= t must keep a left)."""
    mid = a / 2.0 + b / 2.0
    return a if mid >= b else mid


@njit
def nominal_sets(words, level, choice, columns, rows, sets):
    """The categories present in each node whose chosen feature is nominal, with the
    side each goes to, appended to a buffer. sets = (spans, codes, goes_left, state):
    node j's categories go to codes and goes_left from state[0] (which advances),
    spans[j] = (where, how many); state[1] names the buffer (nodes.py). The caller
    leaves room for a category per row of the nodes; nodes split on numeric features
    list nothing."""
    spans, codes, goes_left, state = sets
    starts, ends, counts = level.starts, level.ends, level.counts
    best, found = choice
    n_categories, missing_rank = columns.n_categories, columns.missing_rank
    for j in range(starts.shape[0]):
        f = best[j]
        if f >= 0 and columns.is_nominal[f] == 1:
            at = state[0]
            n = nominal_left_set(words, f, starts[j], ends[j], n_categories[f], missing_rank[f],
                                 rows.shifts, rows.weights, rows.unit_weight, counts.shape[1],
                                 found.aux[f, j], found.cut[f, j], (codes[at:], goes_left[at:]))
            spans[j, 0] = at
            spans[j, 1] = n
            state[0] = at + n


@njit
def split_level(words, level, choice, columns, rows, rules, step):
    """Record every node of the level and route the rows of those that split.

    choice.best[j] is the feature chosen for node j (-1: a leaf; `accept_splits` has
    had its say); step.sets are the category sets of `nominal_sets` (not read for
    numeric splits): a nominal split records its span of them. Fills step.children
    = (starts, ends, depth, counts, slots) with the children that may split, and
    step.moving = (starts, ends, left sizes) with the split nodes that have such
    a child, and step.sizes with how many of each.
    """
    starts, ends, depth, counts, slots = level
    best, (out_score, out_cut, out_aux, out_missing_left) = choice
    is_nominal, n_categories, missing_rank, X = columns
    shifts, weights, unit_weight = rows
    key_shift, class_shift, class_mask, row_mask = shifts
    sets, goes_left, store, children, moving, sizes = step
    child_starts, child_ends, child_depth, child_counts, child_slots_ = children
    move_starts, move_ends, move_left = moving
    n_classes = counts.shape[1]
    child_split = np.zeros((2, n_classes))  # class counts of the left and right child
    spans, set_codes, set_goes_left, set_state = sets
    n_children = 0
    n_moving = 0
    for j in range(starts.shape[0]):
        start, end, f = starts[j], ends[j], best[j]
        node_counts = counts[j]
        if f < 0:
            write_leaf(store, slots[j], end - start, node_counts)
            continue
        cut, aux = out_cut[f, j], out_aux[f, j]
        nominal = is_nominal[f] == 1
        listed = spans[j, 0]  # the node's categories in increasing order (as its rows)
        cut_row, aux_row = np.int64(0), np.int64(0)  # rows of rank cut and aux
        missing_left = out_missing_left[f, j] == 1
        for k in range(n_classes):
            child_split[0, k] = 0.0
        n_left = 0
        n_missing = np.int64(0)  # a literal 0 would type write_node's argument apart
        for i in range(start, end):
            word = words[f, i]
            rank = np.int64(word >> key_shift)
            if rank == missing_rank[f]:
                goes = missing_left
                n_missing += 1
            elif nominal:
                while set_codes[listed] < rank:
                    listed += 1
                goes = set_goes_left[listed] == 1
            else:
                goes = rank <= cut
            row = np.int64(word & row_mask)
            cut_row = row if rank == cut else cut_row
            aux_row = row if rank == aux else aux_row
            goes_left[row] = goes
            if goes:
                n_left += 1
                child_split[0, np.int64((word >> class_shift) & class_mask)] += (
                    1.0 if unit_weight else weights[row])
        if n_left == 0 or n_left == end - start:
            # The search promised two non-empty children; growing on would loop forever.
            raise RuntimeError("internal error: a split sent every row to one side")
        left_weight = 0.0
        right_weight = 0.0
        for k in range(n_classes):
            child_split[1, k] = node_counts[k] - child_split[0, k]
            left_weight += child_split[0, k]
            right_weight += child_split[1, k]
        if n_missing == 0:
            # No missing value in training: future ones go to the heavier child
            # (as scikit-learn does); unseen categories follow them.
            missing_left = left_weight >= right_weight
        if nominal:
            cut_value = math.nan
        elif aux == missing_rank[f]:
            cut_value = math.inf  # present values left, missing right
        else:  # both ranks are present in the node; + 0.0: -0.0 is 0.0, as in the ranks
            cut_value = midpoint(X[cut_row, f] + 0.0, X[aux_row, f] + 0.0)
        split_row = start + n_left
        span = (set_state[1], spans[j, 0], spans[j, 1]) if nominal else no_span()
        write_node(store, slots[j], end - start, node_counts, f, cut_value, missing_left, span,
                   split_row, out_score[f, j], n_missing)
        before = n_children
        for side in range(2):  # append the children that may split; the others are leaves
            child_start = start if side == 0 else split_row
            child_end = split_row if side == 0 else end
            slot = child_slots(split_row)[side]
            counts_of_child = child_split[side]
            if not can_split(child_end - child_start, depth[j] + 1, counts_of_child, rules):
                write_leaf(store, slot, child_end - child_start, counts_of_child)
                continue
            child_starts[n_children], child_ends[n_children] = child_start, child_end
            child_depth[n_children], child_slots_[n_children] = depth[j] + 1, slot
            for k in range(n_classes):
                child_counts[n_children, k] = counts_of_child[k]
            n_children += 1
        if n_children > before:  # only rows of a node with a child to search move
            move_starts[n_moving] = start
            move_ends[n_moving] = end
            move_left[n_moving] = n_left
            n_moving += 1
    sizes[0] = n_children
    sizes[1] = n_moving


@inline_njit
def accept_splits(words, level, choice, columns, rows, rules, min_gain, test):
    """The growth step's extension point, between the pick of each node's best split and
    the split itself: node j's chosen split stands unless a rule here makes the node a
    leaf (choice.best[j] = -1). First the stopping rule `min_gain` (the split's score
    must reach it, up to the tie tolerance), then the per-node test of `test` (a
    SplitTest), if any, on the node's rows (level.starts/ends) of the chosen feature in
    `words`; the node's slot (level.slots) indexes what the test reads and writes."""
    best, found = choice
    for j in range(best.shape[0]):
        f = best[j]
        if f >= 0 and not (found.score[f, j] >= min_gain - TIE_EPS):
            best[j] = -1
        elif f >= 0 and test.address != 0:
            call_test(test.address, words, level, np.int64(j), f, columns, rows,
                      rules.min_samples_leaf, test)
            if test.verdicts[level.slots[j]] == 0:
                best[j] = -1


@inline_njit
def give_keys(level, best, store, keys):
    """Each split node's children their keys, by slot: a hash of the node's key and the
    side (rng.random_bits), so that a node's key depends on its path from the root alone
    (the root's is the growth's stream: builder.grow)."""
    for j in range(best.shape[0]):
        if best[j] >= 0:
            slot = level.slots[j]
            keys[store.children_left[slot]] = random_bits(keys[slot], 1, 0, 0)
            keys[store.children_right[slot]] = random_bits(keys[slot], 2, 0, 0)


@njit
def grow_step(words, level, found, screened, screen, columns, rows, rules, min_gain, test,
              step, nominal):
    """One level's growth after its split search, the step both drivers take: pick
    each node's feature from the search's `found` (a splitter.Found; C4.5's
    average-gain screen on `screen`'s scores when `screened`), let `accept_splits`
    reject splits (`min_gain`, and `test`: a SplitTest), list the nominal splits'
    categories (`nominal`: the address of `nominal_sets`, 0 for numeric data), and
    record the level and route its rows (`split_level`: the numbers of children and of
    moving nodes go to step.sizes).
    Compiled once, for every criterion and form of data; the subtree grower calls it by
    address (`grow_step_calls`), so it is not compiled again inside the grower."""
    if screened:
        best = pick_screened(found.score, screen)
    else:
        best = pick_features(found.score)
    choice = Choice(best, found)
    accept_splits(words, level, choice, columns, rows, rules, min_gain, test)
    if nominal != 0:
        call_nominal_sets(nominal, words, level, choice, columns, rows, step.sets)
    split_level(words, level, choice, columns, rows, rules, step)
    if test.address != 0:
        give_keys(level, choice.best, step.store, test.keys)


def example_step_arguments() -> tuple:
    """Values of the types grow_step takes, from both drivers (searches.py reads the
    records a search shares with it here too)."""
    ints, two_d = np.zeros(1, np.int64), np.zeros((1, 1))
    found = Found(two_d, np.zeros((1, 1), np.int64), np.zeros((1, 1), np.int64),
                  np.zeros((1, 1), np.uint8))
    level = Level(ints, ints, ints, two_d, ints)
    data = np.zeros((1, 1))
    data.flags.writeable = False  # the data, read-only (builder.read_only)
    columns = Columns(np.zeros(1, np.uint8), ints, ints, data)
    rows = Rows(WordLayout(*(np.uint64(0),) * 4), np.zeros(1), True)
    rules = Rules(*(np.int64(0),) * 4, np.float64(0.0))
    sets = (np.zeros((1, 2), np.int64), ints, np.zeros(1, np.uint8), ints)
    step = Step(sets, np.zeros(1, np.uint8), new_store(1, 1), (ints, ints, ints, two_d, ints),
                (ints, ints, ints), ints)
    return (np.zeros((1, 1), np.uint64), level, found, True, two_d, columns, rows, rules, 0.0,
            NO_TEST, step, np.int64(0))


def _example_sets_arguments() -> tuple:
    """Values of the types nominal_sets takes from grow_step."""
    words, level, found, _, _, columns, rows, _, _, _, step, _ = example_step_arguments()
    return words, level, Choice(np.zeros(1, np.int64), found), columns, rows, step.sets


def _example_test_arguments() -> tuple:
    """Values of the types a SplitTest's function takes from accept_splits: the words,
    the level, the node, its chosen feature, the columns, the rows, min_samples_leaf
    and the SplitTest."""
    words, level, _, _, _, columns, rows, rules, _, test, _, _ = example_step_arguments()
    one = np.int64(0)
    return words, level, one, one, columns, rows, rules.min_samples_leaf, test


GROW_STEP = Signature.of("the growth step", *example_step_arguments())
NOMINAL_SETS = Signature.of("nominal_sets", *_example_sets_arguments())
TEST = Signature.of("a split test", *_example_test_arguments())
call_grow_step = caller(GROW_STEP)
call_nominal_sets = caller(NOMINAL_SETS)
call_test = caller(TEST)


@functools.lru_cache(maxsize=2)
def grow_step_calls(has_nominal: bool) -> StepCalls:
    """The addresses the subtree grower calls the growth step with (compiling it, and
    nominal_sets for data with nominal features, on first use)."""
    return StepCalls(np.int64(address(grow_step, GROW_STEP)),
                     np.int64(address(nominal_sets, NOMINAL_SETS) if has_nominal else 0))
