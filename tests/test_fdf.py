"""FDF: GenGain (eq. (3)) by hand, the paper's Table I example, Fayyad-Irani MDL cut
points against a plain-Python implementation and hand-worked cases, the shared-prefix
construction against a naive per-sample one, the model file and the exports."""
from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import pytest

from dtcli.errors import ModelError
from dtcli.leaves.discretise import mdl_cut_points, to_bins
from dtcli.fdf.estimator import FDFClassifier
from dtcli.fdf.gain import entropy, gen_gain
from dtcli.model import model_from_dict, model_to_dict

# Table I: attributes A, B and the class of S_1 ... S_7 (S_8 = (a2, b1) is the test sample)
TABLE_I = [("a0", "b0", "c1"), ("a0", "b1", "c1"), ("a0", "b2", "c1"), ("a1", "b0", "c2"),
           ("a1", "b1", "c1"), ("a1", "b2", "c2"), ("a2", "b0", "c2")]
H_S = -(4 / 7) * math.log2(4 / 7) - (3 / 7) * math.log2(3 / 7)  # 0.98523 bits


def test_gen_gain_eq3_by_hand():
    S = [4, 3]  # c1, c2 counts of S_1..S_7
    assert entropy(S) == pytest.approx(0.9852281, abs=1e-7)
    # S_b1 = {S_2, S_5}: both c1, entropy 0: 2/7 x 0.98523 = 0.28149
    assert gen_gain([2, 0], S) == pytest.approx(2 / 7 * H_S)
    assert gen_gain([2, 0], S) == pytest.approx(0.281494, abs=1e-6)
    # S_a2 = {S_7}: 1/7 x 0.98523 = 0.14075
    assert gen_gain([0, 1], S) == pytest.approx(0.140747, abs=1e-6)
    # S_a1 = {S_4, S_5, S_6} = c2, c1, c2: entropy 0.91830; 3/7 (0.98523 - 0.91830) = 0.028685
    assert gen_gain([1, 2], S) == pytest.approx(0.028685, abs=1e-6)
    # S_b2 = {S_3, S_6}: entropy 1, a negative gain 2/7 (0.98523 - 1) = -0.0042205
    assert gen_gain([1, 1], S) == pytest.approx(-0.0042205, abs=1e-7)
    np.testing.assert_allclose(gen_gain([[2, 0], [0, 1]], S), [0.281494, 0.140747], atol=1e-6)


def table_i_model():
    import pandas as pd

    X = pd.DataFrame([row[:2] for row in TABLE_I], columns=["A", "B"])
    y = np.array([row[2] for row in TABLE_I], dtype=object)
    return FDFClassifier(min_samples_leaf=1).fit(X, y)


def test_table_i_s8_is_c1_because_gengain_b1_beats_a2():
    model = table_i_model()
    import pandas as pd

    s8 = pd.DataFrame([["a2", "b1"]], columns=["A", "B"])
    assert model.predict(s8)[0] == "c1"
    # its leaf is S_b1 = {S_2, S_5} (both c1), under nb_min_samples rows: smoothed
    # frequencies (2 + 1) / (2 + 2)
    np.testing.assert_allclose(model.predict_proba(s8), [[0.75, 0.25]])


def test_table_i_forest_has_the_papers_rules():
    forest = table_i_model().forest_
    rules = set()
    for node in range(1, len(forest.parent)):
        if forest.n_rules[node]:
            path, at = [], node
            while at > 0:
                path.append((forest.feature[at], forest.value[at]))
                at = forest.parent[at]
            rules.add(tuple(reversed(path)))
    # S_1..S_3: A=a0; S_5: B=b1 (0.281 > a1's 0.029); S_6: A=a1 (0.029 > b2's -0.004),
    # then B=b2; S_4: A=a1 and B=b0 tie at the root (equal counts), the first attribute
    # wins, then B=b0; S_7: A=a2. Two trees: roots on A and on B.
    assert rules == {((0, 0),), ((1, 1),), ((0, 1), (1, 2)), ((0, 1), (1, 0)), ((0, 2),)}
    assert table_i_model().facts()["n_trees"] == 2


