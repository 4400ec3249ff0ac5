"""scikit-learn's own estimator checks (`check_estimator`), one test per check.

scikit-learn is a test-only dependency; the estimator never imports it (its
`__sklearn_tags__` does, and only scikit-learn calls that).
"""
import warnings

import pytest

from dtcli import DecisionTreeClassifier

pytest.importorskip("sklearn")
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

with warnings.catch_warnings():
    # It follows the estimator protocol without deriving from scikit-learn's BaseEstimator,
    # which would make scikit-learn a dependency.
    warnings.filterwarnings("ignore", "Estimator DecisionTreeClassifier does not inherit")
    every_check = parametrize_with_checks([DecisionTreeClassifier()])


@every_check
def test_sklearn_estimator_check(estimator, check):
    check(estimator)
