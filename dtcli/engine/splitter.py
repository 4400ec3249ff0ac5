"""Best-split search over presorted, packed feature segments (all jitted).

`search_numeric` and `search_nominal` score (feature, node) pairs of one tree level, numbered
feature-major so that a thread given a chunk of pairs gets whole features of
all nodes, and the threads stay balanced whether the level has one big node
or thousands of small ones. Each pair is scanned independently and the winner
per node is picked serially (`pick_features`), so the tree does not depend on
the number of threads.

Ties: a candidate replaces the current best only when its score is larger by
more than TIE_EPS (relative), so among equal scores the first one found wins:
the lowest feature index, then missing values sent right before left, then
the lowest threshold; for nominal features, the first ordering class and then
the smallest left subset in that ordering.

Missing values sit at the end of each segment (largest rank). Every
threshold is tried with the missing rows sent right and then left; a feature
that is only partly missing also offers the split "present vs missing".

Nominal features: categories present in the node are ordered by the
proportion of one class and cut like a numeric feature. For two classes this
ordering by p(class 1 | category) contains the best subset split for any
concave impurity (Breiman et al. 1984, thm. 4.5); for K > 2 classes every
class's one-versus-rest ordering is tried (K orderings), a heuristic that
covers the optimal split in many but not all cases. Categories absent from
the node follow the missing values.

A node's rows of feature f are words[f, start:end]; the kernels index the
shared arrays directly instead of taking slices, and the small helpers
are inlined: an out-of-line call or a slice of a shared
array costs an atomic reference-count update, and threads updating the same
counts slow each other down badly.
"""
import math
from typing import NamedTuple

import numpy as np

from dtcli.criteria.counts import CountTables
from dtcli.criteria.kernels import (NODE_ROWS, finish_score, node_term, split_score, tie_bound,
                                    tie_score)
from dtcli.jit.flags import inline_njit, njit, njit_form

TIE_EPS = 1e-12


class Found(NamedTuple):
    """A search's results, arrays of (n_features, n_nodes): per (feature, node), the best
    score (-inf: no split), the cut and aux that place it (`search_numeric`,
    `search_nominal`) and whether its missing rows go left (uint8)."""

    score: np.ndarray
    cut: np.ndarray
    aux: np.ndarray
    missing_left: np.ndarray


@inline_njit
def new_found(n_features, n_nodes):
    """Found arrays for a level, every score -inf until searched."""
    return Found(np.full((n_features, n_nodes), -math.inf),
                 np.empty((n_features, n_nodes), np.int64),
                 np.empty((n_features, n_nodes), np.int64),
                 np.empty((n_features, n_nodes), np.uint8))


@inline_njit
def is_better(score, best):
    if best == -math.inf:
        return score > -math.inf
    return score > best + TIE_EPS * (1.0 + abs(best))


@inline_njit
def beat_score(best):
    """The score a candidate must exceed to replace `best` (see is_better)."""
    return best + TIE_EPS * (1.0 + abs(best)) if best > -math.inf else -math.inf


@inline_njit
def with_tie(score, beat, code, params, tables, parent, left, right, n_parent, n_left, n_right,
             node):
    """score plus the criterion's tie_score where the sum could exceed `beat` (at most
    the beat_score of the best so far): elsewhere neither the sum nor the score wins,
    so the split picked is the one the sum everywhere would pick."""
    if tie_bound(code) > 0.0 and score + tie_bound(code) > beat:
        return score + tie_score(code, params, tables, parent, left, right, n_parent, n_left,
                                 n_right, node)
    return score


@inline_njit
def finished(code, best):
    """The criterion's value of the best score of a scan (kernels.finish_score); -inf
    (no valid split) stays."""
    return finish_score(code, best) if best > -math.inf else best


@inline_njit
def raise_bar(bar, score, pos, lowest, highest):
    """The beat_score a later candidate must exceed, after the candidate (score, pos);
    only candidates in rows lowest..highest (what the leaf rules allow) count."""
    if lowest <= pos <= highest and score > bar:
        return beat_score(score)
    return bar


@inline_njit
def _decode(word, shifts):
    """(rank, class, row) of a packed word; shifts = its presort.WordLayout."""
    return (np.int64(word >> shifts.key_shift),
            np.int64((word >> shifts.class_shift) & shifts.class_mask),
            np.int64(word & shifts.row_mask))


