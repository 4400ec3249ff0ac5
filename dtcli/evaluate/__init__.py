"""Evaluation: metrics, cross-validation folds and statistics for comparing classifiers."""
