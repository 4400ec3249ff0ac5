"""Tuning parameters by cross-validation: grids (`grid`), grid search and its nested
assessment (`search`), a tuned estimator (`estimator`), the tuned methods of `evaluate`
and `compare` (`methods`), what `tune` prints (`report`) and what a model file records
(`record`).

`TunedClassifier` is imported on first use: the command line imports `grid` to build
its help, which must not load numpy."""

__all__ = ["TunedClassifier"]


def __getattr__(name: str):
    if name == "TunedClassifier":
        from dtcli.tuning.estimator import TunedClassifier

        return TunedClassifier
    raise AttributeError(f"module 'dtcli.tuning' has no attribute {name!r}")
