"""The pruning methods by name, and what a method may use of the fit.

The estimator hands a method a `FitContext` (its rows, and a way to grow a tree
from them with other row weights) and the estimator parameters the method names;
the method returns the tree and a record of what it did (stored in the model
file). A new method is one entry of `METHODS`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from dtcli.errors import ParameterError
from dtcli.pruning import cost_complexity as ccp
from dtcli.pruning.reduced_error import check_folds, pruning_counts, prune_reduced_error
from dtcli.pruning.risk import RISKS, weighted_node_risk
from dtcli.engine.tree import Tree


@dataclass(frozen=True)
class FitContext:
    X: np.ndarray  # float64 encoded features
    y: np.ndarray  # class codes
    weights: np.ndarray  # the fit's row weights (ones when none were given)
    is_nominal: np.ndarray
    criterion: str
    criterion_params: dict | None
    seed: int
    # grow(weights, test=None): a tree from these row weights (None: the fit's), its
    # splits tested in the growth step by `test` (builder.grow's; S-pruning's)
    grow: Callable[..., Tree]
    n_threads: int

    def folds(self, k: int):
        """k stratified folds of the rows of non-zero weight: (train, test) index arrays."""
        from dtcli.sampling.folds import stratified_kfold

        rows = np.flatnonzero(self.weights > 0)
        return [(rows[train], rows[test])
                for train, test in stratified_kfold(self.y[rows], k, self.seed)]

    def without(self, rows: np.ndarray) -> np.ndarray:
        weights = self.weights.copy()
        weights[rows] = 0.0
        return weights


@dataclass(frozen=True)
class Method:
    params: tuple[str, ...]  # the estimator parameters it reads
    check: Callable[[dict], None]  # ParameterError for a bad value, before any data is read
    run: Callable[[FitContext, dict], tuple[Tree, dict]]


AUTO_ALPHAS = ("auto", "auto-1se")
RPART_CP = 0.01  # rpart.control's default cp


def effective_ccp_alpha(pruning: str | None, ccp_alpha, cp=None):
    """The command line's ccp_alpha when none was given: 'auto' for ccp pruning without a
    cp, else the estimator's default 0."""
    if ccp_alpha is not None:
        return ccp_alpha
    return "auto" if pruning == "ccp" and cp is None else 0.0


def _risk(fit: FitContext, tree: Tree, risk: str) -> tuple[np.ndarray, float]:
    """The nodes' risks in units of weight, and the root's weight (`weakest_links`)."""
    return (weighted_node_risk(tree.counts, fit.criterion, fit.criterion_params, risk),
            float(tree.counts[0].sum()))


def _is_number(value) -> bool:
    return (not isinstance(value, bool) and isinstance(value, (int, float))
            and math.isfinite(value) and value >= 0)


def _check_ccp(p: dict) -> None:
    alpha, cp = p["ccp_alpha"], p["cp"]
    if p["ccp_risk"] not in RISKS:
        raise ParameterError(f"ccp_risk must be one of {', '.join(RISKS)}, got {p['ccp_risk']!r}")
    if alpha not in AUTO_ALPHAS and not _is_number(alpha):
        raise ParameterError(f"ccp_alpha must be a number >= 0, 'auto' or 'auto-1se', "
                             f"got {alpha!r}")
    if cp is not None:
        if not _is_number(cp):
            raise ParameterError(f"cp must be a number >= 0, got {cp!r}")
        if alpha != 0:
            raise ParameterError(f"cp and ccp_alpha set one threshold in two units: give one "
                                 f"(ccp_alpha is {alpha!r}; with cp it must stay 0)")
    _check_folds(p)


def _check_rpart(p: dict) -> None:
    if p["cp"] is not None and not _is_number(p["cp"]):
        raise ParameterError(f"cp must be a number >= 0, got {p['cp']!r}")


def _rpart(fit: FitContext, p: dict) -> tuple[Tree, dict]:
    """rpart's own rule at cp (rpart_rule.py; rpart's default 0.01 where none is given),
    on the misclassified weight, as rpart prunes whatever the split criterion."""
    from dtcli.pruning.rpart_rule import prune_rpart

    cp = RPART_CP if p["cp"] is None else float(p["cp"])
    tree = fit.grow(None)
    return prune_rpart(tree, _risk(fit, tree, "error")[0], cp), {"cp": cp}


def _check_folds(p: dict) -> None:
    if p["pruning_folds"] is not None:
        check_folds(p["pruning_folds"], math.inf)


def _ccp(fit: FitContext, p: dict) -> tuple[Tree, dict]:
    alpha, risk, cp = p["ccp_alpha"], p["ccp_risk"], p["cp"]
    tree = fit.grow(None)
    r_node, total = _risk(fit, tree, risk)
    record = {"ccp_alpha": alpha, "ccp_risk": risk}
    if cp is not None:  # rpart's units: alpha relative to the root's risk R(root)
        alpha = cp * r_node[0] / total
        record.update(cp=cp, chosen_alpha=alpha)
    elif alpha in AUTO_ALPHAS:
        folds = check_folds(p["pruning_folds"] or 10, int((fit.weights > 0).sum()))
        alpha = choose_alpha_by_cv(fit, tree, (r_node, total), risk, folds,
                                   alpha == "auto-1se")
        record.update(pruning_folds=folds, chosen_alpha=alpha)
    return ccp.prune_ccp(tree, r_node, float(alpha), total), record


