"""Naive Bayes leaves: each leaf of a fitted tree holds a Naive Bayes model fitted on
the training rows that reach it, over all features, and predicts with it.

- Class priors: Laplace-smoothed, (n_k + alpha) / (n + K alpha), over all K classes
  of the tree (n_k: the leaf's weighted rows of class k).
- Nominal features: categorical, Laplace-smoothed, P(v | k) = (n_kv + alpha) /
  (n_k' + alpha V), V the feature's categories, n_k' the class's rows with the
  feature present (scikit-learn's CategoricalNB with min_categories=V).
- Numeric features, `numeric="mdl"` (the default): the feature is cut into bins by
  Fayyad and Irani's MDL method on the whole training set (as FDF does,
  dtcli.leaves.discretise) and treated as nominal with the bins as categories. The
  default, because a normal density fitted on the one or two rows a class often has
  in a leaf is a spike of variance epsilon, with extreme probabilities (docs/fdf.md
  measures the log losses). `numeric="gaussian"`: a normal density per class
  with the class's weighted mean and (biased) variance, plus epsilon = var_smoothing
  x the largest variance of a numeric feature among the leaf's rows (scikit-learn's
  GaussianNB; epsilon is var_smoothing itself when every feature is constant there).
  A class without rows (or without present values of the feature) in the leaf takes
  the leaf's pooled mean and variance of the feature: it gets no evidence for or
  against it, only its smoothed prior.
- Missing values are skipped feature by feature, in fitting and predicting; an
  unseen category is a missing value.
- A leaf with fewer than `min_samples` training rows (default 5) holds no model: it
  predicts its class counts Laplace-smoothed, (n_k + alpha) / (n + K alpha).

Everything is vectorised numpy over leaves x classes x features (no compiled code).
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import numpy as np

from dtcli.errors import ParameterError
from dtcli.leaves.discretise import mdl_cut_points, to_bins
from dtcli.io.dataset import NOMINAL

LEAF_MODELS = ("counts", "naive-bayes")
NUMERIC_MODES = ("gaussian", "mdl")
DEFAULTS = {"numeric": "mdl", "min_samples": 5, "alpha": 1.0, "var_smoothing": 1e-9}
_CHUNK = 4096  # rows predicted at once: bounds the (rows, classes, features) temporaries


def leaf_options(params: dict | None) -> dict:
    """The Naive Bayes leaves' options, defaults filled in; ParameterError when invalid."""
    options = dict(DEFAULTS)
    for name, value in (params or {}).items():
        if name not in DEFAULTS:
            raise ParameterError(f"unknown leaf parameter '{name}' (known: "
                                 f"{', '.join(DEFAULTS)})")
        options[name] = value
    if options["numeric"] not in NUMERIC_MODES:
        raise ParameterError(f"leaf parameter numeric must be gaussian or mdl, got "
                             f"{options['numeric']!r}")
    size = options["min_samples"]
    if not isinstance(size, numbers.Integral) or isinstance(size, bool) or size < 1:
        raise ParameterError(f"leaf parameter min_samples must be an integer >= 1, got {size!r}")
    for name, low in (("alpha", 0.0), ("var_smoothing", 0.0)):
        value = options[name]
        if not isinstance(value, numbers.Real) or not math.isfinite(value) or value <= low:
            raise ParameterError(f"leaf parameter {name} must be a number > {low:g}, "
                                 f"got {value!r}")
        options[name] = float(value)
    options["min_samples"] = int(size)
    return options


