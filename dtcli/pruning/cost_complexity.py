"""Minimal cost-complexity pruning (Breiman et al. 1984, ch. 3; scikit-learn's
`cost_complexity_pruning_path` and `ccp_alpha`).

R_alpha(T) = R(T) + alpha |leaves(T)|, R(T) the sum of its leaves' risks
(`risk.node_risk`). Weakest-link pruning repeatedly turns into a leaf the
internal node t of smallest

    g(t) = (R(t) - R(T_t)) / (|leaves(T_t)| - 1),

ties to the smallest node id, as scikit-learn does; the path lists alpha = 0
and the g of every such step, with the total leaf risk after it. Pruning at
`ccp_alpha` applies the steps with g <= ccp_alpha.

Equal costs must compare equal, or a tie decides by rounding which of two
equally weak links goes (iris, pruned at exactly 1/150, kept 7 leaves where
rpart keeps 4). So the risks may be given in units of weight, weight(t) r(t),
with `total` the root's weight: the misclassified weight is then an exact
integer for unweighted data, and each g is one division of exact integers,
correctly rounded, so two equal fractions give the same float. The alpha a
user gives is compared with a relative tolerance of `TIE` (1e-10), as cp
0.01 x 100 / 150 need not round as 1 / 150 does.

scikit-learn recomputes every g at each step (time nodes x steps). Here a heap
holds lower bounds: pruning below t only raises g(t) (the pruned branch had the
smallest g, so removing its share of leaves and risk leaves t's ratio no
smaller), so an entry whose node's g has grown since is pushed back with the
new g and the first entry that is still current is the weakest link.
"""
from __future__ import annotations

import heapq

import numpy as np

from dtcli.pruning.compact import compact
from dtcli.engine.tree import TREE_LEAF, Tree

TIE = 1e-10  # relative: a step whose g is within this of the alpha given is applied


def weakest_links(tree: Tree, r_node: np.ndarray, max_alpha: float = np.inf,
                  total: float = 1.0):
    """The weakest-link steps in order, while g <= max_alpha (up to `TIE`): (nodes,
    alphas, impurities, n_leaves), where alphas[0] = 0, impurities[0] and n_leaves[0]
    are the unpruned tree's total leaf risk and leaf count, and step i turns nodes[i]
    into a leaf at alphas[i + 1], leaving impurities[i + 1] and n_leaves[i + 1].
    `r_node` is each node's risk in units of `total`: R(t) with total 1, or weight(t) r(t)
    with total the root's weight (`risk.weighted_node_risk`, exact ties); alphas and
    impurities are in R(t)'s units (shares of the root's weight) either way."""
    left = tree.children_left.tolist()
    right = tree.children_right.tolist()
    parent = tree.parent.tolist()
    r = r_node.tolist()
    n = len(left)
    r_branch = [0.0] * n
    leaves = [0] * n
    for node in range(n - 1, -1, -1):  # children have larger ids than their parent
        if left[node] == TREE_LEAF:
            r_branch[node], leaves[node] = r[node], 1
        else:
            a, b = left[node], right[node]
            r_branch[node] = r_branch[a] + r_branch[b]
            leaves[node] = leaves[a] + leaves[b]
    # depth-first positions: a subtree (2 leaves - 1 nodes in a binary tree) is the run
    # of positions after its root's, so cutting it below a node marks one slice
    position = [0] * n
    for node in range(n):
        if left[node] != TREE_LEAF:
            position[left[node]] = position[node] + 1
            position[right[node]] = position[node] + 2 * leaves[left[node]]
    below = [2 * k - 2 for k in leaves]  # nodes below each node
    removed = bytearray(n)  # by position: below a node turned into a leaf
    ones = b"\x01" * n
    heap = [((r[t] - r_branch[t]) / (total * (leaves[t] - 1)), t)
            for t in range(n) if left[t] != TREE_LEAF]
    limit = max_alpha * (1 + TIE)
    heapq.heapify(heap)
    nodes, alphas, impurities, n_leaves = [], [0.0], [r_branch[0] / total], [leaves[0]]
    while heap:
        alpha, t = heap[0]
        if leaves[t] == 1 or removed[position[t]]:
            heapq.heappop(heap)
            continue
        now = (r[t] - r_branch[t]) / (total * (leaves[t] - 1))
        if now > alpha:
            heapq.heapreplace(heap, (now, t))
            continue
        alpha = now
        if alpha > limit:
            break
        heapq.heappop(heap)
        first = position[t] + 1
        removed[first:first + below[t]] = ones[:below[t]]
        lost, gained = leaves[t] - 1, r[t] - r_branch[t]
        leaves[t], r_branch[t] = 1, r[t]
        node = parent[t]
        while node != TREE_LEAF:
            leaves[node] -= lost
            r_branch[node] += gained
            node = parent[node]
        nodes.append(t)
        alphas.append(alpha)
        impurities.append(r_branch[0] / total)
        n_leaves.append(leaves[0])
    return (np.array(nodes, dtype=np.int64), np.array(alphas), np.array(impurities),
            np.array(n_leaves, dtype=np.int64))


