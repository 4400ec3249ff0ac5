"""Issue 24, the input side: no row lost, no cell reinterpreted, no traceback, whatever
the file. Every hostile file is made here, in tmp_path; each test checks the exact
outcome: the rows read, or the one error line naming file, line and column."""
import numpy as np
import pytest
from click.testing import CliRunner

import dtcli.io.csv
import dtcli.io.source
from dtcli.cli import cli
from dtcli.errors import DataError
from dtcli.io import load_dataset, load_features, read_table
from dtcli.io.dataset import NOMINAL, NUMERIC, Feature


@pytest.fixture(params=["python parser", "pyarrow parser"])
def parser(request, monkeypatch):
    """Run a test through both CSV parsers (small files take Python's, large ones pyarrow's)."""
    if request.param == "pyarrow parser":
        monkeypatch.setattr(dtcli.io.csv, "SMALL_FILE_BYTES", -1)
        monkeypatch.setattr(dtcli.io.source, "MAP_BYTES", 0)
    return request.param


def write(tmp_path, content, name="data.csv") -> str:
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return str(path)


def error_of(path: str, **options) -> str:
    with pytest.raises(DataError) as caught:
        read_table(path, **options)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(path)
    return message[len(path):]


# --- 1. a huge cell loses no row -----------------------------------------------------------------

def test_a_cell_over_128k_after_the_first_64kb_loses_no_row(tmp_path):
    """The small-file reader stopped at such a cell: 20,000 rows read as 10,000."""
    huge = "h" * 140_000
    rows = [f"{i},{i % 2},{huge if i == 10_000 else 'w'}" for i in range(20_000)]
    path = write(tmp_path, "a,b,c\n" + "\n".join(rows) + "\n")
    assert 64 * 1024 < (tmp_path / "data.csv").stat().st_size < dtcli.io.csv.SMALL_FILE_BYTES
    table = read_table(path)
    assert table.n_rows == 20_000
    assert table.columns[0].values[-1] == 19_999.0
    assert len(table.columns[2].values[10_000]) == 140_000


@pytest.mark.parametrize("where", ["header", "first row"])
def test_a_200kb_cell_anywhere_is_read(tmp_path, parser, where):
    huge = "v" * 200_000
    content = f"a,{huge}\n1,x\n2,y\n" if where == "header" else f"a,b\n1,{huge}\n2,y\n"
    table = read_table(write(tmp_path, content))
    assert table.n_rows == 2
    assert len((table.names[1] if where == "header" else table.columns[1].values[0])) == 200_000


# --- 2 and 4. one definition of a missing value and of a number, at every file size ---------

NOT_MISSING = ("NULL", "null", "None", "-", "na", "Na", "n/a", "nil")


@pytest.mark.parametrize("token", ["", "?", "NA", "N/A", "NaN", "nan", "NAN", "-nan", "+NaN"])
@pytest.mark.parametrize("fmt", ["csv", "keel", "arff"])
def test_missing_values_are_the_same_in_every_reader(tmp_path, parser, fmt, token):
    path = write_numbers(tmp_path, fmt, ["1", "2", token, "4"])
    values = read_table(path).columns[0].values
    np.testing.assert_array_equal(values, [1.0, 2.0, np.nan, 4.0])


@pytest.mark.parametrize("token", NOT_MISSING + ("1_000", "-0x1f", "0x"))
@pytest.mark.parametrize("fmt", ["csv", "keel", "arff"])
def test_a_stray_text_in_a_numeric_column_is_reported(tmp_path, parser, fmt, token):
    """It used to turn a CSV column nominal without a word (or, in a large file, NAN
    missing); now every reader names the line and column."""
    path = write_numbers(tmp_path, fmt, ["1", "2", token, "4"])
    line = {"csv": 4, "keel": 7, "arff": 7}[fmt]
    message = error_of(path)
    assert message.startswith(f":{line}: column 'x' holds '{token}', ")
    assert ("3 of its 4 values are numbers" if fmt == "csv" else "neither a number") in message


