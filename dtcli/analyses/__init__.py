"""Analyses built on the runner, its folds and Demsar's statistics (dtcli/crossval, dtcli/stats):
the skew sweep (skew.py), the pruning frontier (frontier.py), and their plots (plot.py).
Each takes prepared datasets and method specs and returns a small result with `to_json()`.
"""
