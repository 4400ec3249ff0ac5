"""C4.5's choice of a node's split, as Weka's J48 makes it (weka.classifiers.trees.j48:
C45ModelSelection, C45Split, BinC45ModelSelection, BinC45Split, InfoGainSplitCrit,
GainRatioSplitCrit, Distribution). Plain numpy: the split search scans every cut
point of a numeric feature at once, in Weka's order of operations where a sum's
rounding could decide a tie.

A node's rows are (row indices, weights): a row whose value of a split feature is
missing goes down every branch with a fraction of its weight (J48's Distribution),
so weights are fractional below such a split even in an unweighted fit.

Comparisons use Weka's tolerance (Utils.gr, eq, ...: 1e-6), as J48's decisions do.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

SMALL = 1e-6  # weka.core.Utils.SMALL
_LOG2 = math.log(2.0)
NUMERIC, MULTIWAY, BINARY_NOMINAL = 0, 1, 2  # split kinds


def gr(a, b):
    return a - b > SMALL


def gr_or_eq(a, b):
    return b - a < SMALL


def sm(a, b):
    return b - a > SMALL


def sm_or_eq(a, b):
    return a - b < SMALL


def eq(a, b):
    return (a - b < SMALL) and (b - a < SMALL)


def seq_sum(values, start=0.0) -> float:
    """`start` plus `values` added one by one, as Weka's loops add them."""
    if len(values) == 0:
        return float(start)
    return float(np.add.accumulate(np.concatenate(([start], values)))[-1])


def ln_func(x):
    """x ln x, 0 below 1e-6 (EntropyBasedSplitCrit.lnFunc); x may be an array."""
    x = np.asarray(x, dtype=np.float64)
    safe = np.where(x < 1e-6, 1.0, x)
    return np.where(x < 1e-6, 0.0, safe * np.log(safe))


def ln_one(x: float) -> float:
    """ln_func of one number, without numpy's overhead."""
    return 0.0 if x < 1e-6 else x * math.log(x)


def old_ent(per_class: np.ndarray) -> float:
    """Entropy of the class totals, times their sum, in bits (oldEnt)."""
    inner = 0.0
    for count in per_class.tolist():
        inner += ln_one(count)
    return (ln_one(float(per_class.sum())) - inner) / _LOG2


def new_ent(matrix) -> np.ndarray:
    """Weighted entropy of the bags, in bits (newEnt); `matrix` is bags x classes, or
    bags x classes x candidates for many cut points at once."""
    matrix = np.asarray(matrix)
    logs = ln_func(matrix)
    bag_logs = ln_func(np.stack([_bag_total(bag) for bag in matrix]))
    total = 0.0
    for b in range(matrix.shape[0]):  # Weka's order of the sum
        for k in range(matrix.shape[1]):
            total = total + logs[b, k]
        total = total - bag_logs[b]
    return -(total / _LOG2)


def _bag_total(bag):
    out = 0.0
    for count in bag:
        out = out + count
    return out


def info_gain(matrix, old: float, total_with_unknown: float, known: float):
    """InfoGainSplitCrit.splitCritValue(bags, totalNoInst, oldEnt): the gain on the rows
    whose value is known, times their share of the node's weight, per unit of weight."""
    numerator = (1.0 - (total_with_unknown - known) / total_with_unknown) * (old - new_ent(matrix))
    numerator = np.asarray(numerator)
    small = (numerator < SMALL) & (numerator > -SMALL)
    return np.where(small, 0.0, numerator / known)


def gain_ratio(per_bag: np.ndarray, total_with_unknown: float, gain: float) -> float:
    """GainRatioSplitCrit.splitCritValue: the gain over the split's entropy, the rows of
    unknown value counted as a bag of their own."""
    known = seq_sum(per_bag)
    split = 0.0
    if gr(known, 0):
        for count in per_bag.tolist():
            split -= ln_one(count)
        split -= ln_one(total_with_unknown - known)
        split += ln_one(total_with_unknown)
    split /= _LOG2
    if eq(split, 0):
        return 0.0
    return gain / (split / total_with_unknown)


def check(per_bag: np.ndarray, min_obj: float) -> bool:
    """At least two bags of weight min_obj or more (Distribution.check)."""
    return sum(1 for count in per_bag if gr_or_eq(count, min_obj)) > 1


