"""rpart's own cost-complexity rule (Therneau and Atkinson's rpart, partition.c): the
tree `rpart(..., cp = CP)` returns, from dtree's grown tree (`pruning="rpart"`).

rpart does not search the weakest-link sequence (cost_complexity.py, `pruning="ccp"`).
It gives each node a complexity while it grows, bottom-up, from its children's only:

    c(t) = (R(t) - R(T_t)) / splits(T_t),

where a child whose own complexity is smaller than that ratio is first collapsed (the
smaller of the two first, then the other if the ratio still exceeds its), so
a grandchild's weaker link is not seen; a split of complexity <= alpha = cp R(root) is
removed, its node a leaf. Before it splits a node rpart also stops where the node's
risk, or a bound its parent passes down, is already <= alpha. R is the misclassified
weight (rpart's risk for method = "class" with its default priors and losses).

Where a subtree's weakest link hides below a child, rpart keeps splits the exact
minimiser of R(T) + alpha |leaves| removes (yeast1: 13 leaves against rpart's 5 at the
default cp; docs/pruning.md). This module follows rpart, statement for statement.
"""
from __future__ import annotations

import numpy as np

from dtcli.pruning.compact import compact
from dtcli.engine.tree import TREE_LEAF, Tree


def complexities(tree: Tree, risk: np.ndarray, cp: float) -> tuple[np.ndarray, np.ndarray]:
    """(the nodes rpart at `cp` makes leaves, a mask; each node's complexity in units of
    weight, as partition() leaves it), from each node's misclassified weight `risk`
    (`risk.weighted_node_risk(..., "error")`). partition()'s recursion is a stack here
    (a tree may be deeper than Python's recursion): a node is visited on arrival, after
    its left subtree (whose result bounds its right son's) and after its right one."""
    left, right = tree.children_left.tolist(), tree.children_right.tolist()
    r = risk.tolist()
    n = len(left)
    alpha = cp * r[0]
    complexity = [0.0] * n
    collapsed = np.zeros(n, dtype=bool)
    bound = [0.0] * n  # partition()'s me->complexity on arrival: the parent's estimate
    tempcp = [0.0] * n
    kept_risk, kept_splits = [0.0] * n, [0] * n  # the node's subtree as rpart keeps it
    bound[0] = r[0]
    stack = [(0, 0)]  # (node, stage): 0 arriving, 1 left son done, 2 both done
    while stack:
        node, stage = stack.pop()
        a, b = left[node], right[node]
        if stage == 0:
            tempcp[node] = min(r[node], bound[node])
            if a == TREE_LEAF or tempcp[node] <= alpha:  # "can I quit now?"
                complexity[node] = alpha
                collapsed[node] = a != TREE_LEAF
                kept_risk[node], kept_splits[node] = r[node], 0
                continue
            bound[a] = tempcp[node] - alpha
            stack += [(node, 1), (a, 0)]
        elif stage == 1:
            estimate = max((r[node] - kept_risk[a]) / (kept_splits[a] + 1), r[node] - r[a])
            bound[b] = min(estimate, bound[node]) - alpha
            stack += [(node, 2), (b, 0)]
        else:
            complexity[node], kept_risk[node], kept_splits[node] = _complexity(
                r[node], (kept_risk[a], kept_splits[a], r[a], complexity[a]),
                (kept_risk[b], kept_splits[b], r[b], complexity[b]))
            if complexity[node] <= alpha:  # "all was in vain"
                collapsed[node] = True
                kept_risk[node], kept_splits[node] = r[node], 0
    return collapsed, np.array(complexity)


def _complexity(risk: float, left: tuple, right: tuple) -> tuple[float, float, int]:
    """partition()'s complexity of a node of `risk` whose sons are (kept risk, kept
    splits, own risk, complexity) each, the son of smaller complexity collapsed first
    where the ratio exceeds it; and the node's kept (risk, splits) if it stays a split."""
    left_risk, left_split, left_own, left_cp = left
    right_risk, right_split, right_own, right_cp = right
    ratio = (risk - (left_risk + right_risk)) / (left_split + right_split + 1)
    if right_cp > left_cp:
        if ratio > left_cp:  # the left son collapses first
            left_risk, left_split = left_own, 0
            ratio = (risk - (left_risk + right_risk)) / (left_split + right_split + 1)
            if ratio > right_cp:
                right_risk, right_split = right_own, 0
    elif ratio > right_cp:  # the right son first
        right_risk, right_split = right_own, 0
        ratio = (risk - (left_risk + right_risk)) / (left_split + right_split + 1)
        if ratio > left_cp:
            left_risk, left_split = left_own, 0
    complexity = (risk - (left_risk + right_risk)) / (left_split + right_split + 1)
    return complexity, left_risk + right_risk, left_split + right_split + 1


def prune_rpart(tree: Tree, risk: np.ndarray, cp: float) -> Tree:
    """The tree rpart returns at `cp` (see the module's docstring)."""
    return compact(tree, complexities(tree, risk, cp)[0])


def cp_table(tree: Tree, risk: np.ndarray) -> list[tuple[float, int, float]]:
    """rpart's cp table of the tree grown at cp = 0 (`fit$cptable`): (CP, nsplit, rel
    error) rows, CP falling. Each node's complexity at cp 0, capped by its parent's
    (fix_cp), in units of the root's risk; a row's tree keeps the splits whose capped
    complexity exceeds its CP (prune.rpart's rule)."""
    collapsed, complexity = complexities(tree, risk, 0.0)
    parent = tree.parent
    capped = complexity / risk[0]
    split = tree.children_left != TREE_LEAF
    for node in range(1, tree.node_count):  # parents before children
        capped[node] = min(capped[node], capped[parent[node]])
        # below a split rpart removed, or that split itself: no split of the table
        if collapsed[parent[node]] or not split[parent[node]]:
            collapsed[node] = True
    split &= ~collapsed
    rows = []
    for cp in sorted(set(capped[split].tolist()) | {0.0}, reverse=True):
        kept = split & (capped > cp)
        reached = np.ones(tree.node_count, dtype=bool)
        reached[1:] = kept[parent[1:]]
        leaves = reached & ~kept
        rows.append((cp, int(kept.sum()), float(risk[leaves].sum() / risk[0])))
    return rows
