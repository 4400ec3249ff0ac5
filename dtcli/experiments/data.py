"""Datasets an experiment takes: file paths (read as the commands read them), `Dataset`s,
(X, y) pairs and DataFrames (encoded as the estimators encode them: text columns become
nominal features, NaN or None is missing), alone, in a list, or in a dict by name."""
from __future__ import annotations

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
        return in_memory(self.value, self.name)


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


def _listed(data) -> list:
    """One dataset or a list of them ((X, y) is one dataset, not two)."""
    if isinstance(data, (str, os.PathLike, Dataset)) or hasattr(data, "columns"):
        return [data]
    datasets = (str, os.PathLike, Dataset)
    if (isinstance(data, tuple) and len(data) == 2 and not isinstance(data[0], datasets)
            and not isinstance(data[1], datasets) and not hasattr(data[1], "columns")):
        return [data]
    return list(data)


def _with_reading(value, reading: Reading):
    """A DataFrame's class column (`target`, else the last) split off, `drop` left out."""
    if not hasattr(value, "columns") or isinstance(value, tuple):
        return value
    columns = [str(c) for c in value.columns]
    target = reading.target if reading.target is not None else columns[-1]
    if target not in columns:
        raise ParameterError(f"target: no column '{target}' (columns: {', '.join(columns)})")
    unknown = [c for c in reading.drop if c not in columns]
    if unknown:
        raise ParameterError(f"drop: no column '{unknown[0]}'")
    return value.drop(columns=[target, *reading.drop]), value[target]


def in_memory(value, name: str) -> Dataset:
    """A Dataset of a Dataset, or of an (X, y) pair as DecisionTreeClassifier.fit reads it."""
    if isinstance(value, Dataset):
        return value
    from dtcli.estimator import DecisionTreeClassifier

    try:
        X, y = value
    except (TypeError, ValueError):
        raise ParameterError(f"dataset '{name}': expected a path, a Dataset, an (X, y) pair "
                             f"or a DataFrame, got {type(value).__name__}") from None
    target = str(getattr(y, "name", None) or "class")
    data = DecisionTreeClassifier().fit_data(X, y)
    return Dataset(data.X, data.y, data.features, tuple(str(c) for c in data.classes),
                   target, name)


def refuse_outputs(outputs: dict[str, str | None], inputs: dict[str, str | None]) -> None:
    """ParameterError if an output (option -> path) names an input file, or another output."""
    from dtcli.atomic import refuse_output_over_input

    for option, path in outputs.items():
        refuse_output_over_input(path, option, inputs)
        inputs = {**inputs, option: path}
