"""The numba split engine: presorting, split search, tree growing, prediction.

Jitted kernels live in `presort`, `splitter`, `level`, `subtree`, `partition`
and `predict`; `builder` prepares data once (`prepare`) and grows trees from it
(`grow`); `rng` draws reproducible random numbers; `cache` says where compiled
kernels are kept and `warm` compiles them ahead, on all cores.
"""
