"""Post-pruning: cost-complexity against scikit-learn and a recompute-everything
reference, C4.5's pessimistic pruning against Quinlan's published figures and a
plain-Python J48, reduced-error pruning and the leaf estimates by hand."""
import math
from pathlib import Path

import numpy as np
import pytest

from dtcli import DecisionTreeClassifier
from dtcli.errors import ParameterError
from dtcli.leaf_estimate import node_proba
from dtcli.pruning.cost_complexity import choose_alpha, pruning_path, weakest_links
from dtcli.pruning.pessimistic import added_errors, prune_pessimistic
from dtcli.pruning.reduced_error import pruning_counts, prune_reduced_error
from dtcli.pruning.risk import node_impurity, node_risk


def noisy_data(seed, n=300, d=4, classes=2):
    """Float32-exact continuous features, no tied values, noisy classes."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32).astype(np.float64)
    z = X @ rng.normal(size=d) + rng.normal(size=n)
    return X, np.digitize(z, np.quantile(z, np.linspace(0, 1, classes + 1)[1:-1]))


def shape(tree, node=0):
    if tree.children_left[node] < 0:
        return None
    return (int(tree.feature[node]), round(float(tree.threshold[node]), 6),
            shape(tree, tree.children_left[node]), shape(tree, tree.children_right[node]))


# --- cost-complexity ------------------------------------------------------------------
# (seed, max_depth) where dtree and scikit-learn grow the same tree (no tied splits)
SAME_TREES = [(0, 3), (2, 3), (2, 4), (4, 4), (5, 3)]


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("seed, depth", SAME_TREES)
def test_path_equals_sklearns_on_the_same_tree(seed, depth, criterion):
    sklearn_tree = pytest.importorskip("sklearn.tree")
    X, y = noisy_data(seed)
    theirs = sklearn_tree.DecisionTreeClassifier(criterion=criterion, max_depth=depth,
                                                 random_state=seed)
    ours = DecisionTreeClassifier(criterion=criterion, max_depth=depth)
    assert shape(ours.fit(X, y).tree_) == shape(theirs.fit(X, y).tree_)
    nats = math.log(2) if criterion == "entropy" else 1.0  # scikit-learn's entropy is in bits
    expected, got = theirs.cost_complexity_pruning_path(X, y), ours.cost_complexity_pruning_path(X, y)
    np.testing.assert_allclose(got.ccp_alphas, expected.ccp_alphas * nats, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(got.impurities, expected.impurities * nats, rtol=1e-9, atol=1e-15)
    for alpha in expected.ccp_alphas[1::2]:  # pruned at alpha: the same tree as scikit-learn's
        theirs.set_params(ccp_alpha=alpha).fit(X, y)
        ours.set_params(pruning="ccp", ccp_alpha=alpha * nats * (1 + 1e-12)).fit(X, y)
        assert shape(ours.tree_) == shape(theirs.tree_)


def reference_path(tree, r_node):
    """scikit-learn's algorithm as written: every g recomputed at every step."""
    left, right = list(tree.children_left), list(tree.children_right)
    n = len(left)
    alive = [True] * n
    is_leaf = [left[i] < 0 for i in range(n)]

    def subtree(t):  # (risk of its leaves, number of leaves)
        if is_leaf[t]:
            return r_node[t], 1
        a, b = subtree(left[t]), subtree(right[t])
        return a[0] + b[0], a[1] + b[1]

    alphas, impurities = [0.0], [subtree(0)[0]]
    while not is_leaf[0]:
        best, best_t = math.inf, None
        for t in range(n):
            if alive[t] and not is_leaf[t]:
                risk, leaves = subtree(t)
                g = (r_node[t] - risk) / (leaves - 1)
                if g < best - 1e-12:
                    best, best_t = g, t
        stack = [left[best_t], right[best_t]]
        while stack:
            t = stack.pop()
            alive[t] = False
            if not is_leaf[t]:
                stack += [left[t], right[t]]
        is_leaf[best_t] = True
        alphas.append(best)
        impurities.append(subtree(0)[0])
    return np.array(alphas), np.array(impurities)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("risk", ["impurity", "error"])
