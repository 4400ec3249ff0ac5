"""A fitted model as a picture: `export -f svg` / `-f html`, `to_svg()`, `_repr_svg_`."""
from __future__ import annotations

PICTURE_FORMATS = ("svg", "html")


def diagram_of(model, title: str | None = None, max_depth: int | None = None):
    """The `svg.Diagram` of a tree (a DecisionTreeClassifier or a forest's tree) or of
    an FDF forest (which has no depth limit)."""
    from dtcli.export import cards

    if getattr(model, "model_kind", None) == "fdf":
        return cards.fdf_diagram(model)

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
    from dtcli.errors import ParameterError

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
    """`_repr_svg_`: the picture of a fitted tree or FDF forest, else None."""
    fitted = hasattr(model, "tree_") or hasattr(model, "forest_")
    return draw(model, "svg") if fitted and not hasattr(model, "estimators_") else None
