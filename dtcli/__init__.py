"""dtree: decision trees with the split criteria of the research literature.

`from dtcli import DecisionTreeClassifier` gives the scikit-learn-style
estimator; `dtcli.train`, `dtcli.evaluate`, `dtcli.compare` and `dtcli.tune` run the
experiments of the commands of those names, on methods `Tree`, `Forest`, `FDF`, `Preset` (j48,
rpart) and `Tuned` (or the --criteria strings), `dtcli.skew_sweep`, `dtcli.frontier`
and `dtcli.reproduce` the analyses of `compare --imbalance`, `compare --frontier` and
`reproduce`; the command line (`dtree`) is a thin layer over them.
"""
from dtcli._version import __version__

__all__ = ["DecisionTreeClassifier", "FDF", "FDFClassifier", "Forest", "Preset",
           "RandomForestClassifier", "Tree", "Tuned", "__version__", "compare", "evaluate",
           "frontier", "reproduce", "skew_sweep", "train", "tune"]

_METHODS = ("Tree", "Forest", "FDF", "Preset", "Tuned")


def __getattr__(name):
    # Imported lazily so that `dtree --help` does not load numba.
    if name == "DecisionTreeClassifier":
        from dtcli.estimator import DecisionTreeClassifier

        return DecisionTreeClassifier
    if name == "FDFClassifier":
        from dtcli.fdf.estimator import FDFClassifier

        return FDFClassifier
    if name == "RandomForestClassifier":
        from dtcli.ensemble.forest import RandomForestClassifier

        return RandomForestClassifier
    if name == "train":
        from dtcli.experiments.training import train

        return train
    if name == "evaluate":
        from dtcli.experiments.evaluation import evaluate

        return evaluate
    if name == "compare":
        from dtcli.experiments.comparison import compare

        return compare
    if name == "tune":
        from dtcli.experiments.tuning import tune

        return tune
    if name in ("skew_sweep", "frontier", "reproduce"):
        from dtcli.experiments import analyses

        return getattr(analyses, name)
    if name in _METHODS:
        from dtcli.crossval import methods

        return getattr(methods, name)
    raise AttributeError(f"module 'dtcli' has no attribute {name!r}")
