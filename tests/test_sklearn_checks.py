"""scikit-learn's own estimator checks (`check_estimator`), one test per check.

scikit-learn is a test-only dependency; the estimator never imports it (its
`__sklearn_tags__` does, and only scikit-learn calls that).
"""
import warnings

import pytest

from dtcli import DecisionTreeClassifier

pytest.importorskip("sklearn")
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

# The check fits with class_weight {0: 1000, 1: 0.0001} on noisy, overlapping blobs and
# wants over 87% of the test rows predicted 0. It sets min_weight_fraction_leaf=0.01
# when the estimator has it: with that, scikit-learn's tree scores 100%; without it,
# scikit-learn's tree scores 44% and dtree's 48%, as any unpruned tree must: every
# training row ends in a pure leaf, whatever the weights. dtree's engine has no
# leaf-weight rule yet. Strict: the check's passing will fail this test, to remove it.
NEEDS_MIN_WEIGHT_FRACTION_LEAF = {
    "check_class_weight_classifiers": "needs min_weight_fraction_leaf (an engine stop rule)",
}


with warnings.catch_warnings():
    # It follows the estimator protocol without deriving from scikit-learn's BaseEstimator,
    # which would make scikit-learn a dependency.
    warnings.filterwarnings("ignore", "Estimator DecisionTreeClassifier does not inherit")
    every_check = parametrize_with_checks(
        [DecisionTreeClassifier()],
        expected_failed_checks=lambda _: NEEDS_MIN_WEIGHT_FRACTION_LEAF, xfail_strict=True)


@every_check
def test_sklearn_estimator_check(estimator, check):
    check(estimator)