@inline_njit
def _weight(row, weights, unit_weight):
    return 1.0 if unit_weight else weights[row]


@inline_njit
def _collect_missing(words, f, start, end, missing_rank, shifts, weights, unit_weight, miss):
    """Class counts of the missing rows at the end of the segment; (stop, n, weight).
    No `break` in the loops: an early exit from an inlined helper defeats numba's
    reference-count pruning (measured: 80 ns a call, most of the cost of a small node)."""
    key_shift, class_shift, class_mask, row_mask = shifts
    for k in range(miss.shape[0]):
        miss[k] = 0.0
    stop = end
    while stop > start and np.int64(words[f, stop - 1] >> key_shift) == missing_rank:
        stop -= 1
    weight = 0.0
    for i in range(stop, end):
        word = words[f, i]
        wt = 1.0 if unit_weight else weights[np.int64(word & row_mask)]
        miss[np.int64((word >> class_shift) & class_mask)] += wt
        weight += wt
    return stop, end - stop, weight


@inline_njit
def _skip_bounds(limits):
    """The rows between which a threshold inside a run of one class may be skipped:
    there, its neighbouring thresholds are candidates under the leaf rules whichever
    way the missing rows go (limits: per direction, the lowest and highest candidate
    row), so the run's best score is at one of them (see search_numeric)."""
    return max(limits[0, 0], limits[1, 0]), min(limits[0, 1], limits[1, 1])


@inline_njit
def _weight_limits(words, f, start, stop, shifts, weights, unit_weight, min_weight, w_miss,
                   n_parent, limits):
    """Narrow `limits` (per direction of the missing rows, the lowest and highest
    candidate row) to the candidates both of whose children weigh at least
    `min_weight` (min_weight_fraction_leaf): the left child's weight grows with the
    candidate's row and the right child's shrinks, so each bound is one row."""
    for missing_left in range(2):
        w_left = w_miss if missing_left else 0.0
        lowest, highest = stop, start - 1
        for i in range(start, stop):
            w_left += _weight(np.int64(words[f, i] & shifts.row_mask), weights, unit_weight)
            if w_left >= min_weight and lowest == stop:
                lowest = i
            if n_parent - w_left >= min_weight:
                highest = i
        limits[missing_left, 0] = max(limits[missing_left, 0], lowest)
        limits[missing_left, 1] = min(limits[missing_left, 1], highest)


# Candidate thresholds are gathered, scored and picked in blocks of this many
# rows, so the per-candidate scratch stays in the first-level cache.
BLOCK = 256
# Doubles in the widest vector register (AVX-512; a multiple of AVX2's 4), a divisor
# of BLOCK. Deep in a tree most blocks hold a handful of candidates, which the
# compiler's scalar remainder loop scored one by one: padding them to a full
# vector took two-class CCPDT (six polynomial logs a candidate; 100k x 20, one
# thread) from 0.54 to 0.51 s.
SCORE_LANES = 8


