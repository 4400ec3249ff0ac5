"""`dtree export` of a J48 model: `-f text` prints the tree as J48 prints it, `-f json`
the model file, `-f svg`, `html`, `dot` and `rules` draw its multiway tree
(dtcli/c45/drawing.py)."""
from __future__ import annotations

import json

from dtcli.errors import ParameterError


def write(model, doc: dict, output_format: str, output: str, max_depth) -> None:
    from dtcli.atomic import open_output
    from dtcli.c45 import drawing
    from dtcli.export.describe import decision_comment

    if max_depth is not None:
        raise ParameterError("--max-depth is not available for J48 models (the html page "
                             "folds subtrees)")
    if output_format == "json":
        text = json.dumps(doc, indent=1) + "\n"
    elif output_format in ("svg", "html"):
        from dtcli.export.pictures import MAX_PICTURE_NODES, picture

        if model.tree_.node_count > MAX_PICTURE_NODES:
            raise ParameterError(f"a picture of {model.tree_.node_count} nodes is too big to "
                                 f"draw (at most {MAX_PICTURE_NODES}): export the J48 tree as "
                                 "text, rules or dot")
        text = picture(drawing.diagram(model), output_format, doc.get("decision"))
    elif output_format == "dot":
        text = drawing.dot(model)
    elif output_format == "rules":
        text = drawing.rules(model)
    else:
        text = model.text()
    if output_format in ("rules", "text"):
        text = decision_comment(doc) + text
    with open_output(output) as handle:
        handle.write(text)
