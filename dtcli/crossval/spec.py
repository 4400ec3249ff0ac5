"""What a comparison runs: datasets (files named on the command line or a spec file) and
distinct criteria (`default_criteria`, `check_distinct`).

A spec file (TOML) names each dataset and says how to read it, for runs over
datasets that differ in their target or dropped columns::

    # paths are relative to this file
    [datasets.breast]
    path = "../examples/balanced/wdbc.csv"

    [datasets.glass]
    path = "../examples/balanced/glass.csv"
    target = "Type"          # class column (name or 0-based index)
    drop = ["Id"]            # a string or a list of strings
    # format = "csv"         # csv, arff or keel (default: from the extension)
    # header = true          # CSV only: false if there is no header row
    # delimiter = ";"        # CSV only (default: sniffed)

Datasets keep the order of the file. A file named on the command line is
called by its name without directories and extensions ("ecoli2.dat.gz" is
"ecoli2") and read with the shared reading options.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from dtcli.errors import DataError, ParameterError

_FORMATS = ("csv", "arff", "keel")
_KEYS = {"path", "target", "drop", "format", "header", "delimiter"}


@dataclass(frozen=True)
class DatasetSpec:
    """One dataset to load: a name for the reports and `load_dataset`'s arguments."""

    name: str
    path: str
    target: str | None = None
    drop: tuple[str, ...] = ()
    format: str | None = None
    header: bool = True
    delimiter: str | None = None

    def load(self, force: bool = False):
        """The `Dataset` (see `dtcli.io.load_dataset`, also for `force`)."""
        from dtcli.io import load_dataset

        return load_dataset(self.path, format=self.format, target=self.target, drop=self.drop,
                            header=self.header, delimiter=self.delimiter, force=force)


@dataclass(frozen=True)
class _Checker:
    source: str

    def fail(self, where: str, message: str):
        raise DataError(f"{self.source}: {where}: {message}")


def dataset_name(path: str) -> str:
    """A file's name without directories and extensions: 'data/ecoli2.dat.gz' -> 'ecoli2'."""
    name = os.path.basename(path.rstrip("/\\")) or path
    if name.lower().endswith(".gz"):
        name = name[:-3]
    stem, _ = os.path.splitext(name)
    return stem or name


def specs_from_paths(paths, *, target=None, drop=(), format=None, header=True,
                     delimiter=None) -> list[DatasetSpec]:
    """Datasets named on the command line, all read with the same options."""
    return [DatasetSpec(dataset_name(p), p, target, tuple(drop), format, header, delimiter)
            for p in paths]


def load_spec(path: str) -> list[DatasetSpec]:
    """Read a spec file; a problem is a DataError naming the file and the key."""
    import tomllib

    try:
        with open(path, "rb") as handle:
            doc = tomllib.load(handle)
    except FileNotFoundError:
        raise DataError(f"{path}: no such spec file") from None
    except OSError as exc:
        raise DataError(f"{path}: cannot read spec file ({exc.strerror})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: not a valid TOML file ({exc})") from None
    check = _Checker(path)
    extra = sorted(set(doc) - {"datasets"})
    if extra:
        check.fail(extra[0], "unknown top-level key; a spec file has [datasets.NAME] tables")
    tables = doc.get("datasets")
    if not isinstance(tables, dict) or not tables:
        check.fail("datasets", "no [datasets.NAME] tables")
    base = os.path.dirname(path)  # relative paths stay relative (reports show them)
    return [_entry(check, base, name, table) for name, table in tables.items()]


def _entry(check: _Checker, base: str, name: str, table) -> DatasetSpec:
    where = f"datasets.{name}"
    if not isinstance(table, dict):
        check.fail(where, "must be a table with at least a 'path'")
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        check.fail(f"{where}.{unknown[0]}",
                   f"unknown key; allowed keys are {', '.join(sorted(_KEYS))}")

    def text(key, required=False):
        value = table.get(key)
        if value is None:
            if required:
                check.fail(f"{where}.{key}", "missing")
            return None
        if isinstance(value, int) and not isinstance(value, bool) and key == "target":
            return str(value)
        if not isinstance(value, str) or not value:
            check.fail(f"{where}.{key}", "must be a non-empty string")
        return value

    drop = table.get("drop", ())
    if isinstance(drop, (str, int)) and not isinstance(drop, bool):
        drop = [drop]
    if not isinstance(drop, (list, tuple)) or not all(
            isinstance(d, (str, int)) and not isinstance(d, bool) for d in drop):
        check.fail(f"{where}.drop", "must be a column name or a list of column names")
    fmt = text("format")
    if fmt is not None and fmt not in _FORMATS:
        check.fail(f"{where}.format", f"must be one of {', '.join(_FORMATS)}, got {fmt!r}")
    header = table.get("header", True)
    if not isinstance(header, bool):
        check.fail(f"{where}.header", "must be true or false")
    path = text("path", required=True)
    path = path if os.path.isabs(path) else os.path.normpath(os.path.join(base, path))
    return DatasetSpec(name, path, text("target"), tuple(str(d) for d in drop), fmt, header,
                       text("delimiter"))


def check_unique(specs: list[DatasetSpec]) -> None:
    """Names identify datasets in every report, so two datasets may not share one."""
    seen: dict[str, str] = {}
    for spec in specs:
        if spec.name in seen:
            raise ParameterError(
                f"two datasets are named '{spec.name}' ({seen[spec.name]} and {spec.path}); "
                "name them differently in a --spec file")
        seen[spec.name] = spec.path


def default_criteria() -> list[str]:
    """The registered criteria that, at their default parameters, are not another one
    (of the 17, eight are then exactly gini, entropy or gain-ratio), in registry order."""
    from dtcli.criteria import CRITERIA

    return [name for name, criterion in CRITERIA.items()
            if criterion.for_engine()[0].name == name]