@inline_njit
def _gather_two(words, f, start, lo, hi, stop, shifts, weights, unit_weight, limits,
                totals, cand_pos, cand_weight, cand_class1, skip_runs):
    """Two classes: record the candidate thresholds among rows lo..hi-1, every last
    row of a value group (and the node's last present row), with their running
    weight and class-1 weight; return how many. totals carries from block to
    block the running weight and class-1 weight and, for `skip_runs`, the
    first row of the current value group and those weights at its start.

    Branch-free without `skip_runs` (deep in the tree the class and the
    boundary are coin flips); with it, only a next value group of one row
    is recognised (one look ahead, the common case for continuous
    features; a threshold not recognised is scored, which is never wrong,
    only slower). A group's class counts are the differences of the
    running counts at its ends: with weights, rows of weight zero do not
    count, as in the counts."""
    key_shift, class_shift, class_mask, row_mask = shifts
    m = 0
    w_run, c1_run = totals[0], totals[1]
    group_start, group_class = np.int64(totals[2]), np.int64(totals[3])
    group_pure = totals[4] == 0.0
    first_skip, last_skip = _skip_bounds(limits)
    # The node's last present row, always a candidate, is taken after the loop,
    # so that the loop reads rows i + 1 and i + 2 without a bounds check.
    for i in range(lo, min(hi, stop - 1)):
        word = words[f, i]
        wt = 1.0 if unit_weight else weights[np.int64(word & row_mask)]
        w_run += wt
        c1_run += wt * np.float64((word >> class_shift) & class_mask)
        cand_class1[m] = c1_run
        cand_pos[m] = i
        cand_weight[m] = w_run
        next_word = words[f, i + 1]
        boundary = (next_word >> key_shift) != (word >> key_shift)
        if skip_runs:
            cls = np.int64((word >> class_shift) & class_mask)
            first = i == group_start
            group_pure = first or (group_pure and cls == group_class)
            group_class = cls if first else group_class
            single = i + 2 >= stop or (words[f, i + 2] >> key_shift) != (next_word >> key_shift)
            inside_run = (group_pure and single and i < last_skip
                          and group_start - 1 >= first_skip
                          and np.int64((next_word >> class_shift) & class_mask) == cls)
            group_start = i + 1 if boundary else group_start
            m += boundary and not inside_run
        else:
            m += boundary
    if hi == stop:
        word = words[f, stop - 1]
        wt = 1.0 if unit_weight else weights[np.int64(word & row_mask)]
        w_run += wt
        c1_run += wt * np.float64((word >> class_shift) & class_mask)
        cand_class1[m] = c1_run
        cand_pos[m] = stop - 1
        cand_weight[m] = w_run
        m += 1
    totals[0], totals[1], totals[2], totals[3] = w_run, c1_run, group_start, group_class
    totals[4] = 0.0 if group_pure else 1.0
    return m

@inline_njit
def _gather_scored(words, f, start, lo, hi, stop, shifts, weights, unit_weight, code,
                   params, tables, parent, n_parent, node, term, miss, w_miss, n_passes,
                   run, rest, saved_run, totals, cand_pos, scores, skip_runs, limits, bars):
    """More than two classes: find and score the candidate thresholds among rows
    lo..hi-1 (as `_gather_two`), with the missing rows right (scores[0]) and,
    if n_passes is 2, left (scores[1]); return how many. Copying the count
    vector per candidate to score later cost more than this. `run` holds
    the running class counts and totals[0] the running weight, totals[2:5]
    the first row and class of the current value group and whether it is
    mixed, all carried from block to block. With `skip_runs` (see
    numeric_best) only a next value group of one row is recognised: one
    look ahead, the common case for continuous features; a threshold not
    recognised is scored, which is never wrong, only slower. `rest` holds
    parent - run, kept up to date row by row, so that a candidate is scored on
    run and rest themselves, and the missing-left pass moves the missing rows
    into them and back (saved_run; rest is parent - run again). Copying the two per candidate,
    as before, made each copy's vector load wait for the row's scalar store to
    run (store forwarding fails): ten classes, one thread, gini 2.39 -> 1.85 s,
    CCPDT 4.21 -> 3.29 s. Choosing between the arrays per pass instead had
    numba reference-count them at every candidate. A criterion with
    a tie_score gets it where it may win: `bars` carries each direction's bar
    (raise_bar, within `limits` per direction) from block to block."""
    key_shift, class_shift, class_mask, row_mask = shifts
    m = 0
    w_run = totals[0]
    group_start, group_class = np.int64(totals[2]), np.int64(totals[3])
    group_pure = totals[4] == 0.0
    first_skip, last_skip = _skip_bounds(limits)
    for i in range(lo, hi):
        word = words[f, i]
        wt = 1.0 if unit_weight else weights[np.int64(word & row_mask)]
        cls = np.int64((word >> class_shift) & class_mask)
        w_run += wt
        run[cls] += wt
        rest[cls] = parent[cls] - run[cls]
        if i == group_start:
            group_class, group_pure = cls, True
        elif cls != group_class:
            group_pure = False
        if i + 1 < stop:
            next_word = words[f, i + 1]
            if (next_word >> key_shift) == (word >> key_shift):
                continue
            if (skip_runs and group_pure and i < last_skip
                    and group_start - 1 >= first_skip
                    and np.int64((next_word >> class_shift) & class_mask) == cls
                    and (i + 2 >= stop
                         or (words[f, i + 2] >> key_shift) != (next_word >> key_shift))):
                group_start = i + 1
                continue
        group_start = i + 1
        for missing_left in range(n_passes):
            w_left = w_run + (w_miss if missing_left else 0.0)
            if missing_left:  # run and rest with the missing rows moved left; put back below
                for k in range(run.shape[0]):
                    saved_run[k] = run[k]
                    run[k] += miss[k]
                    rest[k] = parent[k] - run[k]
            score = split_score(code, params, tables, parent, run, rest, n_parent, w_left,
                                n_parent - w_left, node, term)
            if tie_bound(code) > 0.0:
                score = with_tie(score, bars[missing_left], code, params, tables, parent, run,
                                 rest, n_parent, w_left, n_parent - w_left, node)
                bars[missing_left] = raise_bar(bars[missing_left], score, i,
                                               limits[missing_left, 0], limits[missing_left, 1])
            if missing_left:
                for k in range(run.shape[0]):
                    run[k] = saved_run[k]
                    rest[k] = parent[k] - run[k]
            scores[missing_left, m] = score
        cand_pos[m] = i
        m += 1
    totals[0], totals[2], totals[3] = w_run, group_start, group_class
    totals[4] = 0.0 if group_pure else 1.0
    return m


