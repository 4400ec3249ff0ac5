"""The numba split engine: presorting, split search, tree growing, prediction.

Jitted kernels live in `presort`, `splitter`, `partition` and `predict`;
`builder` orchestrates them level by level from Python.
"""