def write_numbers(tmp_path, fmt: str, cells: list[str]) -> str:
    """A file whose first column x holds `cells` (data from line 2 in CSV, line 5 otherwise),
    next to a class column."""
    rows = "".join(f"{cell},c{i % 2}\n" for i, cell in enumerate(cells))
    if fmt == "csv":
        return write(tmp_path, "x,y\n" + rows)
    header = ("@relation r\n@attribute x real\n@attribute y {c0, c1}\n@data\n" if fmt == "keel"
              else "@relation r\n@attribute x numeric\n@attribute y {c0,c1}\n@data\n")
    return write(tmp_path, header + rows, "data.dat" if fmt == "keel" else "data.arff")


def test_the_same_cells_read_alike_in_small_and_large_files(tmp_path):
    """A file over 1 MB (pyarrow) and the same rows in a small file (Python) give the
    same columns: NAN missing in both, and an integer in hexadecimal a number in both."""
    rows = [f"{i * 0.5},{'NAN' if i % 1000 == 7 else i},{'0x1f' if i == 3 else i}"
            for i in range(90_000)]
    big = write(tmp_path, "a,b,c\n" + "\n".join(rows) + "\n", "big.csv")
    small = write(tmp_path, "a,b,c\n" + "\n".join(rows[:2000]) + "\n", "small.csv")
    assert (tmp_path / "big.csv").stat().st_size > dtcli.io.csv.SMALL_FILE_BYTES
    for path, n in ((big, 90_000), (small, 2000)):
        table = read_table(path)
        assert [c.kind for c in table.columns] == [NUMERIC] * 3 and table.n_rows == n
        assert np.isnan(table.columns[1].values[7]) and table.columns[2].values[3] == 31.0
        assert int(np.isnan(table.columns[1].values).sum()) == n // 1000


@pytest.mark.parametrize("cells, kind", [
    (["1", "2", "3", "x"], None),  # mostly numbers: the text is a mistake
    (["1", "x", "y", "2"], NOMINAL),  # as many texts as numbers: nominal
    (["red", "blue", "3", "green"], NOMINAL),
    (["1", "2", "?", "NA"], NUMERIC),
])
def test_numeric_looking_means_more_than_half_of_the_present_cells(tmp_path, parser, cells,
                                                                   kind):
    path = write_numbers(tmp_path, "csv", cells)
    if kind is None:
        assert error_of(path).startswith(":5: column 'x' holds 'x', but 3 of its 4 values")
    else:
        assert read_table(path).columns[0].kind == kind


def test_a_stray_text_stops_only_what_uses_its_column(tmp_path, parser):
    """Dropped, or not among a model's features, the column cannot stop the rest."""
    path = write(tmp_path, "id,x,y\n1,5,p\n2,6,q\nNULL,7,p\n4,8,q\n")
    stray = ":4: column 'id' holds 'NULL', but 3 of its 4 values are numbers"
    for use in (lambda: load_dataset(path), lambda: load_dataset(path, target="id", force=True),
                lambda: load_features(path, [Feature("x", NUMERIC)], labels_of=["id"])):
        with pytest.raises(DataError, match=stray):
            use()
    assert load_dataset(path, drop=["id"]).X[:, 0].tolist() == [5.0, 6.0, 7.0, 8.0]
    # a model that took the column as nominal reads it as text
    X, _ = load_features(path, [Feature("id", NOMINAL, ("1", "NULL"))])
    np.testing.assert_array_equal(X[:, 0], [0.0, np.nan, 1.0, np.nan])
    X, labels = load_features(path, [Feature("x", NUMERIC)], labels_of=["y"])
    assert X[:, 0].tolist() == [5.0, 6.0, 7.0, 8.0] and labels["y"].tolist() == ["p", "q", "p", "q"]


