"""A run's tree options (crossval.tasks.TreeOptions) are generated from the estimator's
parameter declaration: a new estimator parameter is a tree option of evaluate, compare
and tune without being declared again."""
import dataclasses
import pickle

from dtcli.crossval.tree_options import RESAMPLING, TreeOptions
from dtcli.estimator import DecisionTreeClassifier

# The options in the order results files and compare's JSON have written them since
# before TreeOptions was generated (tests/data/compare_before_batch.json's era), with
# rpart's cp (issue 35) after ccp_alpha.
WRITTEN = ["max_depth", "min_samples_split", "min_samples_leaf", "min_gain",
           "min_weight_fraction_leaf", "class_weight", "pruning", "ccp_alpha", "cp", "ccp_risk",
           "confidence", "subtree_raising", "pruning_folds", "significance", "permutations",
           "pruning_mode", "leaf_estimate", "m"]


def test_the_options_are_the_estimator_s_parameters_in_the_written_order():
    assert list(TreeOptions().estimator_params()) == WRITTEN
    assert [f.name for f in dataclasses.fields(TreeOptions)] == WRITTEN + list(RESAMPLING)
    assert set(WRITTEN) <= set(DecisionTreeClassifier.PARAMS)


def test_defaults_are_the_estimator_s_but_ccp_alpha_which_is_auto_for_ccp():
    tree = DecisionTreeClassifier().get_params()
    options = TreeOptions()
    assert {name: getattr(options, name) for name in WRITTEN if name != "ccp_alpha"} == \
        {name: tree[name] for name in WRITTEN if name != "ccp_alpha"}
    assert options.ccp_alpha is None and tree["ccp_alpha"] == 0.0
    assert TreeOptions(pruning="ccp").estimator_params()["ccp_alpha"] == "auto"


def test_options_are_frozen_hashable_and_pickle_by_name():
    one = TreeOptions(class_weight={"b": 2.0, "a": 1.0}, min_samples_leaf=3)
    assert one == TreeOptions(class_weight={"a": 1.0, "b": 2.0}, min_samples_leaf=3)
    assert hash(one) == hash(TreeOptions(class_weight={"a": 1.0, "b": 2.0}, min_samples_leaf=3))
    assert one.class_weight == (("a", 1.0), ("b", 2.0))
    assert pickle.loads(pickle.dumps(one)) == one  # what worker processes receive
    assert TreeOptions.__module__ == "dtcli.crossval.tree_options"
    try:
        one.max_depth = 3
    except dataclasses.FrozenInstanceError:
        pass
    else:
        raise AssertionError("TreeOptions is not frozen")


def test_only_options_away_from_their_defaults_enter_a_task_key_after_the_first_four():
    assert TreeOptions().identity() == {"max_depth": None, "min_samples_split": 2,
                                        "min_samples_leaf": 1, "min_gain": 0.0}
    assert TreeOptions(m=4.0, imbalance=2.0).identity() == {
        "max_depth": None, "min_samples_split": 2, "min_samples_leaf": 1, "min_gain": 0.0,
        "m": 4.0, "imbalance": 2.0}
