"""Nominal splits keep only the categories they saw (tree.py): memory grows with the
data, not with rows x categories (issue 24: a 3.4 MB file asked for 37 GiB, a 3.7 MB
model made predict use 6 GB). Sizes of arrays are asserted, never time or RSS."""
from __future__ import annotations

import io
import json
import tracemalloc

import numpy as np
import pytest
from category_sets import dense_category_left
from click.testing import CliRunner

from dtcli import DecisionTreeClassifier
from dtcli.cli import cli
from dtcli.export import dot, rules, text
from dtcli.model import model_from_dict, model_to_dict
from dtcli.engine.tree import TREE_LEAF

N_ROWS, N_CATEGORIES = 100_000, 50_000


@pytest.fixture(scope="module")
def wide():
    """100,000 rows of a nominal feature of 50,000 categories (two rows each) and a
    numeric one; the class is a function of the category, flipped where x < 0.1."""
    rng = np.random.default_rng(0)
    category = np.arange(N_ROWS) % N_CATEGORIES
    x = rng.random(N_ROWS)
    y = (category * 7919 % 5 < 2) ^ (x < 0.1)
    X = np.column_stack([category.astype(np.float64), x])
    tracemalloc.start()
    model = DecisionTreeClassifier(criterion="gini", nominal_features=[0]).fit(X, y)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return model, X, y, peak


def nominal_splits(tree) -> np.ndarray:
    return np.flatnonzero((tree.children_left != TREE_LEAF) & np.isnan(tree.threshold))


def test_50000_categories_train_in_memory_of_the_rows(wide):
    model, X, y, peak = wide
    tree = model.tree_
    splits = nominal_splits(tree)
    assert splits.shape[0] >= 2
    # each nominal split lists at most its rows' categories; nothing else lists any
    listed = np.diff(tree.category_offsets)
    assert (listed[splits] <= tree.n_node_samples[splits]).all()
    assert listed.sum() == listed[splits].sum() == tree.category_codes.shape[0]
    assert listed[0] == N_CATEGORIES
    # what Python allocated while fitting (numpy arrays: the node store, the level
    # driver's sets) is a small fraction of rows x categories bytes (5e9)
    assert peak < N_ROWS * N_CATEGORIES / 50
    assert (model.predict(X) == y).all()


def test_50000_categories_predict_and_round_trip_in_files_of_their_size(wide):
    model, X, y, _ = wide
    text_ = json.dumps(model_to_dict(model))
    # '12345, ' and 'false, ' per listed category, '"12345", ' per category in the header
    assert len(text_) < (14 * model.tree_.category_codes.shape[0] + 10 * N_CATEGORIES
                         + 300 * model.tree_.node_count)
    loaded, _ = model_from_dict(json.loads(text_))
    unseen = X[:1000].copy()
    unseen[::3, 0] = N_CATEGORIES + 5  # unknown to the model: goes where missing values go
    unseen[1::3, 0] = np.nan
    np.testing.assert_array_equal(loaded.predict_proba(unseen), model.predict_proba(unseen))
    walk = loaded.tree_._walk(np.array([1, 0], np.uint8))
    assert sum(a.nbytes for a in walk.categories) <= 9 * model.tree_.category_codes.shape[0] + \
        8 * (model.tree_.node_count + 1)


def test_50000_categories_export_what_each_node_saw(wide):
    """Each nominal test lists the categories that reached its node, not the feature's
    50,000 at every node."""
    model, _, _, _ = wide
    tree = model.tree_
    name_size = max(len(c) for c in model.features_[0].categories) + 2  # "c, "
    listed = name_size * tree.category_codes.shape[0]
    everything = name_size * N_CATEGORIES * nominal_splits(tree).shape[0]
    for rendered in (dot.render(model), rules.render(model),
                     "\n".join(plain_text(text.render(model, "t")))):
        assert len(rendered) < 2 * listed + 100 * tree.node_count < everything
        assert model.features_[0].categories[int(tree.category_codes[0])] in rendered


def plain_text(renderable) -> list[str]:
    from rich.console import Console

    console = Console(width=200, record=True, color_system=None, file=io.StringIO())
    console.print(renderable)
    return [line.rstrip() for line in console.export_text().splitlines()]


def test_sparse_routing_equals_dense_routing_of_a_grown_tree():
    """Routing by the sparse sets (prediction) against the dense reconstruction, on
    random data with missing values, and rows with categories a node never saw."""
    rng = np.random.default_rng(5)
    n, k = 400, 40
    X = np.column_stack([rng.integers(0, k, n), rng.integers(0, 6, n), rng.normal(size=n)])
    X = X.astype(np.float64)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = rng.integers(0, 3, n)
    model = DecisionTreeClassifier(criterion="entropy", nominal_features=[0, 1]).fit(X, y)
    tree = model.tree_
    widths = [len(f.categories) for f in model.features_]
    dense = dense_category_left(tree, widths, [True, True, False])
    # category codes as Tree.apply takes them, some beyond the feature's categories
    rows = np.column_stack([rng.integers(-2, widths[0] + 3, 3000),
                            rng.integers(0, widths[1] + 2, 3000),
                            rng.normal(size=3000)]).astype(np.float64)
    rows[rng.random(rows.shape) < 0.15] = np.nan

    def dense_leaf(row):
        node = 0
        while tree.children_left[node] != TREE_LEAF:
            f, v = tree.feature[node], row[tree.feature[node]]
            if np.isnan(v):
                left = tree.missing_left[node] == 1
            elif f < 2:
                left = (dense[node, int(v)] == 1 if 0 <= v < widths[f]
                        else tree.missing_left[node] == 1)
            else:
                left = v <= tree.threshold[node]
            node = tree.children_left[node] if left else tree.children_right[node]
        return node

    expected = [dense_leaf(row) for row in rows]
    np.testing.assert_array_equal(tree.apply(rows, np.array([1, 1, 0], np.uint8)), expected)


def test_damaged_sparse_sets_are_refused_in_one_line(tmp_path, wide):
    model, _, _, _ = wide
    doc = model_to_dict(model)
    codes = doc["tree"]["category_codes"]
    codes[0], codes[1] = codes[1], codes[0]
    path = tmp_path / "damaged.json"
    path.write_text(json.dumps(doc))
    data = tmp_path / "rows.csv"
    data.write_text("x0,x1\n1,0.5\n")
    result = CliRunner().invoke(cli, ["predict", str(path), str(data)])
    assert result.exit_code == 1
    message = result.stderr.strip()
    assert "\n" not in message and "damaged model file" in message
    assert "increasing order" in message
