"""What `train` shows on a terminal instead of the model's JSON (as Weka's J48 and R's
rpart show a tree): its top levels, titled with the criterion and the target column."""
from __future__ import annotations

PREVIEW_DEPTH = 4  # levels of splits shown; `dtree export` shows the whole tree


def tree_title(doc: dict) -> str:
    """'gini tree for class: 17 nodes', with the criterion's parameters; from a model
    document (a model file's content)."""
    params = doc["criterion"]["params"]
    name = doc["criterion"]["name"] + (
        "(" + ", ".join(f"{k}={v:g}" for k, v in params.items()) + ")" if params else "")
    return f"{name} tree for {doc.get('target')}: {doc['tree']['node_count']} nodes"


def print_tree_preview(model, doc: dict) -> None:
    """The tree down to PREVIEW_DEPTH on the terminal (stdout), deeper nodes counted."""
    from rich.console import Console

    from dtcli.export import text

    diagram = text.render(model, tree_title(doc))
    for root in diagram.children:
        _cut_below(root, PREVIEW_DEPTH)
    Console(highlight=False).print(diagram)


def _cut_below(branch, depth: int) -> None:
    from rich.text import Text

    if depth > 0:
        for child in branch.children:
            _cut_below(child, depth - 1)
    elif branch.children:
        hidden = _count(branch) - 1
        branch.children = []
        branch.add(Text(f"... {hidden} more nodes", style="dim"))


def _count(branch) -> int:
    return 1 + sum(_count(child) for child in branch.children)
