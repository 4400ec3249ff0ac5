"""One if-then rule per leaf, in depth-first order."""
from __future__ import annotations

from dtcli.export.describe import class_counts, majority, split_test, walk


def render(model) -> str:
    tree = model.tree_
    lines = []
    for node, _, path in walk(model):
        if tree.children_left[node] >= 0:
            continue
        conditions = " and ".join(split_test(model, parent, left) for parent, left in path)
        lines.append(f"if {conditions or 'true'} then {majority(model, node)}"
                     f"  [{class_counts(model, node)}]")
    return "\n".join(lines) + "\n"
