"""dtcli.io input plumbing: stdin, gzip, formats by extension, file errors, lazy imports."""
import gzip
import io
import subprocess
import sys
from pathlib import Path

import pytest

from dtcli.errors import DataError, ParameterError
from dtcli.io import read_table

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def stdin_of(monkeypatch, content: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(content)))


@pytest.mark.parametrize("compress", [False, True])
def test_stdin_is_csv(monkeypatch, compress):
    content = b"a,b\n1,x\n2,y\n"
    stdin_of(monkeypatch, gzip.compress(content) if compress else content)
    table = read_table("-")
    assert table.source == "<stdin>" and table.names == ["a", "b"] and table.n_rows == 2


def test_stdin_with_a_format(monkeypatch):
    stdin_of(monkeypatch, (EXAMPLES / "ecoli2.dat").read_bytes())
    assert read_table("-", format="keel").n_rows == 336


def test_stdin_errors_name_stdin(monkeypatch):
    stdin_of(monkeypatch, b"a,b\n1,2\n3\n")
    with pytest.raises(DataError, match=r"^<stdin>:3: expected 2 fields, found 1$"):
        read_table("-")


@pytest.mark.parametrize("example", ["iris.csv", "ecoli2.dat", "vehicle.arff"])
def test_gzip_under_any_extension(tmp_path, example):
    path = tmp_path / (example + ".gz")
    path.write_bytes(gzip.compress((EXAMPLES / example).read_bytes()))
    plain, packed = read_table(str(EXAMPLES / example)), read_table(str(path))
    assert packed.names == plain.names and packed.n_rows == plain.n_rows


def test_format_option_beats_the_extension(tmp_path):
    path = tmp_path / "ecoli.csv"
    path.write_bytes((EXAMPLES / "ecoli2.dat").read_bytes())
    assert read_table(str(path), format="keel").n_rows == 336


def test_unknown_extension(tmp_path):
    path = tmp_path / "data.xlsx"
    path.write_bytes(b"a,b\n1,2\n")
    with pytest.raises(DataError, match=r"data.xlsx: cannot tell the format .*--input-format \("):
        read_table(str(path))
    assert read_table(str(path), format="csv").n_rows == 1


def test_unknown_format_option():
    with pytest.raises(ParameterError, match="unknown format 'xls'"):
        read_table(str(EXAMPLES / "iris.csv"), format="xls")


def test_directory_and_damaged_gzip(tmp_path):
    with pytest.raises(DataError, match="is a directory"):
        read_table(str(tmp_path))
    path = tmp_path / "data.csv.gz"
    path.write_bytes(gzip.compress(b"a,b\n1,2\n")[:-8])
    with pytest.raises(DataError, match="data.csv.gz: damaged gzip data"):
        read_table(str(path))


@pytest.mark.parametrize("name", ["data.arff", "data.dat"])
def test_not_utf8_in_arff_and_keel(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(b"@relation r\n@attribute a {x, y}\n@data\nx\n\xff\n")
    with pytest.raises(DataError, match=rf"{name}:5: not UTF-8 text \(byte 0xff\)"):
        read_table(str(path))


def test_importing_dtcli_io_does_not_import_the_parsers():
    code = "import sys, dtcli.io; print(sorted({'pyarrow', 'arff'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout
    assert out.strip() == "[]"
