"""Commands on single trees: train, predict, export, criteria."""
from __future__ import annotations

import click

from dtcli.cli.forest_options import (forest_options, forest_summary, forest_title, one_tree,
                                      shape_model)
from dtcli.cli.options import (CONTEXT, SectionedCommand, class_weight_option, data_options,
                               decision_options, force_option, positive_option,
                               jobs_option, output_format_option, output_option,
                               positional_features, quiet_option, refuse_unmarked_stdin,
                               target_options, tree_options)
from dtcli.cli.export_options import (PRODUCTION_FORMATS, export_production,
                                      production_options, refuse_production_options)
from dtcli.cli.model_choice import model_options
from dtcli.cli.preset_options import preset_model, preset_options, tree_preset
from dtcli.cli.pruning_options import pruning_options, pruning_params
from dtcli.cli.tune_command import tuning_options
from dtcli.errors import ParameterError
from dtcli.experiments.notes import stderr_console


@click.command(cls=SectionedCommand, context_settings=CONTEXT)
@click.argument("data")
@target_options
@data_options
@model_options
@tree_options
@class_weight_option
@pruning_options
@click.option("--pruning-path", is_flag=True,
              help="Write the unpruned tree's cost-complexity pruning path (CSV: ccp_alpha, "
                   "impurity, n_leaves) instead of a model.")
@click.option("--plot", "plot_path", metavar="FILE.svg",
              help="With --pruning-path: also draw the path (impurity and leaves against "
                   "alpha) as SVG.")