@dataclass
class Split:
    """A candidate or chosen split of one feature. `matrix`: the weights per branch
    (row) and class (column) of the rows whose value is known; `threshold`: a numeric
    split's cut (<= goes to branch 0), or a binary nominal split's category (equal goes
    to branch 0)."""

    feature: int
    kind: int
    threshold: float
    info_gain: float
    gain_ratio: float
    matrix: np.ndarray

    @property
    def n_branches(self) -> int:
        return self.matrix.shape[0]

    def branch_of(self, values: np.ndarray) -> np.ndarray:
        """Each value's branch; -1 where it is missing."""
        missing = np.isnan(values)
        safe = np.where(missing, 0.0, values)
        if self.kind == NUMERIC:
            branch = np.where(safe <= self.threshold, 0, 1)
        elif self.kind == MULTIWAY:
            branch = safe.astype(np.int64)
        else:
            branch = np.where(safe.astype(np.int64) == int(self.threshold), 0, 1)
        return np.where(missing, -1, branch)


@dataclass(frozen=True)
class Data:
    """The training set as the grower reads it."""

    X: np.ndarray  # float64, NaN = missing; nominal features hold category indices
    y: np.ndarray  # int64 class indices
    n_categories: np.ndarray  # per feature: 0 for numeric, else its number of categories
    n_classes: int
    min_obj: int  # J48's -M
    binary: bool  # J48's -B


def class_totals(data: Data, rows: np.ndarray, w: np.ndarray) -> np.ndarray:
    return np.bincount(data.y[rows], weights=w, minlength=data.n_classes).astype(np.float64)


def max_class(per_class: np.ndarray) -> int:
    """The first class of the largest weight (Distribution.maxClass)."""
    best, index = 0.0, 0
    for k, count in enumerate(per_class):
        if gr(count, best):
            best, index = count, k
    return index


def numeric_split(data: Data, j: int, rows, w, total: float) -> Split | None:
    """C45Split.handleNumericAttribute (and BinC45Split's, the same): the cut of best
    information gain among those leaving each side at least clamp(0.1 N / K, M, 25)
    of weight, less the MDL penalty log2(number of cut points) / N."""
    values = data.X[rows, j]
    order = np.argsort(values, kind="stable")  # NaN last
    known = int((~np.isnan(values)).sum())
    order = order[:known]
    v, c, ww = values[order], data.y[rows][order], w[order]
    weight_known = seq_sum(ww)
    min_split = 0.1 * weight_known / data.n_classes
    if sm_or_eq(min_split, data.min_obj):
        min_split = float(data.min_obj)
    elif gr(min_split, 25):
        min_split = 25.0
    if sm(known, 2 * min_split):
        return None
    per_class = np.stack([np.add.accumulate(np.where(c == k, ww, 0.0))
                          for k in range(data.n_classes)])  # classes x rows
    totals = per_class[:, -1]
    cut = np.flatnonzero(v[:-1] + 1e-5 < v[1:])  # last row of the left side
    left_weight = np.add.accumulate(ww)[cut]
    right_weight = weight_known - left_weight
    valid = (min_split - left_weight < SMALL) & (min_split - right_weight < SMALL)
    cut, left = cut[valid], per_class[:, cut[valid]]
    if cut.shape[0] == 0:
        return None
    gains = info_gain(np.stack([left, totals[:, None] - left]), old_ent(totals), total,
                      weight_known)
    best = running_best(gains)
    gain = (float(gains[best]) if best >= 0 else 0.0) - math.log2(cut.shape[0]) / total
    if sm_or_eq(gain, 0):
        return None
    at = int(cut[best])
    threshold = (v[at + 1] + v[at]) / 2
    if threshold == v[at + 1]:
        threshold = v[at]
    matrix = np.stack([
        np.bincount(c[:at + 1], weights=ww[:at + 1], minlength=data.n_classes),
        np.bincount(c[at + 1:], weights=ww[at + 1:], minlength=data.n_classes)])
    return Split(j, NUMERIC, float(threshold), gain, gain_ratio(matrix.sum(axis=1), total, gain),
                 matrix)


def running_best(gains: np.ndarray) -> int:
    """Where Weka's running maximum ends (a gain replaces the best so far, from 0, only
    when it exceeds it by more than 1e-6): the position of the largest gain when no other
    comes within 1e-6 of it, else the scan itself; -1 if no gain exceeds 1e-6."""
    top = int(np.argmax(gains))
    if (gains >= gains[top] - SMALL).sum() == 1:
        return top if gains[top] > SMALL else -1
    best_gain, best = 0.0, -1
    for i, gain in enumerate(gains.tolist()):
        if gain - best_gain > SMALL:
            best_gain, best = gain, i
    return best


def _category_matrix(data: Data, j: int, rows, w) -> np.ndarray:
    values = data.X[rows, j]
    known = ~np.isnan(values)
    matrix = np.zeros((int(data.n_categories[j]), data.n_classes))
    np.add.at(matrix, (values[known].astype(np.int64), data.y[rows][known]), w[known])
    return matrix


