"""Each impurity criterion's impurity of a node, from its class proportions (numpy).

Cost-complexity pruning's node risk r(t) is the criterion's own impurity
(pruning/risk.py): these are the impurities whose decrease the split search
maximises, with the same parameters and units (entropy in nats), written for
rows of class proportions p (nodes x classes) and the criterion's parameters
by name. The registry names each criterion's function (`Criterion.node_impurity`).
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

Params = Mapping[str, float]


def _powers(p: np.ndarray, exponent: float) -> np.ndarray:
    return np.where(p > 0, p ** exponent, 0.0)


def _shannon(p):
    return -np.sum(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0), axis=1)


def _gini(p):
    return 1.0 - np.sum(p * p, axis=1)


def _tsallis(p, q):
    return _shannon(p) if q == 1.0 else (1.0 - _powers(p, q).sum(axis=1)) / (q - 1.0)


def _renyi(p, gamma):
    if gamma == 1.0:
        return _shannon(p)
    return np.log(np.maximum(_powers(p, gamma).sum(axis=1), 1e-300)) / (1.0 - gamma)


# tsallis-unified-criterion.txt, eq. (1); parameterised-impurities-s-pruning.txt, eq. (3)-(10)
def gini(p, v: Params):
    return _gini(p)


def entropy(p, v: Params):
    return _shannon(p)


def tsallis(p, v: Params):
    return _tsallis(p, v["q"])


def renyi(p, v: Params):
    return _renyi(p, v["gamma"])


def pe(p, v: Params):
    return _shannon(p) ** v["alpha"]


def pg(p, v: Params):
    return _gini(p) ** v["alpha"]


def pt(p, v: Params):
    return _tsallis(p, v["gamma"]) ** v["alpha"]


def pr(p, v: Params):
    return np.maximum(_renyi(p, v["gamma"]), 0.0) ** v["alpha"]


def ge(p, v: Params):
    return _gini(p) ** v["alpha"] + _shannon(p) ** v["beta"]


def abi(p, v: Params):
    return np.sum(_powers(p, v["alpha"]) * _powers(1.0 - p, v["beta"]), axis=1)
