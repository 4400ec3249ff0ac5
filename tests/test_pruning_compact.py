"""compact: the nodes below a node made a leaf go, the rest keep their order and counts."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dtcli.pruning import compact
from dtcli.engine.tree import TREE_LEAF, Tree


def _chain_tree() -> Tree:
    """root 0 -> (1, 2); 1 -> (3, 4); 2 -> (5, 6); 3 -> (7, 8): ids in breadth order."""
    left = np.array([1, 3, 5, 7, -1, -1, -1, -1, -1])
    right = np.array([2, 4, 6, 8, -1, -1, -1, -1, -1])
    split = left != TREE_LEAF
    value = np.array([[8, 8], [6, 2], [2, 6], [5, 1], [1, 1], [2, 0], [0, 6], [5, 0], [0, 1]],
                     dtype=np.float64)
    return Tree(children_left=left, children_right=right,
                feature=np.where(split, np.arange(9) % 2, -2),
                threshold=np.where(split, np.arange(9) + 0.5, np.nan),
                missing_left=split.astype(np.uint8),
                counts=value, n_node_samples=value.sum(axis=1).astype(np.int64),
                score=np.where(split, 0.1, np.nan))


def test_cutting_node_1_removes_its_subtree():
    tree = _chain_tree()
    pruned = compact(tree, np.eye(9, dtype=bool)[1])
    # kept: 0, 1 (now a leaf), 2, 5, 6 -> new ids 0..4
    assert pruned.children_left.tolist() == [1, -1, 3, -1, -1]
    assert pruned.children_right.tolist() == [2, -1, 4, -1, -1]
    assert pruned.counts.tolist() == [[8, 8], [6, 2], [2, 6], [2, 0], [0, 6]]
    assert pruned.feature.tolist() == [0, -2, 0, -2, -2]
    assert np.isnan(pruned.threshold[1]) and np.isnan(pruned.score[1])
    assert pruned.missing_left[1] == 0
    assert tree.node_count == 9  # the input is untouched


def test_nothing_marked_gives_the_same_tree_and_root_gives_a_stump():
    tree = _chain_tree()
    same = compact(tree, np.zeros(9, dtype=bool))
    for name in Tree.ARRAYS:
        np.testing.assert_array_equal(getattr(same, name), getattr(tree, name))
    assert compact(tree, np.eye(9, dtype=bool)[0]).node_count == 1


@settings(max_examples=50, deadline=None)
@given(st.lists(st.booleans(), min_size=9, max_size=9))
def test_leaf_counts_still_partition_the_root(marks):
    pruned = compact(_chain_tree(), np.array(marks))
    leaves = pruned.children_left == TREE_LEAF
    np.testing.assert_array_equal(pruned.counts[leaves].sum(axis=0), [8, 8])
    parents = np.flatnonzero(~leaves)
    assert (pruned.children_left[parents] > parents).all()
    assert (pruned.counts[pruned.children_left[parents]] + pruned.counts[pruned.children_right[parents]]
            == pruned.counts[parents]).all()


def test_mask_of_the_wrong_length_is_refused():
    with pytest.raises((ValueError, IndexError)):
        compact(_chain_tree(), np.zeros(3, dtype=bool))