def test_weakest_links_equal_recomputing_every_step(seed, risk):
    X, y = noisy_data(seed, n=120, classes=2 + seed % 2)
    tree = DecisionTreeClassifier(criterion="entropy").fit(X, y).tree_
    r_node = node_risk(tree.counts, "entropy", None, risk)
    expected = reference_path(tree, r_node)
    got = pruning_path(tree, r_node)
    # ties (frequent with the error risk) may be taken in another order: compare the
    # distinct alphas and the impurity once every step at each is taken
    for values, impurities in (expected, got):
        assert np.all(np.diff(values) >= -1e-12)
    ends = lambda a: np.r_[np.flatnonzero(np.diff(a) > 1e-12), a.shape[0] - 1]  # noqa: E731
    np.testing.assert_allclose(got[0][ends(got[0])], expected[0][ends(expected[0])], atol=1e-12)
    np.testing.assert_allclose(got[1][ends(got[0])], expected[1][ends(expected[0])], atol=1e-12)


def test_pruning_at_alpha_keeps_the_steps_up_to_it():
    X, y = noisy_data(3)
    tree = DecisionTreeClassifier().fit(X, y).tree_
    r_node = node_risk(tree.counts, "gini")
    nodes, alphas, impurities, n_leaves = weakest_links(tree, r_node)
    assert n_leaves[0] == tree.n_leaves and n_leaves[-1] == 1
    middle = alphas[len(alphas) // 2]
    pruned = DecisionTreeClassifier(pruning="ccp", ccp_alpha=float(middle)).fit(X, y).tree_
    taken = np.count_nonzero(alphas[1:] <= middle)
    assert node_risk(pruned.counts, "gini")[pruned.children_left < 0].sum() == \
        pytest.approx(impurities[taken])
    assert pruned.n_leaves == n_leaves[taken] < tree.n_leaves


def test_node_risks_of_the_impurity_criteria():
    value = np.array([[30.0, 10.0], [20.0, 0.0], [10.0, 10.0]])
    gini = node_impurity(value, "gini")
    np.testing.assert_allclose(gini, [1 - 0.75**2 - 0.25**2, 0.0, 0.5])
    np.testing.assert_allclose(node_impurity(value, "tsallis", {"q": 2.0}), gini)
    np.testing.assert_allclose(node_impurity(value, "entropy"),
                               [-(0.75 * math.log(0.75) + 0.25 * math.log(0.25)), 0, math.log(2)])
    np.testing.assert_allclose(node_impurity(value, "hddt"), [0.25, 0.0, 0.5])  # error
    np.testing.assert_allclose(node_risk(value, "gini"), gini * [1, 0.5, 0.5])


def test_every_impurity_gain_names_its_impurity_in_the_registry():
    # a new impurity criterion without its node impurity would silently prune by error rate
    from dtcli.criteria import CRITERIA

    for name, criterion in CRITERIA.items():
        gain = criterion.kernel.node_term.__qualname__.startswith("impurity_decrease.")
        assert (criterion.node_impurity is not None) == gain, name


@pytest.mark.parametrize("setting", ["defaults", "others"])
def test_node_impurities_equal_the_papers_reference(setting):
    from test_criteria_reference import IMPURITY

    from dtcli.criteria import CRITERIA

    rng = np.random.default_rng(1)
    value = rng.integers(0, 9, size=(30, 3)).astype(np.float64)
    value[0] = [5, 0, 0]  # a pure node
    value[value.sum(axis=1) == 0] = 1.0
    for name, reference in IMPURITY.items():
        params = {p.name: p.default for p in CRITERIA[name].params}
        if setting == "others":
            params = {k: (0.6 if k in ("alpha", "beta") else 1.7) for k in params}
        expected = [reference(list(row), params) for row in value]
        np.testing.assert_allclose(node_impurity(value, name, params), expected,
                                   rtol=1e-12, atol=1e-15, err_msg=name)


def test_one_standard_error_rule():
    # mean errors 0.30, 0.20, 0.22, 0.40; the SE of the best column is 0.1 / sqrt(4)
    errors = np.array([[0.3, 0.1, 0.2, 0.4], [0.3, 0.3, 0.24, 0.4],
                       [0.3, 0.2, 0.22, 0.4], [0.3, 0.2, 0.22, 0.4]])
    candidates = np.array([0.0, 0.1, 0.2, 0.3])
    assert choose_alpha(errors, candidates, one_se=False) == 0.1
    assert choose_alpha(errors, candidates, one_se=True) == 0.2


def test_auto_alpha_prunes_noise_to_the_root_and_keeps_a_real_split():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    noise = DecisionTreeClassifier(pruning="ccp", ccp_alpha="auto-1se", random_state=0)
    assert noise.fit(X, (rng.random(400) < 0.2).astype(int)).tree_.node_count == 1
    flipped = rng.random(400) < 0.1
    signal = noise.fit(X, ((X[:, 1] > 0.3) ^ flipped).astype(int))
    assert signal.tree_.node_count == 3 and signal.tree_.feature[0] == 1
    assert signal.pruning_["chosen_alpha"] > 0


# --- pessimistic ----------------------------------------------------------------------
def test_added_errors_match_quinlans_published_upper_limits():
    # C4.5 (Quinlan 1993), section 4.2: U_25%(0, 6) = 0.206, U_25%(0, 9) = 0.143,
    # U_25%(0, 1) = 0.750 (exact binomial limits); the subtree predicts 3.273 errors.
    u = lambda e, n: (e + added_errors(n, e, 0.25)) / n  # noqa: E731
    assert [round(u(0, n), 3) for n in (6, 9, 1)] == [0.206, 0.143, 0.750]
    assert 6 * u(0, 6) + 9 * u(0, 9) + u(0, 1) == pytest.approx(3.273, abs=5e-4)
    # U_25%(1, 16) = 0.157 exactly; Weka's normal approximation gives 0.1547, and the
    # node still becomes a leaf: 16 x 0.155 = 2.48 < 3.27
    assert u(1, 16) == pytest.approx(0.157, abs=3e-3)
    assert added_errors(10, 9.6, 0.25) == pytest.approx(0.4)  # E + 0.5 >= N: N - E
    # between E = 0 and 1, linear
    assert added_errors(10, 0.5, 0.25) == pytest.approx(
        (added_errors(10, 0, 0.25) + added_errors(10, 1, 0.25)) / 2)


def reference_j48(tree, X, y, n_classes, cf, raising):
    """Weka's C45PruneableClassifierTree.collapse() and prune() on nested dicts and lists."""
    def build(node):
        if tree.children_left[node] < 0:
            return {"leaf": True}
        return {"leaf": False, "f": int(tree.feature[node]), "t": float(tree.threshold[node]),
                "kids": [build(tree.children_left[node]), build(tree.children_right[node])]}

    def counts(rows):
        return [sum(1 for r in rows if y[r] == k) for k in range(n_classes)]

    def split(node, rows):
        return ([r for r in rows if X[r][node["f"]] <= node["t"]],
                [r for r in rows if not X[r][node["f"]] <= node["t"]])

    def assign(node, rows):
        node["rows"] = rows
        if not node["leaf"]:
            for kid, part in zip(node["kids"], split(node, rows)):
                assign(kid, part)

    def wrong(rows):
        return len(rows) - max(counts(rows)) if rows else 0

    def leaf_err(rows):
        return wrong(rows) + added_errors(len(rows), wrong(rows), cf) if rows else 0.0

    def train_err(node):
        return wrong(node["rows"]) if node["leaf"] else sum(map(train_err, node["kids"]))

    def collapse(node):
        if not node["leaf"]:
            if train_err(node) >= wrong(node["rows"]) - 1e-3:
                node["leaf"] = True
            else:
                for kid in node["kids"]:
                    collapse(kid)

    def tree_err(node):
        return leaf_err(node["rows"]) if node["leaf"] else sum(map(tree_err, node["kids"]))

    def branch_err(node, rows):
        if node["leaf"]:
            return leaf_err(rows)
        return sum(branch_err(k, p) for k, p in zip(node["kids"], split(node, rows)))

    def prune(node):
        if node["leaf"]:
            return
        for kid in node["kids"]:
            prune(kid)
        largest = max(node["kids"], key=lambda k: len(k["rows"]))  # first on a tie
        e_big = branch_err(largest, node["rows"]) if raising else math.inf
        e_leaf, e_tree = leaf_err(node["rows"]), tree_err(node)
        if e_leaf <= e_tree + 0.1 + 1e-6 and e_leaf <= e_big + 0.1 + 1e-6:
            node["leaf"] = True
        elif e_big <= e_tree + 0.1 + 1e-6:
            rows = node["rows"]
            node.clear()
            node.update(largest)
            assign(node, rows)
            prune(node)

    root = build(0)
    assign(root, list(range(len(y))))
    collapse(root)
    prune(root)
    return root


def nested(tree, node=0):
    """(feature, threshold, counts, left, right), or the counts of a leaf."""
    counts = tuple(int(c) for c in tree.counts[node])
    if tree.children_left[node] < 0:
        return counts
    return (int(tree.feature[node]), float(tree.threshold[node]), counts,
            nested(tree, tree.children_left[node]), nested(tree, tree.children_right[node]))


def reference_nested(node, y, n_classes):
    counts = tuple(sum(1 for r in node["rows"] if y[r] == k) for k in range(n_classes))
    if node["leaf"]:
        return counts
    return (node["f"], node["t"], counts) + tuple(reference_nested(k, y, n_classes)
                                                   for k in node["kids"])


@pytest.mark.parametrize("raising", [True, False])
@pytest.mark.parametrize("seed", range(5))
def test_pessimistic_pruning_equals_a_plain_python_j48(seed, raising):
    classes = 2 + seed % 2
    X, y = noisy_data(seed, n=150, classes=classes)
    tree = DecisionTreeClassifier(criterion="entropy").fit(X, y).tree_
    pruned = prune_pessimistic(tree, X, y, None, np.zeros(4, np.uint8), 0.25, raising)
    expected = reference_j48(tree, X.tolist(), y.tolist(), classes, 0.25, raising)
    assert nested(pruned) == reference_nested(expected, y.tolist(), classes)
    assert pruned.node_count < tree.node_count


def recursive_pessimistic(tree, X, y, w, is_nominal, cf):
    """prune_pessimistic's definition as plain recursion (its implementation before the
    compiled walk): every subtree's errors summed afresh, every raised branch re-counted
    and pruned again whole. The links, leaves and counts it leaves."""
    from dtcli.pruning.pessimistic import collapse_mask, leaf_errors

    def split_rows(tree, node, X, rows, is_nominal):
        """(rows going left, rows going right): the documented tests (engine/tree.py)."""
        x = X[rows, tree.feature[node]]
        if is_nominal[tree.feature[node]]:
            listed, goes = tree.categories_at(node)
            side = dict(zip(listed.tolist(), goes.tolist()))
            left = np.array([side.get(int(v), tree.missing_left[node]) if v == v
                             else tree.missing_left[node] for v in x], dtype=bool)
        else:
            left = np.where(np.isnan(x), bool(tree.missing_left[node]), x <= tree.threshold[node])
        return rows[left], rows[~left]

    kids = np.stack([tree.children_left, tree.children_right], axis=1).copy()
    leaf = (tree.children_left < 0) | collapse_mask(tree)
    value, n_samples = tree.counts.copy(), tree.n_node_samples.copy()

    def counts(rows):
        return np.bincount(y[rows], weights=w[rows], minlength=value.shape[1])

    def tree_errors(node):
        return leaf_errors(value[node], cf) if leaf[node] else sum(map(tree_errors, kids[node]))

    def raised(node, extra):
        if extra.shape[0] == 0:
            return tree_errors(node)
        if leaf[node]:
            return leaf_errors(value[node] + counts(extra), cf)
        parts = split_rows(tree, node, X, extra, is_nominal)
        return sum(raised(k, part) for k, part in zip(kids[node], parts))

    def recount(node, rows):
        value[node], n_samples[node] = counts(rows), rows.shape[0]
        if not leaf[node]:
            for k, part in zip(kids[node], split_rows(tree, node, X, rows, is_nominal)):
                recount(k, part)

    def prune(node, rows):
        if leaf[node]:
            return node
        parts = split_rows(tree, node, X, rows, is_nominal)
        for side, part in enumerate(parts):
            kids[node, side] = prune(kids[node, side], part)
        side = int(np.argmax(value[kids[node]].sum(axis=1)))
        largest = kids[node, side]
        e_big = raised(largest, parts[1 - side])
        e_leaf, e_tree = leaf_errors(value[node], cf), tree_errors(node)
        if e_leaf <= e_tree + 0.1 + 1e-6 and e_leaf <= e_big + 0.1 + 1e-6:
            leaf[node] = True
            return node
        if e_big <= e_tree + 0.1 + 1e-6:
            recount(largest, rows)
            return prune(largest, rows)
        return node

    root = prune(0, np.flatnonzero(w > 0))
    kept, stack = [], [root]
    while stack:
        node = stack.pop()
        kept.append((node, bool(leaf[node]), tuple(value[node]), int(n_samples[node])))
        if not leaf[node]:
            stack.extend(kids[node][::-1])
    return kept


def pruned_nodes(tree):
    """recursive_pessimistic's list for a pruned Tree (pre-order, by count)."""
    out, stack = [], [0]
    while stack:
        node = stack.pop()
        out.append((bool(tree.children_left[node] < 0), tuple(tree.counts[node]),
                    int(tree.n_node_samples[node])))
        if tree.children_left[node] >= 0:
            stack.extend([tree.children_right[node], tree.children_left[node]])
    return out


@pytest.mark.parametrize("name, weighted", [("noisy", False), ("noisy", True),
                                            ("breast-cancer", False), ("vote", True)])
def test_the_compiled_walk_prunes_as_the_recursive_definition(name, weighted):
    """Deep trees (min_samples_leaf=1) where branches are raised within raised branches;
    nominal splits and missing values (breast-cancer, vote); fractional weights, whose sums
    depend on their order: the same leaves and the same counts, to the last bit."""
    from dtcli.fit_data import FitData
    from dtcli.io import load_dataset

    model = DecisionTreeClassifier(criterion="entropy")
    if name == "noisy":
        data = model.fit_data(*noisy_data(7, n=700, classes=3))
    else:
        data = FitData.of_dataset(load_dataset(str(Path(__file__).parent / "data" / "weka"
                                                   / f"{name}.arff")))
    X, y, is_nominal = data.X, data.y, data.is_nominal.astype(np.uint8)  # as the tree saw them
    w = (np.random.default_rng(0).uniform(0.2, 3.0, y.shape[0]) if weighted
         else np.ones(y.shape[0]))
    tree = model.fit_prepared(data, w).tree_
    pruned = prune_pessimistic(tree, X, y, w, is_nominal, 0.25, True)
    expected = recursive_pessimistic(tree, X, y, w, is_nominal, 0.25)
    assert pruned_nodes(pruned) == [entry[1:] for entry in expected]
    assert pruned.node_count < tree.node_count


def test_subtree_raising_changes_some_tree_and_the_model_stays_valid():
    from dtcli.model import model_from_dict, model_to_dict

    changed = 0
    for seed in range(6):
        X, y = noisy_data(seed, n=200, classes=3)
        raised = DecisionTreeClassifier(pruning="pessimistic").fit(X, y)
        plain = DecisionTreeClassifier(pruning="pessimistic", subtree_raising=False).fit(X, y)
        changed += nested(raised.tree_) != nested(plain.tree_)
        model_from_dict(model_to_dict(raised))  # counts add up, ids ordered
    assert changed > 0


# --- reduced-error --------------------------------------------------------------------
def test_reduced_error_prunes_where_the_pruning_set_is_no_worse():
    # root splits into a pure leaf (node 1) and node 2, split into leaves 3 and 4
    from dtcli.engine.tree import Tree

    tree = Tree(children_left=np.array([1, -1, 3, -1, -1]),
                children_right=np.array([2, -1, 4, -1, -1]),
                feature=np.array([0, -2, 0, -2, -2]),
                threshold=np.array([0.0, np.nan, 1.0, np.nan, np.nan]),
                missing_left=np.zeros(5, np.uint8),
                counts=np.array([[10.0, 10], [6, 0], [4, 10], [4, 1], [0, 9]]),
                n_node_samples=np.array([20, 6, 14, 5, 9]), score=np.full(5, np.nan))
    # pruning rows: at leaf 3 two of class 1, at leaf 4 one of each
    held_out = pruning_counts(tree, np.array([3, 3, 4, 4]), np.array([1, 1, 0, 1]), np.ones(4))
    np.testing.assert_array_equal(held_out[2], [1, 3])
    # node 2 as a leaf (class 1) errs once; its leaves err twice (3 says 0) + once: pruned.
    # the root as a leaf (class 0, first of the tie) errs 3 times, its subtree once: kept
    assert prune_reduced_error(tree, held_out).node_count == 3


def test_reduced_error_grows_on_all_folds_but_one():
    X, y = noisy_data(1)
    model = DecisionTreeClassifier(pruning="reduced-error", pruning_folds=3, random_state=2).fit(X, y)
    assert model.tree_.n_node_samples[0] == 200
    assert model.pruning_ == {"method": "reduced-error", "pruning_folds": 3}
    assert model.tree_.node_count < DecisionTreeClassifier().fit(X, y).tree_.node_count


# --- leaf estimates and parameters ----------------------------------------------------
def test_leaf_estimates_by_hand():
    value = np.array([[8.0, 2.0], [3.0, 0.0]])
    np.testing.assert_allclose(node_proba(value, "frequency"), [[0.8, 0.2], [1.0, 0.0]])
    np.testing.assert_allclose(node_proba(value, "laplace"), [[0.75, 0.25], [0.8, 0.2]])
    # m-estimate, prior = the root's shares (0.8, 0.2), m = 2
    np.testing.assert_allclose(node_proba(value, "m-estimate", 2.0),
                               [[0.8, 0.2], [(3 + 1.6) / 5, 0.4 / 5]])


def test_laplace_leaves_rank_where_frequency_leaves_tie():
    X, y = noisy_data(0)
    frequency = DecisionTreeClassifier().fit(X, y)
    laplace = DecisionTreeClassifier(leaf_estimate="laplace").fit(X, y)
    assert set(np.unique(frequency.predict_proba(X)[:, 1])) <= {0.0, 1.0}
    assert len(np.unique(laplace.predict_proba(X)[:, 1])) > 2
    np.testing.assert_array_equal(laplace.predict(X), frequency.predict(X))


@pytest.mark.parametrize("params", [{"pruning": "cart"}, {"pruning": "ccp", "ccp_alpha": -1},
                                    {"pruning": "ccp", "ccp_alpha": "best"},
                                    {"pruning": "ccp", "ccp_risk": "deviance"},
                                    {"pruning": "pessimistic", "confidence": 0.7},
                                    {"pruning": "reduced-error", "pruning_folds": 1},
                                    {"leaf_estimate": "smooth"}, {"m": 0}])
def test_bad_pruning_parameters_are_refused(params):
    X, y = noisy_data(0, n=40)
    with pytest.raises(ParameterError):
        DecisionTreeClassifier(**params).fit(X, y)


# --- model files ----------------------------------------------------------------------
@pytest.mark.parametrize("params", [
    {"pruning": "ccp", "ccp_alpha": "auto-1se", "leaf_estimate": "laplace"},
    {"pruning": "pessimistic", "confidence": 0.1, "subtree_raising": False,
     "leaf_estimate": "m-estimate", "m": 4.0},
    {"pruning": "reduced-error", "pruning_folds": 4}])
def test_model_files_record_the_pruning_and_the_leaf_estimate(params):
    from dtcli.model import model_from_dict, model_to_dict

    X, y = noisy_data(2)
    model = DecisionTreeClassifier(**params).fit(X, y)
    doc = model_to_dict(model)
    assert doc["pruning"] == model.pruning_ and doc["pruning"]["method"] == params["pruning"]
    assert doc["format_version"] == (1 if "leaf_estimate" not in params else 2)
    loaded, _ = model_from_dict(doc)
    assert {k: loaded.get_params()[k] for k in params} == params
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


@pytest.mark.parametrize("change, message", [
    (lambda d: d["pruning"].update(method="cart"), "invalid pruning"),
    (lambda d: d["pruning"].update(confidence=2), "invalid pruning"),
    (lambda d: d["pruning"].update(colour=1), "unknown key 'colour'"),
    (lambda d: d["leaf_estimate"].update(name="smooth"), "invalid leaf_estimate"),
    (lambda d: d.update(format_version=1), "needs format_version 2")])
def test_damaged_pruning_records_are_refused(change, message):
    from dtcli.errors import ModelError
    from dtcli.model import model_from_dict, model_to_dict

    X, y = noisy_data(2, n=60)
    doc = model_to_dict(DecisionTreeClassifier(pruning="pessimistic", leaf_estimate="laplace")
                        .fit(X, y))
    change(doc)
    with pytest.raises(ModelError, match=message):
        model_from_dict(doc)


def test_the_command_lines_choices_are_the_librarys():
    from dtcli.cli import pruning_options as cli
    from dtcli.leaf_estimate import LEAF_ESTIMATES
    from dtcli.pruning.methods import METHODS
    from dtcli.pruning.risk import RISKS
    from dtcli.pruning.significance import MODES

    assert cli.METHOD_NAMES == tuple(METHODS) and cli.RISK_NAMES == RISKS
    assert cli.MODE_NAMES == MODES
    assert cli.ESTIMATE_NAMES == LEAF_ESTIMATES


def exact_path(tree):
    """The error risk's weakest-link alphas in exact fractions (misclassified rows over
    rows x (leaves - 1)), every g recomputed at every step."""
    from fractions import Fraction

    value = tree.counts.astype(np.int64)
    mis = (value.sum(axis=1) - value.max(axis=1)).tolist()
    n = int(value[0].sum())
    left, right = tree.children_left.tolist(), tree.children_right.tolist()
    leaf = [c < 0 for c in left]

    def below(t):  # (misclassified rows of its leaves, leaves)
        if leaf[t]:
            return mis[t], 1
        a, b = below(left[t]), below(right[t])
        return a[0] + b[0], a[1] + b[1]

    def reachable():
        stack, found = [0], []
        while stack:
            t = stack.pop()
            if not leaf[t]:
                found.append(t)
                stack += [left[t], right[t]]
        return found

    alphas = []
    while not leaf[0]:
        g = {t: Fraction(mis[t] - below(t)[0], n * (below(t)[1] - 1)) for t in reachable()}
        weakest = min(g.values())
        alphas.append(weakest)
        leaf[min(t for t, v in g.items() if v == weakest)] = True
    return alphas


@pytest.mark.parametrize("name", ["iris.csv", "balanced/wine.csv"])
def test_equal_costs_are_equal_alphas(name, load_example):
    """With unweighted rows and the error risk, each alpha is the float nearest its
    exact fraction, so equal fractions are equal floats (iris printed 1/150 as
    0.006666666666666668 and 0.006666666666666678 before)."""
    from dtcli.pruning.risk import weighted_node_risk

    tree = DecisionTreeClassifier().fit_dataset(load_example(name)).tree_
    risk = weighted_node_risk(tree.counts, "gini", None, "error")
    _, alphas, _, _ = weakest_links(tree, risk, total=tree.counts[0].sum())
    expected = exact_path(tree)
    assert sorted(set(alphas[1:].tolist())) == sorted({float(a) for a in expected})
    assert alphas[1:].tolist() == sorted(float(a) for a in expected)


def test_rpart_cp_prunes_ties_at_the_cp_together(load_example):
    """iris's unpruned gini tree has several weakest links at exactly 1/150 = cp 0.01 x
    R(root) (R(root) = 100/150): pruned at cp 0.01 they all go, as in rpart."""
    from dtcli.pruning.risk import weighted_node_risk

    data = load_example("iris.csv")
    grown = DecisionTreeClassifier().fit_dataset(data).tree_
    risk = weighted_node_risk(grown.counts, "gini", None, "error")
    nodes, alphas, _, n_leaves = weakest_links(grown, risk, total=150.0)
    at_cp = alphas[1:] <= 1 / 150
    assert np.count_nonzero(alphas[1:] == 1 / 150) >= 2
    pruned = DecisionTreeClassifier(pruning="ccp", ccp_risk="error", cp=0.01).fit_dataset(data)
    assert pruned.tree_.n_leaves == n_leaves[np.count_nonzero(at_cp)]
    assert pruned.pruning_["chosen_alpha"] == pytest.approx(1 / 150, rel=1e-15)
    same = DecisionTreeClassifier(pruning="ccp", ccp_risk="error",
                                  ccp_alpha=0.01 * 100 / 150).fit_dataset(data)
    assert same.tree_.n_leaves == pruned.tree_.n_leaves


def test_cp_and_ccp_alpha_are_one_threshold():
    with pytest.raises(ParameterError, match="cp and ccp_alpha"):
        DecisionTreeClassifier(pruning="ccp", ccp_alpha=0.1, cp=0.01).fit([[0], [1]], [0, 1])
    with pytest.raises(ParameterError, match="cp must be"):
        DecisionTreeClassifier(pruning="ccp", cp=-1.0).fit([[0], [1]], [0, 1])


def test_auto_takes_the_simplest_tree_among_equal_errors():
    """As rpart's which.min over its cp table (largest cp first): of equal mean errors, the
    largest candidate alpha."""
    errors = np.array([[0.3, 0.2, 0.2, 0.4], [0.3, 0.2, 0.2, 0.4]])
    candidates = np.array([0.0, 0.1, 0.2, 0.3])
    assert choose_alpha(errors, candidates, one_se=False) == 0.2
