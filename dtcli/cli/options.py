"""Option bundles shared by several commands (decorators), and small CLI helpers."""
from __future__ import annotations

import os

import click

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

# --help lists a command's options under these headings (by parameter name, in this
# order; one table for every command, as an option means the same everywhere); the
# rest go under "Options".
HELP_SECTIONS = (
    ("Data", ("target", "drop", "data_format", "no_header", "delimiter", "spec_path",
              "table_path", "lower_is_better", "force")),
    ("Model", ("model_kind", "preset", "criterion", "criterion_params", "criteria_entries",
               "leaf_model", "nb_numeric", "nb_min_samples", "fdf_combine", "binary_splits")),
    ("Stopping rules and weights", ("max_depth", "min_samples_split", "min_samples_leaf",
                                    "min_weight_fraction_leaf", "min_gain", "class_weight", "max_features")),
    ("Pruning and leaf probabilities", ("pruning", "ccp_alpha", "cp", "ccp_risk", "confidence",
                                        "subtree_raising", "pruning_folds", "significance",
                                        "permutations", "pruning_mode", "leaf_estimate", "m",
                                        "pruning_path")),
    ("Forest", ("n_estimators", "no_bootstrap", "max_samples", "oob")),
    ("Cross-validation and random draws", ("cv", "repeats", "seed")),
    ("Tuning", ("grid_entries", "tune_cv", "inner_cv", "selection", "tune_metric")),
    ("Report", ("metric", "base", "show_sd", "cd_diagram", "posthoc", "reference", "report_path",
                "output_format")),
    ("Running and output", ("jobs", "results_path", "scheduler", "output", "quiet")),
    ("Production formats", ("check_data", "sql_table", "sql_keep", "c_name", "onnx_opset",
                            "describe")),
)


class SectionedCommand(click.Command):
    """A command whose --help groups its options under HELP_SECTIONS' headings: train,
    evaluate and compare take some forty options, which one flat list hides."""

    def format_options(self, ctx, formatter):
        records = {p.name: p.get_help_record(ctx) for p in self.get_params(ctx)}
        records = {name: record for name, record in records.items() if record}
        for title, names in HELP_SECTIONS + (("Options", tuple(records)),):
            rows = [records.pop(name) for name in names if name in records]
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)
# Largest depth or row count an option takes: the engine counts in 64-bit integers, and
# no tree or data file comes near this.
LARGEST_COUNT = 2**31 - 1




