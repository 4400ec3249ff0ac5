"""S-pruning's trees and p-values, frozen: a hash of every S-pruned tree's arrays and
its recorded p-values, per criterion, mode and shipped dataset.

The hashes in tests/data/spruning_hashes.json were recorded while S-pruning tested the
grown tree after growth (a second pass over the tree's levels); moving the test into
the growth step must give the same trees and the same p-values for the same seed. A
mismatch means a tree or a p-value changed. Regenerate them only for a deliberate
change, and say so in the commit:

    python tests/test_spruning_trees.py --record

The datasets (those of test_tree_hashes.py) cover two and many classes, nominal
features, missing values, integer and real-valued weights, and one large enough
(segment) that its top nodes are tested in the level driver.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from test_tree_hashes import (DATASETS, _loader, _weights, changed_datasets, record_hashes,
                              tree_hash)

HASHES = Path(__file__).parent / "data" / "spruning_hashes.json"
SETTINGS = [(name, mode) for name in ("gini", "entropy", "hddt", "gain-ratio")
            for mode in ("default", "exact")]
# the exact mode shuffles every tested node in full: fewer shuffles keep it quick
PERMUTATIONS = {"default": 1000, "exact": 200}


def setting_id(name: str, mode: str) -> str:
    return f"{name}-{mode}"


def fit_hash(dataset_name: str, name: str, mode: str, load) -> str:
    from dtcli import DecisionTreeClassifier

    file, options, weights = DATASETS[dataset_name]
    data = load(file, options)
    model = DecisionTreeClassifier(criterion=name, pruning="s-pruning", pruning_mode=mode,
                                   permutations=PERMUTATIONS[mode], random_state=3)
    model.fit_dataset(data, sample_weight=_weights(weights, data.y.shape[0]))
    p_values = np.array([np.nan if p is None else p for p in model.pruning_["p_values"]])
    digest = hashlib.sha256(tree_hash(model.tree_, data.features).encode())
    digest.update(p_values.tobytes())
    return digest.hexdigest()[:16]


@pytest.fixture(scope="module")
def recorded() -> dict:
    return json.loads(HASHES.read_text())


@pytest.mark.parametrize("name,mode", SETTINGS, ids=[setting_id(*s) for s in SETTINGS])
def test_s_pruned_trees_and_p_values_are_unchanged(name, mode, recorded):
    changed = changed_datasets(recorded[setting_id(name, mode)], (name, mode), fit_hash,
                               _loader())
    assert not changed, f"{setting_id(name, mode)}: S-pruning changed on {', '.join(changed)}"


if __name__ == "__main__":
    record_hashes(HASHES, SETTINGS, setting_id, fit_hash)
