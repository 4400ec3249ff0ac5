"""Ranks of methods over data sets, and the checks of the tables the tests take.

``scores`` arguments are (N data sets, k methods) arrays: one row per data set,
one column per method. Ranks follow Demsar 2006, section 3.2.2: 1 = best on a
data set, ties share the average rank.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dtcli.stats.distributions import check_method_count

__all__ = ["average_ranks", "check_ranks", "check_scores", "rank_matrix", "tied_ranks"]


def check_scores(scores: np.ndarray) -> np.ndarray:
    """Validate an (N data sets, k methods) score table and return it as floats."""
    table = np.asarray(scores, dtype=float)
    if table.ndim != 2 or table.shape[0] < 1:
        raise ValueError(
            f"scores must be a 2-D table (data sets x methods) with at least one row, "
            f"got shape {table.shape}"
        )
    check_method_count(table.shape[1])
    missing = np.argwhere(np.isnan(table))
    if missing.size:
        row, column = missing[0]
        raise ValueError(
            f"scores contain {len(missing)} NaN value(s), first at data set row {row}, "
            f"method column {column}; rank-based tests need a score for every method "
            f"on every data set (drop or re-run that data set)"
        )
    return table


def tied_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..n of a 1-D array in ascending order; tied values share their average rank."""
    values = np.asarray(values)
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts_group = np.concatenate(([True], ordered[1:] != ordered[:-1]))
    starts = np.flatnonzero(starts_group)
    ends = np.append(starts[1:], len(values))
    group_rank = (starts + 1 + ends) / 2.0  # mean of positions start+1 .. end
    ranks = np.empty(len(values))
    ranks[order] = group_rank[np.cumsum(starts_group) - 1]
    return ranks


def rank_matrix(scores: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """Rank the methods on each data set (row): 1 = best, ties get the average rank.

    Raises ValueError if any score is NaN.
    """
    table = check_scores(scores)
    oriented = -table if higher_is_better else table
    return np.vstack([tied_ranks(row) for row in oriented])


def average_ranks(scores: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """Average rank R_j of each method over the data sets (Demsar 2006, section 3.2.2)."""
    return rank_matrix(scores, higher_is_better).mean(axis=0)



def check_ranks(avg_ranks: Sequence[float], n_datasets: int, min_datasets: int = 1) -> np.ndarray:
    """Validate a vector of k >= 2 average ranks over ``n_datasets`` data sets."""
    ranks = np.asarray(avg_ranks, dtype=float)
    if ranks.ndim != 1:
        raise ValueError(f"average ranks must be a 1-D sequence, got shape {ranks.shape}")
    check_method_count(len(ranks))
    if n_datasets < min_datasets:
        raise ValueError(f"this test needs at least {min_datasets} data set(s), got {n_datasets}")
    return ranks
