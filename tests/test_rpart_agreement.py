"""dtree's cost-complexity pruning against R's rpart, from the golden files that
tests/data/rpart/make_golden.R wrote with rpart 4.1 (Debian's r-cran-rpart).

rpart grows gini trees with minsplit = 20 and minbucket = 7 and prunes them by
the misclassification risk, in units of the root's risk (cp). On these datasets
(numeric features, no missing values; seven dtree was developed on, ten hold-out
KEEL files) the two grow the same tree, so:

- the cp table: each of rpart's rows (CP, nsplit, rel error) is a step of
  dtree's weakest-link path (`--pruning ccp --ccp-risk error`), alpha / R(root)
  = CP, where rpart's sequence is the weakest-link one; elsewhere rpart's table
  (computed bottom-up, node by node, with each node's cp capped by its parent's)
  lists subtrees that are not the least costly at their cp: there dtree's
  subtree must cost no more;
- rpart's default tree (cp = 0.01) is dtree's `--pruning rpart` tree (rpart's own
  rule), node for node, with the same variables, cut points and class counts:
  the library's rpart preset's, and `dtree train DATA --preset rpart`'s.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from dtcli import DecisionTreeClassifier, presets
from dtcli.cli import cli
from dtcli.io import load_dataset
from dtcli.model import load_model
from dtcli.pruning.cost_complexity import weakest_links
from dtcli.pruning.risk import weighted_node_risk
from dtcli.engine.tree import TREE_LEAF
from dtcli.pruning.rpart_rule import cp_table

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).parent / "data" / "rpart"
# name -> (file under the project's root, load options); as make_golden.R reads them
DATASETS = {
    "iris": ("examples/iris.csv", {}),
    "wine": ("examples/balanced/wine.csv", {}),
    "glass": ("examples/balanced/glass.csv", {"target": "Type", "drop": ["Id"]}),
    "bupa": ("examples/balanced/bupa.csv", {}),
    "pima": ("examples/balanced/pima.csv", {}),
    "wdbc": ("examples/balanced/wdbc.csv", {}),
    "sonar": ("examples/balanced/sonar.csv", {}),
}
# files dtree's rpart preset was not developed on (issue 45): KEEL, the class last
HOLD_OUT = {
    "ecoli1": "tests/data/holdout/ecoli1.dat", "ecoli3": "tests/data/holdout/ecoli3.dat",
    "vehicle1": "tests/data/holdout/vehicle1.dat", "yeast1": "tests/data/holdout/yeast1.dat",
    "haberman": "examples/imbalanced/haberman.dat",
    "wisconsin": "examples/imbalanced/wisconsin.dat",
    "vehicle3": "examples/imbalanced/vehicle3.dat",
    "yeast0359": "examples/imbalanced/yeast-0-3-5-9_vs_7-8.dat",
    "ecoli2": "examples/imbalanced/ecoli2.dat",
    # rpart's misclassification risk finds no split worth a cp of 0.01: one leaf
    "winequality": "examples/imbalanced/winequality-red-4.dat",
}
DATASETS.update({name: (path, {}) for name, path in HOLD_OUT.items()})
# where rpart's cp table is not the weakest-link sequence (see the module docstring)
NOT_WEAKEST_LINK = {"pima", "vehicle1", "vehicle3", "winequality", "yeast1"}
RPART = {"min_samples_split": 20, "min_samples_leaf": 7}


def _rows(name: str, what: str) -> list[dict]:
    with (GOLDEN / f"{name}_{what}.csv").open(newline="") as handle:
        return list(csv.DictReader(handle))


def _dataset(name: str):
    path, options = DATASETS[name]
    return load_dataset(str(ROOT / path), **options)


def _path(tree):
    """(cp, n_splits, rel_error) per distinct alpha of dtree's path, root first."""
    total = tree.counts[0].sum()
    risk = weighted_node_risk(tree.counts, "gini", None, "error")
    _, alphas, impurities, leaves = weakest_links(tree, risk, total=total)
    root = risk[0] / total
    last = {}  # alpha -> the step that ends it (the smallest tree at that alpha)
    for alpha, impurity, n in zip(alphas, impurities, leaves):
        last[alpha] = (alpha / root, int(n) - 1, impurity / root)
    return sorted(last.values(), key=lambda row: row[1])


def _canonical(nodes, node, names):
    """A tree as nested tuples, the side of rows with x < cut first."""
    if nodes[node]["var"] == "<leaf>":
        return tuple(nodes[node]["counts"])
    low, high = nodes[node]["low"], nodes[node]["high"]
    return (names.index(nodes[node]["var"]), round(nodes[node]["cut"], 9),
            _canonical(nodes, low, names), _canonical(nodes, high, names))


def _rpart_tree(name: str, names: list[str]):
    nodes = {}
    for row in _rows(name, "cp0.01"):
        node = int(row["node"])
        entry = {"var": row["var"], "counts": [float(c) for c in row["counts"].split(";")]}
        if row["var"] != "<leaf>":
            # ncat -1: rows with x < cut go to the left son (2i); 1: rows with x >= cut do
            first, second = 2 * node, 2 * node + 1
            entry.update(cut=float(row["cut"]),
                         low=first if int(row["ncat"]) < 0 else second,
                         high=second if int(row["ncat"]) < 0 else first)
        nodes[node] = entry
    return _canonical(nodes, 1, names)


