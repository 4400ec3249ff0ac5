"""Feature columns that look like row identifiers: a tree can split on them, and
memorise the training rows by them, so loading a dataset warns about them."""
from __future__ import annotations

import numpy as np

from dtcli.io.dataset import NOMINAL, Dataset

# Below this many rows, a column of distinct values is often just chance (the same
# bound as the regression-target rule in dtcli/io/limits.py).
MIN_ROWS = 20


def row_identifier_warnings(dataset: Dataset) -> list[str]:
    """A warning, naming the file, for each feature holding a different value in every
    row, all present, that is text or a whole number (a measurement with a fraction is
    left alone). Cheap tests come first, so that most columns of a large file cost one
    pass, not a sort."""
    n_rows = len(dataset.y)
    if n_rows <= MIN_ROWS:
        return []
    warnings = []
    for k, feature in enumerate(dataset.features):
        values = dataset.X[:, k]
        if feature.kind == NOMINAL:
            if len(feature.categories) < n_rows:  # fewer categories than rows: repeats
                continue
            what = "a different text in every row"
        else:
            if not np.array_equal(values, np.round(values)):  # fractions (or missing values)
                continue
            if values.max() - values.min() + 1 < n_rows:  # too narrow a range to be distinct
                continue
            what = "a different whole number in every row"
        if np.isnan(values).any() or len(np.unique(values)) < n_rows:
            continue
        warnings.append(f"{dataset.source}: column '{feature.name}' looks like a row "
                        f"identifier ({what}); drop it with --drop {feature.name} unless it "
                        "means something")
    return warnings
