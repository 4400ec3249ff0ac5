"""Pessimistic pruning's walk, compiled (pessimistic.py says what it decides).

`prune_nodes` runs J48's recursion (prune the branches, then make the node a leaf,
raise its largest branch or keep it; a raised branch is re-counted with the node's
rows and pruned again) iteratively, with a stack of frames instead of Python's
recursion, over rows kept in one buffer: a node's rows are a segment of it, split in
place between its branches. Two things make it fast on deep trees (gain ratio grows
them thousands of levels deep) without changing a decision:

- a pruned subtree's estimated errors are kept per node, so the errors of a raised
  branch walk only the rows of the other branch, each to its leaf once, and sum the
  nodes those rows reached, children first (a child's id is above its parent's);
- pruning a raised branch again visits only the nodes whose rows or counts the raise
  changed, and their ancestors: any other node would be pruned again from the same
  rows and counts, to the same result. With whole weights the other branch's rows are
  added to the counts along their paths (sums of whole numbers are exact in any
  order); with fractional weights the branch is re-counted in row order and a node
  whose counts changed in any bit is visited.

Every sum is made in the order of the reference (pessimistic.added_errors and
numpy's pairwise sum of a node's counts), and no fast-math licence is taken (not
even flags.njit's multiply-add contraction), so the trees are those of the
recursive definition to the last bit (tests/test_pruning.py checks against it).
"""
import math

import numba
import numpy as np

from dtcli.jit.flags import CACHE

_SLACK = 0.1  # J48's margin in favour of the simpler tree
WEKA_EPS = 1e-6  # Weka's Utils.smOrEq: a <= b + 1e-6
njit = numba.njit(cache=CACHE, nogil=True, error_model="numpy")
_inline = numba.njit(cache=CACHE, nogil=True, error_model="numpy", inline="always")


