"""C4.5 as Weka's J48 builds it: multiway nominal splits, fractional weights for missing
values, the MDL-corrected gain and J48's minimum split sizes, collapse, pessimistic
pruning with subtree raising (docs/c45.md).

Plain numpy, outside the numba engine, whose binary splits and missing-value routing
cannot express J48's trees. Modules: split (a node's split), grow (growing, collapse,
pruning), tree (the fitted arrays and J48's prediction), text (J48's printout),
estimator (J48Classifier), model_file (the model file's "c45" kind)."""
from dtcli.c45.estimator import J48Classifier

__all__ = ["J48Classifier"]
