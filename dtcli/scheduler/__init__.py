"""A Dask scheduler: its address, the probe that asks whether it answers, and the
connection; used by the forests and by cross-validation (Dask is an optional extra)."""
