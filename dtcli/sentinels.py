"""The tree arrays' sentinels, scikit-learn's, fixed by the model format: in a module of
their own, below the tree model (engine/tree.py) and the kernels (engine/predict.py),
which both read them, so that neither imports the other for them."""

TREE_LEAF = -1  # children_left / children_right of a leaf
TREE_UNDEFINED = -2  # feature and threshold of a leaf
