"""`train --model tree|forest|fdf` and the Naive Bayes leaf options: which estimator
`train` fits (a forest's own options: forest_options.py). FDF takes the tree options it shares (--max-depth, --min-samples-leaf,
--min-gain) and refuses the ones it has no use for."""
from __future__ import annotations

import click
from click.core import ParameterSource

from dtcli.errors import ParameterError

MODELS = ("tree", "forest", "fdf")
# train's options that FDF takes (it splits by GenGain and counts rows): any other given
# with --model fdf is refused, so that a new tree option needs no entry here
_FOR_FDF = ("data", "target", "drop", "data_format", "no_header", "delimiter", "model_kind",
            "fdf_combine", "nb_min_samples", "max_depth", "min_samples_leaf", "min_gain", "jobs",
            "output", "force", "quiet", "positive", "cost", "threshold", "threshold_metric")


def model_options(func):
    options = [
        click.option("--model", "model_kind", type=click.Choice(MODELS), default="tree",
                     show_default=True,
                     help="What to fit: a decision tree, a random forest of --trees trees "
                          "(docs/forests.md), or FDF, the hybrid decision forest of rules "
                          "grown by general information gain with Naive Bayes leaves "
                          "(docs/fdf.md)."),
        click.option("--fdf-combine", type=click.Choice(["select", "average"]),
                     default="select", show_default=True,
                     help="FDF: a sample's probabilities from its own rule's leaf, or "
                          "averaged over the trees whose root branch it matches, weighted by "
                          "GenGain (docs/fdf.md)."),
        click.option("--leaf-model", type=click.Choice(["counts", "naive-bayes"]),
                     default="counts", show_default=True,
                     help="What a tree's leaf predicts: its class frequencies, or a Naive "
                          "Bayes model fitted on its training rows."),
        click.option("--nb-numeric", type=click.Choice(["mdl", "gaussian"]), default="mdl",
                     show_default=True,
                     help="Naive Bayes leaves: numeric features cut into bins by Fayyad and "
                          "Irani's MDL method, or as normal densities."),
        click.option("--nb-min-samples", type=click.IntRange(min=1), default=5,
                     show_default=True,
                     help="Naive Bayes leaves (and FDF's): a leaf with fewer training rows "
                          "predicts its Laplace-smoothed class frequencies."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def make_model(model_kind: str, tree: dict, jobs, leaf_model: str, nb_numeric: str,
               nb_min_samples: int, fdf_combine: str = "select"):
    """The estimator `train` fits, validated before any data is read."""
    if model_kind == "fdf":
        from dtcli.fdf.estimator import FDFClassifier

        context = click.get_current_context()
        for param in context.command.params:
            if (param.name not in _FOR_FDF
                    and context.get_parameter_source(param.name) == ParameterSource.COMMANDLINE):
                raise ParameterError(f"{max(param.opts, key=len)} does not apply to --model fdf")
        model = FDFClassifier(min_samples_leaf=tree["min_samples_leaf"],
                              max_depth=tree["max_depth"], min_gain=tree["min_gain"],
                              nb_min_samples=nb_min_samples, combine=fdf_combine)
        model.stops()
        return model
    from dtcli.cli.options import make_tree

    context = click.get_current_context()
    if context.get_parameter_source("fdf_combine") == ParameterSource.COMMANDLINE:
        raise ParameterError("--fdf-combine applies to --model fdf only")
    model = make_tree(jobs=jobs, **tree)
    if leaf_model != "counts":
        from dtcli.leaves.naive_bayes import leaf_options

        params = {"numeric": nb_numeric, "min_samples": nb_min_samples}
        leaf_options(params)
        model.set_params(leaf_model=leaf_model, leaf_params=params)
    return model
