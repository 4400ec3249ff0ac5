"""dtcli.io.load_dataset and load_features: targets, classes, encoding, prediction inputs."""
import csv
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import dtcli.io.csv
from dtcli.errors import DataError, ParameterError
from dtcli.io import load_dataset, load_features
from dtcli.io.dataset import NOMINAL, NUMERIC, Feature
from dtcli.io.encode import stack_columns

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
DATA = ROOT / "tests" / "data" / "io"


def write(tmp_path, content: str, name="data.csv") -> str:
    path = tmp_path / name
    path.write_text(content)
    return str(path)


def class_counts(dataset) -> dict[str, int]:
    return {dataset.classes[k]: int(n) for k, n in enumerate(np.bincount(dataset.y))}


def check_layout(dataset) -> None:
    assert dataset.X.dtype == np.float64 and dataset.X.flags.c_contiguous
    assert dataset.y.dtype == np.int64 and len(dataset.y) == len(dataset.X)
    assert dataset.X.shape[1] == len(dataset.features)


def test_iris():
    dataset = load_dataset(str(EXAMPLES / "iris.csv"))
    check_layout(dataset)
    assert dataset.X.shape == (150, 4) and dataset.target == "class"
    assert class_counts(dataset) == {"Iris-setosa": 50, "Iris-versicolor": 50, "Iris-virginica": 50}
    assert all(f.kind == NUMERIC for f in dataset.features)
    np.testing.assert_array_equal(dataset.X[0], [5.1, 3.5, 1.4, 0.2])
    assert dataset.warnings == []


def test_hepatitis_target_is_the_first_column():
    dataset = load_dataset(str(EXAMPLES / "hepatitis.csv"), target="Class")
    check_layout(dataset)
    assert dataset.X.shape == (155, 19) and dataset.feature_names[0] == "AGE"
    assert class_counts(dataset) == {"DIE": 32, "LIVE": 123}  # awk count
    assert np.isnan(dataset.X).sum() == 167  # the '?' cells, counted with grep


def test_target_by_index():
    path = str(EXAMPLES / "hepatitis.csv")
    assert load_dataset(path, target="0").target == "Class"
    assert load_dataset(path, target="-1").target == "HISTOLOGY"
    assert load_dataset(path, target="-20").target == "Class"


def test_a_column_name_wins_over_an_index(tmp_path):
    path = write(tmp_path, "a,3,b,c\n1,x,2,u\n2,y,3,v\n")
    assert load_dataset(path, target="3").target == "3"
    assert load_dataset(path, target="2").target == "b"


def test_glass_drop_by_name_or_index():
    path = str(EXAMPLES / "balanced" / "glass.csv")
    for drop in (["Id"], ["0"]):
        dataset = load_dataset(path, target="Type", drop=drop)
        assert dataset.feature_names == ["RI", "Na", "Mg", "Al", "Si", "K", "Ca", "Ba", "Fe"]
    assert dataset.classes == ("1", "2", "3", "5", "6", "7")  # numbers lose their ".0"
    assert class_counts(dataset) == {"1": 70, "2": 76, "3": 17, "5": 13, "6": 9, "7": 29}


def test_default_target_is_the_last_column_not_dropped(tmp_path):
    path = write(tmp_path, "a,b,c\n1,x,p\n2,y,q\n")
    assert load_dataset(path).target == "c"
    assert load_dataset(path, drop=["c"]).target == "b"


def test_crx_nominal_features():
    dataset = load_dataset(str(EXAMPLES / "crx.csv"))
    check_layout(dataset)
    a1 = dataset.features[0]
    assert a1 == Feature("a1", NOMINAL, ("a", "b"))  # sorted observed values
    rows = list(csv.DictReader((EXAMPLES / "crx.csv").open()))
    assert Counter(dataset.X[:, 0].tolist()) == Counter(
        a1.categories.index(row["a1"]) for row in rows)  # 203 a, 450 b
    assert class_counts(dataset) == {"negative": 357, "positive": 296}


def test_keel_categories_keep_the_declared_order():
    dataset = load_dataset(str(DATA / "roles.dat"))
    assert dataset.target == "Class" and dataset.classes == ("negative", "positive")
    colour = dataset.features[2]
    assert colour.categories == ("red", "green", "light blue")
    np.testing.assert_array_equal(dataset.X[:, 2], [0.0, 1.0, 2.0, np.nan])
    np.testing.assert_array_equal(dataset.y, [1, 0, 0, 1])


