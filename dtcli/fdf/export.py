"""An FDF forest as if-then rules and as tree diagrams.

A rule is the conditions from a tree's root to a node where some training sample's
rule ended: its support is the training rows matching it (the subset T of the
paper), its class distribution T's class counts, its conclusion T's majority class;
`rules N` counts the training samples whose own rule it is. The forest's trees are
the rules grouped by the attribute of their first condition (paper, step 6).
"""
from __future__ import annotations

import numpy as np
from rich.console import Group
from rich.text import Text
from rich.tree import Tree as RichTree

from dtcli.export.describe import condition, number


def _children(forest) -> list[list[int]]:
    children = [[] for _ in forest.parent]
    for node in range(1, len(forest.parent)):
        children[forest.parent[node]].append(node)
    return children


def _ordered(forest, nodes) -> list[int]:
    return sorted(nodes, key=lambda n: (forest.feature[n], forest.value[n]))


def _distribution(model, counts) -> str:
    return "[" + ", ".join(f"{model.classes_[k]}: {number(c)}"
                           for k, c in enumerate(counts) if c > 0) + "]"


def _conclusion(model, node: int) -> str:
    forest = model.forest_
    return (f"{model.classes_[int(np.argmax(forest.counts[node]))]}  (support "
            f"{number(forest.counts[node].sum())}, rules {forest.n_rules[node]})")


def rules(model) -> str:
    """One line per rule, tree by tree, depth first."""
    forest = model.forest_
    children = _children(forest)
    lines = []
    if forest.n_rules[0]:
        lines.append(f"if true then {_conclusion(model, 0)}  "
                     f"{_distribution(model, forest.counts[0])}")
    stack = [(n, []) for n in reversed(_ordered(forest, children[0]))]
    while stack:
        node, path = stack.pop()
        path = path + [condition(model, forest.feature[node], forest.value[node])]
        if forest.n_rules[node]:
            lines.append(f"if {' and '.join(path)} then {_conclusion(model, node)}  "
                         f"{_distribution(model, forest.counts[node])}")
        stack.extend((child, path) for child in reversed(_ordered(forest, children[node])))
    return "".join(line + "\n" for line in lines)


def text(model) -> Group:
    """One diagram per tree: each node's condition and class counts; a node where
    rules end shows their conclusion after an arrow."""
    forest = model.forest_
    children = _children(forest)
    roots = _ordered(forest, children[0])
    trees = []
    for i, feature in enumerate(dict.fromkeys(forest.feature[n] for n in roots), start=1):
        diagram = RichTree(Text(f"tree {i}: {model.features_[feature].name}", style="bold"))
        stack = [(n, diagram) for n in reversed(roots) if forest.feature[n] == feature]
        while stack:
            node, parent = stack.pop()
            label = Text(condition(model, forest.feature[node], forest.value[node]), style="bold")
            label.append(f"  {_distribution(model, forest.counts[node])}")
            if forest.n_rules[node]:
                label.append(f"  → {_conclusion(model, node)}")
            branch = parent.add(label)
            stack.extend((child, branch) for child in reversed(_ordered(forest, children[node])))
        trees.append(diagram)
    if forest.n_rules[0]:
        trees.append(Text(f"no condition: {_conclusion(model, 0)}"))
    return Group(*trees)


def write(model, doc: dict, output_format: str, output: str, max_depth) -> None:
    """`dtree export` of an FDF model: rules, text, json, svg or html (a forest has no
    dot form)."""
    import json

    from dtcli.atomic import open_output
    from dtcli.errors import ParameterError
    from dtcli.export.describe import decision_comment

    if output_format == "dot" or max_depth is not None:
        raise ParameterError(f"{'-f dot' if output_format == 'dot' else '--max-depth'} does "
                             "not apply to an FDF model; use -f rules, text, json, svg or html")
    with open_output(output) as handle:
        if output_format == "json":
            handle.write(json.dumps(doc, indent=1) + "\n")
        elif output_format == "rules":
            handle.write(decision_comment(doc) + rules(model))
        elif output_format in ("svg", "html"):
            from dtcli.export.pictures import draw

            handle.write(draw(model, output_format, decision=doc.get("decision")))
        else:
            handle.write(decision_comment(doc))
            from rich.console import Console

            to_terminal = output == "-" and handle.isatty()
            Console(file=handle, highlight=False, force_terminal=to_terminal,
                    width=None if to_terminal else 10_000).print(text(model))
