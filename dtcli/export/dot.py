"""Graphviz DOT source; render with `dot -Tsvg tree.dot -o tree.svg`."""
from __future__ import annotations

from dtcli.export.describe import class_counts, majority, split_test


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def render(model) -> str:
    tree = model.tree_
    lines = ["digraph tree {", '  node [shape=box, style="rounded", fontname="Helvetica"];',
             '  edge [fontname="Helvetica"];']
    for node in range(tree.node_count):
        label = f"{majority(model, node)}\n{class_counts(model, node)}\nn = {tree.n_node_samples[node]}"
        shape = "" if tree.children_left[node] >= 0 else ", style=\"rounded,filled\", fillcolor=\"#eeeeee\""
        lines.append(f"  n{node} [label={_quote(label)}{shape}];")
        if tree.children_left[node] >= 0:
            for child, left in ((tree.children_left[node], True), (tree.children_right[node], False)):
                lines.append(f"  n{node} -> n{child} [label={_quote(split_test(model, node, left))}];")
    lines.append("}")
    return "\n".join(lines) + "\n"
