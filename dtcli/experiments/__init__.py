"""Experiments from Python: `dtcli.train`, `dtcli.evaluate`, `dtcli.compare` and
`dtcli.tune` (the library API the commands of the same names call), their result
objects, and what they share: datasets given as paths, `Dataset`s, (X, y) pairs or
DataFrames (`data.py`), and talk on stderr (`notes.py`).

Modules: `training.py`, `evaluation.py`, `comparison.py`, `tuning.py` run each experiment;
`results.py` holds what they return; `analyses.py` runs compare's analyses and
`dtree reproduce` (dtcli/analyses/) the same way.
"""
