"""Weka's stratified cross-validation folds (`--folds weka`): the test folds of
`weka.classifiers.Evaluation.crossValidateModel`, which `J48 -x 10 -s 1` runs, so that a
fold-by-fold comparison with a published Weka figure needs no Weka.

Weka 3.6 (Instances.randomize, stratify, stratStep and testCV) shuffles the rows with
`java.util.Random(seed)`, swapping row j with row `nextInt(j + 1)` for j from the last
down to 1; then groups the rows by class (each class where its first row now stands),
deals them out k apart (row i of the dealt order is the grouped order's row
(i mod per) k + i div per, as stratStep reads every k-th row from start 0, 1, ...), and
cuts that order into k consecutive test folds, the first n mod k one row longer.
`JavaRandom` is java.util.Random's 48-bit linear congruential generator, bit for bit.
"""
from __future__ import annotations

import numpy as np

_MULTIPLIER = 0x5DEECE66D
_MASK = (1 << 48) - 1


class JavaRandom:
    """java.util.Random: `next_int(bound)` is Random.nextInt(bound) for Random(seed)."""

    def __init__(self, seed: int):
        self.state = (seed ^ _MULTIPLIER) & _MASK

    def _next31(self) -> int:
        self.state = (self.state * _MULTIPLIER + 0xB) & _MASK
        return self.state >> 17

    def next_int(self, bound: int) -> int:
        r = self._next31()
        m = bound - 1
        if bound & m == 0:  # a power of two: the high bits
            return (bound * r) >> 31
        u = r
        r = u % bound
        while u - r + m >= 1 << 31:  # Java's int overflow: reject the last partial range
            u = self._next31()
            r = u % bound
        return r


def weka_order(y: np.ndarray, k: int, seed: int) -> np.ndarray:
    """The rows in the order Weka's randomize(Random(seed)) then stratify(k) leave them."""
    n = len(y)
    order = list(range(n))
    random = JavaRandom(seed)
    for j in range(n - 1, 0, -1):
        i = random.next_int(j + 1)
        order[j], order[i] = order[i], order[j]
    labels = [int(y[row]) for row in order]
    index = 1
    while index < n:  # Instances.stratify: each class's rows after its first
        first = labels[index - 1]
        for j in range(index, n):
            if labels[j] == first:
                order[index], order[j] = order[j], order[index]
                labels[index], labels[j] = labels[j], labels[index]
                index += 1
        index += 1
    return np.array([order[j] for start in range(k) for j in range(start, n, k)],
                    dtype=np.int64)  # stratStep


def weka_folds(y: np.ndarray, k: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Weka's k folds for Random(seed): (train, test) sorted row indices (testCV's cut)."""
    order = weka_order(np.asarray(y), k, seed)
    n = order.shape[0]
    folds = []
    for fold in range(k):
        size, offset = n // k + (fold < n % k), min(fold, n % k)
        first = fold * (n // k) + offset
        test = np.sort(order[first:first + size])
        folds.append((np.setdiff1d(np.arange(n), test), test))
    return folds
