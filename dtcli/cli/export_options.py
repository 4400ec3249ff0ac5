"""`dtree export -f onnx|sql|c|python|pmml` (its options and what it runs) and `dtree verify`:
a thin layer over dtcli.export.production; docs/export.md."""
from __future__ import annotations

import sys

import click

from dtcli.cli.options import (CONTEXT, SectionedCommand, data_options, output_option,
                               quiet_option)

PRODUCTION_FORMATS = ("onnx", "sql", "c", "python", "pmml")


def production_options(func):
    """The options of export's production formats."""
    options = [
        click.option("--check", "check_data", metavar="DATA",
                     help="onnx, sql, c, python, pmml: score DATA with the written file in "
                          "its runtime and with dtree; exit 1 if any class differs or a "
                          "probability by more than 1e-9 (1e-6 for --onnx-opset 3)."),
        click.option("--sql-table", default="data", show_default=True, metavar="NAME",
                     help="sql: the table the SELECT reads."),
        click.option("--keep", "sql_keep", metavar="COL", multiple=True,
                     help="sql: copy this column of the table to the result, before the "
                          "prediction (as predict --keep); repeatable."),
        click.option("--name", "c_name", default="dtree", show_default=True, metavar="NAME",
                     help="c: the functions' prefix (NAME_predict_proba, NAME_predict)."),
        click.option("--onnx-opset", type=click.Choice(["5", "3"]), default="5",
                     show_default=True,
                     help="onnx: 5, TreeEnsemble with double thresholds; 3, "
                          "TreeEnsembleClassifier with float32 thresholds, for older runtimes."),
        click.option("--describe", is_flag=True,
                     help="onnx: show the model's input columns, category codes and outputs "
                          "instead of writing it."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def export_production(model, output_format, output, check_data, sql_table, sql_keep, c_name,
                      onnx_opset, describe, quiet, tree_index=None) -> None:
    from dtcli.atomic import refuse_output_over_input
    from dtcli.export.production import ExportOptions, describe as describe_onnx, \
        export_and_check

    if tree_index is not None:
        raise click.UsageError(f"--tree draws one tree; -f {output_format} exports the whole "
                               "model")
    if check_data is not None:
        refuse_output_over_input(output, "--output", {"--check data": check_data})
    options = ExportOptions(sql_table=sql_table, keep=tuple(sql_keep), name=c_name,
                            onnx_opset=int(onnx_opset))
    if describe:
        if output_format != "onnx":
            raise click.UsageError("--describe applies to -f onnx only")
        click.echo(describe_onnx(model, options), nl=False)
        return
    _report(export_and_check(model, output_format, output, options, check_data), err=True,
            quiet=quiet)


def refuse_production_options(output_format, check_data, sql_table, sql_keep, c_name,
                              onnx_opset, describe) -> None:
    """Export's production options given with another -f: a usage error."""
    given = [name for name, value, default in (
        ("--check", check_data, None), ("--sql-table", sql_table, "data"), ("--keep", sql_keep, ()),
        ("--name", c_name, "dtree"), ("--onnx-opset", onnx_opset, "5"),
        ("--describe", describe, False)) if value != default]
    if given:
        raise click.UsageError(f"{given[0]} applies to -f {', '.join(PRODUCTION_FORMATS)} only, "
                               f"not -f {output_format}")


def _report(certificates, err: bool, quiet: bool = False, output: str = "-") -> None:
    from dtcli.atomic import open_output

    lines = [c.line() + "\n" for c in certificates if not quiet or not c.passed]
    if err:
        click.echo("".join(lines), err=True, nl=False)
    else:
        with open_output(output) as handle:
            handle.write("".join(lines))
    if not all(c.passed for c in certificates):
        sys.stdout.flush()
        sys.exit(1)  # the FAIL line says why


@click.command(cls=SectionedCommand, context_settings=CONTEXT)
@click.argument("model_path", metavar="MODEL")
@click.argument("artifact")
@click.argument("data")
@data_options
@output_option("Write the certificate lines here (- for stdout).")
@quiet_option("No PASS lines (a FAIL line is still written).")
def verify(model_path, artifact, data, data_format, no_header, delimiter, output, quiet):
    """Check an exported ARTIFACT (onnx, sql, c, python, pmml) against its MODEL on DATA.

    Scores every row of DATA with the artifact in its own runtime (ONNX Runtime;
    SQLite, and DuckDB when installed; the C header compiled with cc; the Python
    module; dtree's PMML reader) and with dtree, and writes one line per runtime:
    the rows whose class differs and the largest probability difference. Exit
    code 1 if any class differs or a probability differs by more than 1e-9 (1e-6
    for an ONNX opset 3 model).

    \b
    Example:
      dtree export crx.json -f onnx -o crx.onnx
      dtree verify crx.json crx.onnx examples/crx.csv
    """
    from dtcli.atomic import refuse_output_over_input
    from dtcli.export.production import verify as verify_artifact
    from dtcli.model import load_model

    refuse_output_over_input(output, "--output", {"model": model_path, "artifact": artifact,
                                                  "data": data})
    model, _ = load_model(model_path)
    _report(verify_artifact(model, artifact, data, format=data_format, header=not no_header,
                            delimiter=delimiter), err=False, quiet=quiet, output=output)