@tuning_options
@forest_options
@preset_options
@positive_option
@decision_options
@jobs_option("as threads (default: all)")
@output_option("Write the model JSON here (- for stdout).")
@force_option
@quiet_option("No summary or notes on stderr (warnings about the data are still shown).")
def train(data, target, drop, data_format, no_header, delimiter, grid_entries, tune_cv, jobs,
          output, force, quiet, pruning_path, plot_path, model_kind, fdf_combine, leaf_model,
          nb_numeric, nb_min_samples, n_estimators, max_features, no_bootstrap, max_samples, oob,
          seed, scheduler, preset, binary_splits, positive, cost, cost_matrix, threshold,
          threshold_metric, **tree):
    """Fit a tree on DATA and write the model as JSON.

    Without -o, the JSON goes to stdout when it is a file or a pipe; on a
    terminal, train shows the tree's top levels instead and saves nothing.
    The summary on stderr names the target column and the fit time (without
    loading the compiled engine, which happens before), and a warning names
    any column that looks like a row identifier.

    \b
    Example:
      dtree train examples/iris.csv -o iris.json
      dtree train examples/ecoli2.dat --criterion entropy --min-samples-leaf 2 \\
          -o ecoli2.json
      dtree train examples/ecoli2.dat --pruning pessimistic \\
          --leaf-estimate laplace -o e.json
      dtree train examples/ecoli2.dat --pruning-path
      dtree train examples/iris.csv --max-depth 2 --leaf-model naive-bayes \\
          -o iris-nb.json
      dtree train examples/hepatitis.csv --target Class --model fdf \\
          -o hepatitis-fdf.json
      dtree train examples/ecoli2.dat --model forest --trees 200 \\
          --criterion hddt -o forest.json
      dtree train examples/vehicle.arff --preset j48 --no-subtree-raising \\
          -o j48.json
      dtree train examples/iris.csv --preset rpart -o rpart.json
      dtree train examples/imbalanced/haberman.dat --threshold auto \\
          --cost FN=10,FP=1 -o haberman.json
    """
    import sys

    from dtcli.atomic import refuse_output_over_input
    from dtcli.cli.model_choice import make_model
    from dtcli.cli.unused_options import refuse_unused
    from dtcli.experiments.data import Reading
    from dtcli.experiments.training import fit_model, with_threshold
    from dtcli.experiments.tuning import TrainingSearch
    from dtcli.pruning.methods import effective_ccp_alpha

    reading = Reading(target, drop, data_format, not no_header, delimiter, force)
    model, search = preset_model(preset, binary_splits), None
    if model is None:
        tree.update(pruning_params(tree))
        tree_preset(preset, tree, model_kind)
        if model_kind != "fdf":  # (make_model refuses every option FDF has no use for)
            refuse_unused(click.get_current_context(), tree, model_kind=model_kind,
                          leaf_model=leaf_model, pruning_path=pruning_path)
        tree["ccp_alpha"] = effective_ccp_alpha(tree["pruning"], tree["ccp_alpha"], tree["cp"])
        search = TrainingSearch.of(tree, grid_entries, tune_cv, seed)
        if search is not None and (model_kind != "tree" or pruning_path):
            raise click.UsageError("--param NAME=auto and --grid tune a single tree "
                                   "(--model tree)")
        model = make_model(model_kind, tree if search is None else search.untuned(tree), jobs,
                           leaf_model, nb_numeric, nb_min_samples, fdf_combine)
        if model_kind != "fdf":
            if pruning_path and model_kind == "forest":
                raise click.UsageError("--pruning-path applies to --model tree only")
            model = shape_model(model, model_kind, n_estimators, max_features, no_bootstrap,
                                max_samples, oob, seed, scheduler)
        if plot_path is not None and not pruning_path:
            raise click.UsageError("--plot draws the pruning path: add --pruning-path")
    if pruning_path and threshold is not None:
        raise click.UsageError("--threshold is stored in the model; --pruning-path writes no "
                               "model")
    if cost_matrix is not None:
        raise click.UsageError("--cost-matrix: a model stores a threshold of two classes; "
                               "give --cost FN=X,FP=Y")
    model = with_threshold(model, threshold=threshold, threshold_metric=threshold_metric,
                           cost=cost, positive=positive)
    refuse_output_over_input(output, "--output", {"training data": data})
    refuse_output_over_input(plot_path, "--plot", {"training data": data, "--output": output})
    refuse_unmarked_stdin(data, data_format)
    tree_preset_name = preset if model.model_kind == "tree" else None
    result = fit_model(data, model, search=search, scheduler=scheduler,
                       pruning_path=pruning_path, jobs=jobs, quiet=quiet, reading=reading,
                       preset=tree_preset_name, saved=not pruning_path)
    console = stderr_console()
    if result.path is not None:
        _write_pruning_path(result, output, plot_path)
    else:
        # JSON is for files and pipes; a person at a terminal gets the tree to read.
        shown = output == "-" and sys.stdout.isatty()
        _write_model(result, output, shown)
        if quiet:
            return
        console.print(result.summary(None if output == "-" else output))
        if shown and result.model.model_kind == "tree":
            console.print("the model is not saved: add -o MODEL.json to save it (or send "
                          "stdout to a file or pipe for its JSON); --target NAME chooses "
                          "another class column")
        return
    if not quiet:
        console.print(result.summary())


def _write_pruning_path(result, output: str, plot_path: str | None) -> None:
    """The pruning path as CSV to `output`; with `plot_path`, drawn as SVG."""
    from dtcli.atomic import open_output

    with open_output(output) as handle:
        handle.write(result.path.csv())
    if plot_path is not None:
        with open_output(plot_path) as handle:
            handle.write(result.path.svg(f"pruning path of the unpruned "
                                         f"{result.model.criterion} tree on "
                                         f"{result.dataset.source}"))


def _write_model(result, output: str, shown: bool) -> None:
    """The model's JSON to `output`, or its tree to the terminal when `shown`."""
    from dtcli.model import model_to_dict

    if not shown:
        result.save(output)
        return
    from dtcli.cli.preview import print_tree_preview

    model = result.model
    if model.model_kind == "c45":
        click.echo(model.text(), nl=False)
        return
    if model.model_kind == "fdf":
        from rich.console import Console

        from dtcli.fdf import export

        Console(highlight=False).print(export.text(model))
        return
    doc = model_to_dict(model, target=result.dataset.target, source=result.source)
    if doc.get("kind") == "forest":
        click.echo(forest_summary(model, doc), nl=False)
        return
    print_tree_preview(model, doc)


