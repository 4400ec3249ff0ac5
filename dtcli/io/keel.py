"""KEEL .dat reader (an ARFF dialect that plain ARFF readers reject).

Header lines, keywords in any case: `@relation NAME`; `@attribute NAME TYPE`
where TYPE is `real`, `integer` or `numeric`, optionally followed by a range
`[min, max]` (with or without a space; informative only, values outside it are
accepted), or a nominal list `{a, b, c}`; `@inputs a, b` and `@outputs c`
(also singular). `@outputs` names the default target; when `@inputs` is given,
columns in neither list are left out. Then `@data` and one comma-separated row
per line. Missing values and numbers as for every reader (`dtcli.io.columns`),
and KEEL's own `<null>`. Lines starting with `%` are comments; surrounding
spaces are ignored.

Errors name the line: a row with the wrong number of fields, a non-number in a
numeric column, a fraction in an `integer` column, a nominal value missing
from its declared list, an infinite value.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from dtcli.errors import DataError
from dtcli.io.columns import (
    check_unique_names,
    is_missing,
    no_data_rows,
    nominal_from_cells,
    numbers_from_cells,
    ragged_row,
)
from dtcli.io.dataset import NOMINAL, Column, Table
_ATTRIBUTE = re.compile(r"@attribute\s+('[^']*'|\"[^\"]*\"|[^\s{\[]+)\s*(.*)", re.IGNORECASE)
_NUMERIC_TYPE = re.compile(r"(real|integer|numeric)\s*(\[[^\]]*\])?", re.IGNORECASE)


@dataclass
class _Attribute:
    name: str
    line: int
    kind: str  # "real", "integer" or NOMINAL
    categories: tuple[str, ...] = ()


# A .dat file of bare data rows (KEEL's header cut off, or another tool's .dat)
_NO_HEADER_HINT = ("; if the file is data rows without a KEEL header, read it as CSV: "
                   "--input-format csv --no-header (input_format='csv', header=False)")


def read_keel(text: str, source: str) -> Table:
    """Parse the text of a KEEL .dat file into a Table, in one pass over its lines."""
    attributes: list[_Attribute] = []
    roles: dict[str, tuple[int, list[str]]] = {}  # "@inputs"/"@outputs" -> (line, names)
    rows: list[list[str]] = []
    row_lines: list[int] = []
    in_data = False
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("%"):
            continue
        if in_data:
            fields = line.split(",")
            if len(fields) != len(attributes):
                raise ragged_row(source, number, len(attributes), len(fields))
            rows.append(fields)
            row_lines.append(number)
            continue
        keyword, rest = (line.split(None, 1) + [""])[:2]
        keyword = keyword.lower()
        if keyword == "@attribute":
            attributes.append(_parse_attribute(line, source, number))
        elif keyword in ("@inputs", "@input", "@outputs", "@output"):
            role = "@inputs" if keyword.startswith("@input") else "@outputs"
            roles[role] = (number, [name.strip() for name in rest.split(",") if name.strip()])
        elif keyword == "@data":
            if not attributes:
                raise DataError(f"{source}:{number}: @data before any @attribute line")
            check_unique_names([a.name for a in attributes], [a.line for a in attributes], source)
            in_data = True
        elif keyword != "@relation":
            raise DataError(
                f"{source}:{number}: expected @relation, @attribute, @inputs, @outputs or @data, "
                f"found '{line[:40]}'" + (_NO_HEADER_HINT if not attributes
                                          and not line.startswith("@") else "")
            )
    if not in_data:
        raise DataError(f"{source}: no @data line; is this a KEEL .dat file?")
    if not rows:
        raise no_data_rows(source)

    columns = [_column(attribute, cells, row_lines, source)
               for attribute, cells in zip(attributes, zip(*rows))]
    return _apply_roles(Table(source, columns), roles)


def _parse_attribute(line: str, source: str, number: int) -> _Attribute:
    match = _ATTRIBUTE.fullmatch(line)
    if match is None:
        raise DataError(f"{source}:{number}: cannot read the @attribute line '{line[:60]}'")
    name, kind = match.group(1).strip("'\""), match.group(2).strip()
    if kind.startswith("{") and kind.endswith("}"):
        categories = tuple(value.strip() for value in kind[1:-1].split(","))
        if not all(categories):
            raise DataError(f"{source}:{number}: empty value in the value list of '{name}'")
        return _Attribute(name, number, NOMINAL, categories)
    numeric = _NUMERIC_TYPE.fullmatch(kind)
    if numeric is None:
        raise DataError(
            f"{source}:{number}: attribute '{name}' has type '{kind[:40]}'; "
            "expected real, integer or a value list {a, b}"
        )
    return _Attribute(name, number, "integer" if numeric.group(1).lower() == "integer" else "real")


def _column(attribute: _Attribute, cells: Sequence[str], row_lines: list[int],
            source: str) -> Column:
    if attribute.kind == NOMINAL:
        return nominal_from_cells(cells, attribute.name, attribute.categories, source,
                                  row_lines.__getitem__, missing=_is_missing)
    return numbers_from_cells(cells, attribute.name, source, row_lines.__getitem__,
                              integer=attribute.kind == "integer", missing=_is_missing)


def _is_missing(cell: str) -> bool:
    return cell == "<null>" or is_missing(cell)


def _apply_roles(table: Table, roles: dict[str, tuple[int, list[str]]]) -> Table:
    """Check @inputs/@outputs names; keep only their columns; set the default target."""
    for role, (number, names) in roles.items():
        for name in names:
            if name not in table.names:
                raise DataError(f"{table.source}:{number}: {role} names '{name}', "
                                "which is not an attribute")
    inputs = roles.get("@inputs", (0, None))[1]
    outputs = roles.get("@outputs", (0, []))[1]
    if inputs is not None:
        table.columns = [c for c in table.columns if c.name in inputs or c.name in outputs]
    if len(outputs) == 1:
        table.default_target = outputs[0]
    elif outputs:
        table.warnings.append(
            f"{table.source}: @outputs names {len(outputs)} columns; "
            "the target is the last column unless --target is given"
        )
    return table
