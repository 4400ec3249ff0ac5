"""One if-then rule per leaf, in depth-first order.

Each condition says which side takes the missing values ("(or missing)";
unseen nominal values count as missing), so the rules route every row
exactly as the tree does.
"""
from __future__ import annotations

from dtcli.export.describe import class_counts, majority, split_test, walk


def render(model) -> str:
    tree = model.tree_
    lines = []
    for node, _, path in walk(model):
        if tree.children_left[node] >= 0:
            continue
        conditions = " and ".join(split_test(model, parent, left, missing=True)
                                  for parent, left in path)
        lines.append(f"if {conditions or 'true'} then {majority(model, node)}"
                     f"  [{class_counts(model, node)}]")
    return "\n".join(lines) + "\n"
