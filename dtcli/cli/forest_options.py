"""The command line's forests: `train --model forest` options, the forest a train
command makes, and the text summary `train` and `export` show of a forest."""
from __future__ import annotations

import click

from dtcli.params import MAX_TREES


def _count_or_fraction(value: str):
    """An integer >= 1 (a count) or a number in (0, 1] (a fraction); None otherwise."""
    try:
        number = float(value)
    except ValueError:
        return None
    if number.is_integer() and "." not in value and number >= 1:
        return int(number)
    return number if 0.0 < number <= 1.0 else None


def _parse_max_features(ctx, param, value):
    """sqrt, log2, all (None), a count or a fraction."""
    if value is None or value in ("sqrt", "log2"):
        return value
    if value == "all":
        return None
    parsed = _count_or_fraction(value)
    if parsed is None:
        raise click.BadParameter(f"expected sqrt, log2, all, a count >= 1 or a fraction in "
                                 f"(0, 1], got {value!r}", ctx, param)
    return parsed


def _parse_max_samples(ctx, param, value):
    parsed = None if value is None else _count_or_fraction(value)
    if value is not None and parsed is None:
        raise click.BadParameter(f"expected a count >= 1 or a fraction in (0, 1], got {value!r}",
                                 ctx, param)
    return parsed


def forest_options(func):
    """Options of `train` that choose a forest and shape it."""
    options = [
        click.option("--trees", "n_estimators", type=click.IntRange(1, MAX_TREES),
                     default=100, show_default=True, help="Forest: number of trees."),
        click.option("--max-features", callback=_parse_max_features, metavar="sqrt|log2|all|N|F",
                     help="Features searched at each node, drawn at random: sqrt, log2, all, a "
                          "count or a fraction (default: sqrt for a forest, all for a tree)."),
        click.option("--no-bootstrap", is_flag=True,
                     help="Forest: every tree sees every row (no bootstrap sample)."),
        click.option("--max-samples", callback=_parse_max_samples, metavar="N|F",
                     help="Forest: rows per bootstrap sample, a count or a fraction "
                          "(default: as many as the data has)."),
        click.option("--oob", is_flag=True,
                     help="Forest: score each row by the trees that did not draw it "
                          "(out-of-bag accuracy, in the summary and the model file)."),
        click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
                     help="Seed of everything random: the bootstrap samples and feature "
                          "draws, and the folds of the search of auto parameters; the same "
                          "seed gives the same model on any number of cores."),
        click.option("--scheduler", metavar="tcp://HOST:PORT",
                     help="Forest: grow the trees on this Dask cluster (pip install "
                          "'dtcli[dask]'); the forest equals the local one."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def shape_model(tree, model_kind, n_estimators, max_features, no_bootstrap, max_samples, oob,
                seed, scheduler):
    """The estimator `train` fits: `tree` (a DecisionTreeClassifier of the command's
    options) itself, or a forest of its options. Checked before any data is read."""
    if model_kind == "tree":
        for name, given in (("--no-bootstrap", no_bootstrap), ("--max-samples", max_samples),
                            ("--oob", oob), ("--scheduler", scheduler)):
            if given:
                raise click.UsageError(f"{name} applies to --model forest only")
        tree.set_params(max_features=max_features, random_state=seed)
        return tree
    for name, given in (("--oob", oob), ("--max-samples", max_samples)):
        if given and no_bootstrap:
            raise click.UsageError(f"{name} needs bootstrap samples: drop --no-bootstrap")
    for name, given in (("--pruning", tree.pruning is not None),
                        ("--leaf-estimate", tree.leaf_estimate != "frequency")):
        if given:  # a forest's trees are grown out, their probabilities averaged
            raise click.UsageError(f"{name} applies to --model tree only")
    from dtcli.ensemble.forest import RandomForestClassifier

    params = {k: v for k, v in tree.get_params().items() if k in RandomForestClassifier().get_params()}
    return RandomForestClassifier(**{**params, "n_estimators": n_estimators,
                                     "max_features": "sqrt" if max_features is None else max_features,
                                     "bootstrap": not no_bootstrap, "max_samples": max_samples,
                                     "oob_score": oob, "random_state": seed})


def forest_title(doc: dict) -> str:
    """'forest of 100 gini trees for class', with the criterion's parameters."""
    from dtcli.cli.preview import tree_title

    criterion = tree_title({**doc, "tree": {"node_count": 0}}).split(" tree for ")[0]
    return f"forest of {doc['forest']['n_estimators']} {criterion} trees for {doc.get('target')}"


def forest_summary(forest, doc: dict) -> str:
    """Lines describing a forest: its options, its trees' sizes, its top features."""
    import numpy as np

    trees = [e.tree_ for e in forest.estimators_]
    nodes = np.array([t.node_count for t in trees])
    depths = np.array([t.max_depth for t in trees])
    block = doc["forest"]
    lines = [forest_title(doc),
             f"  max_features {block['max_features']}, bootstrap {str(block['bootstrap']).lower()}"
             f", max_samples {block['max_samples'] or 'all rows'}, seed {block['seed']}"
             + ("" if block.get("oob_score") is None
                else f", out-of-bag accuracy {block['oob_score']:.4f}"),
             *_leaf_lines(forest),
             f"  nodes per tree: mean {nodes.mean():.1f}, min {nodes.min()}, max {nodes.max()}; "
             f"depth: mean {depths.mean():.1f}, min {depths.min()}, max {depths.max()}",
             "  feature importances (top 10):"]
    importances = forest.feature_importances_
    for j in np.argsort(-importances, kind="stable")[:10]:
        if importances[j] > 0:
            lines.append(f"    {forest.features_[j].name}: {importances[j]:.4f}")
    lines.append(f"  (dtree export MODEL --tree I draws tree I, 0 to {len(trees) - 1})")
    return "\n".join(lines) + "\n"


def _leaf_lines(forest) -> list[str]:
    """The summary's line on Naive Bayes leaves (none for counts)."""
    if forest.leaf_model == "counts":
        return []
    options = forest.estimators_[0].leaf_model_.options
    return [f"  leaves: naive bayes (numeric features {options['numeric']}, a model in leaves "
            f"of at least {options['min_samples']} rows, alpha {options['alpha']:g}), fitted "
            "on each tree's bootstrap sample"]


def one_tree(model, doc: dict, tree_index: int | None, output_format: str):
    """What `export` shows: (the model or tree to draw, None), or for a forest without
    --tree in text format (None, its summary). --tree on a tree, or a forest in a tree's
    format without --tree, is a usage error."""
    if doc.get("kind", "tree") != "forest":  # format 1 has no kind
        if tree_index is not None:
            raise click.UsageError("--tree applies to forest models only")
        return model, None
    if tree_index is None:
        if output_format == "text":
            return None, forest_summary(model, doc)
        if output_format != "json":
            raise click.UsageError(f"-f {output_format} draws one tree: choose one of the "
                                   f"forest's with --tree I (0 to {len(model.estimators_) - 1})")
        return model, None
    if tree_index >= len(model.estimators_):
        raise click.BadParameter(f"the forest has {len(model.estimators_)} trees (0 to "
                                 f"{len(model.estimators_) - 1})", param_hint="'--tree'")
    return model.estimators_[tree_index], None
