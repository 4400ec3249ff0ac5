"""Feature columns that look like row identifiers: a tree can split on them, and
memorise the training rows by them, so `train` warns about them."""
from __future__ import annotations

import numpy as np

from dtcli.io.dataset import NOMINAL, Dataset

# Below this many rows, a column of distinct values is often just chance (the same
# bound as the regression-target rule in dtcli/io/limits.py).
MIN_ROWS = 20


def row_identifier_warnings(dataset: Dataset) -> list[str]:
    """A warning for each feature holding a different value in every row, all present,
    that is text or a whole number (a measurement with a fraction is left alone)."""
    n_rows = len(dataset.y)
    if n_rows <= MIN_ROWS:
        return []
    warnings = []
    for k, feature in enumerate(dataset.features):
        values = dataset.X[:, k]
        if np.isnan(values).any() or len(np.unique(values)) < n_rows:
            continue
        if feature.kind == NOMINAL:
            what = "a different text in every row"
        elif np.array_equal(values, np.round(values)):
            what = "a different whole number in every row"
        else:
            continue
        warnings.append(f"column '{feature.name}' looks like a row identifier ({what}); "
                        f"drop it with --drop {feature.name} unless it means something")
    return warnings
