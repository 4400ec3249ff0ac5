"""The shipped example data keeps its values: every numeric column of every file
under examples/ stays within known ranges.

An earlier copy of examples/crx.csv and examples/balanced/australian.csv had lost
the decimal points of its real-valued columns (crx's age a2 `30.83` read
`3083.0`), which reordered the values and so changed every tree and the Table 3
reproduction, while every reader test still passed. A value range catches that:
an age of 3083 is outside any range the data's documentation allows.

- KEEL files declare each numeric attribute's range in their header
  (`@attribute Age integer [30, 83]`); the header is parsed here on its own,
  not by dtree's reader, which takes the ranges as informative only.
- CSV files carry no ranges, so tests/data/example_ranges.csv records each
  numeric column's least and greatest value. It was written from the files
  once they had been checked: crx.csv and australian.csv cell by cell against
  the UCI `crx.data` and Statlog `australian.dat` files (crx's a2 is an age,
  13.75 to 76.75 in its 653 complete rows, a3 a debt, a8 years employed, 0 to
  28 and 0 to 28.5; australian
  codes the same columns as A2, A3 and A7), iris against the summary
  statistics of UCI's `iris.names` (sepal length 4.3 to 7.9 cm, sepal width
  2.0 to 4.4, petal length 1.0 to 6.9, petal width 0.1 to 2.5); the others
  as received from the KEEL and UCI repositories. A file whose cells are
  reshaped (a decimal point lost, a column shifted, a scale changed) moves
  some column's range. After a deliberate change of the data, rewrite it
  with `python tests/test_example_data.py --record` and say why in the commit.
"""
from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
RANGES = Path(__file__).parent / "data" / "example_ranges.csv"
MISSING = {"", "?"}

_KEEL_NUMERIC = re.compile(
    r"@attribute\s+(\S+)\s+(?:real|integer|numeric)\s*\[\s*([^,\]]+)\s*,\s*([^\]]+)\]",
    re.IGNORECASE)
_KEEL_ATTRIBUTE = re.compile(r"@attribute\s", re.IGNORECASE)


def _number(cell: str) -> float | None:
    try:
        return float(cell)
    except ValueError:
        return None


def csv_ranges(path: Path) -> dict[str, tuple[float, float]]:
    """Least and greatest value of each column whose present cells are all numbers."""
    with path.open(newline="") as handle:
        rows = list(csv.reader(handle))
    ranges = {}
    for i, name in enumerate(rows[0]):
        values = [_number(row[i].strip()) for row in rows[1:] if row[i].strip() not in MISSING]
        if values and None not in values:
            ranges[name] = (min(values), max(values))
    return ranges


def keel_declared(path: Path) -> tuple[list[tuple[int, str, float, float]], list[list[str]]]:
    """((column index, name, min, max) of each numeric attribute with a range, data rows)."""
    declared, rows, column, in_data = [], [], 0, False
    for line in path.read_text().splitlines():
        line = line.strip()
        if in_data and line:
            rows.append([cell.strip() for cell in line.split(",")])
        elif line.lower().startswith("@data"):
            in_data = True
        elif _KEEL_ATTRIBUTE.match(line):
            found = _KEEL_NUMERIC.match(line)
            if found:
                declared.append((column, found[1], float(found[2]), float(found[3])))
            column += 1
    return declared, rows


def recorded() -> dict[str, dict[str, tuple[float, float]]]:
    table: dict[str, dict[str, tuple[float, float]]] = {}
    with RANGES.open(newline="") as handle:
        for row in csv.DictReader(handle):
            table.setdefault(row["file"], {})[row["column"]] = (float(row["min"]),
                                                                float(row["max"]))
    return table


def _files(pattern: str) -> list[str]:
    return sorted(str(p.relative_to(EXAMPLES)) for p in EXAMPLES.rglob(pattern))


@pytest.mark.parametrize("name", _files("*.dat"))
def test_keel_values_lie_within_the_declared_ranges(name):
    declared, rows = keel_declared(EXAMPLES / name)
    assert declared and rows
    for column, attribute, low, high in declared:
        values = [float(row[column]) for row in rows if row[column] not in MISSING | {"<null>"}]
        outside = [v for v in values if not low <= v <= high]
        assert not outside, f"{name}: {attribute} has {outside[:3]} outside [{low}, {high}]"


@pytest.mark.parametrize("name", _files("*.csv"))
def test_csv_numeric_columns_keep_their_recorded_ranges(name):
    assert csv_ranges(EXAMPLES / name) == recorded()[name]


def test_every_csv_file_has_recorded_ranges():
    assert sorted(recorded()) == _files("*.csv")


def test_the_corrected_columns_hold_real_values():
    """The three columns that had lost their decimal points, in both files: an age in
    years and two amounts below 30 (UCI crx.names; Statlog australian.doc)."""
    crx, australian = (csv_ranges(EXAMPLES / name) for name in ("crx.csv",
                                                                "balanced/australian.csv"))
    for ranges, (age, debt, employed) in ((crx, ("a2", "a3", "a8")),
                                          (australian, ("a2", "a3", "a7"))):
        assert 13 <= ranges[age][0] and ranges[age][1] <= 81
        assert ranges[debt][1] <= 30 and ranges[employed][1] <= 30


def _record() -> None:
    with RANGES.open("w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["file", "column", "min", "max"])
        for name in _files("*.csv"):
            for column, (low, high) in csv_ranges(EXAMPLES / name).items():
                writer.writerow([name, column, repr(low), repr(high)])


if __name__ == "__main__" and sys.argv[1:] == ["--record"]:
    _record()
