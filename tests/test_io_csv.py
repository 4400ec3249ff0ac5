"""dtcli.io CSV reading: the shipped examples, awkward files, and every error."""
import csv
import math
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dtcli.io.csv
import dtcli.io.source
from dtcli.errors import DataError, ParameterError
from dtcli.io import read_table
from dtcli.io.csv import DELIMITERS
from dtcli.io.dataset import NOMINAL, NUMERIC

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
DATA = ROOT / "tests" / "data" / "io"
CSV_EXAMPLES = sorted(EXAMPLES.glob("*.csv")) + sorted((EXAMPLES / "balanced").glob("*.csv"))


@pytest.fixture(autouse=True, params=["python parser", "pyarrow parser"], scope="module")
def csv_parser(request):
    """Every test here runs through both CSV parsers: small files take Python's,
    large ones pyarrow's, and they must read every file alike. The pyarrow runs
    also map every file into memory, as large files are, rather than read it."""
    defaults = dtcli.io.csv.SMALL_FILE_BYTES, dtcli.io.source.MAP_BYTES
    if request.param == "pyarrow parser":
        dtcli.io.csv.SMALL_FILE_BYTES, dtcli.io.source.MAP_BYTES = -1, 0
    yield request.param
    dtcli.io.csv.SMALL_FILE_BYTES, dtcli.io.source.MAP_BYTES = defaults


def table_of(tmp_path, content: bytes, name="data.csv", **options):
    path = tmp_path / name
    path.write_bytes(content)
    return read_table(str(path), **options)


def error_of(tmp_path, content: bytes, name="data.csv", **options) -> str:
    with pytest.raises(DataError) as caught:
        table_of(tmp_path, content, name, **options)
    message = str(caught.value)
    assert name in message and "\n" not in message
    return message


# --- the shipped examples, checked cell by cell against Python's csv module ---

@pytest.mark.parametrize("path", CSV_EXAMPLES, ids=lambda p: p.name)
def test_example_cells_equal_a_plain_csv_parse(path):
    rows = list(csv.reader(path.open(newline="")))
    header, rows = rows[0], rows[1:]
    table = read_table(str(path))
    assert table.names == header and table.n_rows == len(rows)
    for j, column in enumerate(table.columns):
        cells = [row[j] for row in rows]
        if all(_is_number_or_missing(cell) for cell in cells):
            assert column.kind == NUMERIC and column.values.dtype == np.float64
            expected = [math.nan if cell == "?" else float(cell) for cell in cells]
            np.testing.assert_array_equal(column.values, expected)
        else:
            assert column.kind == NOMINAL and column.categories == ()
            assert column.values.tolist() == [None if cell == "?" else cell for cell in cells]


