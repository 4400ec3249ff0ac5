"""`--folds weka`: Weka 3.6's stratified cross-validation folds (sampling/weka_folds.py),
checked against Weka itself through the golden files of tests/golden/weka/make.sh
(the test rows of each of StratifiedRemoveFolds -S 1's ten folds, and J48 -x 10 -s 1's
summary), and java.util.Random against values Java 17 printed."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from dtcli.sampling.folds import repeat_folds
from dtcli.sampling.weka_folds import JavaRandom, weka_folds
from dtcli.io import load_dataset

HERE = Path(__file__).parent
GOLDEN = HERE / "golden" / "weka" / "folds"
DATA = HERE / "data" / "weka"
DATASETS = ("iris", "breast-cancer", "diabetes", "glass", "vote", "labor", "new-thyroid1",
            "yeast-2_vs_4", "ecoli1", "ecoli3")


def test_java_random_is_javas():
    """new Random(1).nextInt(b) for these bounds in turn, and new Random(0).nextInt(
    1500000001) (whose draws are often rejected and drawn again), as Java printed them."""
    bounds = [10, 7, 1000, 16, 2147483647, 1500000000, 3, 100]
    random = JavaRandom(1)
    assert [random.next_int(bounds[i % 8]) for i in range(16)] == [
        5, 4, 847, 6, 446064254, 77814904, 2, 6, 8, 6, 569, 2, 2069540317, 342691263, 0, 34]
    random = JavaRandom(0)
    assert [random.next_int(1500000001) for _ in range(8)] == [
        516548029, 1302116447, 1368843515, 663681053, 1182054491, 251269761, 1283218719,
        715581077]


def _weka_correct(name: str) -> int:
    summary = (GOLDEN / f"{name}.cv.txt").read_text()
    return int(re.search(r"Correctly Classified Instances\s+(\d+)", summary).group(1))


@pytest.mark.parametrize("name", DATASETS)
def test_the_folds_are_wekas(name):
    y = load_dataset(str(DATA / f"{name}.arff")).y
    rows = np.loadtxt(GOLDEN / f"{name}.txt", dtype=np.int64, ndmin=2)
    folds = weka_folds(y, 10, 1)
    for ours, repeated in zip(folds, repeat_folds(y, 10, 0, 1, "weka")):  # seed 0, repeat 1
        assert all(np.array_equal(a, b) for a, b in zip(ours, repeated))
    for k, (train, test) in enumerate(folds):
        assert list(test) == sorted(rows[rows[:, 0] == k + 1, 1] - 1)
        assert np.array_equal(np.sort(np.concatenate([train, test])), np.arange(len(y)))


@pytest.mark.parametrize("name", ["iris", "vote", "glass", "ecoli1"])
def test_j48_on_wekas_folds_scores_as_weka(name):
    """`evaluate(..., folds="weka", seed=1)` of J48 is J48 -x 10 -s 1: the confusion
    matrix summed over the folds holds Weka's count of correctly classified rows (vote:
    missing values; glass: a declared class without rows; ecoli1: tie leaves)."""
    import dtcli

    doc = dtcli.evaluate(str(DATA / f"{name}.arff"), "j48", cv=10, seed=1, folds="weka",
                         jobs=1, quiet=True).document
    assert doc["folds"] == "weka"
    assert int(np.trace(np.array(doc["confusion_matrix"]))) == _weka_correct(name)


def test_folds_weka_on_the_command_line_and_its_refusals(tmp_path):
    from dtcli.cli import cli

    path = str(DATA / "ecoli3.arff")
    runner = CliRunner()
    result = runner.invoke(cli, ["evaluate", path, "--preset", "j48", "--folds", "weka",
                                 "--seed", "1", "-j", "1", "-f", "json", "-q"])
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert int(np.trace(np.array(doc["confusion_matrix"]))) == _weka_correct("ecoli3")
    compared = runner.invoke(cli, ["compare", path, str(DATA / "ecoli1.arff"), "--criteria",
                                   "j48,gini", "--folds", "weka", "--seed", "1", "-j", "1",
                                   "-f", "json", "-q"])
    assert compared.exit_code == 0, compared.stderr
    folds = json.loads(compared.stdout)["fold_scores"]["ecoli3"]["j48"]
    assert sum(folds[k] * len(test) for k, (_, test) in enumerate(
        weka_folds(load_dataset(path).y, 10, 1))) == pytest.approx(_weka_correct("ecoli3"))
    bad = runner.invoke(cli, ["evaluate", path, "--folds", "sklearn"])
    assert bad.exit_code == 2 and "--folds" in bad.stderr