def _dtree_tree(tree, names: list[str]):
    """The same form of dtree's tree: x <= threshold goes left, and a midpoint threshold
    is never a training value, so 'left' is rpart's x < cut."""
    nodes = {}
    for node in range(tree.node_count):
        left = int(tree.children_left[node])
        entry = {"var": "<leaf>", "counts": [float(c) for c in tree.counts[node]]}
        if left != TREE_LEAF:
            entry.update(var=names[int(tree.feature[node])], cut=float(tree.threshold[node]),
                         low=left, high=int(tree.children_right[node]))
        nodes[node] = entry
    return _canonical(nodes, 0, names)


@pytest.fixture(scope="module", params=sorted(DATASETS))
def grown(request):
    dataset = _dataset(request.param)
    return request.param, dataset, DecisionTreeClassifier(**RPART).fit_dataset(dataset)


def test_the_cp_table_is_rparts(grown):
    name, _, model = grown
    ours = _path(model.tree_)
    theirs = [(float(r["CP"]), int(r["nsplit"]), float(r["rel_error"]))
              for r in _rows(name, "cptable")]
    # rpart grows at cp = 0, whose last row lists the tree without its splits of cp 0
    ours = [row for row in ours if row[0] > 0] + [row for row in ours if row[0] == 0][-1:]
    if name not in NOT_WEAKEST_LINK:
        assert [n for _, n, _ in ours] == [n for _, n, _ in theirs]
        np.testing.assert_allclose([c for c, _, _ in ours], [c for c, _, _ in theirs],
                                   rtol=1e-12, atol=0)
        np.testing.assert_allclose([e for _, _, e in ours], [e for _, _, e in theirs],
                                   rtol=1e-12)
        return
    # pruned at each of rpart's cps, dtree's subtree costs no more than rpart's
    assert ours[0][1] == theirs[0][1] == 0 and ours[-1][1] == theirs[-1][1]
    for cp, n_splits, rel_error in theirs:
        mine = next(row for row in ours if row[0] <= cp * (1 + 1e-10))  # smallest tree
        assert mine[2] + cp * mine[1] <= rel_error + cp * n_splits + 1e-12


def test_rparts_own_cp_table(grown):
    """rpart_rule.cp_table: rpart's bottom-up, parent-capped complexities give rpart's
    table row for row, where it is the weakest-link sequence and where it is not."""
    name, _, model = grown
    risk = weighted_node_risk(model.tree_.counts, "gini", None, "error")
    ours = cp_table(model.tree_, risk)
    theirs = [(float(r["CP"]), int(r["nsplit"]), float(r["rel_error"]))
              for r in _rows(name, "cptable")]
    assert [n for _, n, _ in ours] == [n for _, n, _ in theirs]
    np.testing.assert_allclose([c for c, _, _ in ours], [c for c, _, _ in theirs], rtol=1e-12)
    np.testing.assert_allclose([e for _, _, e in ours], [e for _, _, e in theirs], rtol=1e-12)


def test_rparts_default_tree(grown):
    name, dataset, _ = grown
    model = presets.get("rpart").estimator().fit_dataset(dataset)
    names = list(dataset.feature_names)
    assert _dtree_tree(model.tree_, names) == _rpart_tree(name, names)
    assert model.pruning_ == {"method": "rpart", "cp": 0.01}
    # the preset is docs/pruning.md's options, rpart.control's defaults
    assert model.get_params() == DecisionTreeClassifier(
        **RPART, max_depth=30, pruning="rpart", ccp_risk="error", cp=0.01).get_params()


@pytest.mark.parametrize("name, rparts, exact", [("vehicle1", 16, 19), ("yeast1", 5, 13)])
def test_rparts_rule_is_not_the_exact_minimiser(name, rparts, exact):
    """On these hold-out files rpart's bottom-up complexities keep splits whose weakest
    link hides below a child: rpart's tree (the golden file's leaves) is not the
    least-cost subtree that --pruning ccp gives at the same cp, which costs less."""
    dataset = _dataset(name)
    preset = presets.get("rpart")
    rpart, ccp = (preset.estimator({"pruning": p}).fit_dataset(dataset) for p in ("rpart", "ccp"))
    assert rpart.tree_.n_leaves == rparts == sum(
        row["var"] == "<leaf>" for row in _rows(name, "cp0.01"))
    assert ccp.tree_.n_leaves == exact

    def cost(tree):
        leaves = tree.children_left == TREE_LEAF
        errors = weighted_node_risk(tree.counts, "gini", None, "error")
        return errors[leaves].sum() + 0.01 * errors[0] * leaves.sum()

    assert cost(ccp.tree_) < cost(rpart.tree_)


