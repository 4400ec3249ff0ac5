"""Tuning parameters by cross-validation: grids (`grid`), grid search and its nested
assessment (`search`), a tuned estimator (`estimator`), the tuned methods of `evaluate`
and `compare` (`methods`), what `tune` prints (`report`) and what a model file records
(`record`)."""
from dtcli.tuning.estimator import TunedClassifier

__all__ = ["TunedClassifier"]