def multiway_split(data: Data, j: int, rows, w, total: float) -> Split | None:
    """C45Split.handleEnumeratedAttribute: one branch per category (empty ones too)."""
    matrix = _category_matrix(data, j, rows, w)
    if not check(matrix.sum(axis=1), data.min_obj):
        return None
    per_class = matrix.sum(axis=0)
    gain = float(info_gain(matrix, old_ent(per_class), total, seq_sum(matrix.sum(axis=1))))
    return Split(j, MULTIWAY, math.nan, gain, gain_ratio(matrix.sum(axis=1), total, gain), matrix)


def binary_nominal_split(data: Data, j: int, rows, w, total: float) -> Split | None:
    """BinC45Split.handleEnumeratedAttribute: one category against the others, the one
    of best gain ratio (category 0 taken whenever it qualifies, as Weka does)."""
    matrix = _category_matrix(data, j, rows, w)
    per_class = matrix.sum(axis=0)
    best, qualified = None, False
    for value, row in enumerate(matrix):
        if not gr_or_eq(row.sum(), data.min_obj):
            continue
        two = np.stack([row, per_class - row])
        if not check(two.sum(axis=1), data.min_obj):
            continue
        qualified = True
        known = seq_sum(two.sum(axis=1))
        gain = float(info_gain(two, old_ent(two.sum(axis=0)), total, known))
        ratio = gain_ratio(two.sum(axis=1), total, gain)
        if value == 0 or best is None and gr(ratio, 0) or best is not None \
                and gr(ratio, best.gain_ratio):
            best = Split(j, BINARY_NOMINAL, float(value), gain, ratio, two)
    if best is None and qualified:  # a valid split of no gain: it counts in the average
        return Split(j, BINARY_NOMINAL, 0.0, 0.0, 0.0, matrix[:2])
    return best


def select_split(data: Data, rows: np.ndarray, w: np.ndarray, multi_valued: bool) -> Split | None:
    """C45ModelSelection.selectModel: among the features whose split has at least the
    average information gain (less 1e-3), the one of best gain ratio; None for a leaf.
    `multi_valued`: every feature is nominal with at least 0.3 x (training rows)
    categories, so none is left out of the average for having many."""
    per_class = class_totals(data, rows, w)
    total = seq_sum(w)
    if sm(total, 2 * data.min_obj) or eq(total, per_class[max_class(per_class)]):
        return None
    n_all = data.X.shape[0]
    candidates, gain_sum, counted = [], 0.0, 0
    for j, n_categories in enumerate(data.n_categories):
        if n_categories == 0:
            split = numeric_split(data, j, rows, w, total)
        elif data.binary:
            split = binary_nominal_split(data, j, rows, w, total)
        else:
            split = multiway_split(data, j, rows, w, total)
        if split is None:
            continue
        candidates.append(split)
        if n_categories == 0 or multi_valued or n_categories < 0.3 * n_all:
            gain_sum += split.info_gain
            counted += 1
    if counted == 0:
        return None
    average = gain_sum / counted
    best, best_ratio = None, 0.0
    for split in candidates:
        if split.info_gain >= average - 1e-3 and gr(split.gain_ratio, best_ratio):
            best, best_ratio = split, split.gain_ratio
    if eq(best_ratio, 0):
        return None
    best.matrix = with_unknown(best.matrix, data, rows, w, best.feature)
    if best.kind == NUMERIC:
        best.threshold = actual_value(data.X[:, best.feature], best.threshold)
    return best


def actual_value(column: np.ndarray, cut: float) -> float:
    """The largest training value at or below the cut, within Weka's 1e-6 (Weka 3.6's
    C45Split.setSplitPoint: a midpoint that rounded just below a training value gives
    that value)."""
    below = column[column - cut < SMALL]  # NaN compares false: left out
    if below.shape[0] == 0:
        return -np.finfo(np.float64).max
    top = below.max()
    near = below[below != top]
    if not (top - near <= SMALL).any():
        return float(top)  # Weka's scan below ends at the maximum: nothing else is near it
    found = -np.finfo(np.float64).max
    for value in below:
        if value - found > SMALL:
            found = float(value)
    return found


def with_unknown(matrix: np.ndarray, data: Data, rows, w, feature: int) -> np.ndarray:
    """The rows whose value of `feature` is missing added to every branch in proportion
    to the branch's weight (Distribution.addInstWithUnknown)."""
    missing = np.isnan(data.X[rows, feature])
    if not missing.any():
        return matrix
    per_bag = matrix.sum(axis=1)
    total = seq_sum(per_bag)
    probs = (np.full(per_bag.shape, 1.0 / per_bag.shape[0]) if eq(total, 0)
             else per_bag / total)
    matrix = matrix.copy()
    y, weights = data.y[rows][missing], w[missing]
    for k in range(data.n_classes):
        of_class = weights[y == k]
        for b in range(matrix.shape[0]):
            matrix[b, k] = seq_sum(probs[b] * of_class, matrix[b, k])
    return matrix
