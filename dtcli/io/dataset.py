"""In-memory tables and datasets produced by the readers.

A reader turns a file into a `Table` of raw columns; `dtcli.io.load_dataset`
turns a table into a `Dataset` for training, and `dtcli.io.load_features`
encodes a table with a trained model's feature schema for prediction.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

NUMERIC = "numeric"
NOMINAL = "nominal"
STRING = "string"  # free text (ARFF string/date): usable as a class, never as a feature


@dataclass(frozen=True)
class Feature:
    """Schema of one input feature, as stored in a model file.

    `categories` lists a nominal feature's values; the feature's column in
    `X` holds the index into this tuple (as float64) and NaN for missing.
    """

    name: str
    kind: str  # NUMERIC or NOMINAL
    categories: tuple[str, ...] = ()


@dataclass
class Column:
    """One raw column of a table.

    Numeric columns hold float64 with NaN for missing. Nominal and string
    columns hold an object array of `str`, `None` for missing; `categories` is
    a nominal column's declared value list (ARFF/KEEL) or empty when the file
    declares none (CSV). `problem` is why the column cannot be used as read (a
    CSV column of mostly numbers holding other text, read as text meanwhile):
    raised where the column is used, so that a column left out (--drop, or one a
    model does not need) cannot stop the rest.
    """

    name: str
    kind: str
    values: np.ndarray
    categories: tuple[str, ...] = ()
    problem: Exception | None = None


@dataclass
class Table:
    source: str  # file name as the user gave it, for messages
    columns: list[Column]
    default_target: str | None = None  # KEEL @outputs, if any
    warnings: list[str] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    @property
    def n_rows(self) -> int:
        return len(self.columns[0].values) if self.columns else 0

    def check(self, columns: list[Column] | None = None) -> None:
        """Raise the problem of the first of `columns` (default: all) that has one."""
        for column in self.columns if columns is None else columns:
            if column.problem is not None:
                raise column.problem


@dataclass
class Dataset:
    """Features and class labels ready for training.

    X: float64 (n_samples, n_features), C-contiguous, NaN = missing; nominal
    columns hold category indices. y: int64 class indices into `classes`.
    """

    X: np.ndarray
    y: np.ndarray
    features: list[Feature]
    classes: tuple[str, ...]
    target: str
    source: str
    warnings: list[str] = field(default_factory=list)
    # the target's values as the file declares them (ARFF, KEEL), in its order, those
    # no row has among them; empty for CSV. `classes` is sorted; J48 (dtcli/c45) keeps
    # Weka's declared order, which decides its ties and its minimum split size.
    declared_classes: tuple[str, ...] = ()
    # the class of precision, recall, f1 and two-class PR-AUC (dtcli/measures/__init__.py); None:
    # the rarest
    positive: int | None = None
    # costs and decision threshold of its folds (dtcli/measures/thresholds.py Decision), or None
    decision: object = None

    @property
    def feature_names(self) -> list[str]:
        return [f.name for f in self.features]