def _train(tmp_path, name: str, *options):
    path, reading = DATASETS[name]
    out = tmp_path / f"{name}.json"
    args = ["train", str(ROOT / path), "-o", str(out), "-q", *options]
    if reading:
        args += ["--target", reading["target"], *(a for d in reading["drop"]
                                                  for a in ("--drop", d))]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.stderr
    return load_model(str(out))


@pytest.mark.parametrize("name", ["iris", "glass"])
def test_train_preset_rpart_grows_rparts_tree(tmp_path, name):
    model, doc = _train(tmp_path, name, "--preset", "rpart")
    names = list(_dataset(name).feature_names)
    assert _dtree_tree(model.tree_, names) == _rpart_tree(name, names)
    assert doc["preset"] == model.preset_ == "rpart"
    assert doc["options"]["min_samples_split"] == 20 and doc["criterion"]["name"] == "gini"
    assert doc["pruning"] == {"method": "rpart", "cp": 0.01}


def test_options_beside_the_preset_override_it(tmp_path):
    """rpart(..., control = rpart.control(cp = 0)) prunes nothing: the tree of the cp
    table's last row, whose 2 splits the golden file lists; --pruning none grows the
    tree at minbucket 7 unpruned, and --ccp-alpha takes the place of the preset's cp."""
    model, doc = _train(tmp_path, "iris", "--preset", "rpart", "--cp", "0")
    last = _rows("iris", "cptable")[-1]
    assert model.tree_.n_leaves == int(last["nsplit"]) + 1 and doc["pruning"]["cp"] == 0
    unpruned, doc = _train(tmp_path, "iris", "--preset", "rpart", "--pruning", "none")
    assert doc["pruning"] is None and doc["preset"] == "rpart"
    assert unpruned.tree_.n_leaves > model.tree_.n_leaves
    assert unpruned.tree_.counts[unpruned.tree_.children_left < 0].sum(axis=1).min() >= 7
    _, doc = _train(tmp_path, "iris", "--preset", "rpart", "--pruning", "ccp", "--ccp-alpha",
                    "0.3")
    assert doc["pruning"] == {"method": "ccp", "ccp_alpha": 0.3, "ccp_risk": "error"}
    # --pruning ccp keeps the preset's cp, in rpart's units: the exact minimiser at it
    _, doc = _train(tmp_path, "yeast1", "--preset", "rpart", "--pruning", "ccp")
    assert doc["pruning"]["cp"] == 0.01 and doc["pruning"]["ccp_risk"] == "error"


@pytest.mark.parametrize("options, message", [
    (["--binary-splits"], "--binary-splits applies to --preset j48 only"),
    (["--model", "forest"], "--preset rpart trains a single tree (--model tree)"),
])
def test_what_the_rpart_preset_refuses(options, message):
    path = str(ROOT / "examples" / "iris.csv")
    result = CliRunner().invoke(cli, ["train", path, "--preset", "rpart", *options])
    assert result.exit_code == 2 and message in result.stderr
    assert result.stderr.count("\n") == 1


def test_a_tree_file_names_only_a_tree_preset(tmp_path):
    from dtcli.errors import ModelError

    _, doc = _train(tmp_path, "iris", "--preset", "rpart")
    for preset in ("j48", 3, "cart"):
        path = tmp_path / "damaged.json"
        path.write_text(json.dumps({**doc, "preset": preset}))
        with pytest.raises(ModelError, match="preset must be the name of a preset that trains "
                                             "a tree"):
            load_model(str(path))


def test_rpart_is_a_method_of_compare():
    """`--criteria rpart:...` grows the preset's tree with the entry's minsplit, minbucket,
    maxdepth and cp, not the run's tree options; on the same folds it scores as a gini
    tree given rpart's options does."""
    from dtcli.crossval.methods import Preset
    from dtcli.crossval.tasks import TreeOptions

    model = Preset("rpart", {"minbucket": 5, "maxdepth": 3}, {"cp": 0.02}).estimator(
        TreeOptions(min_samples_leaf=2, max_depth=9))
    assert (model.min_samples_leaf, model.max_depth, model.cp, model.min_samples_split,
            model.preset_) == (5, 3, 0.02, 20, "rpart")
    iris = str(ROOT / "examples" / "iris.csv")
    entries = "rpart,gini:pruning=rpart:cp=0.01"
    result = CliRunner().invoke(cli, ["compare", iris, "--criteria", entries, "--cv", "5",
                                      "--min-samples-split", "20", "--min-samples-leaf", "7",
                                      "--max-depth", "30", "-j", "1", "-f", "json", "--quiet"])
    assert result.exit_code == 0, result.stderr
    folds = json.loads(result.stdout)["fold_scores"]["iris"]
    assert folds["rpart"] == folds["gini:pruning=rpart:cp=0.01"]
    assert len(set(folds["rpart"])) > 1  # folds that differ: the scores are the folds'
    bad = CliRunner().invoke(cli, ["compare", iris, "--criteria", "rpart:minsize=3,gini"])
    assert bad.exit_code == 2 and "rpart has no parameter 'minsize'" in bad.stderr