@click.command(cls=SectionedCommand, context_settings=CONTEXT)
@click.argument("model_path", metavar="MODEL")
@click.argument("data")
@data_options
@click.option("--proba", is_flag=True, help="Add one probability column per class.")
@click.option("--keep", metavar="COL", multiple=True,
              help="Copy this input column (by name; V1, V2, ... with --no-header) to the "
                   "output, before the prediction, e.g. an id; repeatable, in the order "
                   "given. A column of numbers is copied as numbers (007 becomes 7).")
@click.option("--output-header/--no-output-header", default=True, show_default=True,
              help="Begin the output with a header row.")
@output_option("Write the predictions CSV here (- for stdout).")
@quiet_option("No notes on stderr (errors are still reported; predict writes none).")
def predict(model_path, data, data_format, no_header, delimiter, proba, keep, output_header,
            output, quiet):
    """Predict the class of every row of DATA with a saved MODEL.

    Columns are matched by name, or with --no-header by position: the first
    columns are the model's features in its order (`dtree export MODEL -f json`
    lists them). Extra columns (and the class column) are ignored. Output: CSV
    with a column `prediction`, plus `proba_<class>` columns with --proba.

    \b
    Example:
      dtree predict iris.json examples/iris.csv --proba -o predictions.csv
      dtree predict iris.json examples/iris.csv --keep class \\
          --no-output-header | head
      dtree predict iris.json examples/iris.csv --keep a1 --keep class
    """
    import csv

    from dtcli.atomic import open_output, refuse_output_over_input
    from dtcli.io import load_features
    from dtcli.model import load_model

    refuse_output_over_input(output, "--output", {"model": model_path, "data": data})
    model, _ = load_model(model_path)
    refuse_unmarked_stdin(data, data_format)
    features = model.features_ if not no_header else positional_features(model.features_)
    X, kept = load_features(data, features, labels_of=keep, format=data_format,
                            header=not no_header, delimiter=delimiter)
    for name in keep:
        if name not in kept:
            raise ParameterError(f"{data}: --keep '{name}': no such column")
    probabilities = model.proba_from_matrix(X)
    labels = model.classes_[model.predicted_index(probabilities)]
    header = list(keep) + ["prediction"] + (
        [f"proba_{c}" for c in model.classes_] if proba else [])
    columns = [kept[name] for name in keep] + [labels] + (
        [[f"{p:.6g}" for p in column] for column in probabilities.T] if proba else [])
    with open_output(output) as handle:
        writer = csv.writer(handle, lineterminator="\n")
        if output_header:
            writer.writerow(header)
        writer.writerows(zip(*columns))


@click.command(cls=SectionedCommand, context_settings=CONTEXT)
@click.argument("model_path", metavar="MODEL")
@output_format_option(["text", "json", "dot", "rules", "svg", "html", *PRODUCTION_FORMATS],
                      "text", "What to write: text, json, dot, rules; svg, a picture; html, a "
                      "page to explore it in a browser; onnx, sql, c, python, pmml: the model "
                      "for production (docs/export.md). --format is its old, deprecated name.",
                      old_names=("--format",), metavar="FORMAT")
@output_option("Write here (- for stdout).")
@click.option("--max-depth", type=click.IntRange(min=0), metavar="N",
              help="Text, svg and html: show N levels below the root; a deeper subtree is "
                   "one '...' line (a dashed box) giving its size.")
@click.option("--tree", "tree_index", type=click.IntRange(min=0), metavar="I",
              help="A forest: show its tree I (from 0) instead of the forest's summary.")