def test_numeric_labels_and_numeric_class_order(tmp_path):
    path = write(tmp_path, "x,y\n1,10\n2,2\n3,2.5\n4,10.0\n5,-1\n")
    dataset = load_dataset(path, force=True)  # 2.5 is no class without it
    assert dataset.classes == ("-1", "2", "2.5", "10")
    np.testing.assert_array_equal(dataset.y, [3, 1, 2, 3, 0])


def test_text_labels_sort_as_text(tmp_path):
    dataset = load_dataset(write(tmp_path, "x,y\n1,b\n2,10\n3,B\n4,2\n"))
    assert dataset.classes == ("10", "2", "B", "b")


def test_rows_without_a_class_are_dropped_with_a_warning(tmp_path):
    path = write(tmp_path, "x,c,y\n1,u,a\n2,v,?\n3,w,b\n4,u,\n5,v,a\n")
    dataset = load_dataset(path)
    assert dataset.warnings == [f"dropped 2 rows with a missing class value in {path}"]
    np.testing.assert_array_equal(dataset.X, [[1, 0], [3, 2], [5, 1]])  # c: u, v, w
    np.testing.assert_array_equal(dataset.y, [0, 1, 0])


def test_a_column_that_looks_like_a_row_identifier_is_a_warning(tmp_path):
    n = 25
    rows = [f"{10 * i},{i % 4},{i + 0.5},id{i},{'' if i == 3 else i},{i % 2}" for i in range(n)]
    path = write(tmp_path, "spaced,group,height,name,gappy,y\n" + "\n".join(rows) + "\n")
    dataset = load_dataset(path)
    # spaced: distinct whole numbers (a wide range); name: distinct text; group repeats,
    # height has fractions, gappy has a missing value
    assert [w.split(" looks like")[0] for w in dataset.warnings] == [
        f"{path}: column 'spaced'", f"{path}: column 'name'"]
    assert "drop it with --drop spaced" in dataset.warnings[0]
    assert load_dataset(path, drop=["spaced", "name"]).warnings == []
    few = write(tmp_path, "id,y\n" + "\n".join(f"{i},{i % 2}" for i in range(20)) + "\n",
                "few.csv")
    assert load_dataset(few).warnings == []  # 20 rows: distinct values may be chance


def test_missing_nominal_feature_values_are_nan(tmp_path):
    dataset = load_dataset(write(tmp_path, "c,y\nu,a\n?,b\nNA,a\n"))
    assert dataset.features[0].categories == ("u",)
    np.testing.assert_array_equal(dataset.X[:, 0], [0, np.nan, np.nan])


@pytest.mark.parametrize("target, X, classes", [
    (None, [[1, 2, 3], [4, 5, 6], [7, 8, 9], [0, 0, 1]], ("0", "1")),
    ("a", [[2, 3, 1], [5, 6, 0], [8, 9, 1], [0, 1, 0]], ("0", "1", "4", "7")),
])
def test_pyarrow_features_match_python(tmp_path, monkeypatch, target, X, classes):
    """pyarrow's path lays the numeric columns before the last out as one matrix,
    which is X itself with the default target; other targets take a copy."""
    content = "a,b,c,class\n1,2,3,1\n4,5,6,0\n7,8,9,1\n0,0,1,0\n"
    python = load_dataset(write(tmp_path, content), target=target)
    monkeypatch.setattr(dtcli.io.csv, "SMALL_FILE_BYTES", -1)
    arrow = load_dataset(write(tmp_path, content), target=target)
    for dataset in (python, arrow):
        check_layout(dataset)
        np.testing.assert_array_equal(dataset.X, X)
        assert dataset.classes == classes


def test_stack_columns_reuses_the_matrix_the_columns_are_of():
    matrix = np.arange(12.0).reshape(4, 3).copy()  # owns its memory, as the reader's does
    assert stack_columns([matrix[:, 0], matrix[:, 1], matrix[:, 2]], 4) is matrix
    for columns in ([matrix[:, 1], matrix[:, 0], matrix[:, 2]], [matrix[:, 0], matrix[:, 1]]):
        stacked = stack_columns(columns, 4)
        assert stacked.base is None and stacked.flags.c_contiguous
        np.testing.assert_array_equal(stacked, np.column_stack(columns))


# --- errors naming the file and the option ---

def error_of(path, error=DataError, **options) -> str:
    with pytest.raises(error) as caught:
        load_dataset(path, **options)
    message = str(caught.value)
    assert message.startswith(path) and "\n" not in message
    return message[len(path):]


