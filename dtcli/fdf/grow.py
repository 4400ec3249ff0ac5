"""FDF's down-top rule construction (paper, section III.A, steps 1-6), for many samples
at once.

A sample's rule starts from the whole training set S. At a subset T (the training
rows matching the rule so far), the sample's next condition is the value x_j, among
its values of the attributes not used yet, of the highest GenGain(T, x_j) (eq. (3);
ties to the lowest attribute); T becomes T_{x_j}. The rule ends when T is pure, or
a stopping rule fires: no value of a positive gain above `min_gain`, no value whose
subset keeps `min_samples_leaf` rows, the sample has no unused present value, or the
rule has `max_depth` conditions. Its leaf is a Naive Bayes model of T over the
attributes the rule does not test (`leaf_log_proba`).

Work is shared between samples whose rules share a prefix: the samples are walked
down together, a node at a time, as a trie. At each node T's value-by-class count
table is built once (O(|T| x attributes)) and gives the GenGain of every value and
the leaf's Naive Bayes, and the samples at the node are split by their chosen value.
The naive construction, one walk per sample, repeats the upper nodes' tables for
every sample: quadratic in the rows.

The same walk classifies new samples (section III.B): a sample whose values lead
into an existing branch follows it, and otherwise its branch is built by GenGain
from the training rows, which the model keeps for that.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dtcli.fdf.gain import entropy

NO_VALUE = -1  # a missing value, or a category unseen in training


@dataclass(frozen=True)
class Coded:
    """Training data as attribute values: codes (rows, attributes) in [0, n_values[j])
    or NO_VALUE, class indices y."""

    codes: np.ndarray
    y: np.ndarray
    n_values: np.ndarray
    n_classes: int

    @property
    def offsets(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(self.n_values)[:-1]]).astype(np.int64)


@dataclass(frozen=True)
class Stops:
    min_samples_leaf: int = 1
    max_depth: int | None = None
    min_gain: float = 0.0
    nb_min_samples: int = 5
    alpha: float = 1.0


@dataclass
class Forest:
    """The trie of the rules as parallel lists. Node 0 is S itself (no condition); a node
    tests attribute `feature` = `value` below `parent`. `counts`: class counts of its
    subset T; `n_rules`: the samples whose rule ends there. The children of node 0 are
    the roots of the forest's trees, one tree per attribute they test."""

    parent: list = field(default_factory=lambda: [-1])
    feature: list = field(default_factory=lambda: [-1])
    value: list = field(default_factory=lambda: [-1])
    counts: list = field(default_factory=lambda: [None])
    n_rules: list = field(default_factory=lambda: [0])

    def add(self, parent: int, feature: int, value: int) -> int:
        self.parent.append(parent)
        self.feature.append(feature)
        self.value.append(value)
        self.n_rules.append(0)
        self.counts.append(None)
        return len(self.parent) - 1


def cell_ids(data: Coded) -> np.ndarray:
    """Every training row's (attribute value, class) cell, (rows, attributes); missing
    values in a last, discarded cell. Computed once per walk: `value_counts` of any
    subset is then a single bincount."""
    total = int(data.n_values.sum()) * data.n_classes
    ids = (data.codes + data.offsets) * data.n_classes + data.y[:, None]
    return np.where(data.codes == NO_VALUE, total, ids)


def root_gains(data: Coded) -> np.ndarray:
    """GenGain(S, x) of every attribute value x on the whole training set S."""
    table = value_counts(data, cell_ids(data), np.arange(data.codes.shape[0]))
    counts = np.bincount(data.y, minlength=data.n_classes)
    return table.sum(axis=1) / data.y.shape[0] * (entropy(counts) - entropy(table))


