"""Shared fixtures: the shipped example datasets, the `dtree` executable, and a
plain-Python reference split search that the engine tests compare against.

The reference is deliberately naive (lists and loops, its own Gini and
entropy) so that it shares no code and no shortcut with the numba kernels.
"""
from __future__ import annotations

import math
import os
import sys
from collections import Counter
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

# No "compiling ..." line on stderr (engine/forms.py): whether a test's command compiles
# depends on the order the tests ran in. tests/test_compile_notice.py turns it on.
os.environ["DTREE_COMPILE_NOTICE"] = "0"

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

# Test files that compile most of the engine's forms (every criterion), run first: under
# `pytest -n auto` the workers then share the long compilations early and end on short
# tests, instead of one worker compiling the last criterion's forms while the other waits.
COMPILE_HEAVY = ("test_tree_hashes.py", "test_criteria_engine.py", "test_criteria_reference.py",
                 "test_grow_many.py")


def pytest_collection_modifyitems(items):
    items.sort(key=lambda item: item.path.name not in COMPILE_HEAVY)  # stable: order kept


# How each shipped example is read (target / dropped columns differ from the defaults).
EXAMPLE_OPTIONS = {
    "hepatitis.csv": {"target": "Class"},
    "balanced/glass.csv": {"target": "Type", "drop": ["Id"]},
}


@pytest.fixture(scope="session")
def examples() -> Path:
    return EXAMPLES


@pytest.fixture(scope="session")
def load_example():
    """load_example("iris.csv") -> read-only Dataset of examples/iris.csv, loaded once."""
    from dtcli.io import load_dataset

    cache = {}

    def load(name: str):
        if name not in cache:
            dataset = load_dataset(str(EXAMPLES / name), **EXAMPLE_OPTIONS.get(name, {}))
            dataset.X.flags.writeable = False  # shared between tests: nobody may change it
            dataset.y.flags.writeable = False
            cache[name] = dataset
        return cache[name]

    return load


@pytest.fixture(scope="session")
def dtree_exe() -> Path:
    exe = Path(sys.executable).parent / "dtree"
    if not exe.exists():
        pytest.skip(f"no dtree executable next to {sys.executable}")
    return exe


# --- the plain-Python reference ---------------------------------------------------------

def gini(counts) -> float:
    total = sum(counts)
    if total == 0:
        return 0.0
    return 1.0 - sum((c / total) ** 2 for c in counts)


def entropy(counts) -> float:
    total = sum(counts)
    return -sum(c / total * math.log(c / total) for c in counts if c > 0)


def decrease(impurity, parent, left, right) -> float:
    """Impurity decrease of a split, from class-count lists."""
    n, n_left, n_right = sum(parent), sum(left), sum(right)
    return impurity(parent) - (n_left * impurity(left) + n_right * impurity(right)) / n


def gain_ratio(parent, left, right) -> float:
    """C4.5: information gain (nats) over the entropy of the split proportions."""
    split_info = entropy([sum(left), sum(right)])
    return decrease(entropy, parent, left, right) / split_info if split_info > 0 else 0.0


# Split scores by criterion name: f(parent, left, right) from class-count lists.
SCORES = {
    "gini": lambda parent, left, right: decrease(gini, parent, left, right),
    "entropy": lambda parent, left, right: decrease(entropy, parent, left, right),
    "gain-ratio": gain_ratio,
}


def _counts(labels, n_classes):
    c = Counter(labels)
    return [c.get(k, 0) for k in range(n_classes)]


def numeric_candidates(x, y, n_classes, min_leaf=1, criterion="gini"):
    """Every split of one numeric column: (score, threshold, missing_left).

    Thresholds are the midpoints a/2 + b/2 between adjacent distinct present
    values; missing rows go right or left; a partly missing column also
    offers "present left, missing right" (threshold inf). Both children must
    hold at least `min_leaf` rows.
    """
    x = [float(v) for v in x]
    present = sorted({v for v in x if not math.isnan(v)})
    has_missing = any(math.isnan(v) for v in x)
    parent = _counts(y, n_classes)
    out = []

    def add(goes_left, threshold, missing_left):
        left = [yi for yi, g in zip(y, goes_left) if g]
        right = [yi for yi, g in zip(y, goes_left) if not g]
        if len(left) >= min_leaf and len(right) >= min_leaf:
            out.append((SCORES[criterion](parent, _counts(left, n_classes),
                                            _counts(right, n_classes)), threshold, missing_left))

    for a, b in zip(present[:-1], present[1:]):
        t = a / 2 + b / 2
        for missing_left in ((False, True) if has_missing else (False,)):
            add([(math.isnan(v) and missing_left) or (not math.isnan(v) and v <= t) for v in x],
                t, missing_left)
    if has_missing and present:
        add([not math.isnan(v) for v in x], math.inf, False)
    return out


def nominal_candidates(x, y, n_classes, min_leaf=1, criterion="gini"):
    """Every subset split of one nominal column (category codes, NaN missing):
    (score, frozenset of categories sent left, missing_left)."""
    codes = [None if math.isnan(v) else int(v) for v in x]
    present = sorted({c for c in codes if c is not None})
    has_missing = None in codes
    parent = _counts(y, n_classes)
    out = []
    for size in range(0, len(present) + 1):
        for subset in combinations(present, size):
            subset = frozenset(subset)
            for missing_left in ((False, True) if has_missing else (False,)):
                goes_left = [(c is None and missing_left) or (c is not None and c in subset)
                             for c in codes]
                n_left = sum(goes_left)
                if n_left < min_leaf or len(codes) - n_left < min_leaf:
                    continue
                left = [yi for yi, g in zip(y, goes_left) if g]
                right = [yi for yi, g in zip(y, goes_left) if not g]
                out.append((SCORES[criterion](parent, _counts(left, n_classes),
                                                _counts(right, n_classes)), subset, missing_left))
    return out


class Reference:
    """The reference functions, handed to tests through the `reference` fixture."""

    gini = staticmethod(gini)
    entropy = staticmethod(entropy)
    decrease = staticmethod(decrease)
    scores = SCORES
    counts = staticmethod(_counts)
    numeric_candidates = staticmethod(numeric_candidates)
    nominal_candidates = staticmethod(nominal_candidates)

    @staticmethod
    def best_numeric(X, y, n_classes, min_leaf=1, criterion="gini"):
        """All numeric splits of X as (score, feature, threshold, missing_left), in the
        engine's documented tie order: feature, then missing right before missing
        left, then threshold (present-vs-missing last among "missing right")."""
        rows = []
        for f in range(X.shape[1]):
            rows += [(s, f, t, ml) for s, t, ml in
                     numeric_candidates(X[:, f], list(y), n_classes, min_leaf, criterion)]
        rows.sort(key=lambda r: (r[1], r[3], r[2]))
        return rows


@pytest.fixture(scope="session")
def reference():
    return Reference


def tree_arrays_equal(a, b) -> bool:
    """Every parallel array of two dtcli Trees equal (NaN equal to NaN)."""
    return all(np.array_equal(getattr(a, n), getattr(b, n), equal_nan=n in ("threshold", "score"))
               for n in a.ARRAYS)


@pytest.fixture(scope="session")
def same_tree():
    return tree_arrays_equal
