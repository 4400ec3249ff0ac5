"""`-f sql`: one SELECT scoring every row of a table, in SQL that SQLite and DuckDB both run.

A WITH chain of simple steps, each reading the one before: the first walks every
tree LEVEL_DEPTH splits down from its root (nested CASE WHEN on the table's own
columns, quoted), each further step LEVEL_DEPTH more from the node reached (SQLite's
parser refuses CASE nested about 20 deep, and subqueries nested about as deep, so
neither nests); `_dtree_proba` adds each class's probability (`proba_<class>`, as
`dtree predict --proba` names it) from the leaves reached, in dtree's order
(flat.py), so that the doubles are dtree's; the final SELECT adds the `prediction`,
the first class of highest probability. Columns named by `keep` are copied before
the prediction, as in `dtree predict --keep`.

Nominal columns are compared as text (`IN ('a', 'b')`); a missing value is NULL and
goes where the tree sends it (`IS NULL`); a category the node does not list goes
the same way.
"""
from __future__ import annotations

import json

from dtcli._version import __version__
from dtcli.export.flat import FlatLists, FlatModel, FlatTree

LEVEL_DEPTH = 8  # splits per query level (class _Walk)


def quote_identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def quote_text(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def number(x: float) -> str:
    """A SQL literal reading back as the same double (repr: shortest round trip)."""
    text = repr(float(x))
    return text if "e" in text or "." in text else text + ".0"


def render(model: FlatModel, table: str = "data", keep: tuple = ()) -> str:
    kept = [quote_identifier(k) for k in keep]
    probas = [quote_identifier(f"proba_{c}") for c in model.classes]
    walks = [_Walk(tree, model) for tree in model.trees]
    n_levels = max(w.n_levels for w in walks)
    steps, source = [], quote_identifier(table)
    for level in range(n_levels):
        columns = ",\n    ".join(["*"] + [f"{w.step(t, level)} AS {_node(t, level)}"
                                        for t, w in enumerate(walks)])
        steps.append(f"{_level(level)} AS (\n  SELECT\n    {columns}\n  FROM {source}\n)")
        source = _level(level)
    last = n_levels - 1
    sums = ",\n    ".join(kept + [f"{_class_sum(model, walks, k, last)} AS {probas[k]}"
                                  for k in range(len(model.classes))])
    steps.append(f'"_dtree_proba" AS (\n  SELECT\n    {sums}\n  FROM {source}\n)')
    outer = ", ".join(kept + [f"{_argmax(model, probas)} AS \"prediction\""] + probas)
    return (f"-- A {model.kind} exported by dtree {__version__} (dtree export -f sql)\n"
            f"-- input table: {quote_identifier(table)}\n"
            f"-- kept columns: {json.dumps(list(keep))}\n"
            + ("" if model.decision is None else f"-- prediction: {model.label_rule()}\n")
            + "WITH " + ",\n".join(steps) + f"\nSELECT {outer}\nFROM \"_dtree_proba\";\n")


def _level(level: int) -> str:
    return quote_identifier(f"_dtree_level_{level}")


def _node(tree: int, level: int) -> str:
    return quote_identifier(f"_dtree_node_{tree}_{level}")


class _Walk:
    """One tree's walk, LEVEL_DEPTH splits per query level: level 0 takes a row from the
    root to its node LEVEL_DEPTH levels down (or its leaf), each further level from there
    on (a CASE on the node reached, then nested CASE WHEN), so no CASE nests deeper than
    LEVEL_DEPTH (SQLite's parser refuses about 20)."""

    def __init__(self, flat: FlatTree, model: FlatModel):
        self.tree, self.model = flat.lists(), model
        tree = self.tree
        depth = [0] * len(tree.is_leaf)
        for i, leaf in enumerate(tree.is_leaf):  # pre-order: parents first
            if not leaf:
                depth[tree.true_child[i]] = depth[tree.false_child[i]] = depth[i] + 1
        self.depth = depth
        self.n_levels = max(1, -(-max(depth) // LEVEL_DEPTH))

    def step(self, index: int, level: int) -> str:
        if level == 0:
            return self._nest(0, LEVEL_DEPTH, 4)
        here = _node(index, level - 1)
        starts = [i for i, leaf in enumerate(self.tree.is_leaf)
                  if self.depth[i] == level * LEVEL_DEPTH and not leaf]
        if not starts:
            return here
        cases = " ".join(f"WHEN {i} THEN {self._nest(i, LEVEL_DEPTH, 4)}" for i in starts)
        return f"CASE {here} {cases} ELSE {here} END"

    def _nest(self, node: int, levels: int, indent: int) -> str:
        tree = self.tree
        if tree.is_leaf[node] or levels == 0:
            return str(node)
        pad = " " * (indent + 2)
        return (f"CASE WHEN {_condition(tree, self.model, node)}\n{pad}THEN "
                f"{self._nest(tree.true_child[node], levels - 1, indent + 2)}\n{pad}ELSE "
                f"{self._nest(tree.false_child[node], levels - 1, indent + 2)} END")


def _condition(tree: FlatLists, model: FlatModel, node: int) -> str:
    """The SQL condition under which a row goes to `node`'s true child."""
    feature = model.features[tree.feature[node]]
    column = quote_identifier(feature.name)
    if tree.codes[node]:
        listed = ", ".join(quote_text(feature.categories[c]) for c in tree.codes[node])
        return f"{column} IN ({listed})"
    t = float(tree.threshold[node])
    present = f"{column} IS NOT NULL" if t == float("inf") else f"{column} <= {number(t)}"
    return f"({present} OR {column} IS NULL)" if tree.missing_true[node] else present


def _leaf_value(tree: FlatLists, column: str, k: int) -> str:
    leaves = [i for i, leaf in enumerate(tree.is_leaf) if leaf]
    if len(leaves) == 1:
        return number(tree.proba[leaves[0]][k])
    cases = " ".join(f"WHEN {i} THEN {number(tree.proba[i][k])}" for i in leaves)
    return f"(CASE {column} {cases} END)"


def _class_sum(model: FlatModel, walks: list, k: int, level: int) -> str:
    """Class k's probability: the trees' leaf values added in dtree's order, left to right
    (no nesting: SQLite's parser limits it)."""
    groups = ["(" + " + ".join(_leaf_value(walks[t].tree, _node(t, level), k) for t in group)
              + ")" for group in model.tree_groups()]
    return f"({' + '.join(groups)}) / {number(len(model.trees))}"


def _argmax(model: FlatModel, probas: list[str]) -> str:
    """CASE naming the first class whose probability no later class beats, or for a
    model with a decision threshold the positive class where its probability reaches it."""
    labels = [quote_text(c) for c in model.classes]
    if model.decision is not None:
        positive, threshold = model.decision
        return (f"CASE WHEN {probas[positive]} >= {number(threshold)} THEN {labels[positive]} "
                f"ELSE {labels[1 - positive]} END")
    cases = []
    for k in range(len(labels) - 1):
        tests = " AND ".join(f"{probas[k]} >= {probas[j]}" for j in range(k + 1, len(labels)))
        cases.append(f"WHEN {tests} THEN {labels[k]}")
    return f"CASE {' '.join(cases)} ELSE {labels[-1]} END" if cases else labels[0]