def test_a_forced_nominal_column_keeps_its_texts(tmp_path, parser):
    path = write_numbers(tmp_path, "csv", ["1", "2", "3", "NULL"])
    column = read_table(path, string_columns=["x"]).columns[0]
    assert column.kind == NOMINAL and column.values.tolist() == ["1", "2", "3", "NULL"]


def test_0x1f_in_a_numeric_column_of_a_large_file_is_no_traceback(tmp_path):
    """Decimals next to a hexadecimal integer: pyarrow keeps the column as text."""
    rows = [f"{i + 0.25},{'0x1f' if i == 50_000 else i}" for i in range(100_000)]
    path = write(tmp_path, "a,b\n" + "\n".join(rows) + "\n")
    content = (tmp_path / "data.csv").read_bytes()
    assert len(content) > dtcli.io.csv.SMALL_FILE_BYTES
    assert read_table(path).columns[1].values[50_000] == 31.0
    (tmp_path / "data.csv").write_bytes(content.replace(b"0x1f", b"-0x1f"))  # pyarrow: no hex
    assert error_of(path).startswith(":50002: column 'b' holds '-0x1f', but 99999 of its")


def test_a_long_stray_text_is_shortened_in_the_message(tmp_path, parser):
    path = write_numbers(tmp_path, "csv", ["1", "2", "z" * 5000, "4"])
    assert error_of(path).startswith(f":4: column 'x' holds '{'z' * 40}...', but")


# --- 3. NUL bytes --------------------------------------------------------------------------------

@pytest.mark.parametrize("content, line", [
    (b"a,b\n1,x\n2,y\x00z\n3,w\n", 3),
    (b"a\x00,b\n1,x\n", 1),
])
def test_a_nul_byte_is_an_error_naming_its_line(tmp_path, parser, content, line):
    assert error_of(write(tmp_path, content)) == (
        f":{line}: NUL byte (0x00) in the text; is this a CSV file?")


# --- 5. malformed ARFF headers -------------------------------------------------------------------

@pytest.mark.parametrize("attribute", ["@attribute", "@attribute a {}", "@attribute a {x,y",
                                       "@ATTRIBUTE  "])
def test_a_malformed_arff_attribute_names_its_line(tmp_path, attribute):
    path = write(tmp_path, f"@relation r\n{attribute}\n@attribute b numeric\n@data\nx,1\n",
                 "data.arff")
    assert error_of(path) == (f":2: cannot read the @attribute line '{attribute.strip()}'; "
                              "expected @attribute NAME TYPE")


# --- 6. memory grows with the data, or the limit is said -----------------------------------------

def test_a_nominal_column_of_100000_categories_loads(tmp_path):
    """Its node records once took 2 x rows x categories bytes (37 GiB was asked for);
    a tree now keeps only the categories its nominal splits saw
    (tests/test_sparse_categories.py trains on such a column)."""
    n = 120_000
    rows = "".join(f"{i % 7},id{i},c{i % 2}\n" for i in range(n))
    path = write(tmp_path, "x,id,y\n" + rows)
    data = load_dataset(path)
    assert data.X.shape == (n, 2) and len(data.features[1].categories) == n


def test_classes_times_rows_over_the_limit_is_refused_even_with_force(tmp_path):
    """A 10,000-class target reached 9.8 GB; 16,000 classes in 30,000 rows would need
    7.7 GB of class counts, over the 4 GiB."""
    path = many_classes(tmp_path, 16_000, 30_000)
    most = (4 << 30) // (8 * 2 * 30_000)
    with pytest.raises(DataError) as caught:
        load_dataset(path, force=True)
    assert str(caught.value).startswith(
        f"{path}: target column 'y' has 16000 classes; with 30000 rows at most {most} are "
        "supported")


def many_classes(tmp_path, n_classes: int, n_rows: int) -> str:
    return write(tmp_path, "x,y\n" + "".join(f"{i},{i % n_classes}\n" for i in range(n_rows)))


# --- 7. a target that looks like regression data -------------------------------------------------

