"""Evaluation: metrics, cross-validation folds and statistics for comparing classifiers.

The package is also callable: `dtcli.evaluate(data, method, cv=10, ...)` cross-validates
a method on a dataset (`dtcli.experiments.evaluation.evaluate`, whose name it shares).
"""
import sys
import types


class _CallablePackage(types.ModuleType):
    def __call__(self, *args, **kwargs):
        from dtcli.experiments.evaluation import evaluate

        return evaluate(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