def pruning_path(tree: Tree, r_node: np.ndarray,
                 total: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """(ccp_alphas, impurities), as scikit-learn's cost_complexity_pruning_path: the
    effective alphas of the weakest-link steps (0 first) and the total leaf risk of
    the tree after each (`r_node` and `total` as for `weakest_links`)."""
    _, alphas, impurities, _ = weakest_links(tree, r_node, total=total)
    return alphas, impurities


def model_links(model):
    """`weakest_links` of a fitted DecisionTreeClassifier's tree, the node risk as its
    criterion and `ccp_risk` say, in units of weight (exact ties)."""
    from dtcli.pruning.risk import weighted_node_risk

    counts = model.tree_.counts
    risk = weighted_node_risk(counts, model.criterion, model.criterion_params, model.ccp_risk)
    return weakest_links(model.tree_, risk, total=float(counts[0].sum()))


def prune_ccp(tree: Tree, r_node: np.ndarray, ccp_alpha: float, total: float = 1.0) -> Tree:
    """The smallest minimising subtree at `ccp_alpha`: every weakest-link step with
    g <= ccp_alpha (up to `TIE`) applied."""
    nodes = weakest_links(tree, r_node, max_alpha=ccp_alpha, total=total)[0]
    make_leaf = np.zeros(tree.node_count, dtype=bool)
    make_leaf[nodes] = True
    return compact(tree, make_leaf)


def candidate_alphas(alphas: np.ndarray) -> np.ndarray:
    """Breiman's choice of the alphas to cross-validate: the geometric mean of each
    interval of the path's distinct alphas (ch. 3.4.2), and the last alpha (the root)."""
    distinct = np.unique(alphas)
    return np.append(np.sqrt(distinct[:-1] * distinct[1:]), distinct[-1])


def choose_alpha(errors: np.ndarray, candidates: np.ndarray, one_se: bool) -> float:
    """The candidate of least mean cross-validated error (`errors`: folds x candidates,
    each fold's misclassified weight share; among equal least errors, the largest
    candidate: the simplest tree); with `one_se`, the largest candidate
    whose mean error is within one standard error of that least (CART's 1-SE rule,
    ch. 3.4.3; rpart's `xerror + xstd`)."""
    mean = errors.mean(axis=0)
    # the simplest tree among equal errors, as rpart's which.min over its cp table
    best = int(np.flatnonzero(mean <= mean.min() + 1e-12).max())
    if not one_se:
        return float(candidates[best])
    folds = errors.shape[0]
    se = errors[:, best].std(ddof=1) / np.sqrt(folds) if folds > 1 else 0.0
    within = np.flatnonzero(mean <= mean[best] + se + 1e-12)
    return float(candidates[within.max()])