def test_unknown_target_lists_columns(tmp_path):
    path = write(tmp_path, ",".join(f"c{j}" for j in range(12)) + "\n" + ",".join("1" * 12) + "\n")
    assert error_of(path, ParameterError, target="class") == (
        ": --target 'class': no such column (12 columns: c0, c1, c2, c3, c4, c5, c6, c7, ...)")
    assert error_of(path, ParameterError, target="12").startswith(
        ": --target '12': no such column")


def test_unknown_drop(tmp_path):
    path = write(tmp_path, "a,b,c\n1,2,x\n2,3,y\n")
    assert error_of(path, ParameterError, drop=["d"]) == (
        ": --drop 'd': no such column (3 columns: a, b, c)")


def test_target_dropped(tmp_path):
    path = write(tmp_path, "a,b,c\n1,2,x\n2,3,y\n")
    assert "target column is dropped (--drop)" in error_of(path, ParameterError, target="c",
                                                           drop=["c"])


def test_single_class(tmp_path):
    path = write(tmp_path, "a,b\n1,x\n2,x\n3,?\n")
    assert error_of(path) == ": target column 'b' has only one class 'x'; need at least two"
    path = write(tmp_path, "a,b\n1,?\n2,?\n")
    assert error_of(path) == ": target column 'b' has no class values; need at least two"


def test_no_features(tmp_path):
    path = write(tmp_path, "a,b\n1,x\n2,y\n")
    assert "no feature columns" in error_of(path, drop=["a"])


# --- load_features ---

FEATURES = [Feature("size", NUMERIC), Feature("colour", NOMINAL, ("red", "blue")),
            Feature("code", NOMINAL, ("01", "2"))]


def test_features_are_matched_by_name(tmp_path):
    path = write(tmp_path, "code,extra,colour,size,label\n01,9,blue,1.5,p\n2,9,green,?,q\n"
                           "1,9,red,3,\n")
    X, columns = load_features(path, FEATURES, labels_of=["label", "extra"])
    labels = columns["label"]
    assert X.dtype == np.float64 and X.flags.c_contiguous
    # "green" is unseen and "1" is not "01": both become NaN, like a missing value
    np.testing.assert_array_equal(X, [[1.5, 1, 0], [np.nan, np.nan, 1], [3, 0, np.nan]])
    assert labels.dtype == object and labels.tolist() == ["p", "q", None]
    assert columns["extra"].tolist() == ["9", "9", "9"]
    assert load_features(path, FEATURES)[1] == {}
    assert load_features(path, FEATURES, labels_of=["absent"])[1] == {}


def test_numeric_labels_read_back_as_at_training(tmp_path):
    path = write(tmp_path, "size,colour,code,y\n1,red,01,1.0\n2,blue,2,2\n")
    assert load_features(path, FEATURES, labels_of=["y"])[1]["y"].tolist() == ["1", "2"]


def test_missing_feature_column(tmp_path):
    path = write(tmp_path, "size,colour\n1,red\n")
    with pytest.raises(DataError) as caught:
        load_features(path, FEATURES)
    assert str(caught.value) == f"{path}: column 'code' required by the model is missing"


def test_text_in_a_numeric_feature_names_line_and_column(tmp_path):
    path = write(tmp_path, "size,colour,code\n1,red,01\n\nbig,blue,2\n")
    with pytest.raises(DataError, match=r"data.csv:4: column 'size' holds 'big', which is neither"):
        load_features(path, FEATURES)


def test_declared_types_are_bridged():
    # roles.dat declares Width numeric and Colour nominal; a model may have seen them otherwise
    X, _ = load_features(str(DATA / "roles.dat"), [Feature("Width", NOMINAL, ("2.5", "0.5"))])
    np.testing.assert_array_equal(X[:, 0], [0, np.nan, np.nan, 1])
    with pytest.raises(DataError, match="roles.dat: column 'Colour' holds text"):
        load_features(str(DATA / "roles.dat"), [Feature("Colour", NUMERIC)])


@pytest.mark.parametrize("path, target", [
    (EXAMPLES / "crx.csv", None), (EXAMPLES / "hepatitis.csv", "Class"),
    (EXAMPLES / "ecoli2.dat", None), (EXAMPLES / "vehicle.arff", None),
    (DATA / "weather.arff", None), (DATA / "mixed.csv", "grade"),
])
def test_training_and_prediction_inputs_agree(path, target):
    dataset = load_dataset(str(path), target=target)
    X, columns = load_features(str(path), dataset.features, labels_of=[dataset.target])
    labels = columns[dataset.target]
    present = np.not_equal(labels, None)
    np.testing.assert_array_equal(X[present], dataset.X)
    assert [dataset.classes[k] for k in dataset.y] == labels[present].tolist()
