"""Input readers: CSV, ARFF and KEEL files to tables, datasets and feature matrices.

    read_table     file -> Table of raw columns (format by extension or `format=`)
    load_dataset   file -> Dataset for training (target, classes, encoded X)
    load_features  file -> X encoded with a trained model's features (+ labels)

`source` is a path or "-" for stdin (CSV unless `format=` says otherwise);
gzip-compressed input is recognised by its magic bytes and decompressed, and
a path's format is read from the extension under a trailing ".gz": .csv, .tsv
and .txt are CSV, .arff ARFF, .dat KEEL. Every problem with the data is a
one-line `DataError` naming the file and the line or column; a `target` or
`drop` naming no column is a `ParameterError` (an option mistake).

The format modules are imported on first use: pyarrow (CSV) costs a quarter
of a second, and `dtree --help` imports this package.
"""
from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np

from dtcli.io.dataset import NOMINAL, NUMERIC, Dataset, Feature, Table
from dtcli.io.encode import dataset_from_table, features_from_table
from dtcli.io.source import FORMATS, decode_utf8, read_source

__all__ = ["FORMATS", "Dataset", "Feature", "Table", "load_dataset", "load_features",
           "read_table"]


def read_table(source: str, *, format: str | None = None, header: bool = True,
               delimiter: str | None = None, string_columns: Collection[str] = (),
               numeric_columns: Collection[str] = ()) -> Table:
    """Read a CSV, ARFF or KEEL file into a Table of raw columns.

    `header`, `delimiter`, `string_columns` and `numeric_columns` concern CSV
    only, whose column types are inferred (see `dtcli.io.csv`): the last two
    force the named columns to nominal text or to numbers. ARFF and KEEL
    files declare their types. A column of mostly numbers holding other text is
    an error (`Column.problem`), here as soon as read; `load_dataset` and
    `load_features` raise it only for the columns they use.
    """
    table = _read_table(source, format, header, delimiter, string_columns, numeric_columns)
    table.check()
    return table


def _read_table(source: str, format: str | None, header: bool, delimiter: str | None,
                string_columns: Collection[str] = (),
                numeric_columns: Collection[str] = ()) -> Table:
    """read_table, leaving each column's problem to whoever uses the column."""
    raw = read_source(source, format)
    if raw.format == "csv":
        from dtcli.io.csv import read_csv

        table = read_csv(raw.data, raw.name, header=header, delimiter=delimiter,
                         string_columns=string_columns, numeric_columns=numeric_columns)
        if header:
            table.warnings.extend(header_hint(table))
        return table
    text = decode_utf8(raw.data, raw.name)
    if raw.format == "arff":
        from dtcli.io.arff import read_arff

        return read_arff(text, raw.name)
    from dtcli.io.keel import read_keel

    return read_keel(text, raw.name)


def load_dataset(source: str, *, format: str | None = None, target: str | None = None,
                 drop: Sequence[str] = (), header: bool = True,
                 delimiter: str | None = None, force: bool = False) -> Dataset:
    """Read a file for training; see `dtcli.io.encode.dataset_from_table` for
    how the target, dropped columns, classes and features are chosen, and for
    what `force` allows."""
    table = _read_table(source, format, header, delimiter)
    return dataset_from_table(table, target=target, drop=drop, force=force)


def header_hint(table: Table) -> list[str]:
    """A warning when a CSV's header row looks like a row of data (KEEL's raw data rows,
    say): every numeric column named by a number."""
    numeric = [c.name for c in table.columns if c.kind == NUMERIC]

    def is_number(text: str) -> bool:
        try:
            float(text)
        except ValueError:
            return False
        return True

    if not numeric or not all(is_number(name) for name in numeric):
        return []
    return [f"{table.source}: the header row ({', '.join(table.names[:4])}"
            f"{', ...' if len(table.names) > 4 else ''}) looks like data; if the file has no "
            "header row, give --no-header"]


def load_features(source: str, features: Sequence[Feature], *, labels_of: Sequence[str] = (),
                  format: str | None = None, header: bool = True,
                  delimiter: str | None = None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Read a file for prediction: X for a model's `features` (matched by name)
    and the raw labels of each column named in `labels_of` that the file has."""
    table = _read_table(
        source, format, header, delimiter,
        # CSV types are inferred: make them those the model was trained on.
        string_columns=[f.name for f in features if f.kind == NOMINAL],
        numeric_columns=[f.name for f in features if f.kind == NUMERIC],
    )
    return features_from_table(table, features, labels_of=labels_of)