def test_continuous_target_is_refused_unless_forced(tmp_path):
    path = write(tmp_path, "x,y\n" + "".join(f"{i},{i % 3 + 0.5}\n" for i in range(30)))
    with pytest.raises(DataError) as caught:
        load_dataset(path)
    assert str(caught.value).startswith(
        f"{path}: target column 'y' holds numbers that are not whole, such as 0.5: continuous")
    assert "--force" in str(caught.value)
    assert load_dataset(path, force=True).classes == ("0.5", "1.5", "2.5")


@pytest.mark.parametrize("n_classes, n_rows, refused", [
    (51, 100, True),  # more than half the rows
    (50, 100, False),  # half: still classes
    (20, 20, False),  # 20 rows or fewer are too few to judge (scikit-learn's rule)
    (21, 21, True),
])
def test_more_distinct_values_than_half_the_rows_is_refused(tmp_path, n_classes, n_rows,
                                                            refused):
    path = many_classes(tmp_path, n_classes, n_rows)
    if not refused:
        assert len(load_dataset(path).classes) == n_classes
        return
    with pytest.raises(DataError) as caught:
        load_dataset(path)
    assert str(caught.value).startswith(
        f"{path}: target column 'y' has {n_classes} distinct values in {n_rows} rows, more "
        "than half")
    assert len(load_dataset(path, force=True).classes) == n_classes


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def one_line(result, code: int) -> str:
    assert result.exit_code == code and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    return result.stderr


@pytest.mark.parametrize("command", [["train"], ["evaluate"], ["compare", "--criteria", "gini"]])
def test_force_reaches_the_check_from_every_training_command(tmp_path, command):
    """Without --force the target is refused as regression data; with it, the data then
    meets the memory limit: both before any training, exit code 1."""
    path = many_classes(tmp_path, 16_000, 30_000)
    assert "16000 distinct values in 30000 rows" in one_line(invoke(*command, path), 1)
    assert "16000 classes; with 30000 rows at most" in one_line(
        invoke(*command, path, "--force"), 1)


def test_force_is_refused_where_nothing_trains(tmp_path):
    table = write(tmp_path, "dataset,a,b\nd1,1,2\nd2,2,1\n")
    assert one_line(invoke("compare", "--table", table, "--force"), 2) == (
        "Error: --force does not apply to --table, which compares the scores of the table\n")


# --- 8. unknown columns are option mistakes ------------------------------------------------------

@pytest.mark.parametrize("command", [["train"], ["evaluate"], ["compare", "--criteria", "gini"]])
@pytest.mark.parametrize("option, expected", [
    (["--target", "klass"], "--target 'klass': no such column (3 columns: a, b, y)"),
    (["--drop", "c"], "--drop 'c': no such column (3 columns: a, b, y)"),
    (["--target", "a", "--drop", "a"], "the target column is dropped (--drop)"),
])
def test_unknown_target_or_drop_is_exit_2_in_one_line(tmp_path, command, option, expected):
    path = write(tmp_path, "a,b,y\n1,2,p\n2,1,q\n")
    message = one_line(invoke(*command, path, *option), 2)
    assert message.startswith(f"Error: {path}: {expected}")


# --- on the command line: one line, exit code 1, before any training ----------------------------

@pytest.mark.parametrize("content, expected", [
    ("x,y\n1,p\n2,q\nNULL,p\n4,q\n", ":4: column 'x' holds 'NULL', but 3 of its 4 values are "
                                     "numbers; correct the cell or write a missing value as "
                                     "empty, ?, NA, N/A or NaN"),
    ("x,y\n1,p\n2\x00,q\n", ":3: NUL byte (0x00) in the text; is this a CSV file?"),
])
@pytest.mark.parametrize("command", [["train"], ["evaluate"], ["compare", "--criteria", "gini"]])
def test_bad_cells_on_the_command_line(tmp_path, command, content, expected):
    path = write(tmp_path, content)
    assert one_line(invoke(*command, path), 1) == f"Error: {path}{expected}\n"