def choose_alpha_by_cv(fit: FitContext, tree: Tree, risks: tuple[np.ndarray, float],
                       risk: str, k: int, one_se: bool) -> float:
    """CART's choice of alpha (Breiman et al. 1984, ch. 3.4): the candidates of the whole
    tree's path (`candidate_alphas`; `risks` as `_risk` gives them), each scored by the
    weighted misclassification of k trees grown without one fold and pruned at it, on
    that fold."""
    alphas, _ = ccp.pruning_path(tree, *risks)
    candidates = ccp.candidate_alphas(alphas)
    errors = np.empty((k, candidates.shape[0]))
    for i, (_, test) in enumerate(fit.folds(k)):
        fold_tree = fit.grow(fit.without(test))
        fold_risk, fold_total = _risk(fit, fold_tree, risk)
        nodes, steps, _, _ = ccp.weakest_links(fold_tree, fold_risk, total=fold_total)
        cut_at = np.full(fold_tree.node_count, np.inf)
        cut_at[nodes] = steps[1:]
        leaves = fold_tree.apply(fit.X[test], fit.is_nominal, fit.n_threads)
        indptr, path = fold_tree.decision_path(leaves)
        # pruned at alpha, a path keeps the nodes whose ancestors (and themselves) are all
        # cut at a larger alpha: a prefix, as the least cut_at above a node only falls
        running = _least_above(fold_tree, cut_at)[path]
        length = np.diff(indptr)
        weight, truth = fit.weights[test], fit.y[test]
        for j, alpha in enumerate(candidates):
            kept = np.add.reduceat((running > alpha).astype(np.int64), indptr[:-1])
            node = path[indptr[:-1] + np.minimum(kept, length - 1)]
            wrong = fold_tree.node_class[node] != truth
            errors[i, j] = weight[wrong].sum() / weight.sum()
    return ccp.choose_alpha(errors, candidates, one_se)


def _least_above(tree: Tree, cut_at: np.ndarray) -> np.ndarray:
    """Per node, the least of cut_at over it and its ancestors."""
    least = cut_at.copy()
    for node in range(1, tree.node_count):  # parents before children
        least[node] = min(least[node], least[tree.parent[node]])
    return least


def _check_pessimistic(p: dict) -> None:
    from dtcli.pruning.pessimistic import check_confidence  # its walk is compiled: numba

    check_confidence(p["confidence"])
    if not isinstance(p["subtree_raising"], (bool, np.bool_)):
        raise ParameterError(f"subtree_raising must be True or False, got {p['subtree_raising']!r}")


def _pessimistic(fit: FitContext, p: dict) -> tuple[Tree, dict]:
    from dtcli.pruning.pessimistic import prune_pessimistic

    confidence = float(p["confidence"])
    tree = prune_pessimistic(fit.grow(None), fit.X, fit.y, fit.weights, fit.is_nominal,
                             confidence, bool(p["subtree_raising"]))
    return tree, {"confidence": confidence, "subtree_raising": bool(p["subtree_raising"])}


def _reduced_error(fit: FitContext, p: dict) -> tuple[Tree, dict]:
    folds = check_folds(p["pruning_folds"] or 3, int((fit.weights > 0).sum()))
    _, held_out = fit.folds(folds)[-1]  # J48 prunes on the last fold
    tree = fit.grow(fit.without(held_out))
    leaves = tree.apply(fit.X[held_out], fit.is_nominal, fit.n_threads)
    counts = pruning_counts(tree, leaves, fit.y[held_out], fit.weights[held_out])
    return prune_reduced_error(tree, counts), {"pruning_folds": folds}


def _check_significance(p: dict) -> None:
    from dtcli.pruning.significance import check_parameters

    check_parameters(p["significance"], p["permutations"], p["pruning_mode"])


def _s_pruning(fit: FitContext, p: dict) -> tuple[Tree, dict]:
    """PIDT's S-pruning (dtcli/pruning/significance.py): the tree grown with every split
    tested by the permutation test, a node whose split fails left a leaf; the record
    keeps each tested node's p-value (null for the others), per node."""
    from dtcli.pruning.significance import PermutationTest

    test = PermutationTest(float(p["significance"]), int(p["permutations"]),
                           p["pruning_mode"], fit.seed)
    tree = fit.grow(None, test)
    p_values = [None if np.isnan(v) else float(v) for v in test.p_values]
    return tree, {"significance": float(p["significance"]),
                         "permutations": int(p["permutations"]),
                         "pruning_mode": p["pruning_mode"], "p_values": p_values}


METHODS: dict[str, Method] = {
    "ccp": Method(("ccp_alpha", "cp", "ccp_risk", "pruning_folds"), _check_ccp, _ccp),
    "rpart": Method(("cp",), _check_rpart, _rpart),
    "pessimistic": Method(("confidence", "subtree_raising"), _check_pessimistic, _pessimistic),
    "reduced-error": Method(("pruning_folds",), _check_folds, _reduced_error),
    "s-pruning": Method(("significance", "permutations", "pruning_mode"), _check_significance,
                        _s_pruning),
}


def get(name: str) -> Method:
    try:
        return METHODS[name]
    except (KeyError, TypeError):
        raise ParameterError(f"pruning must be None or one of {', '.join(METHODS)}, "
                             f"got {name!r}") from None


def checked(name: str | None, params: dict) -> Method | None:
    """The method called `name` (None: no pruning), its parameters in `params` checked."""
    if name is None:
        return None
    method = get(name)
    method.check({k: params[k] for k in method.params})
    return method
