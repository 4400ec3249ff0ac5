"""Stratified k-fold cross-validation splits.

Every sample lands in exactly one test fold; fold sizes differ by at most one,
and so do the counts of each class across folds (the guarantees of
scikit-learn's StratifiedKFold with shuffle=True). The splits depend only on
the labels, k and the seed.
"""

from __future__ import annotations

import numpy as np

from dtcli.errors import ParameterError

__all__ = ["Fold", "repeat_folds", "repeated_stratified_kfold", "stratified_kfold"]

Fold = tuple[np.ndarray, np.ndarray]  # (train indices, test indices), sorted int64

Seed = int | np.random.SeedSequence


def stratified_kfold(y: np.ndarray, k: int, seed: Seed) -> list[Fold]:
    """Split sample indices into k stratified folds; returns k (train_idx, test_idx) pairs.

    The samples are shuffled, grouped by class (random order within a class) and
    dealt to the folds round-robin, continuing across classes, so each class and
    the whole data set spread as evenly as possible; which folds receive the
    extra samples is shuffled too. A class with fewer than k members is absent
    from some test folds (scikit-learn warns in that case; this does not).

    Raises ParameterError (a ValueError) unless 2 <= k <= len(y).
    """
    labels = np.asarray(y)
    if labels.ndim != 1:
        raise ValueError(f"labels must be a 1-D array, got shape {labels.shape}")
    n = len(labels)
    if not 2 <= k <= n:
        raise ParameterError(
            f"number of folds k must be between 2 and the number of samples ({n}), got {k}"
        )
    rng = np.random.default_rng(seed)
    shuffled = rng.permutation(n)
    by_class = shuffled[np.argsort(labels[shuffled], kind="stable")]
    fold_of = np.empty(n, dtype=np.int64)
    fold_of[by_class] = rng.permutation(k)[np.arange(n) % k]
    return [
        (np.flatnonzero(fold_of != fold), np.flatnonzero(fold_of == fold)) for fold in range(k)
    ]


def repeated_stratified_kfold(y: np.ndarray, k: int, repeats: int, seed: int) -> list[list[Fold]]:
    """``repeats`` independent stratified k-fold splits, one list of k folds per repeat.

    Repeat r uses the r-th child of np.random.SeedSequence(seed), so the whole
    result is determined by seed, and adding repeats keeps the earlier ones.
    """
    if repeats < 1:
        raise ParameterError(f"number of repeats must be at least 1, got {repeats}")
    return [repeat_folds(y, k, seed, repeat) for repeat in range(repeats)]


FOLD_SCHEMES = ("dtree", "weka")


def repeat_folds(y: np.ndarray, k: int, seed: int, repeat: int,
                 scheme: str = "dtree") -> list[Fold]:
    """The k folds of repeat number ``repeat`` (0-based) of repeated_stratified_kfold.

    Its seed is the ``repeat``-th child of np.random.SeedSequence(seed), the
    same as ``SeedSequence(seed).spawn(repeats)[repeat]`` for any repeats > repeat,
    so one repeat can be computed on its own (as a parallel worker does). With
    `scheme` "weka", Weka's folds for its seed ``seed + repeat`` (weka_folds.py: the
    Experimenter's runs 1, 2, ... are seeds 1, 2, ...).
    """
    if repeat < 0:
        raise ParameterError(f"repeat index must be at least 0, got {repeat}")
    if scheme == "weka":
        from dtcli.sampling.weka_folds import weka_folds

        return weka_folds(y, k, seed + repeat)
    return stratified_kfold(y, k, np.random.SeedSequence(seed, spawn_key=(repeat,)))