# --- Fayyad and Irani's MDL ------------------------------------------------------------

def reference_mdl(values, labels):
    """Plain-Python Fayyad-Irani: lists, Counter and math.log2."""
    def ent(ys):
        n = len(ys)
        return -sum(c / n * math.log2(c / n) for c in Counter(ys).values())

    cuts = []

    def split(segment):
        n = len(segment)
        best = None
        for i in range(1, n):
            if segment[i - 1][0] == segment[i][0]:
                continue
            left = [c for _, c in segment[:i]]
            right = [c for _, c in segment[i:]]
            e = (len(left) * ent(left) + len(right) * ent(right)) / n
            if best is None or e < best[0]:
                best = (e, i, left, right)
        if best is None:
            return
        e, i, left, right = best
        whole = [c for _, c in segment]
        k, k1, k2 = len(set(whole)), len(set(left)), len(set(right))
        delta = math.log2(3 ** k - 2) - (k * ent(whole) - k1 * ent(left) - k2 * ent(right))
        if ent(whole) - e > (math.log2(n - 1) + delta) / n:
            cuts.append((segment[i - 1][0] + segment[i][0]) / 2)
            split(segment[:i])
            split(segment[i:])

    split(sorted((v, c) for v, c in zip(values, labels) if not math.isnan(v)))
    return sorted(cuts)


def test_mdl_cut_points_on_iris_match_a_plain_python_implementation(load_example):
    data = load_example("iris.csv")
    found = 0
    for j in range(4):
        ours = mdl_cut_points(data.X[:, j], data.y, 3)
        expected = reference_mdl(data.X[:, j].tolist(), data.y.tolist())
        np.testing.assert_allclose(ours, expected, rtol=1e-12)
        found += len(expected)
    assert found >= 6  # iris's petal features take two cuts each


def test_mdl_hand_worked_cases():
    # 1..8, classes 0000 1111: gain 1 > (log2 7 + log2 7 - 2) / 8 = 0.452: cut at 4.5
    x = np.arange(1.0, 9.0)
    assert mdl_cut_points(x, np.array([0] * 4 + [1] * 4), 2).tolist() == [4.5]
    # 1..4, classes 0101: best cut 1.5 (E = 3/4 x 0.918 = 0.689, first of a tie with 3.5),
    # gain 0.311 < (log2 3 + log2 7 - (2 - 2 x 0.918)) / 4 = 1.057: no cut
    assert mdl_cut_points(np.arange(1.0, 5.0), np.array([0, 1, 0, 1]), 2).tolist() == []
    # 1..48 in blocks of 16 of classes 0, 1, 0: the first cut 16.5 (tied with 32.5) gains
    # 0.918 - 2/3 = 0.252 > (log2 47 + log2 7 - (2 x 0.918 - 2)) / 48 = 0.178; its right
    # half 17..48 (1 then 0) gains 1 > (log2 31 + log2 7 - 2) / 32 = 0.180: cut at 32.5;
    # pure halves are never cut
    y = np.repeat([0, 1, 0], 16)
    assert mdl_cut_points(np.arange(1.0, 49.0), y, 2).tolist() == [16.5, 32.5]
    # missing values take no part; a value equal to a cut is in the lower bin
    assert to_bins(np.array([4.5, 4.6, np.nan, -1.0]), np.array([4.5])).tolist() == [0, 1, -1, 0]


# --- the shared-prefix construction against a naive one --------------------------------

