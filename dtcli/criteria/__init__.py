"""Split criteria: `registry` names them, `kernels` computes them."""
from dtcli.criteria.registry import CRITERIA, Criterion, Param, get, resolve, score

__all__ = ["CRITERIA", "Criterion", "Param", "get", "resolve", "score"]
