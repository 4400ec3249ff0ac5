"""dtcli.io KEEL .dat reading: the 13 shipped files, the optional syntax, and every error."""
from pathlib import Path

import numpy as np
import pytest

from dtcli.errors import DataError
from dtcli.io import load_dataset, read_table
from dtcli.io.dataset import NOMINAL, NUMERIC

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
DATA = ROOT / "tests" / "data" / "io"

# rows, columns, positives, negatives: counted with awk on the data lines
IMBALANCED = {
    "ecoli-0-1-4-6_vs_5.dat": (280, 7, 20, 260),
    "ecoli-0-1-4-7_vs_2-3-5-6.dat": (336, 8, 29, 307),
    "ecoli-0-1_vs_2-3-5.dat": (244, 8, 24, 220),
    "ecoli-0-6-7_vs_5.dat": (220, 7, 20, 200),
    "ecoli2.dat": (336, 8, 52, 284),
    "haberman.dat": (306, 4, 81, 225),
    "new-thyroid1.dat": (215, 6, 35, 180),
    "vehicle3.dat": (846, 19, 212, 634),
    "winequality-red-4.dat": (1599, 12, 53, 1546),
    "wisconsin.dat": (683, 10, 239, 444),
    "yeast-0-2-5-6_vs_3-7-8-9.dat": (1004, 9, 99, 905),
    "yeast-0-3-5-9_vs_7-8.dat": (506, 9, 50, 456),
    "yeast-2_vs_4.dat": (514, 9, 51, 463),
}

HEADER = ("@relation r\n@attribute a real [0, 1]\n@attribute n integer [1, 9]\n"
          "@attribute c {p, q}\n@data\n")


def error_of(tmp_path, content: str) -> str:
    path = tmp_path / "data.dat"
    path.write_text(content)
    with pytest.raises(DataError) as caught:
        read_table(str(path))
    message = str(caught.value)
    assert message.startswith(str(path)) and "\n" not in message
    return message[len(str(path)):]


def test_all_imbalanced_files_are_shipped():
    assert sorted(p.name for p in (EXAMPLES / "imbalanced").glob("*.dat")) == sorted(IMBALANCED)


@pytest.mark.parametrize("name", sorted(IMBALANCED))
def test_imbalanced_examples(name):
    n_rows, n_columns, positives, negatives = IMBALANCED[name]
    table = read_table(str(EXAMPLES / "imbalanced" / name))
    assert table.n_rows == n_rows and len(table.columns) == n_columns
    assert all(c.kind == NUMERIC and not np.isnan(c.values).any() for c in table.columns[:-1])
    label = table.columns[-1]
    assert label.kind == NOMINAL and set(label.categories) == {"positive", "negative"}
    assert (label.values == "positive").sum() == positives
    assert (label.values == "negative").sum() == negatives


def test_ecoli2_first_row_and_names():
    table = read_table(str(EXAMPLES / "ecoli2.dat"))
    assert table.names == ["Mcg", "Gvh", "Lip", "Chg", "Aac", "Alm1", "Alm2", "Class"]
    assert [c.values[0] for c in table.columns] == [
        0.49, 0.29, 0.48, 0.50, 0.56, 0.24, 0.35, "negative"]
    assert table.default_target is None  # no @outputs: the last column by default


def test_range_without_space_and_integers():
    wine = read_table(str(EXAMPLES / "imbalanced" / "winequality-red-4.dat"))
    assert wine.names[0] == "FixedAcidity" and wine.columns[0].values[0] == 7.4
    haberman = read_table(str(EXAMPLES / "imbalanced" / "haberman.dat"))
    assert [c.values[0] for c in haberman.columns[:3]] == [38.0, 59.0, 2.0]


def test_optional_syntax():
    table = read_table(str(DATA / "roles.dat"))
    # Id and Notes are in neither @inputs nor @outputs
    assert table.names == ["Width", "Height", "Colour", "Class"]
    assert table.default_target == "Class" and table.n_rows == 4
    width, height, colour, label = table.columns
    np.testing.assert_array_equal(width.values, [2.5, np.nan, 12.5, 0.5])  # 12.5 > max: fine
    np.testing.assert_array_equal(height.values, [1.0, 4.5, np.nan, 0.25])
    assert colour.categories == ("red", "green", "light blue")
    assert colour.values.tolist() == ["red", "green", "light blue", None]
    assert label.values.tolist() == ["positive", "negative", "negative", "positive"]


def test_outputs_name_the_default_target(tmp_path):
    path = tmp_path / "t.dat"
    path.write_text("@relation r\n@attribute k {u, v}\n@attribute a real\n@attribute b real\n"
                    "@outputs k\n@data\nu, 1, 2\nv, 3, 4\n")
    dataset = load_dataset(str(path))
    assert dataset.target == "k" and dataset.feature_names == ["a", "b"]


def test_several_outputs_warn(tmp_path):
    path = tmp_path / "t.dat"
    path.write_text(HEADER.replace("@data", "@outputs n, c\n@data") + "0.5, 1, p\n")
    table = read_table(str(path))
    assert table.default_target is None and "@outputs names 2 columns" in table.warnings[0]


@pytest.mark.parametrize("rows, expected", [
    ("0.1, 1, p\n0.2, 1.7, q\n", ":7: integer column 'n' holds 1.7; declare it real"),
    ("0.1, 1, p\n\n0.2, x, q\n", ":8: column 'n' holds 'x', which is neither a number"),
    ("0.1, 1, r\n", ":6: column 'c' holds 'r', which is not one of its declared values {p, q}"),
    ("0.1, 1, p\n0.2, 2\n", ":7: expected 3 fields, found 2"),
    ("0.1, 1, p, q\n", ":6: expected 3 fields, found 4"),
    ("% c\n1e999, 1, p\n", ":7: infinite value in column 'a'"),
])
def test_bad_rows_name_the_line_and_column(tmp_path, rows, expected):
    assert error_of(tmp_path, HEADER + rows).startswith(expected)


def test_integer_column_accepts_whole_numbers_written_as_reals(tmp_path):
    path = tmp_path / "t.dat"
    path.write_text(HEADER + "0.1, 2.0, p\n0.2, ?, q\n")
    np.testing.assert_array_equal(read_table(str(path)).columns[1].values, [2.0, np.nan])


@pytest.mark.parametrize("header, expected", [
    ("@relation r\n@attribute a text\n", ":2: attribute 'a' has type 'text'"),
    ("@relation r\n@attribute\n", ":2: cannot read the @attribute line"),
    ("@relation r\n@attribute a real\n@attribute a real\n", ":3: duplicate column name 'a'"),
    ("@relation r\n@attribute a real\n@inputs a, b\n", ":3: @inputs names 'b'"),
    ("@relation r\n1, 2\n", ":2: expected @relation, @attribute"),
    ("@relation r\n", ": no @data line"),
])
def test_bad_header(tmp_path, header, expected):
    content = header if "no @data" in expected else header + "@data\n1\n"
    assert error_of(tmp_path, content).startswith(expected)


def test_no_rows(tmp_path):
    assert error_of(tmp_path, HEADER + "% nothing\n\n") == ": no data rows"
