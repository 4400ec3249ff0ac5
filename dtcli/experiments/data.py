"""Datasets an experiment takes: file paths (read as the commands read them), `Dataset`s,
(X, y) pairs and DataFrames (encoded as the estimators encode them, by the files' column
rules: dtcli.io.arrays), alone, in a list, or in a dict by name."""
from __future__ import annotations

import numbers
import os
from collections.abc import Mapping
from dataclasses import dataclass

from dtcli.errors import ParameterError
from dtcli.crossval.spec import DatasetSpec, check_unique, dataset_name, load_spec
from dtcli.io.dataset import Dataset


@dataclass(frozen=True)
class Reading:
    """How files are read (the commands' --target, --drop, --input-format, --no-header,
    --delimiter and --force); `target` and `drop` also pick a DataFrame's columns."""

    target: str | None = None
    drop: tuple[str, ...] = ()
    format: str | None = None
    header: bool = True
    delimiter: str | None = None
    force: bool = False


@dataclass(frozen=True)
class Source:
    """One dataset of an experiment: its name in reports, where it comes from (a path,
    or None in memory) and how to read it."""

    name: str
    path: str | None
    spec: DatasetSpec | None = None
    value: object = None  # a Dataset, (X, y) pair or DataFrame

    def load(self, force: bool) -> Dataset:
        if self.spec is not None:
            return self.spec.load(force)
        return in_memory(self.value, self.name, force)


def sources(data, reading: Reading, spec_file: str | None = None) -> list[Source]:
    """The datasets of `data` (and of a spec file, first), with names that differ."""
    found = [Source(s.name, s.path, s) for s in load_spec(spec_file)] if spec_file else []
    if data is None:
        data = []
    named = data.items() if isinstance(data, Mapping) else [(None, d) for d in _listed(data)]
    for i, (name, value) in enumerate(named):
        if isinstance(value, (str, os.PathLike)):
            path = os.fspath(value)
            spec = DatasetSpec(name or dataset_name(path), path, reading.target,
                               tuple(reading.drop), reading.format, reading.header,
                               reading.delimiter)
            found.append(Source(spec.name, path, spec))
        else:
            default = dataset_name(value.source) if isinstance(value, Dataset) else f"data{i + 1}"
            found.append(Source(name or default, None, None, _with_reading(value, reading)))
    check_unique([DatasetSpec(s.name, s.path or "<in memory>") for s in found])
    return found


def one_source(data, reading: Reading) -> Source:
    """The one dataset of `data` (evaluate's, tune's); none or several is a ParameterError."""
    found = sources(data, reading)
    if len(found) != 1:
        raise ParameterError(f"give one dataset, not {len(found) or 'none'}")
    return found[0]


def _listed(data) -> list:
    """One dataset or a list of them ((X, y) is one dataset, not two)."""
    if isinstance(data, (str, os.PathLike, Dataset)) or hasattr(data, "columns"):
        return [data]
    datasets = (str, os.PathLike, Dataset)
    if (isinstance(data, tuple) and len(data) == 2 and not isinstance(data[0], datasets)
            and not isinstance(data[1], datasets) and not hasattr(data[1], "columns")):
        return [data]
    if not isinstance(data, (list, tuple)):
        raise TypeError(f"data must be a path, a Dataset, an (X, y) pair, a DataFrame, or a "
                        f"list or dict of them, not {type(data).__name__}")
    return list(data)


def _with_reading(value, reading: Reading):
    """A DataFrame's class column (`target`, else the last) split off, `drop` left out;
    columns are named as text (an integer name 3 is "3")."""
    if not hasattr(value, "columns") or isinstance(value, tuple):
        return value
    from dtcli.io.arrays import column_names

    columns = column_names(value)
    if not columns:
        raise ParameterError("the DataFrame has no columns")
    target = str(reading.target) if reading.target is not None else columns[-1]
    if target not in columns:
        raise ParameterError(f"target: no column '{target}' (columns: {', '.join(columns)})")
    drop = [str(c) for c in reading.drop]
    unknown = [c for c in drop if c not in columns]
    if unknown:
        raise ParameterError(f"drop: no column '{unknown[0]}'")
    left_out = {columns.index(c) for c in (target, *drop)}
    return (value.iloc[:, [j for j in range(len(columns)) if j not in left_out]],
            value.iloc[:, columns.index(target)])


def in_memory(value, name: str, force: bool = False) -> Dataset:
    """A Dataset of a Dataset, or of an (X, y) pair as DecisionTreeClassifier.fit reads it,
    checked as fit checks it (`FitData.check`: rows, two classes, finite numbers, node
    records that fit in memory) and, as a file's target is, for looking like classes
    unless `force`. A problem is one ValueError or TypeError naming the dataset."""
    if isinstance(value, Dataset):
        return value
    from dtcli.estimator import DecisionTreeClassifier
    from dtcli.io.limits import check_class_target

    try:
        X, y = value
    except (TypeError, ValueError):
        raise TypeError(f"dataset '{name}': expected a path, a Dataset, an (X, y) pair "
                        f"or a DataFrame, got {type(value).__name__}") from None
    named = getattr(y, "name", None)  # a Series' name, which may be the integer 0
    target = "class" if named is None else str(named)
    try:
        if X is None or isinstance(X, (str, bytes, numbers.Number)):
            raise TypeError(f"X is {type(X).__name__}, not a 2-D array or DataFrame")
        data = DecisionTreeClassifier().fit_data(X, y)
        data.check()  # rows, two classes, finite numbers, node records: as fit checks
        check_class_target(target, None, len(data.classes), len(data.y), "y", force=force)
    except (TypeError, ValueError) as exc:  # ParameterError and DataError are ValueErrors
        raise type(exc)(f"dataset '{name}': {exc}") from None
    return Dataset(data.X, data.y, data.features, tuple(str(c) for c in data.classes),
                   target, name)


def refuse_outputs(outputs: dict[str, str | None], inputs: dict[str, str | None]) -> None:
    """ParameterError if an output (option -> path) names an input file, or another output."""
    from dtcli.atomic import refuse_output_over_input

    for option, path in outputs.items():
        refuse_output_over_input(path, option, inputs)
        inputs = {**inputs, option: path}
