"""Each criterion's kernel and code: what the engine compiles for a registry entry.

The registry (registry.py) says what a criterion is, in pure Python, so that listing
the criteria, checking a parameter or loading a model imports no numba. Here each
entry's name gets its kernel (the scoring functions of its family module, as a
kernels.Kernel) and its code: an int, the only member of an IntEnum class generated
for it, which carries the kernel (numba types an IntEnum member by its class: the
engine is compiled once per criterion, with its kernel inlined). The classes live in
this module, where numba's cache index and worker processes find them again by name.
`registry.Criterion.code` and `.kernel` read them on first use.
"""
from __future__ import annotations

from enum import IntEnum

from dtcli.criteria import dcsm, hellinger, impurity
from dtcli.criteria.impurity import impurity_decrease, tsallis_gain_ratio
from dtcli.criteria.kernels import ByForm, Kernel

# Every registry entry's kernel, by name (tests/test_criteria_params.py checks that the
# names are the registry's and that each kernel is written in its entry's family).
KERNELS: dict[str, Kernel] = {
    "gini": impurity_decrease(impurity.gini),
    "entropy": impurity_decrease(impurity.entropy),
    "gain-ratio": tsallis_gain_ratio(impurity.order_one),
    "tsallis": impurity_decrease(impurity.tsallis),
    "tsallis-gain-ratio": tsallis_gain_ratio(impurity.order_q),
    "renyi": impurity_decrease(impurity.renyi),
    "pe": impurity_decrease(impurity.pe),
    "pg": impurity_decrease(impurity.pg, pair_mass=impurity.pg_pair),
    "pt": impurity_decrease(impurity.pt),
    "pr": impurity_decrease(impurity.pr),
    "ge": impurity_decrease(impurity.ge),
    "abi": impurity_decrease(impurity.abi),
    "dcsm": Kernel(dcsm.dcsm_node_term,
                   ByForm(dcsm.dcsm_split_score_pair, dcsm.dcsm_split_score_many)),
    "hddt": Kernel(hellinger.hddt_node_term, hellinger.hddt_split_score,
                   finish=hellinger.hellinger_distance),
    "ccpdt": Kernel(hellinger.ccpdt_node_term, hellinger.ccpdt_split_score,
                    hellinger.ccpdt_tie_score, hellinger.CCP_TIE_BOUND),
    "ihd": Kernel(hellinger.ihd_node_term, hellinger.inter_node_score(False)),
    "ihdw": Kernel(hellinger.ihd_node_term, hellinger.inter_node_score(True)),
}


def _code(value: int, name: str) -> IntEnum:
    """The code of criterion `name`: `value`, the only member of a class of its own
    carrying the criterion's kernel."""
    class_name = "".join(part.capitalize() for part in name.split("-")) + "Code"
    code_class = IntEnum(class_name, {name.upper().replace("-", "_"): value},
                         module=__name__, qualname=class_name)
    code_class.kernel = KERNELS[name]
    globals()[class_name] = code_class
    return code_class(value)


# A criterion's code is its position here.
CODES: dict[str, IntEnum] = {name: _code(value, name) for value, name in enumerate(KERNELS)}
