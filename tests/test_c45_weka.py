"""dtree's C4.5 against Weka's J48 itself (3.6.14, Debian's package): the golden files
in tests/golden/weka/ were made by its make.sh, which ran J48 on the datasets in
tests/data/weka/. Trees are compared as J48 prints them, line for line (structure,
thresholds, each leaf's weight and errors to J48's two decimals); predictions to J48's
three decimals; cross-validation fold by fold on Weka's own folds."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from dtcli.c45 import J48Classifier
from dtcli.c45.estimator import declared_order
from dtcli.c45.tree import weka_argmax
from dtcli.io import load_dataset

HERE = Path(__file__).parent
GOLDEN = HERE / "golden" / "weka"
DATA = HERE / "data" / "weka"
# ecoli1 and ecoli3: hold-out files (tests/data/holdout), whose tie leaves J48 labels
# by the declared class order
DATASETS = ("iris", "breast-cancer", "diabetes", "glass", "vote", "labor", "new-thyroid1",
            "yeast-2_vs_4", "ecoli1", "ecoli3")
OPTIONS = {"default": {}, "U": {"pruning": None}, "S": {"subtree_raising": False},
           "B": {"binary_splits": True}, "A": {"leaf_estimate": "laplace"},
           "C0.1-M5": {"confidence": 0.1, "min_samples_leaf": 5},
           "C0.4-M1-B-S": {"confidence": 0.4, "min_samples_leaf": 1, "binary_splits": True,
                           "subtree_raising": False}}

_datasets: dict = {}


def dataset(name: str):
    if name not in _datasets:
        _datasets[name] = load_dataset(str(DATA / f"{name}.arff"))
    return _datasets[name]


_fits: dict = {}


def fitted(name: str, opts: str) -> J48Classifier:
    if (name, opts) not in _fits:
        _fits[name, opts] = J48Classifier(**OPTIONS[opts]).fit_dataset(dataset(name))
    return _fits[name, opts]


@pytest.mark.parametrize("opts", ["default", "U", "S", "B", "C0.1-M5", "C0.4-M1-B-S"])
@pytest.mark.parametrize("name", DATASETS)
def test_tree_equals_j48s(name, opts):
    golden = (GOLDEN / "trees" / f"{name}.{opts}.txt").read_text()
    assert fitted(name, opts).text().strip() == golden.strip()


def _weka_predictions(path: Path):
    """J48 -p 0 -distribution: (predicted class index, distribution) per row; the
    distribution is the last field, its predicted class marked with a star (labels
    are cut to 8 characters and may hold spaces)."""
    predicted, distributions = [], []
    for line in path.read_text().splitlines()[1:]:
        cells = line.split()[-1].split(",")
        predicted.append(next(k for k, cell in enumerate(cells) if cell.startswith("*")))
        distributions.append([float(cell.lstrip("*")) for cell in cells])
    return np.array(predicted), np.array(distributions)


@pytest.mark.parametrize("opts", ["default", "U", "A"])
@pytest.mark.parametrize("name", DATASETS)
def test_training_predictions_equal_j48s(name, opts):
    """Missing values (vote, breast-cancer, labor) go down every branch with fractional
    weights; -A gives the leaves Laplace estimates. The labels `predict` gives are J48's,
    ties included (ecoli1 unpruned: 34 rows on leaves of 17 against 17, which J48 calls
    positive, the class its file declares first)."""
    model = fitted(name, opts)
    predicted, distributions = _weka_predictions(GOLDEN / "predictions" / f"{name}.{opts}.txt")
    proba = model.tree_.proba(dataset(name).X, laplace=opts == "A")  # J48's class order
    np.testing.assert_allclose(proba, distributions, atol=0.0005 + 1e-9)
    assert list(weka_argmax(proba)) == list(predicted)
    labels = model.classes_[model.predicted_index(model.proba_from_matrix(dataset(name).X))]
    assert list(labels) == list(model.tree_classes_[predicted])


def test_predict_and_the_printed_tree_agree_on_ties(tmp_path):
    """`dtree predict` of a J48 model file labels ecoli1's tie leaves as the printed
    tree does, and as Weka: positive, the declared first class, not dtree's sorted
    first (negative)."""
    from click.testing import CliRunner

    from dtcli.cli import cli

    path, model_path = str(DATA / "ecoli1.arff"), str(tmp_path / "j48.json")
    runner = CliRunner()
    train = runner.invoke(cli, ["train", path, "--preset", "j48", "--pruning", "none", "-q",
                                "-o", model_path])
    assert train.exit_code == 0, train.stderr
    result = runner.invoke(cli, ["predict", model_path, path, "--no-output-header"])
    assert result.exit_code == 0, result.stderr
    predicted, _ = _weka_predictions(GOLDEN / "predictions" / "ecoli1.U.txt")
    assert result.stdout.split() == [["positive", "negative"][k] for k in predicted]
    assert "Mcg <= 0.74: positive (34.0/17.0)" in fitted("ecoli1", "U").text()


@pytest.mark.parametrize("name", DATASETS)
def test_cross_validation_equals_j48s_on_its_folds(name):
    """Weka's 10 stratified folds (seed 1): each fold's tree predicts each test row as
    J48's did, so the accuracy is J48's -x 10 figure."""
    data = dataset(name)
    classes, y = declared_order(data)
    rows = np.loadtxt(GOLDEN / "folds" / f"{name}.txt", dtype=np.int64, ndmin=2)
    fold, test_row, weka_class = rows[:, 0], rows[:, 1] - 1, rows[:, 2]
    correct = 0
    for k in range(1, 11):
        test = test_row[fold == k]
        train = np.setdiff1d(np.arange(data.X.shape[0]), test)
        model = J48Classifier()._fit_encoded(data.X[train], y[train], data.features, classes)
        ours = weka_argmax(model.proba_from_matrix(data.X[test]))
        assert list(ours) == list(weka_class[fold == k]), f"fold {k}"
        correct += int((ours == y[test]).sum())
    summary = (GOLDEN / "folds" / f"{name}.cv.txt").read_text()
    weka_correct = int(re.search(r"Correctly Classified Instances\s+(\d+)", summary).group(1))
    assert correct == weka_correct


def test_grown_over_the_declared_classes_scored_over_the_datasets():
    """glass declares 7 classes, one without rows, in another order than dtree's sorted
    six: the tree is J48's (7 classes: its minimum split size), predict_proba's columns
    are the dataset's classes."""
    data, model = dataset("glass"), fitted("glass", "default")
    assert list(model.classes_) == list(data.classes) and len(model.tree_classes_) == 7
    weka = model.tree_.proba(data.X)
    column = [list(model.tree_classes_).index(label) for label in data.classes]
    np.testing.assert_array_equal(model.proba_from_matrix(data.X), weka[:, column])
