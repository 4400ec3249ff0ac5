"""dtree: decision trees with the split criteria of the research literature.

`from dtcli import DecisionTreeClassifier` gives the scikit-learn-style
estimator; the command line (`dtree`) is a thin layer over it.
"""
from dtcli._version import __version__

__all__ = ["DecisionTreeClassifier", "FDFClassifier", "RandomForestClassifier", "__version__"]


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
    raise AttributeError(f"module 'dtcli' has no attribute {name!r}")