def naive_fdf_proba(codes, y, n_values, n_classes, query, min_leaf, nb_min, alpha=1.0):
    """One sample's rule grown alone from S, in plain Python, and its leaf's Naive Bayes."""
    def ent(ys):
        n = len(ys)
        return -sum(c / n * math.log2(c / n) for c in Counter(ys).values()) if n else 0.0

    rows, used = list(range(len(y))), set()
    while True:
        labels = [y[r] for r in rows]
        whole = ent(labels)
        if whole == 0:
            break
        best = None
        for j, v in enumerate(query):
            if j in used or v < 0:
                continue
            sub = [r for r in rows if codes[r][j] == v]
            if len(sub) < min_leaf:
                continue
            gain = len(sub) / len(rows) * (whole - ent([y[r] for r in sub]))
            if best is None or gain > best[0]:
                best = (gain, j, sub)
        if best is None or best[0] <= 0:
            break
        used.add(best[1])
        rows = best[2]
    counts = [sum(1 for r in rows if y[r] == k) for k in range(n_classes)]
    log = [math.log((counts[k] + alpha) / (len(rows) + alpha * n_classes))
           for k in range(n_classes)]
    if len(rows) >= nb_min:
        for j, v in enumerate(query):
            if j in used or v < 0:
                continue
            for k in range(n_classes):
                present = [r for r in rows if y[r] == k and codes[r][j] >= 0]
                match = sum(1 for r in present if codes[r][j] == v)
                log[k] += math.log((match + alpha) / (len(present) + alpha * n_values[j]))
    top = max(log)
    weights = [math.exp(v - top) for v in log]
    return [w / sum(weights) for w in weights]


def test_shared_construction_equals_the_naive_one(load_example):
    data = load_example("hepatitis.csv")  # nominal and numeric features, missing values
    rows = np.arange(0, data.y.shape[0], 2)
    model = FDFClassifier(min_samples_leaf=2, nb_min_samples=4).fit_dataset(
        _subset(data, rows))
    test = np.setdiff1d(np.arange(data.y.shape[0]), rows)
    ours = model.proba_from_matrix(data.X[test])
    codes, y = model.data_.codes.tolist(), model.data_.y.tolist()
    queries = model.codes(data.X[test]).tolist()
    for q, p in zip(queries, ours):
        expected = naive_fdf_proba(codes, y, model.data_.n_values.tolist(), 2, q, 2, 4)
        np.testing.assert_allclose(p, expected, rtol=1e-9)


def _subset(data, rows):
    import dataclasses

    return dataclasses.replace(data, X=data.X[rows], y=data.y[rows])


def test_training_rules_end_once_per_sample(load_example):
    data = load_example("hepatitis.csv")
    model = FDFClassifier().fit_dataset(data)
    assert sum(model.forest_.n_rules) == data.y.shape[0]


# --- file and exports ------------------------------------------------------------------

def test_model_file_round_trip_and_damage(load_example):
    data = load_example("hepatitis.csv")
    model = FDFClassifier().fit_dataset(data)
    doc = json.loads(json.dumps(model_to_dict(model, target="Class")))
    assert doc["kind"] == "fdf" and doc["format_version"] == 2
    loaded, _ = model_from_dict(doc)
    np.testing.assert_array_equal(loaded.proba_from_matrix(data.X),
                                  model.proba_from_matrix(data.X))
    doc["data"]["codes"][0][0] = 99
    with pytest.raises(ModelError, match=r"data.codes\[0\]"):
        model_from_dict(doc, "m.json")
    doc = json.loads(json.dumps(model_to_dict(model)))
    doc["forest"]["parent"][2] = 5
    with pytest.raises(ModelError, match="forest: node 2"):
        model_from_dict(doc, "m.json")


def test_exports_list_rules_and_draw_trees():
    from rich.console import Console

    from dtcli.fdf import export

    model = table_i_model()
    rules = export.rules(model).splitlines()
    assert "if A = a1 and B = b2 then c2  (support 1, rules 1)  [c2: 1]" in rules
    assert len(rules) == 5
    console = Console(color_system=None, width=200, record=True)
    console.print(export.text(model))
    drawn = console.export_text()
    assert "tree 1: A" in drawn and "tree 2: B" in drawn


def test_table_i_average_weighs_the_matched_trees_by_gengain():
    import pandas as pd

    model = table_i_model().set_params(combine="average")
    s8 = pd.DataFrame([["a2", "b1"]], columns=["A", "B"])
    # tree A: A=a2 leads to {S_7}, smoothed (1/3, 2/3), weight GenGain(S, a2) = 1/7 H(S);
    # tree B: B=b1 leads to {S_2, S_5}, (3/4, 1/4), weight GenGain(S, b1) = 2/7 H(S)
    np.testing.assert_allclose(model.predict_proba(s8), [[11 / 18, 7 / 18]])
    assert model.predict(s8)[0] == "c1"
