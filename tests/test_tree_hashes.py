"""The engine's trees, frozen: a hash of every fitted tree's arrays, per criterion
(at its defaults and at one other parameter set) and per shipped dataset.

Reshaping the engine (its kernels' arguments, its drivers, its compiled forms)
must not change a single tree. The hashes in tests/data/tree_hashes.json were
recorded before that work began; a mismatch means a tree changed. Regenerate
them only for a deliberate change of the trees, and say so in the commit:

    python tests/test_tree_hashes.py --record

The datasets cover numeric and nominal features, missing values, two and many
classes, integer and real-valued sample weights, and one (segment, 2,310 rows
of 19 features) large enough that its top nodes are grown by the level driver
rather than as whole subtrees.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from category_sets import dense_category_left

HASHES = Path(__file__).parent / "data" / "tree_hashes.json"
ROOT = Path(__file__).resolve().parent.parent

SETTINGS = [("gini", {}), ("entropy", {}), ("gain-ratio", {}), ("gain-ratio", {"average_gain": 1}),
            ("tsallis", {}), ("tsallis", {"q": 1.5}), ("tsallis-gain-ratio", {}),
            ("tsallis-gain-ratio", {"q": 2.0}), ("renyi", {}), ("renyi", {"gamma": 0.5}),
            ("pe", {}), ("pe", {"alpha": 0.5}), ("pg", {}), ("pg", {"alpha": 0.5}),
            ("pt", {}), ("pt", {"alpha": 0.5, "gamma": 1.5}), ("pr", {}),
            ("pr", {"alpha": 0.5, "gamma": 2.0}), ("ge", {}), ("ge", {"alpha": 0.5, "beta": 0.8}),
            ("abi", {}), ("abi", {"alpha": 0.5, "beta": 0.7}), ("dcsm", {}), ("hddt", {}),
            ("ccpdt", {}), ("ihd", {}), ("ihdw", {})]

# name -> (file under examples/, load options, sample weights: None, "integer" (0-2),
# "positive" (1-3, integers) or "real")
DATASETS = {
    "iris": ("iris.csv", {}, None),
    "ecoli2": ("ecoli2.dat", {}, None),
    "crx": ("crx.csv", {}, None),
    "hepatitis": ("hepatitis.csv", {"target": "Class"}, None),
    "vehicle": ("vehicle.arff", {}, None),
    "segment": ("balanced/segment.csv", {}, None),
    "ecoli2-integer-weights": ("ecoli2.dat", {}, "integer"),
    "ecoli2-positive-weights": ("ecoli2.dat", {}, "positive"),
    "iris-real-weights": ("iris.csv", {}, "real"),
}


def setting_id(name: str, params: dict) -> str:
    return name + "".join(f"-{k}={v:g}" for k, v in sorted(params.items()))


def _weights(kind: str | None, n: int) -> np.ndarray | None:
    rng = np.random.default_rng(7)
    if kind == "integer":
        return rng.integers(0, 3, n).astype(np.float64)
    if kind == "positive":
        return rng.integers(1, 4, n).astype(np.float64)
    if kind == "real":
        return rng.uniform(0.25, 3.0, n)
    return None


def tree_hash(tree, features) -> str:
    """The hash of the tree's arrays, its category sets in their dense form of old
    (category_sets.py), so that the hashes recorded before the sets were sparse
    still prove the trees unchanged."""
    n_categories = [len(f.categories) for f in features]
    is_nominal = [f.kind == "nominal" for f in features]
    digest = hashlib.sha256()
    for name in ("children_left", "children_right", "feature", "threshold", "missing_left",
                 "category_left", "value", "n_node_samples", "score"):
        array = np.ascontiguousarray(
            dense_category_left(tree, n_categories, is_nominal) if name == "category_left"
            else getattr(tree, "counts" if name == "value" else name))
        digest.update(f"{name}{array.dtype.str}{array.shape}".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()[:16]


def fit_hash(dataset_name: str, name: str, params: dict, load) -> str:
    from dtcli import DecisionTreeClassifier

    file, options, weights = DATASETS[dataset_name]
    data = load(file, options)
    model = DecisionTreeClassifier(criterion=name, criterion_params=params or None)
    model.fit_dataset(data, sample_weight=_weights(weights, data.y.shape[0]))
    return tree_hash(model.tree_, data.features)


def _loader():
    from dtcli.io import load_dataset

    cache = {}

    def load(file, options):
        if file not in cache:
            cache[file] = load_dataset(str(ROOT / "examples" / file), **options)
        return cache[file]

    return load


@pytest.fixture(scope="module")
def recorded() -> dict:
    return json.loads(HASHES.read_text())


@pytest.fixture(scope="module")
def load():
    return _loader()


def changed_datasets(expected: dict, setting: tuple, fit, load) -> list[str]:
    """The datasets whose fit(dataset, *setting, load) hash is not the recorded one."""
    return sorted(d for d in DATASETS if fit(d, *setting, load) != expected[d])


def record_hashes(path: Path, settings: list, ids, fit) -> None:
    """`python tests/<file> --record`: every setting's hashes (ids(*setting): {dataset:
    fit(dataset, *setting, load)}) written to `path`."""
    if sys.argv[1:] != ["--record"]:
        sys.exit(f"usage: python tests/{Path(sys.argv[0]).name} --record")
    load = _loader()
    table = {ids(*s): {d: fit(d, *s, load) for d in DATASETS} for s in settings}
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    print(f"recorded {len(table)} settings x {len(DATASETS)} datasets in {path}")


@pytest.mark.parametrize("name,params", SETTINGS, ids=[setting_id(*s) for s in SETTINGS])
def test_trees_are_unchanged(name, params, recorded, load):
    changed = changed_datasets(recorded[setting_id(name, params)], (name, params), fit_hash,
                               load)
    assert not changed, f"{setting_id(name, params)}: trees changed on {', '.join(changed)}"


if __name__ == "__main__":
    record_hashes(HASHES, SETTINGS, setting_id, fit_hash)
