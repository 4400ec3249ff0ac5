"""What `train` shows on a terminal instead of the model's JSON (as Weka's J48 and R's
rpart show a tree): its top levels, titled with the criterion and the target column."""
from __future__ import annotations

PREVIEW_DEPTH = 4  # levels of splits shown; `dtree export` shows the whole tree


def tree_title(doc: dict) -> str:
    """'gini tree for class: 17 nodes', with the criterion's parameters; from a model
    document (a model file's content), and its pruning and leaf estimate if any."""
    from dtcli.export.describe import pruning_note

    params = doc["criterion"]["params"]
    name = doc["criterion"]["name"] + (
        "(" + ", ".join(f"{k}={v:g}" for k, v in params.items()) + ")" if params else "")
    return (f"{name} tree for {doc.get('target')}{pruning_note(doc)}: "
            f"{doc['tree']['node_count']} nodes")


def print_tree_preview(model, doc: dict) -> None:
    """The tree down to PREVIEW_DEPTH on the terminal (stdout), each deeper subtree one
    line giving its size, as `dtree export --max-depth` shows it."""
    from rich.console import Console

    from dtcli.export import text

    Console(highlight=False).print(text.render(model, tree_title(doc), PREVIEW_DEPTH))