def data_options(func):
    """Options that say how to read a data file."""
    options = [
        click.option("--input-format", "--format", "data_format",
                     type=click.Choice(["csv", "arff", "keel"]),
                     help="Format of DATA (default: from the extension; stdin is CSV). "
                          "--format is its old, deprecated name."),
        click.option("--no-header", is_flag=True,
                     help="CSV has no header row (columns are named V1, V2, ...)."),
        click.option("--delimiter", metavar="CHAR", help="CSV field delimiter (default: sniffed)."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def target_options(func):
    func = click.option("--drop", multiple=True, metavar="COL",
                        help="Ignore this column (name or 0-based index); repeatable.")(func)
    return click.option("--target", "-t", metavar="NAME|INDEX",
                        help="Class column (default: KEEL @outputs, else the last column).")(func)


def positive_option(func):
    """The class of the positive-class measures (dtcli/measures/__init__.py)."""
    return click.option("--positive", metavar="LABEL",
                        help="The positive class of precision, recall, f1 and two-class "
                             "average_precision (default: each dataset's rarest class; the "
                             "report names it).")(func)


def _threshold(ctx, param, value):
    if value is None or value == "auto":
        return value
    try:
        number = float(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not auto or a probability") from None
    if not 0.0 <= number <= 1.0:
        raise click.BadParameter(f"{value!r} is not a probability in [0, 1]")
    return number


DECISION_KEYS = ("cost", "cost_matrix", "threshold", "threshold_metric")


def decision_options(func):
    """--cost, --cost-matrix, --threshold, --threshold-metric (dtcli/measures/thresholds.py), passed
    to the library under their names (DECISION_KEYS)."""
    from dtcli.measures import THRESHOLD_METRICS

    options = [
        click.option("--cost", metavar="FN=X,FP=Y",
                     help="Costs of the two kinds of error (two classes; the positive class is "
                          "--positive's): adds expected_cost, the mean cost per row."),
        click.option("--cost-matrix", metavar="FILE.csv",
                     help="Costs for many classes: a header of predicted classes, a row per "
                          "true class (label first)."),
        click.option("--threshold", callback=_threshold, metavar="auto|P",
                     help="Two classes: predict the positive class when its probability is at "
                          "least P; auto: the P of least expected cost (or best "
                          "--threshold-metric), chosen by a 3-fold cross-validation inside "
                          "each training fold."),
        click.option("--threshold-metric", type=click.Choice(THRESHOLD_METRICS), metavar="NAME",
                     help="With --threshold auto: the measure to maximise instead of the cost "
                          f"({', '.join(THRESHOLD_METRICS)})."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def force_option(func):
    """For the commands that train: accept a target that looks like regression data."""
    return click.option("--force", is_flag=True,
                        help="Train even when the class column looks like regression data "
                             "(numbers that are not whole, or more distinct values than half "
                             "the rows).")(func)


def _parse_param(ctx, param, values):
    parsed = {}
    for item in values:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise click.BadParameter(f"expected NAME=VALUE, got {item!r}", ctx, param)
        if name.strip() in parsed:  # keeping either value silently would hide a typo
            raise click.BadParameter(f"{name.strip()} is given twice; give each parameter "
                                     "once", ctx, param)
        if value.strip() == "auto":  # tuned by cross-validation (dtcli.tuning)
            parsed[name.strip()] = "auto"
            continue
        try:
            parsed[name.strip()] = float(value)
        except ValueError:
            raise click.BadParameter(f"{name.strip()}={value!r} is not a number", ctx, param) from None
    return parsed


def tree_options(func):
    """Options of the tree itself, as in `train`."""
    options = [
        click.option("--criterion", "-c", default="gini", show_default=True,
                     help="Split criterion; `dtree criteria` lists them."),
        click.option("--param", "-p", "criterion_params", multiple=True, metavar="NAME=VALUE",
                     callback=_parse_param,
                     help="Criterion parameter, e.g. q=2.5, or q=auto to tune it by cross-validation; "
                          "repeatable, once per parameter."),
        click.option("--max-depth", type=click.IntRange(min=0, max=LARGEST_COUNT),
                     help="Maximum depth (default: none)."),
        click.option("--min-samples-split", type=click.IntRange(min=2, max=LARGEST_COUNT),
                     default=2, show_default=True, help="Smallest node that may be split."),
        click.option("--min-samples-leaf", type=click.IntRange(min=1, max=LARGEST_COUNT), default=1,
                     show_default=True, help="Smallest allowed leaf."),
        click.option("--min-weight-fraction-leaf", type=click.FloatRange(0.0, 0.5),
                     default=0.0, show_default=True,
                     help="Smallest share of the total (class- or sample-) weight a leaf "
                          "may hold, as scikit-learn's."),
        click.option("--min-gain", type=float, default=0.0, show_default=True,
                     help="Smallest criterion score a split must reach."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _parse_class_weight(ctx, param, values):
    """`balanced`, or LABEL=WEIGHT items: the estimator's class_weight (None if not given).
    A label may contain '=': the weight follows the last one."""
    if not values:
        return None
    if "balanced" in values:
        if len(values) > 1:
            raise click.BadParameter("'balanced' cannot be combined with LABEL=WEIGHT", ctx, param)
        return "balanced"
    weights = {}
    for item in values:
        label, sep, weight = item.rpartition("=")
        if not sep or not label:
            raise click.BadParameter(f"expected balanced or LABEL=WEIGHT, got {item!r}", ctx, param)
        if label in weights:
            raise click.BadParameter(f"class {label!r} is given twice", ctx, param)
        try:
            weights[label] = float(weight)
        except ValueError:
            raise click.BadParameter(f"{label}={weight!r} is not a number", ctx, param) from None
    return weights


def class_weight_option(func):
    return click.option(
        "--class-weight", multiple=True, metavar="balanced|LABEL=WEIGHT",
        callback=_parse_class_weight,
        help="Weigh each class's rows: 'balanced' (rows / (classes x rows of the class)), or "
             "LABEL=WEIGHT, repeatable (classes not named weigh 1).")(func)


def jobs_option(how: str):
    """-j/--jobs: how many CPU cores a command uses, in every command that takes it."""
    return click.option("--jobs", "-j", type=click.IntRange(min=1), metavar="N",
                        help=f"CPU cores to use, {how}; results do not depend on it.")


def output_option(help_text: str, formats=()):
    """-o/--output FILE, in every command. `formats`: the output format names that -o
    took before -f/--output-format did; naming one is refused as a probable old habit."""
    def refuse_format(ctx, param, value):
        if value in formats:
            raise click.BadParameter(
                f"{value!r} is an output format; -o names the output FILE now: write "
                f"-f {value} (or -o ./{value} for a file of that name)", ctx, param)
        return value

    return click.option("--output", "-o", "output", default="-", show_default=True,
                        metavar="FILE", callback=refuse_format, help=help_text)


def output_format_option(choices, default: str, help_text: str, old_names=(), metavar=None):
    """-f/--output-format: what to write, in every command that offers a choice (`metavar`
    instead of the list of choices where the list is too long for one help line)."""
    return click.option("--output-format", "-f", *old_names, "output_format",
                        type=click.Choice(choices), default=default, show_default=True,
                        metavar=metavar, help=help_text)


def _quiet_compiling(ctx, param, quiet):
    if quiet:  # no "compiling ..." line either, here and in worker processes (engine/forms.py)
        os.environ["DTREE_COMPILE_NOTICE"] = "0"
    return quiet


def quiet_option(help_text: str = "No notes on stderr (errors are still reported)."):
    """-q/--quiet, accepted by every command so that scripts can pass it to any."""
    return click.option("--quiet", "-q", is_flag=True, help=help_text, callback=_quiet_compiling)


def make_tree(criterion, criterion_params, max_depth, min_samples_split, min_samples_leaf,
              min_gain, jobs, class_weight=None, min_weight_fraction_leaf=0.0, **pruning):
    """An estimator from `tree_options` (and `pruning_options`' parameters), validated
    before any data is read."""
    from dtcli import criteria
    from dtcli.estimator import DecisionTreeClassifier

    model = DecisionTreeClassifier(criterion=criterion, criterion_params=criterion_params or None,
                                   max_depth=max_depth, min_samples_split=min_samples_split,
                                   min_samples_leaf=min_samples_leaf, min_gain=min_gain,
                                   min_weight_fraction_leaf=min_weight_fraction_leaf,
                                   n_jobs=jobs, class_weight=class_weight, **pruning)
    model.stop_rules()
    model.pruning_method()
    criteria.get(criterion).param_vector(criterion_params)
    return model


def positional_features(features):
    """A model's features renamed V1, V2, ... as CSV columns without a header are, so that
    `predict --no-header` matches them by position in the model's feature order."""
    import dataclasses

    return [dataclasses.replace(f, name=f"V{i}") for i, f in enumerate(features, start=1)]


_STDIN_HEAD = 512  # bytes looked at to recognise KEEL or ARFF on stdin


def refuse_unmarked_stdin(data: str, data_format: str | None) -> None:
    """Stdin is read as CSV unless --input-format says otherwise: refuse KEEL or ARFF
    text (a first line `@relation ...`, after any ARFF % comments) read so, which would
    fail with a confusing message about columns."""
    if data != "-" or data_format is not None:
        return
    import sys

    from dtcli.errors import ParameterError

    stream = sys.stdin.buffer
    if hasattr(stream, "peek"):  # a pipe or file: look without consuming
        head = stream.peek(_STDIN_HEAD)[:_STDIN_HEAD]
    else:  # an in-memory stream (tests): read, then rewind
        head = stream.read(_STDIN_HEAD)
        stream.seek(-len(head), 1)
    lines = (line.strip() for line in head.removeprefix(b"\xef\xbb\xbf").splitlines())
    first = next((line for line in lines if line and not line.startswith(b"%")), b"")
    if first.lower().startswith(b"@relation"):
        raise ParameterError("<stdin>: looks like KEEL or ARFF (it begins with @relation) but "
                             "stdin is read as CSV; give --input-format keel or "
                             "--input-format arff")
