"""Ensembles of trees: random forests and bagging (forest.py), grown from one presort."""