@production_options
@quiet_option("No notes on stderr (errors are still reported; export writes none).")
def export(model_path, output_format, output, max_depth, tree_index, quiet, **production):
    """Show a saved MODEL as a tree diagram, JSON, Graphviz DOT, if-then rules or a picture,
    or write it for production: ONNX, SQL, C, Python or PMML (docs/export.md).

    \b
    Example:
      dtree export iris.json                     # tree diagram on the terminal
      dtree export iris.json -f rules
      dtree export iris.json -f dot | dot -Tsvg -o iris.svg
      dtree export forest.json --tree 3          # a forest's fourth tree
      dtree export iris.json -f html -o iris.html  # fold subtrees in a browser
      dtree export iris.json -f onnx -o iris.onnx --check examples/iris.csv
      dtree export iris.json -f sql --sql-table flowers -o iris.sql
    """
    import json

    from dtcli.atomic import open_output, refuse_output_over_input
    from dtcli.export.describe import decision_comment
    from dtcli.model import load_model

    if max_depth is not None and output_format not in ("text", "svg", "html"):
        raise click.UsageError("--max-depth applies to -f text, svg and html only")
    refuse_output_over_input(output, "--output", {"model": model_path})
    model, doc = load_model(model_path)
    if output_format in PRODUCTION_FORMATS:
        return export_production(model, output_format, output, quiet=quiet,
                                 tree_index=tree_index, **production)
    refuse_production_options(output_format, **production)
    if getattr(model, "model_kind", None) == "fdf":
        from dtcli.fdf.export import write

        return write(model, doc, output_format, output, max_depth)
    if getattr(model, "model_kind", None) == "c45":
        from dtcli.c45.export import write

        return write(model, doc, output_format, output, max_depth)
    model, forest_text = one_tree(model, doc, tree_index, output_format)
    with open_output(output) as handle:
        if output_format in ("text", "rules"):
            handle.write(decision_comment(doc))
        if forest_text is not None:
            handle.write(forest_text)
        elif output_format == "json":
            handle.write(json.dumps(doc, indent=1) + "\n")
        elif output_format == "dot":
            from dtcli.export import dot

            handle.writelines(dot.lines(model))
        elif output_format == "rules":
            from dtcli.export import rules

            handle.writelines(rules.lines(model))
        elif output_format in ("svg", "html"):
            from dtcli.export.pictures import draw

            handle.write(draw(model, output_format, _title(doc, model, tree_index), max_depth,
                              doc.get("decision")))
        else:
            from rich.console import Console

            from dtcli.export import text

            header = _title(doc, model, tree_index)
            # A terminal gets colour and its width; a file or pipe gets plain, unwrapped lines.
            if output == "-" and handle.isatty():
                Console(file=handle, highlight=False).print(text.render(model, header, max_depth))
            else:
                text.write_plain(handle, model, header, max_depth)


def _title(doc: dict, model, tree_index: int | None) -> str:
    """The title of a tree's diagram or picture: the model's, or a forest's tree's."""
    from dtcli.cli.preview import tree_title

    return tree_title(doc) if tree_index is None else (
        f"tree {tree_index} of the {forest_title(doc)}: {model.tree_.node_count} nodes")


@click.command(cls=SectionedCommand, context_settings=CONTEXT)
@click.argument("name", required=False)
@click.option("--long", "long_form", is_flag=True,
              help="Every criterion's full entry: parameters, ranges, sources.")
@output_format_option(["table", "json"], "table", "Table for people, JSON for scripts.")
@output_option("Write here (- for stdout).", formats=("table", "json"))
@quiet_option("No notes on stderr (errors are still reported; criteria writes none).")
def criteria(name, long_form, output_format, output, quiet):
    """List the split criteria, or show one (NAME) with its parameters and sources.

    \b
    Example:
      dtree criteria
      dtree criteria tsallis
      dtree criteria -f json
    """
    import json

    from dtcli.atomic import open_output
    from dtcli.reporting.criteria import entries, entry_lines, table_lines

    rows = entries()
    if name is not None:
        known = [row["name"] for row in rows]
        if name not in known:
            raise click.BadParameter(f"unknown criterion {name!r} (one of {', '.join(known)})",
                                     param_hint="NAME")
        rows = [rows[known.index(name)]]
    with open_output(output) as handle:
        if output_format == "json":
            handle.write(json.dumps(rows[0] if name else rows, indent=1) + "\n")
        elif name or long_form:
            handle.write("\n\n".join("\n".join(entry_lines(row)) for row in rows) + "\n")
        else:
            handle.write("\n".join(table_lines(rows)) + "\n")