@inline_njit
def _left_pair(j, cand_weight, cand_class1, miss, w_miss, missing_left):
    """((class 0, class 1) counts, weight) of candidate j's left child (two classes)."""
    w_left = cand_weight[j] + (w_miss if missing_left else 0.0)
    l1 = cand_class1[j] + (miss[1] if missing_left else 0.0)
    l0 = cand_weight[j] - cand_class1[j] + (miss[0] if missing_left else 0.0)
    return (l0, l1), w_left


@inline_njit
def _score_two(m, code, params, tables, parent, n_parent, node, term, miss, w_miss,
               missing_left, cand_weight, cand_class1, scores):
    """scores[missing_left, j] of the first m candidates (two classes), with the missing
    rows left if `missing_left`. No branch between candidates: the arithmetic
    criteria vectorise. The count is rounded up to a multiple of SCORE_LANES, so
    that a block's last few candidates take the vector loop too (the entries beyond
    m hold stale, finite candidates; their scores are never read)."""
    for j in range((m + SCORE_LANES - 1) // SCORE_LANES * SCORE_LANES):
        left, w_left = _left_pair(j, cand_weight, cand_class1, miss, w_miss, missing_left)
        scores[missing_left, j] = split_score(code, params, tables, parent, left,
                                              (parent[0] - left[0], parent[1] - left[1]),
                                              n_parent, w_left, n_parent - w_left, node, term)


@inline_njit
def _tie_two(m, code, params, tables, parent, n_parent, node, miss, w_miss, missing_left,
             cand_weight, cand_class1, cand_pos, scores, limits, bars):
    """Add the criterion's tie_score to the scores of the first m candidates (two
    classes) where it may win, as _gather_scored does."""
    bar = bars[missing_left]
    lowest, highest = limits[missing_left, 0], limits[missing_left, 1]
    for j in range(m):
        left, w_left = _left_pair(j, cand_weight, cand_class1, miss, w_miss, missing_left)
        score = with_tie(scores[missing_left, j], bar, code, params, tables, parent, left,
                         (parent[0] - left[0], parent[1] - left[1]), n_parent, w_left,
                         n_parent - w_left, node)
        bar = raise_bar(bar, score, cand_pos[j], lowest, highest)
        scores[missing_left, j] = score
    bars[missing_left] = bar

@inline_njit
def _best_candidate(scores, cand_pos, m, pos_lo, pos_hi, top, top_pos):
    """(score, row) of the best of the first m candidates whose row lies in
    [pos_lo, pos_hi], if better than (top, top_pos) under the tie rule."""
    beat = beat_score(top)
    for j in range(m):
        if scores[j] > beat and pos_lo <= cand_pos[j] <= pos_hi:
            top, top_pos = scores[j], cand_pos[j]
            beat = beat_score(top)
    return top, top_pos


def numeric_search(code, two_classes: bool, skip_runs: bool, present: tuple):
    """search_numeric for the criterion `code` (a registry code), for count vectors held
    as 2-tuples (`two_classes`) or as arrays (any number of classes), skipping
    thresholds inside runs of one class or not (`skip_runs`), reading the count tables
    marked in `present` (one flag per counts.TABLE_KINDS; the others compute).

    One source, compiled per form: the flags are constants of the closure, and
    numba drops the branches of the other forms before it inlines the helpers
    (which is why the form's branches are here and not in a helper: inlining
    copies a helper's code, and copies are most of numba's compile time).
    Tuples live in registers and the criterion's loops over classes unroll.
    Only the code and the flags may be closure variables: numba's disk cache keys
    a closure on its variables, pickled (a code pickles by its class's name), and
    a jitted function there would key it differently in every process (no cache
    hit, ever). The drivers call the form by address (searches.py).
    """

    x0, x1, x2, x3 = present

    def search_numeric(words, nodes, features, mask, columns, rows, params, tables, leaf_rule,
                       found, lo, hi):
        """Best split of the (numeric feature, node) pairs lo..hi-1, numbered feature-major,
        of those that `mask` (features x nodes, uint8) marks: the others keep the score
        the caller filled in (-inf, no split).

        `nodes` is a level.Level (the nodes' rows [starts, ends) and class counts),
        `columns` a level.Columns (its missing_rank is read), `rows` a level.Rows,
        `params` and `tables` the criterion's parameters (kernels.param_tuple) and count
        tables (a counts.CountTables of arrays, of which the form reads those marked
        in `present`), leaf_rule = (min_samples_leaf,
        the least weight of a child: min_weight_fraction_leaf times the fit's weight).
        Results go to row f (the feature's index) of the (n_features, n_nodes) arrays
        of `found` (a Found): the best score, the rank cut (rows with rank <= cut go
        left), the next rank present (aux: missing_rank when the split is
        present-vs-missing), for the midpoint threshold, and where the missing rows
        go. Numeric and nominal features have kernels of their own so that data
        without nominal features never compiles the nominal search.

        A segment is read in blocks of BLOCK rows: `_gather_two` finds the
        candidate thresholds and `_score_two` scores them (two classes), or
        `_gather_scored` does both (more classes); `_best_candidate` keeps
        the best under the tie rule and the leaf rules. Rows missing the feature
        are scored on the right and, if there are any, on the left of every
        candidate; each direction keeps its own best, and the missing-left one
        wins only when it is better. This is the engine's hot loop: keep it lean.

        With `skip_runs`, a threshold between two value groups pure of the
        same class is no candidate unless a neighbouring threshold is cut off
        by the leaf rules: for a criterion that is a concave impurity's decrease
        (or a ratio of such a decrease to a concave split information)
        the score is (quasi-)convex along a run of such groups, so its maximum lies at
        the run's ends or at the first or last threshold the leaf rules allow
        (Fayyad & Irani 1992, extended to ties, missing values and leaf sizes).
        """
        starts, ends, parents = nodes.starts, nodes.ends, nodes.counts
        missing_rank = columns.missing_rank
        shifts, weights, unit_weight = rows
        # the tables this form reads; None for the others, a constant of the form
        tables = CountTables(tables.xlogx if x0 else None, tables.power0 if x1 else None,
                             tables.power1 if x2 else None, tables.sqrt if x3 else None)
        out_score, out_cut, out_aux, out_missing_left = found
        n_nodes = starts.shape[0]
        n_classes = parents.shape[1]
        key_shift = shifts.key_shift
        parent_array = np.zeros(n_classes)
        node = np.zeros((NODE_ROWS, n_classes))
        run, rest, saved_run, miss = (np.zeros(n_classes), np.zeros(n_classes),
                                      np.zeros(n_classes), np.zeros(n_classes))
        totals = np.zeros(5)
        limits = np.zeros((2, 2), np.int64)  # per direction, the rows the leaf rules allow
        min_leaf, min_weight = leaf_rule
        bars = np.zeros(2)  # per direction, what a candidate must beat (tie_score only)
        cand_pos = np.zeros(BLOCK, np.int64)
        cand_weight, cand_class1 = np.zeros(BLOCK), np.zeros(BLOCK)
        scores = np.zeros((2, BLOCK))
        for p in range(lo, hi):
            f = features[p // n_nodes]
            j = p % n_nodes
            if mask[f, j] == 0:
                continue
            start, end = starts[j], ends[j]
            n_parent = _load_parent(parents, j, parent_array)
            term = node_term(code, params, tables, parent_array, n_parent, node)
            if two_classes:
                parent = (parent_array[0], parent_array[1])
            else:
                parent = parent_array
            stop, n_miss, w_miss = _collect_missing(words, f, start, end, missing_rank[f],
                                                    shifts, weights, unit_weight, miss)
            n_total = end - start
            n_passes = 2 if n_miss > 0 else 1
            for k in range(n_classes):
                run[k] = 0.0
                rest[k] = parent_array[k]
            for k in range(totals.shape[0]):
                totals[k] = 0.0
            totals[2] = start  # first row of the first value group
            for missing_left in range(2):
                # candidate j sends cand_pos[j] - rows_before rows left
                rows_before = start - 1 - (n_miss if missing_left else 0)
                limits[missing_left, 0] = rows_before + min_leaf
                limits[missing_left, 1] = rows_before + n_total - min_leaf
                bars[missing_left] = -math.inf
            if min_weight > 0.0:
                _weight_limits(words, f, start, stop, shifts, weights, unit_weight, min_weight,
                               w_miss, n_parent, limits)
            # the best score and its candidate row, per direction of the missing rows
            best_right, pos_right = -math.inf, -1
            best_left, pos_left = -math.inf, -1
            for block in range(start, stop, BLOCK):
                block_end = min(block + BLOCK, stop)
                if two_classes:
                    m = _gather_two(words, f, start, block, block_end, stop, shifts, weights,
                                    unit_weight, limits, totals, cand_pos, cand_weight,
                                    cand_class1, skip_runs)
                else:
                    m = _gather_scored(words, f, start, block, block_end, stop, shifts,
                                       weights, unit_weight, code, params, tables, parent,
                                       n_parent, node, term, miss, w_miss, n_passes,
                                       run, rest, saved_run, totals, cand_pos,
                                       scores, skip_runs, limits, bars)
                for missing_left in range(n_passes):
                    if two_classes:
                        _score_two(m, code, params, tables, parent, n_parent, node, term,
                                   miss, w_miss, missing_left, cand_weight, cand_class1, scores)
                        if tie_bound(code) > 0.0:
                            _tie_two(m, code, params, tables, parent, n_parent, node, miss,
                                     w_miss, missing_left, cand_weight, cand_class1, cand_pos,
                                     scores, limits, bars)
                    pos_lo, pos_hi = limits[missing_left, 0], limits[missing_left, 1]
                    if missing_left:
                        best_left, pos_left = _best_candidate(
                            scores[1], cand_pos, m, pos_lo, pos_hi, best_left, pos_left)
                    else:
                        best_right, pos_right = _best_candidate(
                            scores[0], cand_pos, m, pos_lo, pos_hi, best_right, pos_right)
            goes_left = best_left > beat_score(best_right)
            pos = pos_left if goes_left else pos_right
            out_score[f, j] = finished(code, best_left if goes_left else best_right)
            out_missing_left[f, j] = goes_left
            if pos >= 0:
                out_cut[f, j] = np.int64(words[f, pos] >> key_shift)
                out_aux[f, j] = (missing_rank[f] if pos + 1 >= stop
                                 else np.int64(words[f, pos + 1] >> key_shift))
            else:
                out_cut[f, j] = out_aux[f, j] = -1

    return njit_form(search_numeric,
                     f"{code.name.lower()}_{form_name(two_classes, skip_runs, present)}")


def form_name(*flags) -> str:
    """A search form's name: classes and skipping (numeric searches), the count tables
    read (the last flags: counts.TABLE_KINDS)."""
    *form, present = flags
    tables = "t" + "".join("1" if flag else "0" for flag in present)
    if not form:
        return tables
    two_classes, skip_runs = form
    return f"{'two' if two_classes else 'many'}{'_skip' if skip_runs else ''}_{tables}"


@inline_njit
def _category_table(words, f, start, stop, shifts, weights, unit_weight, n_categories,
                    table, cat_weight, cat_count):
    for cat in range(n_categories):
        for k in range(table.shape[1]):
            table[cat, k] = 0.0
        cat_weight[cat] = 0.0
        cat_count[cat] = 0
    for i in range(start, stop):
        cat, cls, row = _decode(words[f, i], shifts)
        wt = _weight(row, weights, unit_weight)
        table[cat, cls] += wt
        cat_weight[cat] += wt
        cat_count[cat] += 1


@inline_njit
def _order_categories(table, cat_weight, cat_count, n_categories, by_class, order, keys):
    """Present categories sorted by p(by_class | category), ties by index; returns count."""
    n_present = 0
    for cat in range(n_categories):
        if cat_count[cat] == 0:
            continue
        key = table[cat, by_class] / cat_weight[cat] if cat_weight[cat] > 0 else 0.0
        j = n_present  # insertion sort: k is small and the sort must be stable
        while j > 0 and keys[j - 1] > key:
            keys[j] = keys[j - 1]
            order[j] = order[j - 1]
            j -= 1
        keys[j] = key
        order[j] = cat
        n_present += 1
    return n_present


@njit
def nominal_best(words, f, start, end, n_categories, missing_rank, shifts, weights,
                 unit_weight, code, params, tables, parent, n_parent, node, term, leaf_rule, left,
                 right, miss, table, cat_weight, cat_count, order, keys):
    """Best subset split of nominal feature f in the node words[f, start:end].

    Returns (score, cut, by_class, missing_left): the first cut + 1
    categories of the ordering by `by_class` go left. Missing rows are sent
    right, then (if any) left, as in `numeric_best`. leaf_rule: as search_numeric's.
    """
    stop, n_miss, w_miss = _collect_missing(words, f, start, end, missing_rank, shifts,
                                            weights, unit_weight, miss)
    _category_table(words, f, start, stop, shifts, weights, unit_weight, n_categories,
                    table, cat_weight, cat_count)
    n_total = end - start
    min_leaf, min_weight = leaf_rule
    n_classes = parent.shape[0]
    best, best_cut, best_class, best_ml = -math.inf, -1, -1, 0
    first_class = 1 if n_classes == 2 else 0
    for missing_left in range(2 if n_miss > 0 else 1):
        for by_class in range(first_class, n_classes):
            n_present = _order_categories(table, cat_weight, cat_count, n_categories,
                                          by_class, order, keys)
            for k in range(n_classes):
                left[k] = miss[k] if missing_left else 0.0
            w_left = w_miss if missing_left else 0.0
            n_left = n_miss if missing_left else 0
            # with missing rows right, all present categories left is a split too
            last_cut = n_present - 1 if n_miss > 0 and not missing_left else n_present - 2
            for j in range(last_cut + 1):
                cat = order[j]
                for k in range(n_classes):
                    left[k] += table[cat, k]
                w_left += cat_weight[cat]
                n_left += cat_count[cat]
                if n_left < min_leaf or n_total - n_left < min_leaf or (
                        min_weight > 0.0
                        and (w_left < min_weight or n_parent - w_left < min_weight)):
                    continue
                for k in range(n_classes):
                    right[k] = parent[k] - left[k]
                score = with_tie(split_score(code, params, tables, parent, left, right, n_parent,
                                             w_left, n_parent - w_left, node, term),
                                 beat_score(best), code, params, tables, parent, left, right,
                                 n_parent, w_left, n_parent - w_left, node)
                if is_better(score, best):
                    best, best_cut, best_class, best_ml = score, j, by_class, missing_left
    return finished(code, best), best_cut, best_class, best_ml


@inline_njit
def _load_parent(parents, j, parent):
    """Copy node j's class counts into `parent`; return their total."""
    total = 0.0
    for k in range(parent.shape[0]):
        parent[k] = parents[j, k]
        total += parent[k]
    return total


@inline_njit
def _store(out_score, out_cut, out_aux, out_missing_left, f, j, result):
    out_score[f, j] = result[0]
    out_cut[f, j] = result[1]
    out_aux[f, j] = result[2]
    out_missing_left[f, j] = result[3]


def nominal_search(code, present: tuple):
    """search_nominal for the criterion `code` and the count tables in `present` (as
    `numeric_search`)."""
    x0, x1, x2, x3 = present

    def search_nominal(words, nodes, features, mask, columns, rows, params, tables, leaf_rule,
                       found, lo, hi):
        """As `search_numeric` for nominal features: found.cut is the cut position in
        the category ordering, found.aux the class that ordering is by."""
        tables = CountTables(tables.xlogx if x0 else None, tables.power0 if x1 else None,
                             tables.power1 if x2 else None, tables.sqrt if x3 else None)
        starts, ends, parents = nodes.starts, nodes.ends, nodes.counts
        n_categories, missing_rank = columns.n_categories, columns.missing_rank
        shifts, weights, unit_weight = rows
        out_score, out_cut, out_aux, out_missing_left = found
        n_nodes = starts.shape[0]
        n_classes = parents.shape[1]
        max_cat = 1
        for f in features:
            max_cat = max(max_cat, n_categories[f])
        parent = np.zeros(n_classes)
        node = np.zeros((NODE_ROWS, n_classes))
        left = np.zeros(n_classes)
        right = np.zeros(n_classes)
        miss = np.zeros(n_classes)
        table = np.zeros((max_cat, n_classes))
        cat_weight = np.zeros(max_cat)
        cat_count = np.zeros(max_cat, dtype=np.int64)
        order = np.zeros(max_cat, dtype=np.int64)
        keys = np.zeros(max_cat)
        for p in range(lo, hi):
            f = features[p // n_nodes]
            j = p % n_nodes
            if mask[f, j] == 0:
                continue
            n_parent = _load_parent(parents, j, parent)
            term = node_term(code, params, tables, parent, n_parent, node)
            result = nominal_best(words, f, starts[j], ends[j], n_categories[f], missing_rank[f],
                                  shifts, weights, unit_weight, code, params, tables, parent, n_parent,
                                  node, term, leaf_rule, left, right, miss, table, cat_weight,
                                  cat_count, order, keys)
            _store(out_score, out_cut, out_aux, out_missing_left, f, j, result)

    return njit_form(search_nominal, f"{code.name.lower()}_{form_name(present)}")


@njit
def pick_features(scores):
    """Per node (column), the row of the best score under the tie rule; -1 if none."""
    n_features, n_nodes = scores.shape
    best = np.full(n_nodes, -1, dtype=np.int64)
    for j in range(n_nodes):
        top = -math.inf
        for fi in range(n_features):
            if is_better(scores[fi, j], top):
                top = scores[fi, j]
                best[j] = fi
    return best


@njit
def pick_screened(scores, screen):
    """pick_features among the features whose screening score (`screen`, same shape)
    is at least the node's average over its features with a valid split: C4.5's
    average-gain rule (registry.Criterion.screen_for)."""
    n_features, n_nodes = scores.shape
    best = np.full(n_nodes, -1, dtype=np.int64)
    for j in range(n_nodes):
        total = 0.0
        n_valid = 0
        for fi in range(n_features):
            if screen[fi, j] > -math.inf:
                total += screen[fi, j]
                n_valid += 1
        if n_valid == 0:
            continue
        average = total / n_valid
        floor = average - TIE_EPS * (1.0 + abs(average))  # rounding: a feature at the average passes
        top = -math.inf
        for fi in range(n_features):
            if screen[fi, j] >= floor and is_better(scores[fi, j], top):
                top = scores[fi, j]
                best[j] = fi
    return best


@njit
def nominal_left_set(words, f, start, end, n_categories, missing_rank, shifts, weights,
                     unit_weight, n_classes, by_class, cut, out):
    """Write the categories present in the node, in increasing order, to out[0] and
    their sides to out[1] (1 left, 0 right); return how many. Categories absent from
    the node are not listed (they go where missing values go)."""
    codes, goes_left = out
    miss = np.zeros(n_classes)
    stop, _, _ = _collect_missing(words, f, start, end, missing_rank, shifts, weights,
                                  unit_weight, miss)
    table = np.zeros((n_categories, n_classes))
    cat_weight = np.zeros(n_categories)
    cat_count = np.zeros(n_categories, dtype=np.int64)
    order = np.zeros(n_categories, dtype=np.int64)
    keys = np.zeros(n_categories)
    _category_table(words, f, start, stop, shifts, weights, unit_weight, n_categories, table,
                    cat_weight, cat_count)
    _order_categories(table, cat_weight, cat_count, n_categories, by_class, order, keys)
    for j in range(cut + 1):
        cat_count[order[j]] = -1  # marks the categories sent left
    n = 0
    for cat in range(n_categories):
        if cat_count[cat] != 0:
            codes[n] = cat
            goes_left[n] = 1 if cat_count[cat] < 0 else 0
            n += 1
    return n
