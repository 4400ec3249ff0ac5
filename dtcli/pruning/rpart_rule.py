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
    (`risk.weighted_node_risk(..., "error")`)."""
    left, right = tree.children_left.tolist(), tree.children_right.tolist()
    r = risk.tolist()
    alpha = cp * r[0]
    complexity = [0.0] * len(left)
    collapsed = np.zeros(len(left), dtype=bool)

    def partition(node: int, bound: float) -> tuple[float, int]:
        """(risk of the node's kept subtree, its number of splits): partition()."""
        tempcp = min(r[node], bound)
        if left[node] == TREE_LEAF or tempcp <= alpha:
            complexity[node] = alpha
            collapsed[node] = left[node] != TREE_LEAF
            return r[node], 0
        a, b = left[node], right[node]
        left_risk, left_split = partition(a, tempcp - alpha)
        estimate = max((r[node] - left_risk) / (left_split + 1), r[node] - r[a])
        right_risk, right_split = partition(b, min(estimate, bound) - alpha)
        ratio = (r[node] - (left_risk + right_risk)) / (left_split + right_split + 1)
        if complexity[b] > complexity[a]:
            if ratio > complexity[a]:  # the left son collapses first
                left_risk, left_split = r[a], 0
                ratio = (r[node] - (left_risk + right_risk)) / (left_split + right_split + 1)
                if ratio > complexity[b]:
                    right_risk, right_split = r[b], 0
        elif ratio > complexity[b]:  # the right son first
            right_risk, right_split = r[b], 0
            ratio = (r[node] - (left_risk + right_risk)) / (left_split + right_split + 1)
            if ratio > complexity[a]:
                left_risk, left_split = r[a], 0
        complexity[node] = (r[node] - (left_risk + right_risk)) / (left_split + right_split + 1)
        if complexity[node] <= alpha:  # "all was in vain"
            collapsed[node] = True
            return r[node], 0
        return left_risk + right_risk, left_split + right_split + 1

    partition(0, r[0])
    return collapsed, np.array(complexity)


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
