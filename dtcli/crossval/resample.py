"""Training folds resampled to a majority : minority ratio (the skew sweep, dtcli/analyses/skew.py).

At ratio r a fold keeps every training row of the other classes (M rows) and the first
m = floor(M / r + 1/2) of its minority training rows in an order drawn once per fold;
the test rows are untouched. The order is a counter-based draw (`engine.rng`): each
minority row's key is a pure function of (seed, stream, row, repeat, fold), so the same
rows are kept whatever the process or the order the folds run in, and the rows kept at
a higher ratio are the first ones of those kept at a lower ratio (nested). A ratio is
reachable by a dataset when every training fold has at least m >= 1 minority rows
(`reachable`): removing minority rows can only raise the ratio.
"""
from __future__ import annotations

import math

import numpy as np

from dtcli.jit.flags import njit
from dtcli.engine.rng import random_bits
from dtcli.errors import ParameterError

RESAMPLE_STREAM = 0x5EED5  # the stream of these draws, apart from a forest's or a test's


@njit
def _row_keys(rows, seed, draw):
    keys = np.empty(rows.shape[0], dtype=np.uint64)
    for i in range(rows.shape[0]):
        keys[i] = random_bits(seed, RESAMPLE_STREAM, rows[i], draw)
    return keys


def minority_class(y: np.ndarray, classes, label: str | None, name: str) -> int:
    """The index of the minority class: `label`, or the less frequent of two classes."""
    if label is not None:
        if label not in classes:
            raise ParameterError(f"--minority: dataset '{name}' has no class {label!r} "
                                 f"(its classes: {', '.join(classes)})")
        return list(classes).index(label)
    if len(classes) != 2:
        raise ParameterError(f"--imbalance: dataset '{name}' has {len(classes)} classes; "
                             "name the one to resample against the rest with --minority LABEL")
    return int(np.argmin(np.bincount(y, minlength=2)))


def kept_minority(n_other: int, ratio: float) -> int:
    """How many minority rows a fold with `n_other` rows of the other classes keeps."""
    return math.floor(n_other / ratio + 0.5)


def resampled_train(y: np.ndarray, train: np.ndarray, minority: int, ratio: float, seed: int,
                    repeat: int, fold: int) -> np.ndarray:
    """The training rows (sorted) of a fold resampled to `ratio` (see the module docstring);
    the fold's minority rows if there are fewer than the ratio asks (an unreachable ratio)."""
    is_minority = y[train] == minority
    rows = train[is_minority]
    order = np.argsort(_row_keys(rows.astype(np.int64), np.uint64(seed),
                                 np.uint64(repeat * 2 ** 32 + fold)), kind="stable")
    keep = rows[order[:kept_minority(len(train) - len(rows), ratio)]]
    return np.sort(np.concatenate([train[~is_minority], keep]))


def reachable(y: np.ndarray, folds, minority: int, ratio: float) -> bool:
    """Whether every training fold of `folds` [(train, test), ...] can be resampled to
    `ratio`: between 1 and its minority rows to keep."""
    for train, _ in folds:
        n_minority = int(np.count_nonzero(y[train] == minority))
        if not 1 <= kept_minority(len(train) - n_minority, ratio) <= n_minority:
            return False
    return True
