"""The compiled forms of a first fit, counted: adding a form is a visible decision.

A fresh process with an empty kernel cache fits gini on small numeric data of two
and of three classes and predicts, then the specialisations numba wrote to the
cache (`.nbc` files) are counted against COMPILE_BUDGET, the committed number
(engine/forms.py lists the units). A change that compiles more forms raises the
budget in the same commit, with the measurement in its message."""
from __future__ import annotations

import os
import subprocess
import sys

# The drivers (compiled once for every criterion), and gini's numeric search for two
# classes and for more (measured: 20, November 2026).
COMPILE_BUDGET = 20

FIT = """
import numpy as np
from dtcli import DecisionTreeClassifier
rng = np.random.default_rng(0)
for n_classes in (2, 3):
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] > 0).astype(int) + (n_classes == 3) * (X[:, 1] > 0.5)
    DecisionTreeClassifier().fit(X, y).predict(X)
"""


def test_a_first_fit_compiles_within_the_budget_and_a_second_loads_everything(tmp_path):
    env = {**os.environ, "DTREE_CACHE_DIR": str(tmp_path), "DTREE_COMPILE_NOTICE": "0"}
    subprocess.run([sys.executable, "-c", FIT], env=env, check=True, timeout=900)
    compiled = sorted(path.name for path in tmp_path.rglob("*.nbc"))
    assert 0 < len(compiled) <= COMPILE_BUDGET, compiled
    searches = [name for name in compiled if "search_numeric_gini" in name]
    assert len(searches) == 2, compiled  # two classes and more: the drivers are shared
    subprocess.run([sys.executable, "-c", FIT], env=env, check=True, timeout=900)
    assert sorted(path.name for path in tmp_path.rglob("*.nbc")) == compiled


def test_a_cold_unit_is_announced_once_and_quiet_silences_it(tmp_path, examples, dtree_exe):
    """The first train of a criterion with a cold cache says, in one line on stderr, what
    it compiles and that it happens once; the next run says nothing; -q says nothing."""
    env = {**os.environ, "DTREE_CACHE_DIR": str(tmp_path)}
    env.pop("DTREE_COMPILE_NOTICE")

    def train(*options):
        return subprocess.run([str(dtree_exe), "train",
                               str(examples / "iris.csv"), "-o", str(tmp_path / "m.json"),
                               *options], env=env, capture_output=True, text=True, timeout=900)

    first = train()
    assert first.returncode == 0, first.stderr
    notes = [line for line in first.stderr.splitlines() if "compiling" in line]
    assert len(notes) == 1 and "once" in notes[0] and str(tmp_path) in notes[0]
    again = train()
    assert again.returncode == 0 and "compiling" not in again.stderr
    quiet = train("--criterion", "entropy", "-q")  # a cold search, silenced
    assert quiet.returncode == 0 and quiet.stderr == ""
