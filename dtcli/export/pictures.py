"""A fitted model as a picture: `export -f svg` / `-f html`, `to_svg()`, `_repr_svg_`.

A tree of more than MAX_PICTURE_NODES nodes is not drawn (a picture takes about
1 KB and 0.3 ms a node, docs/pictures.md: 30 MB, and a browser shows nothing of it
readable at once); the refusal gives the depth that fits, and the formats that
suit a large tree (text, rules, dot). A notebook shows no picture of one.
"""
from __future__ import annotations

import numpy as np

from dtcli.errors import ParameterError

PICTURE_FORMATS = ("svg", "html")
MAX_PICTURE_NODES = 30_000


def too_big(model, max_depth: int | None) -> str | None:
    """Why a tree's picture to `max_depth` would be too big to draw; None if it is not."""
    depth = model.tree_.depth
    drawn = depth.shape[0] if max_depth is None else int(np.count_nonzero(depth <= max_depth))
    if drawn <= MAX_PICTURE_NODES:
        return None
    up_to = np.cumsum(np.bincount(depth))  # nodes drawn to each depth; the root alone fits
    deepest = int(np.flatnonzero(up_to <= MAX_PICTURE_NODES)[-1])
    return (f"a picture of {drawn} nodes is too big to draw (at most {MAX_PICTURE_NODES}): "
            f"limit its depth (--max-depth {deepest}, or max_depth={deepest}: "
            f"{up_to[deepest]} nodes) or export the tree as text, rules or dot")


def diagram_of(model, title: str | None = None, max_depth: int | None = None):
    """The `svg.Diagram` of a tree (a DecisionTreeClassifier or a forest's tree) or of
    an FDF forest (which has no depth limit)."""
    from dtcli.export import cards

    if getattr(model, "model_kind", None) == "fdf":
        return cards.fdf_diagram(model)
    reason = too_big(model, max_depth)
    if reason:
        raise ParameterError(reason)
    return cards.tree_diagram(model, title, max_depth)


def draw(model, output_format: str = "svg", title: str | None = None,
         max_depth: int | None = None, decision: dict | None = None) -> str:
    """The model's picture as an SVG document or a self-contained HTML page, noting the
    decision threshold (`decision`, a model file's block; default the model's own)."""
    diagram = diagram_of(model, title, max_depth)
    return picture(diagram, output_format, decision or getattr(model, "decision_", None))


def picture(diagram, output_format: str, decision: dict | None) -> str:
    """A diagram as SVG or HTML, with a note of the decision threshold if there is one."""
    from dtcli.export import html, svg
    from dtcli.measures.fitted import describe

    if decision is not None:
        diagram.notes.append(describe(decision))
    return svg.render(diagram) if output_format == "svg" else html.page(diagram)


def model_svg(model, max_depth: int | None = None, tree: int | None = None) -> str:
    """`to_svg()` of an estimator: its tree, its FDF forest, or a random forest's tree."""
    model._check_fitted()
    if hasattr(model, "estimators_"):
        if tree is None or not 0 <= tree < len(model.estimators_):
            raise ParameterError(f"a forest draws one tree: give tree=I, 0 to "
                                 f"{len(model.estimators_) - 1}")
        return draw(model.estimators_[tree], "svg", f"tree {tree} of a forest of "
                    f"{len(model.estimators_)} {model.criterion} trees", max_depth)
    if tree is not None:
        raise ParameterError("tree=I applies to forests only")
    return draw(model, "svg", max_depth=max_depth)


def notebook_svg(model) -> str | None:
    """`_repr_svg_`: the picture of a fitted tree or FDF forest, else None (also for a
    tree too big to draw: the notebook then shows its repr)."""
    if hasattr(model, "estimators_") or not (hasattr(model, "tree_")
                                             or hasattr(model, "forest_")):
        return None
    if hasattr(model, "tree_") and too_big(model, None):
        return None
    return draw(model, "svg")