@_inline
def _block(a, lo, n):
    """numpy's pairwise sum of a[lo:lo + n], n <= 128: eight running sums."""
    if n < 8:
        res = -0.0
        for i in range(n):
            res += a[lo + i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    while i < n - (n % 8):
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@njit
def _pairwise(a):
    """numpy's sum of a contiguous float64 array (its pairwise add.reduce: halves, cut
    at a multiple of 8, down to blocks of at most 128), so that a node's total is
    numpy's to the last bit. Without recursion (numba's cache does not keep it)."""
    if a.shape[0] <= 128:
        return _block(a, 0, a.shape[0])
    starts, sizes = np.empty(64, np.int64), np.empty(64, np.int64)
    stages, sums = np.empty(64, np.int64), np.empty(64)
    starts[0], sizes[0], stages[0] = 0, a.shape[0], 0
    depth, n_sums = 1, 0
    while depth > 0:
        top = depth - 1
        lo, n = starts[top], sizes[top]
        if n <= 128:
            sums[n_sums] = _block(a, lo, n)
            n_sums += 1
            depth -= 1
            continue
        half = n // 2
        half -= half % 8
        if stages[top] == 0:  # the first half
            stages[top] = 1
            starts[depth], sizes[depth], stages[depth] = lo, half, 0
            depth += 1
        elif stages[top] == 1:  # the second
            stages[top] = 2
            starts[depth], sizes[depth], stages[depth] = lo + half, n - half, 0
            depth += 1
        else:
            sums[n_sums - 2] = sums[n_sums - 2] + sums[n_sums - 1]
            n_sums -= 1
            depth -= 1
    return sums[0]


@_inline
def _total(counts):
    return _pairwise(counts)


@_inline
def _above_one(n, e, z):
    """pessimistic.added_errors for e >= 1, operation for operation."""
    if e + 0.5 >= n:
        return max(n - e, 0.0)
    f = (e + 0.5) / n
    r = (f + z * z / (2 * n) + z * math.sqrt(f / n - f * f / n + z * z / (4 * n * n))) \
        / (1 + z * z / n)
    return r * n - e


@njit
def _leaf_errors(counts, cf, z):
    """pessimistic.leaf_errors: a leaf's errors and added_errors's."""
    total = _total(counts)
    if total <= 0:
        return 0.0
    top = counts[0]
    for k in range(1, counts.shape[0]):
        top = max(top, counts[k])
    wrong = total - top
    if wrong < 1:
        base = total * (1.0 - cf ** (1.0 / total))
        added = base if wrong == 0 else base + wrong * (_above_one(total, 1.0, z) - base)
    else:
        added = _above_one(total, wrong, z)
    return wrong + added


@_inline
def _goes_left(tests, node, x):
    """Whether node's test sends the value x left: x <= threshold, a nominal category as
    the node's set lists it, a missing or unlisted value by missing_left (engine/tree.py)."""
    feature, threshold, missing_left, nominal, offsets, codes, goes = tests
    if math.isnan(x):
        return missing_left[node] != 0
    if nominal[feature[node]] != 0:
        code = np.int64(x)
        for i in range(offsets[node], offsets[node + 1]):
            if codes[i] == code:
                return goes[i] != 0
        return missing_left[node] != 0
    return x <= threshold[node]


@njit
def prune_nodes(links, state, tests, data, rows, params):
    """Prune the tree from node 0; returns the node now in its place.

    links = (kids: (nodes, 2) children, relinked where a branch is raised; leaf: bool),
    state = (value: class counts, estimated: a pruned subtree's errors, n_samples,
    n_missing), all changed in place; tests = (feature, threshold, missing_left,
    nominal per feature, category_offsets, category_codes, category_goes_left);
    data = (X, y, w); rows: the training rows, ascending; params = (cf, z: the normal
    quantile at 1 - cf, raising: subtree raising, any_order: the weights are whole)."""
    kids, leaf = links
    value, estimated, n_samples, n_missing = state
    feature = tests[0]
    X, y, w = data
    cf, z, raising, any_order = params
    n_nodes, n_classes = value.shape
    buf = rows.copy()
    scratch = np.empty_like(buf)
    # frames: node, its rows buf[start:end] (left branch's up to mid), stage (0: enter,
    # 1: left branch pruned, 2: both), epoch (0, or the raise whose re-prune it is)
    f_node = np.empty(n_nodes + 1, np.int64)
    f_start = np.empty(n_nodes + 1, np.int64)
    f_mid = np.empty(n_nodes + 1, np.int64)
    f_end = np.empty(n_nodes + 1, np.int64)
    f_stage = np.empty(n_nodes + 1, np.int64)
    f_epoch = np.empty(n_nodes + 1, np.int64)
    # a re-prune after a raise (epoch > 0) visits only the nodes whose rows or counts the
    # raise changed (stamp == its epoch) and their ancestors: any other node's subtree
    # would be pruned again from the same rows and counts, to the same result
    stamp = np.zeros(n_nodes, np.int64)
    epochs = 0
    visited = np.empty(n_nodes, np.int64)
    # raised errors' scratch: rows' counts at the leaves they reach, marks, errors
    reached = (np.zeros((n_nodes, n_classes)), np.zeros(n_nodes, np.bool_), visited,
               np.empty(n_nodes), np.empty(n_classes))
    walk = (visited, np.empty(n_nodes, np.int64), np.empty((n_nodes, n_classes)))
    top = 0
    f_node[0], f_start[0], f_end[0], f_stage[0], f_epoch[0] = 0, 0, buf.shape[0], 0, 0
    returned = 0
    while top >= 0:
        node, start, end = f_node[top], f_start[top], f_end[top]
        stage, epoch = f_stage[top], f_epoch[top]
        if stage == 0:
            if epoch != 0 and stamp[node] != epoch:
                returned = node
                top -= 1
                continue
            if leaf[node]:
                estimated[node] = _leaf_errors(value[node], cf, z)
                returned = node
                top -= 1
                continue
            n_left = start
            n_right = 0
            for i in range(start, end):
                r = buf[i]
                if _goes_left(tests, node, X[r, feature[node]]):
                    buf[n_left] = r
                    n_left += 1
                else:
                    scratch[n_right] = r
                    n_right += 1
            for i in range(n_right):
                buf[n_left + i] = scratch[i]
            f_mid[top] = n_left
            f_stage[top] = 1
            top += 1
            f_node[top], f_start[top], f_end[top] = kids[node, 0], start, n_left
            f_stage[top], f_epoch[top] = 0, epoch
            continue
        mid = f_mid[top]
        if stage == 1:
            kids[node, 0] = returned
            f_stage[top] = 2
            top += 1
            f_node[top], f_start[top], f_end[top] = kids[node, 1], mid, end
            f_stage[top], f_epoch[top] = 0, epoch
            continue
        kids[node, 1] = returned
        left, right = kids[node, 0], kids[node, 1]
        side = 1 if _total(value[right]) > _total(value[left]) else 0  # np.argmax: first
        largest = kids[node, side]
        errors_largest = np.inf
        n_touched, lo, hi = 0, 0, 0
        if raising:
            lo, hi = (mid, end) if side == 0 else (start, mid)
            if not any_order:  # fractional weights: sum them in row order, as numpy would
                buf[lo:hi].sort()
            errors_largest, n_touched = _raised_errors(largest, buf[lo:hi], links, state,
                                                       tests, data, params, reached)
        errors_leaf = _leaf_errors(value[node], cf, z)
        errors_tree = estimated[left] + estimated[right]
        if (errors_leaf <= errors_tree + _SLACK + WEKA_EPS
                and errors_leaf <= errors_largest + _SLACK + WEKA_EPS):
            leaf[node] = True
            estimated[node] = errors_leaf
            returned = node
            top -= 1
        elif errors_largest <= errors_tree + _SLACK + WEKA_EPS:
            epochs += 1
            for i in range(n_touched):  # reached by the other branch's rows
                stamp[visited[i]] = epochs
            if any_order:  # whole weights: add the other branch's rows to the counts
                _add_rows(largest, buf[lo:hi], links, state, tests, data)
            else:
                buf[start:end].sort()
                _recount(largest, buf[start:end], links, state, tests, data, walk, stamp,
                         epochs)
            f_node[top], f_stage[top], f_epoch[top] = largest, 0, epochs  # prune it again
        else:
            estimated[node] = errors_tree
            returned = node
            top -= 1
    return returned


@njit
def _raised_errors(node, extra, links, state, tests, data, params, reached):
    """The errors node's subtree predicts were the rows `extra` sent down it besides its
    own (a leaf's from its counts and theirs, a subtree no row reached: its estimate),
    and how many nodes they reached (listed first in reached[2])."""
    value, estimated = state[0], state[1]
    if extra.shape[0] == 0:
        return estimated[node], 0
    kids, leaf = links
    feature = tests[0]
    X, y, w = data
    cf, z = params[0], params[1]
    extra_counts, touched, visited, raised, leaf_counts = reached
    n_touched = 0
    for r in extra:
        at = node
        while True:
            if not touched[at]:
                touched[at] = True
                visited[n_touched] = at
                n_touched += 1
            if leaf[at]:
                break
            at = kids[at, 0] if _goes_left(tests, at, X[r, feature[at]]) else kids[at, 1]
        extra_counts[at, y[r]] += w[r]
    order = np.sort(visited[:n_touched])
    for i in range(n_touched - 1, -1, -1):
        at = order[i]
        if leaf[at]:
            for k in range(leaf_counts.shape[0]):
                leaf_counts[k] = value[at, k] + extra_counts[at, k]
                extra_counts[at, k] = 0.0
            raised[at] = _leaf_errors(leaf_counts, cf, z)
        else:
            a, b = kids[at, 0], kids[at, 1]
            raised[at] = ((raised[a] if touched[a] else estimated[a])
                          + (raised[b] if touched[b] else estimated[b]))
    for i in range(n_touched):
        touched[visited[i]] = False
    return raised[node], n_touched


@njit
def _recount(node, rows, links, state, tests, data, walk, stamp, epoch):
    """Give node's subtree the `rows` (ascending): every node's class counts, rows and
    rows missing its feature, summed in row order. A node whose counts change is
    stamped with `epoch`, and so are its ancestors up to `node` and those of every node
    stamped already. walk = (scratch for the subtree's nodes, their parents' positions,
    their previous counts)."""
    kids, leaf = links
    value, _, n_samples, n_missing = state
    below, parent, previous = walk
    below[0] = node
    parent[0] = -1
    n_below = 1
    i = 0
    while i < n_below:
        at = below[i]
        for k in range(value.shape[1]):
            previous[i, k] = value[at, k]
            value[at, k] = 0.0
        n_samples[at] = 0
        if not leaf[at]:
            n_missing[at] = 0
            below[n_below] = kids[at, 0]
            below[n_below + 1] = kids[at, 1]
            parent[n_below] = i
            parent[n_below + 1] = i
            n_below += 2
        i += 1
    _add_rows(node, rows, links, state, tests, data)
    for i in range(n_below - 1, -1, -1):  # children after parents in `below`
        at = below[i]
        if stamp[at] != epoch:
            for k in range(value.shape[1]):
                if value[at, k] != previous[i, k]:
                    stamp[at] = epoch
                    break
        if stamp[at] == epoch and parent[i] >= 0:
            stamp[below[parent[i]]] = epoch


@njit
def _add_rows(node, rows, links, state, tests, data):
    """Add `rows` to the class counts, rows and rows missing its feature of every node
    of node's subtree they reach, in row order: _recount's walk from zero, or, where
    every sum is exact (whole weights), the rows of a raised node's other branch added
    to those its largest branch holds."""
    kids, leaf = links
    value, _, n_samples, n_missing = state
    feature = tests[0]
    X, y, w = data
    for r in rows:
        at = node
        while True:
            value[at, y[r]] += w[r]
            n_samples[at] += 1
            if leaf[at]:
                break
            x = X[r, feature[at]]
            if math.isnan(x):
                n_missing[at] += 1
            at = kids[at, 0] if _goes_left(tests, at, x) else kids[at, 1]