def value_counts(data: Coded, cells: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Class counts of every attribute value among `rows` (values x classes); `cells`
    from `cell_ids`."""
    total = int(data.n_values.sum())
    counts = np.bincount(cells[rows].ravel(), minlength=total * data.n_classes + 1)
    return counts[:-1].reshape(total, data.n_classes)


def leaf_log_proba(data: Coded, table: np.ndarray, class_counts: np.ndarray, used: np.ndarray,
                   queries: np.ndarray, stops: Stops, offsets: np.ndarray) -> np.ndarray:
    """Log class probabilities of the query codes at a leaf whose subset has the value
    table `table` and `class_counts`: Naive Bayes over the attributes not in the rule
    (`used` marks those in it, constant in the subset), Laplace-smoothed priors and
    conditionals, missing values skipped; below nb_min_samples rows, the smoothed
    class frequencies alone."""
    alpha, K = stops.alpha, data.n_classes
    n = class_counts.sum()
    prior = np.log((class_counts + alpha) / (n + K * alpha))
    out = np.broadcast_to(prior, (queries.shape[0], K)).copy()
    if n < stops.nb_min_samples:
        return out
    owner = np.repeat(np.arange(data.n_values.shape[0]), data.n_values)
    per_feature = np.add.reduceat(table, offsets, axis=0)  # class rows with j present
    log_table = np.log(table + alpha) - np.log(per_feature[owner] + alpha
                                               * data.n_values[owner][:, None])
    usable = (queries != NO_VALUE) & ~used
    ids = np.where(usable, queries + offsets, 0)
    out += np.where(usable[:, :, None], log_table[ids], 0.0).sum(axis=1)
    return out


def walk(data: Coded, queries: np.ndarray, stops: Stops, forest: Forest | None = None,
         first: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Grow the rule of every query row (codes like data.codes) on the training data.

    Returns (end node of each query in the walk's trie, log class probabilities of its
    leaf). With `forest`, the trie is recorded there (node ids are its ids). With
    `first`, every rule's first condition is on that attribute (a walk down one tree)."""
    K, n_features = data.n_classes, data.codes.shape[1]
    offsets = data.offsets
    owner = np.repeat(np.arange(n_features), data.n_values)
    cells = cell_ids(data)
    radix = int(data.n_values.max()) + 1
    ends = np.zeros(queries.shape[0], dtype=np.int64)
    log_proba = np.empty((queries.shape[0], K))
    next_id = 1
    # (training rows of T, query rows here, node id, attributes used, depth)
    stack = [(np.arange(data.codes.shape[0]), np.arange(queries.shape[0]), 0,
              np.zeros(n_features, dtype=bool), 0)]
    while stack:
        rows, here, node, used, depth = stack.pop()
        class_counts = np.bincount(data.y[rows], minlength=K).astype(np.float64)
        table = value_counts(data, cells, rows)
        if forest is not None:
            forest.counts[node] = class_counts
        whole = float(entropy(class_counts))
        q = queries[here]
        done = np.ones(here.shape[0], dtype=bool)
        if whole > 0 and (stops.max_depth is None or depth < stops.max_depth):
            sizes = table.sum(axis=1)
            gain = sizes / rows.shape[0] * (whole - entropy(table))
            gain[used[owner] | (sizes < stops.min_samples_leaf)] = -np.inf
            present = q != NO_VALUE
            options = np.where(present, gain[np.where(present, q + offsets, 0)], -np.inf)
            if depth == 0 and first is not None:
                options[:, np.arange(n_features) != first] = -np.inf
            best = np.argmax(options, axis=1)
            done = options[np.arange(here.shape[0]), best] <= stops.min_gain
        finished = here[done]
        ends[finished] = node
        if finished.shape[0]:
            log_proba[finished] = leaf_log_proba(data, table, class_counts, used,
                                                 queries[finished], stops, offsets)
        if forest is not None:
            forest.n_rules[node] += finished.shape[0]
        if done.all():
            continue
        going, chosen = here[~done], best[~done]
        values = q[~done, :][np.arange(going.shape[0]), chosen]
        keys = chosen * radix + values
        unique, group = np.unique(keys, return_inverse=True)
        for g in range(unique.shape[0] - 1, -1, -1):  # lowest key walked first
            j, v = divmod(int(unique[g]), radix)
            child = forest.add(node, j, v) if forest is not None else next_id
            next_id += 1
            child_used = used.copy()
            child_used[j] = True
            stack.append((rows[data.codes[rows, j] == v], going[group == g], child,
                          child_used, depth + 1))
    return ends, log_proba
