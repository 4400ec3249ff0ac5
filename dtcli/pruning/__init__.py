"""Pruning: passes over a grown tree that turn some split nodes into leaves.

Every method computes a mask of the split nodes that become leaves (its own
rule: a significance test, a cost-complexity threshold, an error estimate),
and `compact` copies the nodes that remain into a new, smaller tree, as
scikit-learn's pruning does. A fitted tree's arrays are never changed.
"""
from dtcli.pruning.compact import compact

__all__ = ["compact"]
