"""Commands on single trees: train, predict, export, criteria."""
from __future__ import annotations

import time

import click

from dtcli.cli.options import (CONTEXT, class_weight_option, data_options, force_option,
                               make_tree, output_option, stderr_console, target_options,
                               tree_options)


@click.command(context_settings=CONTEXT)
@click.argument("data")
@target_options
@data_options
@tree_options
@class_weight_option
@output_option("Write the model JSON here (- for stdout).")
@force_option
@click.option("--quiet", "-q", is_flag=True, help="No summary on stderr.")
def train(data, target, drop, data_format, no_header, delimiter, output, force, quiet, **tree):
    """Fit a tree on DATA and write the model as JSON.

    \b
    Example:
      dtree train examples/iris.csv -o iris.json
      dtree train examples/ecoli2.dat --criterion entropy --min-samples-leaf 2 -o ecoli2.json
    """
    from dtcli.atomic import refuse_output_over_input
    from dtcli.io import load_dataset
    from dtcli.model import save_model

    model = make_tree(**tree)
    refuse_output_over_input(output, "--output", {"training data": data})
    dataset = load_dataset(data, format=data_format, target=target, drop=drop,
                           header=not no_header, delimiter=delimiter, force=force)
    console = stderr_console()
    for warning in dataset.warnings:
        console.print(f"warning: {warning}", style="yellow")
    start = time.perf_counter()
    model.fit_dataset(dataset)
    seconds = time.perf_counter() - start
    save_model(model, output, target=dataset.target, source=data)
    if quiet:
        return
    tree_ = model.tree_
    accuracy = tree_.training_accuracy()
    console.print(
        f"trained {model.criterion} tree on {dataset.source}: {dataset.X.shape[0]} rows, "
        f"{dataset.X.shape[1]} features, {len(dataset.classes)} classes; "
        f"{tree_.node_count} nodes, {tree_.n_leaves} leaves, depth {tree_.max_depth}; "
        f"training accuracy {accuracy:.4f}; {seconds:.2f} s"
        + ("" if output == "-" else f"; model written to {output}"))


@click.command(context_settings=CONTEXT)
@click.argument("model_path", metavar="MODEL")
@click.argument("data")
@data_options
@click.option("--proba", is_flag=True, help="Add one probability column per class.")
@output_option("Write the predictions CSV here (- for stdout).")
def predict(model_path, data, data_format, no_header, delimiter, proba, output):
    """Predict the class of every row of DATA with a saved MODEL.

    Columns are matched by name; extra columns (and the class column) are
    ignored. Output: CSV with a column `prediction`, plus `proba_<class>`
    columns with --proba.

    \b
    Example:
      dtree predict iris.json examples/iris.csv --proba -o predictions.csv
    """
    import csv

    from dtcli.atomic import open_output, refuse_output_over_input
    from dtcli.io import load_features
    from dtcli.model import load_model

    refuse_output_over_input(output, "--output", {"model": model_path, "data": data})
    model, _ = load_model(model_path)
    X, _ = load_features(data, model.features_, format=data_format, header=not no_header,
                         delimiter=delimiter)
    probabilities = model.proba_from_matrix(X)
    labels = model.classes_[probabilities.argmax(axis=1)]
    with open_output(output) as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["prediction"] + ([f"proba_{c}" for c in model.classes_] if proba else []))
        if proba:
            writer.writerows([label, *(f"{p:.6g}" for p in row)]
                             for label, row in zip(labels, probabilities))
        else:
            writer.writerows([label] for label in labels)


@click.command(context_settings=CONTEXT)
@click.argument("model_path", metavar="MODEL")
@click.option("--format", "-f", "export_format", type=click.Choice(["text", "json", "dot", "rules"]),
              default="text", show_default=True, help="What to write.")
@output_option("Write here (- for stdout).")
@click.option("--max-depth", type=click.IntRange(min=0), metavar="N",
              help="Text only: show N levels below the root; a deeper subtree is one "
                   "'...' line giving its size.")
def export(model_path, export_format, output, max_depth):
    """Show a saved MODEL as a tree diagram, JSON, Graphviz DOT or if-then rules.

    \b
    Example:
      dtree export iris.json                     # tree diagram on the terminal
      dtree export iris.json -f rules
      dtree export iris.json -f dot | dot -Tsvg -o iris.svg
    """
    import json

    from dtcli.atomic import open_output, refuse_output_over_input
    from dtcli.model import load_model

    if max_depth is not None and export_format != "text":
        raise click.UsageError("--max-depth applies to --format text only")
    refuse_output_over_input(output, "--output", {"model": model_path})
    model, doc = load_model(model_path)
    with open_output(output) as handle:
        if export_format == "json":
            handle.write(json.dumps(doc, indent=1) + "\n")
        elif export_format == "dot":
            from dtcli.export import dot

            handle.write(dot.render(model))
        elif export_format == "rules":
            from dtcli.export import rules

            handle.write(rules.render(model))
        else:
            from rich.console import Console

            from dtcli.export import text

            params = doc["criterion"]["params"]
            header = f"{doc['criterion']['name']}" + (
                "(" + ", ".join(f"{k}={v:g}" for k, v in params.items()) + ")" if params else "")
            header += f" tree for {doc.get('target')}: {model.tree_.node_count} nodes"
            # A terminal gets colour and its width; a file or pipe gets plain, unwrapped lines.
            to_terminal = output == "-" and handle.isatty()
            console = Console(file=handle, highlight=False, force_terminal=to_terminal,
                              width=None if to_terminal else 10_000)
            console.print(text.render(model, header, max_depth))


@click.command(context_settings=CONTEXT)
@click.option("--output", "-o", "output_format", type=click.Choice(["table", "json"]),
              default="table", show_default=True, help="Table for people, JSON for scripts.")
def criteria(output_format):
    """List the split criteria with their parameters and sources.

    \b
    Example:
      dtree criteria
      dtree criteria -o json
    """
    import json

    from dtcli.criteria import CRITERIA

    rows = [{"name": c.name,
             "params": [{"name": p.name, "default": p.default, "range": p.describe_range()}
                        for p in c.params],
             "source": c.source, "summary": c.summary} for c in CRITERIA.values()]
    if output_format == "json":
        click.echo(json.dumps(rows, indent=1))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(show_lines=False)
    table.add_column("criterion", no_wrap=True)
    for column in ("parameters", "source", "use"):
        table.add_column(column, overflow="fold")
    for row in rows:
        params = ", ".join(f"{p['name']}={p['default']:g} in {p['range']}" for p in row["params"])
        table.add_row(row["name"], params or "-", row["source"], row["summary"])
    # A terminal gets its width; a file or pipe gets one unwrapped line per row.
    console = Console(highlight=False)
    if not console.is_terminal:
        console = Console(highlight=False, width=10_000)
    console.print(table)
