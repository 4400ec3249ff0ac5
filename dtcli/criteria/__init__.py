"""Split criteria: `registry` defines each in one entry; `impurity`, `dcsm` and
`hellinger` compute them by family, `counts` gives their functions of counts and
`kernels` lets the engine call a criterion's functions by its code."""
from dtcli.criteria.registry import CRITERIA, Criterion, Param, get, score

__all__ = ["CRITERIA", "Criterion", "Param", "get", "score"]
