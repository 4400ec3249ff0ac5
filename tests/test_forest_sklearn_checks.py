"""scikit-learn's estimator checks for RandomForestClassifier, one test per check."""
import warnings

import pytest

from dtcli import RandomForestClassifier

pytest.importorskip("sklearn")
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

EXPECTED = {
    # as for scikit-learn's own forests: a bootstrap sample of weighted rows is not one
    # of repeated rows (the draws differ)
    "check_sample_weight_equivalence_on_dense_data":
        "bootstrap samples of weights and of repeated rows differ",
}

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", "Estimator RandomForestClassifier does not inherit")
    every_check = parametrize_with_checks(
        [RandomForestClassifier(n_estimators=5, random_state=0)],
        expected_failed_checks=lambda _: EXPECTED, xfail_strict=True)


@every_check
def test_sklearn_estimator_check(estimator, check):
    check(estimator)