def _is_number_or_missing(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return cell == "?"
    return True


def test_iris():
    table = read_table(str(EXAMPLES / "iris.csv"))
    assert table.names == ["a1", "a2", "a3", "a4", "class"] and table.n_rows == 150
    assert [c.values[0] for c in table.columns] == [5.1, 3.5, 1.4, 0.2, "Iris-setosa"]


def test_hepatitis_question_marks_are_missing():
    table = read_table(str(EXAMPLES / "hepatitis.csv"))
    protime = table.columns[table.names.index("PROTIME")]
    assert protime.kind == NUMERIC and np.isnan(protime.values).sum() == 67  # awk count
    assert table.names[0] == "Class" and "LIVER BIG" in table.names


def test_crx_nominal_columns():
    table = read_table(str(EXAMPLES / "crx.csv"))
    kinds = {c.name: c.kind for c in table.columns}
    assert [n for n, k in kinds.items() if k == NOMINAL] == [
        "a1", "a4", "a5", "a6", "a7", "a9", "a10", "a12", "a13", "class"]
    assert table.columns[0].values[:2].tolist() == ["b", "a"]


# --- dialects ---

def test_semicolons_quotes_and_missing_tokens():
    table = read_table(str(DATA / "mixed.csv"))
    assert table.names == ["id", "name", "score", "grade", "city"]
    id_, name, score, grade, city = table.columns
    assert name.values.tolist() == ["Smith, John", 'O"Brien', "Lee", "Ng", "Doe"]
    assert score.kind == NUMERIC
    np.testing.assert_array_equal(score.values, [3.5, np.nan, 4.25, np.nan, np.nan])
    assert grade.values.tolist() == ["A", "B", None, "A", "B"]  # " B " stripped
    assert city.values.tolist() == ["Paris", None, "Berlin", None, "Paris"]


@pytest.mark.parametrize("delimiter", DELIMITERS)
def test_delimiter_is_sniffed(tmp_path, delimiter):
    rows = [["a", "b", "c"], ["1", "x y", "2.5"], ["3", "z", "-4"]]
    text = "\n".join(delimiter.join(row) for row in rows) + "\n"
    table = table_of(tmp_path, text.encode())
    assert table.names == ["a", "b", "c"]
    assert table.columns[1].values.tolist() == ["x y", "z"]


def test_sniffing_prefers_the_delimiter_that_splits_every_line_alike(tmp_path):
    # Decimal commas: ',' gives 1 field in the header and 3 below; ';' gives 2 everywhere.
    table = table_of(tmp_path, b"length;width\n1,5;2,25\n3,0;4,5\n")
    assert table.names == ["length", "width"]
    assert table.columns[0].values.tolist() == ["1,5", "3,0"]  # text, not numbers


def test_quoted_delimiters_do_not_fool_the_sniffer(tmp_path):
    table = table_of(tmp_path, b'a,b\n"1;2;3",4\n"5;6",7\n')
    assert table.columns[0].values.tolist() == ["1;2;3", "5;6"]


def test_given_delimiter_wins(tmp_path):
    table = table_of(tmp_path, b"a;b,c\n1;2,3\n", delimiter=",")
    assert table.names == ["a;b", "c"]


def test_bad_delimiter_option(tmp_path):
    with pytest.raises(ParameterError, match="one character"):
        table_of(tmp_path, b"a,b\n1,2\n", delimiter=",,")


def test_bom_crlf_and_lone_cr(tmp_path):
    for body in (b"\xef\xbb\xbfa,b\r\n1,x\r\n2,y\r\n", b"a,b\r1,x\r2,y\r"):
        table = table_of(tmp_path, body)
        assert table.names == ["a", "b"]
        assert table.columns[0].values.tolist() == [1.0, 2.0]
        assert table.columns[1].values.tolist() == ["x", "y"]


def test_blank_lines_are_skipped(tmp_path):
    table = table_of(tmp_path, b"\n\na,b\n\n1,2\n\n\n3,4\n\n")
    assert table.names == ["a", "b"] and table.columns[0].values.tolist() == [1.0, 3.0]


def test_no_header_names_columns_like_r(tmp_path):
    table = table_of(tmp_path, b"1,x\n2,y\n", header=False)
    assert table.names == ["V1", "V2"] and table.n_rows == 2


def test_empty_header_cell_is_named_by_position(tmp_path):
    table = table_of(tmp_path, b",a,\n0,1,2\n")
    assert table.names == ["V1", "a", "V3"]


# The README's missing values, written as users write them (NaN in any case and sign).
MISSING_TOKENS = ("", "?", "NA", "N/A", "NaN", "nan", "NAN", "-nan", "+NaN")


@pytest.mark.parametrize("token", MISSING_TOKENS)
def test_missing_tokens(tmp_path, token):
    content = f"n,s\n1,x\n{token},{token}\n 3 , {token} \n".encode()
    numbers, words = table_of(tmp_path, content).columns
    assert numbers.kind == NUMERIC
    np.testing.assert_array_equal(numbers.values, [1.0, np.nan, 3.0])
    assert words.kind == NOMINAL and words.values.tolist() == ["x", None, None]


def test_column_of_nothing_but_missing_values_is_numeric(tmp_path):
    column = table_of(tmp_path, b"a,b\n?,1\nNA,2\n").columns[0]
    assert column.kind == NUMERIC and np.isnan(column.values).all()


@pytest.mark.parametrize("early, late, kind, value", [
    ("1", "2.5", NUMERIC, 2.5),  # whole numbers, then a fraction
    ("", "7", NUMERIC, 7.0),  # nothing, then a number
    ("", "2020-01-31", NOMINAL, "2020-01-31"),  # nothing, then a date
    ("1", "0x10", NUMERIC, 16.0),  # decimal, then hexadecimal
])
def test_rows_far_down_decide_a_column_type_too(tmp_path, early, late, kind, value):
    """A column's type depends on every row, not on the first block pyarrow parses."""
    rows = [f"{early},{i}" for i in range(20_000)] + [f"{late},0"]  # about 170 KB
    table = table_of(tmp_path, ("a,b\n" + "\n".join(rows) + "\n").encode())
    column = table.columns[0]
    assert table.n_rows == 20_001 and column.kind == kind and column.values[-1] == value


def test_booleans_and_dates_stay_text(tmp_path):
    table = table_of(tmp_path, b"flag,day,t\ntrue,2020-01-31,12:30:00\nFALSE,2021-02-01,08:00:00\n")
    assert [c.kind for c in table.columns] == [NOMINAL] * 3
    assert table.columns[0].values.tolist() == ["true", "FALSE"]
    assert table.columns[1].values.tolist() == ["2020-01-31", "2021-02-01"]


def test_integers_and_exponents_are_float64(tmp_path):
    column = table_of(tmp_path, b"a\n1\n-2\n1e3\n.5\n").columns[0]
    assert column.values.dtype == np.float64
    assert column.values.tolist() == [1.0, -2.0, 1000.0, 0.5]


def test_integers_beyond_2_to_the_53_round_to_the_nearest_float(tmp_path):
    table = table_of(tmp_path, b"a,b\n9007199254740993,1\n2,18446744073709551615\n")
    assert [column.values.tolist() for column in table.columns] == [
        [9007199254740992.0, 2.0], [1.0, 18446744073709551615.0]]


def test_string_columns_keep_the_text(tmp_path):
    table = table_of(tmp_path, b"code,n\n01,1\n2,?\n", string_columns=["code", "absent"])
    code, n = table.columns
    assert code.kind == NOMINAL and code.values.tolist() == ["01", "2"]
    assert n.kind == NUMERIC


def test_numeric_columns_accept_numbers_with_spaced_missing_values(tmp_path):
    column = table_of(tmp_path, b"a,b\n1, ?\n2, 3\n", numeric_columns=["b"]).columns[1]
    assert column.kind == NUMERIC
    np.testing.assert_array_equal(column.values, [np.nan, 3.0])


def test_numeric_columns_name_the_line_of_text(tmp_path):
    content = b"a,b\n1,2\n\n3,4\n5,abc\n6,7\n"
    message = error_of(tmp_path, content, numeric_columns=["b"])
    assert message.endswith("data.csv:5: column 'b' holds 'abc', which is neither a number "
                            "nor a missing value (empty, ?, NA, N/A or NaN)")


def test_a_file_that_cannot_be_mapped_is_read(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("no mapping on this file system")

    monkeypatch.setattr(dtcli.io.source.mmap, "mmap", refuse)
    monkeypatch.setattr(dtcli.io.source, "MAP_BYTES", 0)
    assert table_of(tmp_path, b"a,b\n1,x\n").columns[1].values.tolist() == ["x"]


def test_gzip_by_extension(tmp_path):
    import gzip

    table = table_of(tmp_path, gzip.compress(b"a,b\n1,x\n"), name="data.csv.gz")
    assert table.names == ["a", "b"] and table.source.endswith("data.csv.gz")


def test_tsv_and_txt_are_csv(tmp_path):
    assert table_of(tmp_path, b"a\tb\n1\t2\n", name="d.tsv").names == ["a", "b"]
    assert table_of(tmp_path, b"a|b\n1|2\n", name="d.txt").names == ["a", "b"]


@st.composite
def matrices(draw):
    n_rows, n_cols = draw(st.integers(1, 12)), draw(st.integers(1, 6))
    finite = st.floats(allow_nan=False, allow_infinity=False)
    # A lone missing cell would be an empty line, which CSV readers skip.
    cells = finite if n_cols == 1 else st.one_of(finite, st.just(math.nan))
    # A row with no value at all is blank space (tab-separated), which readers skip.
    row = st.lists(cells, min_size=n_cols, max_size=n_cols).filter(
        lambda r: not all(math.isnan(v) for v in r))
    return np.array(draw(st.lists(row, min_size=n_rows, max_size=n_rows)), dtype=np.float64)


@settings(max_examples=60, deadline=None)
@given(matrices(), st.sampled_from(DELIMITERS), st.sampled_from(["\n", "\r\n"]), st.booleans(),
       st.booleans())
def test_float_matrix_round_trip(matrix, delimiter, newline, bom, header):
    names = [f"col {j}" for j in range(matrix.shape[1])]
    lines = [delimiter.join(names)] if header else []
    lines += [delimiter.join("" if math.isnan(v) else repr(v) for v in row)
              for row in matrix.tolist()]
    data = (b"\xef\xbb\xbf" if bom else b"") + newline.join(lines).encode() + newline.encode()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "matrix.csv"
        path.write_bytes(data)
        table = read_table(str(path), header=header)
    assert table.names == (names if header else [f"V{j + 1}" for j in range(len(names))])
    for j, column in enumerate(table.columns):
        assert column.kind == NUMERIC
        np.testing.assert_array_equal(column.values, matrix[:, j])


# --- errors: one line, naming the file and the line ---

def test_missing_file():
    with pytest.raises(DataError, match="nowhere.csv: no such file"):
        read_table("nowhere.csv")


@pytest.mark.parametrize("content", [b"", b"  \n\r\n"])
def test_empty_file(tmp_path, content):
    assert "empty" in error_of(tmp_path, content)


def test_header_only(tmp_path):
    assert "no data rows" in error_of(tmp_path, b"a,b,c\n")


@pytest.mark.parametrize("content, line, found", [
    (b"a,b,c,d,e\n1,2,3,4,5\n\n1,2,3,4\n", 4, 4),
    (b"a,b\n1,2\n3,4,5\n", 3, 3),
    (b'a,b\n"x,y",2\n"p",q,r\n', 3, 3),
])
def test_ragged_row(tmp_path, content, line, found):
    expected = content.split(b"\n")[0].count(b",") + 1
    assert error_of(tmp_path, content) == (
        f"{tmp_path / 'data.csv'}:{line}: expected {expected} fields, found {found}")


@pytest.mark.parametrize("cell", ["inf", "-inf", "Infinity", "1e999"])
def test_infinite_value(tmp_path, cell):
    message = error_of(tmp_path, f"a,b\n1,2\n\n3,{cell}\n".encode())
    assert message.startswith(f"{tmp_path / 'data.csv'}:4: infinite value in column 'b'")


def test_infinite_value_before_the_last_column(tmp_path):
    message = error_of(tmp_path, b"a,b,c\n1,2,x\n3,-inf,y\n")
    assert message.startswith(f"{tmp_path / 'data.csv'}:3: infinite value in column 'b'")


def test_infinite_value_among_text_is_text(tmp_path):
    assert table_of(tmp_path, b"a\ninf\nx\n").columns[0].kind == NOMINAL


def test_duplicate_column_names(tmp_path):
    assert "data.csv:2: duplicate column name 'a'" in error_of(tmp_path, b"\na,b,a\n1,2,3\n")


@pytest.mark.parametrize("content, line", [(b"a,b\n1,2\n3,\xff\n", 3), (b"a,\xe9\n1,2\n", 1)])
def test_not_utf8(tmp_path, content, line):
    message = error_of(tmp_path, content)
    assert f"data.csv:{line}: not UTF-8" in message and "0x" in message


@pytest.mark.parametrize("token, kind", [
    ("1e5", NUMERIC), ("1E-3", NUMERIC), (".5", NUMERIC), ("5.", NUMERIC), ("+3", NUMERIC),
    ("-0.25", NUMERIC), ("0x10", NUMERIC), ("1_000", NOMINAL), ("1.2.3", NOMINAL),
    ("e5", NOMINAL), ("12abc", NOMINAL),
])
def test_both_parsers_agree_on_what_a_number_is(tmp_path, token, kind):
    table = table_of(tmp_path, f"a,b\n{token},x\n7,y\n".encode())
    assert table.columns[0].kind == kind
    if kind == NUMERIC:
        assert table.columns[0].values[0] == (16.0 if token == "0x10" else float(token))
