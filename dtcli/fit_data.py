"""Training data as the estimators fit it: `FitData`, the encoded matrix with its class
codes, features and classes, and the presort every tree grows from, made once.

`DecisionTreeClassifier.fit`, `fit_dataset` and the forest's build one and call
`fit_prepared`; cross-validation's batch path builds one per dataset and fits every
fold from its one presort, with 0/1 row weights (`dtcli.crossval.batch`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dtcli.io.dataset import NOMINAL, Dataset


@dataclass
class FitData:
    """`X` float64 (NaN = missing, nominal values as category codes), `y` int64 class
    codes, `features` (dtcli.io.dataset.Feature), `classes` (an object array of labels),
    `names`: the input's column names (an estimator's `feature_names_in_`), or None."""

    X: np.ndarray
    y: np.ndarray
    features: list
    classes: np.ndarray
    names: list | None = None
    _presort: object = field(default=None, repr=False)  # builder.Prepared, made once
    _checked: bool = field(default=False, repr=False)

    def __post_init__(self):
        self.X = np.ascontiguousarray(self.X, dtype=np.float64)

    @classmethod
    def of_dataset(cls, dataset: Dataset) -> "FitData":
        return cls(dataset.X, dataset.y, list(dataset.features),
                   np.array(dataset.classes, dtype=object), list(dataset.feature_names))

    def check(self) -> None:
        """ParameterError if no tree can be fitted on the data (checked once)."""
        from dtcli.errors import ParameterError
        from dtcli.io.limits import check_node_records

        if self._checked:
            return
        if self.X.shape[0] == 0:
            raise ParameterError("cannot fit a tree on zero rows")
        if self.classes.shape[0] < 2:
            raise ParameterError(
                f"y has one class ({self.classes[0]!r}); a classifier needs at least two")
        if np.isinf(self.X).any():
            raise ParameterError("X contains infinite values")
        check_node_records(self.X.shape[0], self.classes.shape[0], "y", "X")
        self._checked = True

    @property
    def is_nominal(self) -> np.ndarray:
        return np.array([f.kind == NOMINAL for f in self.features], dtype=np.uint8)

    def presort(self, n_jobs: int | None = None):
        """The presorted data (`builder.prepare`, on n_jobs threads the first time)."""
        if self._presort is None:
            from dtcli.engine.builder import prepare

            n_categories = np.array([len(f.categories) for f in self.features], dtype=np.int64)
            self._presort = prepare(self.X, self.y, self.classes.shape[0], self.is_nominal,
                                    n_categories, n_jobs)
        return self._presort

    def release(self) -> None:
        """Forget the presort (a fit that grew in its buffer has spent it)."""
        self._presort = None
