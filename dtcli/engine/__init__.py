"""The numba split engine: presorting, split search, tree growing, prediction.

Jitted kernels live in `presort`, `splitter`, `level`, `subtree`, `partition`,
`nodes` and `predict`; `searches` hands each criterion's compiled searches to the
drivers, which are compiled once for all criteria; `forms` lists what a
configuration compiles and `warm` compiles it ahead, on all cores; `builder`
prepares data once (`prepare`) and grows trees from it (`grow`); `rng` draws
reproducible random numbers. The numba support itself (flags, the disk cache,
calls by address, threads) is in dtcli/jit.
"""
