"""Pruning: passes over a grown tree that turn some split nodes into leaves.

Every method computes a mask of the split nodes that become leaves (its own
rule: a significance test, a cost-complexity threshold, an error estimate),
and `compact` copies the nodes that remain into a new, smaller tree, as
scikit-learn's pruning does. A fitted tree's arrays are never changed.

`methods.METHODS` maps the estimator's `pruning=` names to the passes:
cost_complexity (CART, scikit-learn's ccp_alpha), rpart_rule (R rpart's own
cp rule, whose bottom-up complexities are not the weakest-link sequence),
pessimistic (C4.5 / J48, whose walk with subtree raising is compiled in
`raising`), reduced_error (J48 -R); `risk` gives cost-complexity its node risks.
S-pruning (significance, permutation) is no pass: its test runs inside the
growth step, so the subtree of a node that fails is never grown.
docs/pruning.md describes them.
"""
from dtcli.pruning.compact import compact

__all__ = ["compact"]
