"""dtcli.io ARFF reading: the shipped example, attribute types, and every error."""
from pathlib import Path

import numpy as np
import pytest

from dtcli.errors import DataError
from dtcli.io import load_dataset, read_table
from dtcli.io.dataset import NOMINAL, NUMERIC, STRING

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
DATA = ROOT / "tests" / "data" / "io"

HEADER = "@relation r\n@attribute a numeric\n@attribute b {x, y}\n@attribute n integer\n@data\n"


def error_of(tmp_path, content: str) -> str:
    path = tmp_path / "data.arff"
    path.write_text(content)
    with pytest.raises(DataError) as caught:
        read_table(str(path))
    message = str(caught.value)
    assert message.startswith(str(path)) and "\n" not in message
    return message[len(str(path)):]


def test_vehicle_example():
    table = read_table(str(EXAMPLES / "vehicle.arff"))
    assert table.n_rows == 846 and len(table.columns) == 19
    assert table.names[0] == "Compactness" and table.names[-1] == "class"
    assert all(c.kind == NUMERIC for c in table.columns[:-1])
    assert [c.values[0] for c in table.columns[:3]] == [95.0, 48.0, 83.0]
    label = table.columns[-1]
    assert label.kind == NOMINAL and label.categories == ("bus", "opel", "saab", "van")
    counts = dict(zip(*np.unique(label.values.astype(str), return_counts=True)))
    assert counts == {"bus": 218, "opel": 212, "saab": 217, "van": 199}  # awk on the CSV
    keel = read_table(str(EXAMPLES / "imbalanced" / "vehicle3.dat"))  # same rows, KEEL release
    for ours, theirs in zip(table.columns[:-1], keel.columns[:-1]):
        assert ours.name == theirs.name
        np.testing.assert_array_equal(ours.values, theirs.values)


def test_weather_types_missing_values_and_quotes():
    table = read_table(str(DATA / "weather.arff"))
    assert table.names == ["outlook", "temperature", "humidity", "windy", "play golf"]
    assert table.n_rows == 14  # the comment line among the rows is not a row
    outlook, temperature, humidity, windy, play = table.columns
    assert outlook.categories == ("sunny", "overcast", "light rain")  # declared order
    assert outlook.values[3] == "light rain" and outlook.values[12] is None
    assert temperature.kind == humidity.kind == NUMERIC
    assert np.isnan(humidity.values[11]) and np.isnan(humidity.values).sum() == 1
    assert windy.categories == ("TRUE", "FALSE") and play.values.tolist().count("yes") == 9


def test_string_and_date_attributes_are_free_text():
    table = read_table(str(DATA / "notes.arff"))
    kinds = {c.name: c.kind for c in table.columns}
    assert kinds == {"id": NUMERIC, "note": STRING, "seen": STRING, "size": NUMERIC,
                     "label": NOMINAL}
    assert table.columns[1].values.tolist() == [
        "first note", "second, with a comma", None, "fourth"]
    assert table.columns[2].values[0] == "2020-01-05"


def test_string_attribute_must_be_dropped_to_train():
    path = str(DATA / "notes.arff")
    with pytest.raises(DataError, match=r"notes.arff: column 'note' is free text .*--drop"):
        load_dataset(path)
    dataset = load_dataset(path, drop=["note", "seen"])
    assert dataset.feature_names == ["id", "size"] and dataset.classes == ("large", "small")


def test_string_attribute_can_be_the_target():
    dataset = load_dataset(str(DATA / "notes.arff"), target="note", drop=["seen"])
    assert dataset.X.shape == (3, 3) and len(dataset.warnings) == 1


def test_crlf_and_bom(tmp_path):
    path = tmp_path / "data.arff"
    path.write_bytes(b"\xef\xbb\xbf" + (HEADER + "1.5,x,2\n?,y,?\n").replace("\n", "\r\n").encode())
    a, b, n = read_table(str(path)).columns
    np.testing.assert_array_equal(a.values, [1.5, np.nan])
    assert b.values.tolist() == ["x", "y"] and n.values[0] == 2.0


@pytest.mark.parametrize("rows, expected", [
    ("1,x,2\n1,y\n", ":7: expected 3 fields, found 2"),
    ("1,x,2\nabc,y,3\n", ":7: column 'a' holds 'abc', which is neither a number"),
    ("1,z,2\n", ":6: column 'b' holds 'z', which is not one of its declared values {x, y}"),
    ("1,x,2\n2,y,1.7\n", ":7: integer column 'n' holds 1.7; declare it real"),
    ("1,x,2\n\n% note\ninf,y,3\n", ":9: infinite value in column 'a'"),
])
def test_bad_rows_name_the_line_and_column(tmp_path, rows, expected):
    assert error_of(tmp_path, HEADER + rows).startswith(expected)


def test_bad_header_names_the_line(tmp_path):
    header = "@relation r\n@attribute a numeric\n@attribute b blob\n"
    message = error_of(tmp_path, header + "@data\n1,2\n")
    assert message.startswith(":3: Bad @ATTRIBUTE type")


def test_duplicate_attribute(tmp_path):
    assert error_of(tmp_path, "@relation r\n@attribute a numeric\n@attribute a real\n@data\n1,2\n"
                    ).startswith(":3: Bad @ATTRIBUTE name a")


def test_no_data_line_and_no_rows(tmp_path):
    assert "no @data line" in error_of(tmp_path, "@relation r\n@attribute a numeric\n")
    assert error_of(tmp_path, HEADER + "\n% nothing\n") == ": no data rows"