@dataclass
class NaiveBayesLeaves:
    """The fitted models of the leaves `nodes` (sorted node ids), in parallel arrays:
    L leaves, K classes, C categorical features with V categories in all, G Gaussian
    features. `cuts[j]`: the bins of numeric feature j under numeric="mdl"."""

    options: dict
    nodes: np.ndarray  # (L,) int64
    class_counts: np.ndarray  # (L, K)
    cat_features: np.ndarray  # (C,) int64 feature indices
    cat_sizes: np.ndarray  # (C,) categories (or bins) of each
    cat_counts: np.ndarray  # (L, K, V) weighted counts, feature c at offsets[c]:offsets[c + 1]
    gauss_features: np.ndarray  # (G,) int64
    gauss_mean: np.ndarray  # (L, K, G)
    gauss_var: np.ndarray  # (L, K, G), epsilon included
    gauss_used: np.ndarray  # (L, G) bool: the leaf saw present values of the feature
    cuts: dict = field(default_factory=dict)

    @property
    def offsets(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(self.cat_sizes)]).astype(np.int64)

    def log_prior(self) -> np.ndarray:
        alpha, counts = self.options["alpha"], self.class_counts
        return np.log((counts + alpha) / (counts.sum(axis=1, keepdims=True)
                                          + alpha * counts.shape[1]))

    def log_cat_table(self) -> np.ndarray:
        """log P(v | k) for every leaf, class and category (L, K, V)."""
        alpha, offsets = self.options["alpha"], self.offsets
        smoothed = self.cat_counts + alpha
        totals = np.add.reduceat(smoothed, offsets[:-1], axis=2) if self.cat_sizes.size else \
            np.zeros(smoothed.shape[:2] + (0,))
        return np.log(smoothed) - np.log(np.repeat(totals, self.cat_sizes, axis=2))

    def codes(self, X: np.ndarray) -> np.ndarray:
        """The categorical features' category (or bin) indices of X's rows; -1 = skip."""
        codes = np.empty((X.shape[0], self.cat_features.shape[0]), dtype=np.int64)
        for c, j in enumerate(self.cat_features):
            column = X[:, j]
            if int(j) in self.cuts:
                codes[:, c] = to_bins(column, self.cuts[int(j)])
            else:
                codes[:, c] = np.where(np.isnan(column), -1, np.nan_to_num(column, nan=-1))
        codes[(codes < 0) | (codes >= self.cat_sizes)] = -1
        return codes

    def joint_log_likelihood(self, X: np.ndarray, m: np.ndarray) -> np.ndarray:
        """log P(k) + sum of log P(x_j | k) over the present features, for rows X whose
        models are m (indices into `nodes`): (rows, K)."""
        out = self.log_prior()[m]
        if self.gauss_features.size:
            x = X[:, self.gauss_features][:, None, :]
            mean, var = self.gauss_mean[m], self.gauss_var[m]
            terms = -0.5 * (np.log(2 * np.pi * var) + (x - mean) ** 2 / var)
            skip = np.isnan(x) | ~self.gauss_used[m][:, None, :]
            out = out + np.where(skip, 0.0, terms).sum(axis=2)
        if self.cat_features.size:
            codes = self.codes(X)
            flat = np.where(codes >= 0, codes + self.offsets[:-1], 0)
            picked = self._log_table[m[:, None], :, flat]  # (rows, C, K)
            out = out + np.where((codes >= 0)[:, :, None], picked, 0.0).sum(axis=1)
        return out

    @property
    def _log_table(self) -> np.ndarray:
        if not hasattr(self, "_table"):
            self._table = self.log_cat_table()
        return self._table

    def proba(self, X: np.ndarray, leaves: np.ndarray, value: np.ndarray) -> np.ndarray:
        """Class probabilities of rows X that reach `leaves` of a tree whose class counts
        are `value`: the leaf's Naive Bayes posterior, or its smoothed counts."""
        alpha = self.options["alpha"]
        counts = value[leaves]
        proba = (counts + alpha) / (counts.sum(axis=1, keepdims=True) + alpha * counts.shape[1])
        slot = np.minimum(np.searchsorted(self.nodes, leaves), max(self.nodes.shape[0] - 1, 0))
        hit = np.flatnonzero(self.nodes[slot] == leaves) if self.nodes.size else np.array([], int)
        for start in range(0, hit.shape[0], _CHUNK):
            rows = hit[start:start + _CHUNK]
            proba[rows] = softmax(self.joint_log_likelihood(X[rows], slot[rows]))
        return proba

    def influence(self, i: int) -> np.ndarray:
        """How much each feature separates the classes in leaf model i: Jeffreys'
        divergence sum_{k != l} p_k p_l KL(P(x_j | k) || P(x_j | l)) in nats, p the
        smoothed priors; one value per feature (0 for a feature the leaf skips)."""
        n_features = int(max(np.max(self.gauss_features, initial=-1),
                             np.max(self.cat_features, initial=-1))) + 1
        prior = np.exp(self.log_prior()[i])
        weight = prior[:, None] * prior[None, :]
        out = np.zeros(n_features)
        for g, j in enumerate(self.gauss_features):
            if self.gauss_used[i, g]:
                mean, var = self.gauss_mean[i, :, g], self.gauss_var[i, :, g]
                kl = 0.5 * (np.log(var[None, :] / var[:, None])
                            + (var[:, None] + (mean[:, None] - mean[None, :]) ** 2)
                            / var[None, :] - 1.0)
                out[j] = float((weight * kl).sum())
        table, offsets = self.log_cat_table()[i], self.offsets
        for c, j in enumerate(self.cat_features):
            logp = table[:, offsets[c]:offsets[c + 1]]
            kl = (np.exp(logp)[:, None, :] * (logp[:, None, :] - logp[None, :, :])).sum(axis=2)
            out[j] = float((weight * kl).sum())
        return out

    def describe(self, node: int, features, classes, top: int = 3) -> str:
        """One line for a leaf: its model's priors and most influential features."""
        i = int(np.searchsorted(self.nodes, node))
        if i >= self.nodes.shape[0] or self.nodes[i] != node:
            return (f"naive bayes: none (under {self.options['min_samples']} rows), "
                    "smoothed class frequencies")
        prior = np.exp(self.log_prior()[i])
        influence = self.influence(i)
        order = [j for j in np.argsort(-influence, kind="stable")[:top] if influence[j] > 0]
        priors = ", ".join(f"{classes[k]} {p:.3g}" for k, p in enumerate(prior))
        strongest = ", ".join(f"{features[j].name} ({influence[j]:.3g})" for j in order)
        return f"naive bayes: priors {priors}; most influential: {strongest or 'none'}"


