"""Class probabilities of a tree's leaves from their training counts.

- `frequency`: n_k / n, the counts normalised (scikit-learn, rpart, J48 without -A).
- `laplace`: (n_k + 1) / (n + K), Laplace's rule of succession: what C4.4 (Provost
  and Domingos 2003, "Tree induction for probability-based ranking") and HDDT's
  authors use when trees are judged by AUC. A pure leaf of 2 rows and one of 200
  no longer both say 1.0.
- `m-estimate`: (n_k + m p_k) / (n + m), p_k the class's share of the training
  weight (Cestnik 1990; Zadrozny and Elkan 2001): shrinks small leaves towards the
  class prior rather than towards uniform.

Only probabilities change: `predict` stays each leaf's majority class by count
(the tree's own labelling) whatever the estimate, although an m-estimate's prior
can reorder a small leaf's probabilities.
"""
from __future__ import annotations

import math

import numpy as np

from dtcli.errors import ParameterError

LEAF_ESTIMATES = ("frequency", "laplace", "m-estimate")


def check(estimate, m) -> tuple[str, float]:
    if estimate not in LEAF_ESTIMATES:
        raise ParameterError(f"leaf_estimate must be one of {', '.join(LEAF_ESTIMATES)}, "
                             f"got {estimate!r}")
    if isinstance(m, bool) or not isinstance(m, (int, float)) or not math.isfinite(m) or m <= 0:
        raise ParameterError(f"m must be a positive number, got {m!r}")
    return estimate, float(m)


def node_proba(value: np.ndarray, estimate: str = "frequency", m: float = 2.0) -> np.ndarray:
    """Class probabilities of every node (rows of `value`, its class counts; node 0 the
    root, whose counts give the m-estimate's prior)."""
    n_classes = value.shape[1]
    totals = value.sum(axis=1, keepdims=True)
    if estimate == "laplace":
        return (value + 1.0) / (totals + n_classes)
    if estimate == "m-estimate":
        prior = value[0] / totals[0] if totals[0, 0] > 0 else np.full(n_classes, 1.0 / n_classes)
        return (value + m * prior) / (totals + m)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(totals > 0, value / totals, 1.0 / n_classes)
