"""What a cross-validation runs: criteria, tree options, protocol, tasks and their keys.

Every task has a key (`task_key`): a hash of the dataset's content (X, y, the
feature kinds, the number of classes), the criterion with all its parameters
(defaults filled in), the tree options (class weights only when given, so that
the keys of runs without them are those of dtree releases before them), the
number of folds, the seed, the repeat and the fold, and dtree's version
(another release may grow other trees). `dtcli.crossval.runner` runs the tasks
and keeps their results under these keys.
"""
from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dtcli._version import __version__
from dtcli.crossval.methods import CriterionChoice
from dtcli.crossval.tree_options import TreeOptions
from dtcli.errors import ParameterError
from dtcli.io.dataset import Dataset
from dtcli.measures import positive_class
from dtcli.params import MAX_REPEATS
from dtcli.sampling.folds import FOLD_SCHEMES

RESULTS_FORMAT = 1  # part of every task key: bump it when the meaning of a result changes


@dataclass(frozen=True)
class Protocol:
    """Stratified `cv`-fold cross-validation, repeated `repeats` times, seeded; `folds`
    "weka" makes Weka's folds for the seed (folds.repeat_folds)."""

    cv: int = 10
    repeats: int = 1
    seed: int = 0
    folds: str = "dtree"


@dataclass(frozen=True)
class Task:
    """One fold of one criterion on one dataset: all a worker needs besides the data."""

    dataset: int  # index into the datasets shipped to the workers
    criterion: str
    params: tuple[tuple[str, float], ...]
    options: TreeOptions
    cv: int
    seed: int
    repeat: int
    fold: int
    entry_options: tuple[tuple[str, object], ...] = ()  # what its --criteria entry set
    trees: int = 0  # a forest of this many trees (CriterionChoice.trees)
    folds: str = "dtree"  # the fold scheme (Protocol.folds)

    @property
    def choice(self) -> CriterionChoice:
        return CriterionChoice(self.criterion, self.params, self.entry_options, self.trees)


def dataset_digest(dataset: Dataset) -> str:
    """Hash of what a tree sees of a dataset: X, y, feature kinds and categories, classes;
    and its positive class when one other than the rarest is named, and its costs and
    decision threshold when given."""
    digest = hashlib.sha256()
    for array in (np.ascontiguousarray(dataset.X, dtype=np.float64),
                  np.ascontiguousarray(dataset.y, dtype=np.int64)):
        digest.update(str(array.shape).encode())
        digest.update(array.tobytes())
    digest.update(json.dumps([[f.kind, len(f.categories)] for f in dataset.features]).encode())
    digest.update(str(len(dataset.classes)).encode())
    if dataset.positive is not None and dataset.positive != positive_class(dataset.y,
                                                                             len(dataset.classes)):
        digest.update(f"positive {dataset.positive}".encode())  # a named one: other scores
    if dataset.decision is not None:  # costs, a threshold: other decisions and scores
        digest.update(f"decision {dataset.decision!r}".encode())
    return digest.hexdigest()[:32]


@functools.lru_cache(maxsize=256)
def _method_identity(choice: CriterionChoice, options: TreeOptions) -> tuple[dict, dict]:
    """(choice.resolved(), options.identity()): the same for every fold of a method, and
    most of a task key's cost (a compare has tens of thousands of keys)."""
    return choice.resolved(), options.identity()


def task_key(digest: str, choice: CriterionChoice, options: TreeOptions, cv: int, seed: int,
             repeat: int, fold: int, folds: str = "dtree") -> str:
    """The identity of a task's result (see the module docstring)."""
    params, options_identity = _method_identity(choice, options)
    identity = {"format": RESULTS_FORMAT, "dtree": __version__, "data": digest,
                "criterion": choice.name, "params": params, "options": options_identity,
                "cv": cv, "seed": seed, "repeat": repeat, "fold": fold}
    if choice.trees:  # single trees keep the keys they had before forests
        identity["trees"] = choice.trees
    if folds != "dtree":  # dtree's folds keep the keys they had before Weka's
        identity["folds"] = folds
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:32]


def check_protocol(names: Sequence[str], datasets: Sequence[Dataset],
                   protocol: Protocol) -> list[str]:
    """Raise ParameterError if a dataset is too small for the folds; return warnings."""
    if protocol.cv < 2:
        raise ParameterError(f"--cv must be at least 2, got {protocol.cv}")
    if protocol.folds not in FOLD_SCHEMES:
        raise ParameterError(f"folds must be one of {', '.join(FOLD_SCHEMES)}, got "
                             f"{protocol.folds!r}")
    if not 1 <= protocol.repeats <= MAX_REPEATS:
        raise ParameterError(f"--repeats must be in [1, {MAX_REPEATS}], got {protocol.repeats}")
    warnings = []
    for name, dataset in zip(names, datasets):
        n = len(dataset.y)
        if protocol.cv > n:
            raise ParameterError(f"--cv {protocol.cv} is more folds than dataset '{name}' "
                                 f"has rows ({n})")
        counts = np.bincount(dataset.y, minlength=len(dataset.classes))
        smallest = int(np.argmin(counts))
        if counts[smallest] < protocol.cv:
            warnings.append(
                f"dataset '{name}': class '{dataset.classes[smallest]}' has {counts[smallest]} "
                f"rows, fewer than --cv {protocol.cv}: some test folds lack it (their AUC "
                "covers the classes present, or is left out if only one is)")
    return warnings


def check_class_weight(names: Sequence[str], datasets: Sequence[Dataset],
                       options: TreeOptions) -> None:
    """Raise ParameterError if a class weight names a label that is not a class of every
    dataset (before any task runs, rather than in the first task of that dataset)."""
    if not isinstance(options.class_weight, tuple):
        return
    for name, dataset in zip(names, datasets):
        unknown = [label for label, _ in options.class_weight if label not in dataset.classes]
        if unknown:
            raise ParameterError(f"--class-weight: dataset '{name}' has no class "
                                 f"{', '.join(map(repr, unknown))} (its classes: "
                                 f"{', '.join(dataset.classes)})")