def softmax(log_likelihood: np.ndarray) -> np.ndarray:
    shifted = np.exp(log_likelihood - log_likelihood.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def fit_leaves(tree, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None, features,
               n_classes: int, options: dict, n_threads: int = 1) -> NaiveBayesLeaves:
    """Fit a Naive Bayes model in every leaf of `tree` with at least min_samples rows,
    on the rows of X (float64, NaN = missing), y and weights (None: 1) it was grown
    from (rows of weight 0 are left out, as the tree left them out)."""
    keep = np.flatnonzero(weights > 0) if weights is not None else np.arange(X.shape[0])
    X, y = X[keep], y[keep]
    w = np.ones(keep.shape[0]) if weights is None else weights[keep].astype(np.float64)
    is_nominal = np.array([f.kind == NOMINAL for f in features], dtype=np.uint8)
    leaf = tree.apply(X, is_nominal, n_threads)
    is_leaf = tree.children_left < 0
    nodes = np.flatnonzero(is_leaf & (tree.n_node_samples >= options["min_samples"])
                           & (tree.counts.sum(axis=1) > 0))
    index = np.full(tree.node_count, -1, dtype=np.int64)
    index[nodes] = np.arange(nodes.shape[0])
    m = index[leaf]
    rows = m >= 0
    X, y, w, m = X[rows], y[rows], w[rows], m[rows]
    n_leaves, K = nodes.shape[0], n_classes
    cell = m * K + y  # (leaf, class) of every row
    class_counts = np.bincount(cell, w, minlength=n_leaves * K).reshape(n_leaves, K)
    mdl = options["numeric"] == "mdl"
    numeric = [j for j, f in enumerate(features) if f.kind != NOMINAL]
    cuts = {j: mdl_cut_points(X[:, j], y, K) for j in numeric} if mdl else {}
    cat_features = np.array([j for j, f in enumerate(features) if f.kind == NOMINAL or mdl],
                            dtype=np.int64)
    cat_sizes = np.array([len(cuts[j]) + 1 if j in cuts else len(features[j].categories)
                          for j in cat_features], dtype=np.int64)
    model = NaiveBayesLeaves(options, nodes, class_counts, cat_features, cat_sizes,
                             np.zeros((n_leaves, K, int(cat_sizes.sum()))),
                             np.array([] if mdl else numeric, dtype=np.int64),
                             *_empty_gaussian(n_leaves, K, 0 if mdl else len(numeric)), cuts)
    if cat_features.size:
        model.cat_counts = _category_counts(model, X, cell, w, n_leaves * K)
    if model.gauss_features.size:
        _fit_gaussian(model, X[:, model.gauss_features], m, cell, w, n_leaves, K)
    return model


def _empty_gaussian(n_leaves: int, n_classes: int, n_features: int):
    shape = (n_leaves, n_classes, n_features)
    return np.zeros(shape), np.ones(shape), np.zeros((n_leaves, n_features), dtype=bool)


def _category_counts(model, X, cell, w, n_cells: int) -> np.ndarray:
    codes = model.codes(X)
    n_values = int(model.cat_sizes.sum())
    present = codes >= 0
    flat = (cell[:, None] * n_values + model.offsets[:-1] + codes)[present]
    weights = np.broadcast_to(w[:, None], codes.shape)[present]
    counts = np.bincount(flat, weights, minlength=n_cells * n_values)
    return counts.reshape(-1, model.class_counts.shape[1], n_values)


def _grouped_moments(x: np.ndarray, group: np.ndarray, w: np.ndarray, n_groups: int):
    """Per group and column: weighted count of present values, mean, biased variance."""
    n_columns = x.shape[1]
    present = ~np.isnan(x)
    flat = group[:, None] * n_columns + np.arange(n_columns)
    ww = np.where(present, w[:, None], 0.0)
    x0 = np.where(present, x, 0.0)
    size = n_groups * n_columns
    count = np.bincount(flat.ravel(), ww.ravel(), minlength=size).reshape(n_groups, n_columns)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.bincount(flat.ravel(), (ww * x0).ravel(), minlength=size).reshape(
            n_groups, n_columns) / count
        deviation = np.where(present, x0 - mean[group], 0.0)
        var = np.bincount(flat.ravel(), (ww * deviation ** 2).ravel(), minlength=size).reshape(
            n_groups, n_columns) / count
    return count, mean, var


def _fit_gaussian(model, x, m, cell, w, n_leaves: int, K: int) -> None:
    count, mean, var = _grouped_moments(x, cell, w, n_leaves * K)
    pooled_count, pooled_mean, pooled_var = _grouped_moments(x, m, w, n_leaves)
    # epsilon as GaussianNB's: var_smoothing x the largest unweighted variance in the leaf
    _, _, plain_var = _grouped_moments(x, m, np.ones_like(w), n_leaves)
    largest = np.nan_to_num(plain_var, nan=0.0).max(axis=1)
    smoothing = model.options["var_smoothing"]
    epsilon = np.where(largest > 0, smoothing * largest, smoothing)
    shape = (n_leaves, K, x.shape[1])
    count, mean, var = count.reshape(shape), mean.reshape(shape), var.reshape(shape)
    absent = count <= 0
    model.gauss_mean = np.where(absent, pooled_mean[:, None, :], mean)
    model.gauss_var = np.where(absent, pooled_var[:, None, :], var) + epsilon[:, None, None]
    model.gauss_used = pooled_count > 0
    model.gauss_mean = np.nan_to_num(model.gauss_mean, nan=0.0)
    model.gauss_var = np.nan_to_num(model.gauss_var, nan=1.0)
