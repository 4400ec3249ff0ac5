"""Node risks for cost-complexity pruning: R(t) = p(t) r(t), the node's share of the
training weight times its impurity (Breiman et al. 1984, ch. 3; scikit-learn's
`weighted_n_node_samples[t] / total * impurity[t]`).

`r(t)` is the criterion's own impurity where it has one (the registry's
`Criterion.node_impurity`: gini, entropy and the parameterised impurities, with
the same parameters and units as the split search, entropy in nats), and the
misclassification error 1 - max_k p_k for criteria that score a split by
something else (gain ratios, DCSM, the Hellinger family), or whenever
`risk="error"` asks for it.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from dtcli.errors import ParameterError

RISKS = ("impurity", "error")


def has_impurity(criterion: str) -> bool:
    """Whether `criterion` scores splits by an impurity decrease (then its impurity is the
    default risk)."""
    from dtcli import criteria

    return criteria.get(criterion).node_impurity is not None


def node_impurity(value: np.ndarray, criterion: str, params: Mapping[str, float] | None = None,
                  risk: str = "impurity") -> np.ndarray:
    """r(t) of every node from its class counts `value` (nodes x classes)."""
    from dtcli import criteria

    if risk not in RISKS:
        raise ParameterError(f"ccp_risk must be one of {', '.join(RISKS)}, got {risk!r}")
    totals = value.sum(axis=1, keepdims=True)
    p = np.divide(value, totals, out=np.zeros_like(value), where=totals > 0)
    if risk == "error" or not has_impurity(criterion):
        return 1.0 - p.max(axis=1)
    spec = criteria.get(criterion)
    vector = spec.param_vector(params)
    named = {param.name: float(vector[i]) for i, param in enumerate(spec.params)}
    return np.maximum(spec.node_impurity(p, named), 0.0)


def weighted_node_risk(value: np.ndarray, criterion: str,
                       params: Mapping[str, float] | None = None,
                       risk: str = "impurity") -> np.ndarray:
    """weight(t) r(t) of every node: for the misclassification error, the weight outside
    the node's majority class, computed without a division so that it is exact for
    integer weights (`cost_complexity.weakest_links` compares its ties exactly)."""
    if risk == "error" or (risk in RISKS and not has_impurity(criterion)):
        return value.sum(axis=1) - value.max(axis=1)
    return value.sum(axis=1) * node_impurity(value, criterion, params, risk)


def node_risk(value: np.ndarray, criterion: str, params: Mapping[str, float] | None = None,
              risk: str = "impurity") -> np.ndarray:
    """R(t) = weight(t) / weight(root) * r(t) of every node."""
    return weighted_node_risk(value, criterion, params, risk) / value[0].sum()
