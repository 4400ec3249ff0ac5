"""Send the rows of split nodes to their children (jitted).

`route_rows` decides left/right for every row of every split node from the
chosen feature's segment; `partition` then rewrites every feature's segment
of those nodes, left rows first, keeping the sorted order (stable), from one
buffer into the other, in chunks of disjoint segments that threads can share.
"""
import numpy as np

from dtcli.engine.jit import njit


@njit
def route_rows(words, starts, ends, features, cut_rank, missing_left, is_nominal,
               category_left, missing_rank, key_shift, class_shift, class_mask, row_mask,
               weights, unit_weight, goes_left, left_counts, left_sizes, missing_sizes):
    """Fill goes_left[row] for the split nodes, with their left class counts and
    sizes and their number of rows missing the split feature.

    Serial: it is cheap, and threads writing bytes of `goes_left` at random
    rows would fight over cache lines.
    """
    for j in range(starts.shape[0]):
        f = features[j]
        n_left = 0
        n_missing = 0
        for i in range(starts[j], ends[j]):
            word = words[f, i]
            rank = np.int64(word >> key_shift)
            if rank == missing_rank[f]:
                left = missing_left[j] == 1
                n_missing += 1
            elif is_nominal[f]:
                left = category_left[j, rank] == 1
            else:
                left = rank <= cut_rank[j]
            row = np.int64(word & row_mask)
            goes_left[row] = left
            if left:
                n_left += 1
                wt = 1.0 if unit_weight else weights[row]
                left_counts[j, np.int64((word >> class_shift) & class_mask)] += wt
        left_sizes[j] = n_left
        missing_sizes[j] = n_missing


@njit
def partition(src, dst, starts, ends, left_sizes, goes_left, row_mask, lo, hi):
    """Stable partition of (feature, node) segments lo..hi-1 (feature-major), src -> dst.

    Branch-free: every word is written both to the next left slot in `dst`
    and to the next slot of a scratch buffer, and only the matching cursor
    advances; the right-hand words are then copied after the left ones. At
    deep levels left/right is a coin flip, which a branch would mispredict.
    """
    n_nodes = starts.shape[0]
    longest = 0
    for j in range(n_nodes):
        longest = max(longest, ends[j] - starts[j])
    scratch = np.empty(longest + 1, dtype=src.dtype)
    for p in range(lo, hi):
        f = p // n_nodes
        j = p % n_nodes
        start = starts[j]
        to_left = start
        n_right = 0
        for i in range(start, ends[j]):
            word = src[f, i]
            left = goes_left[np.int64(word & row_mask)]
            dst[f, to_left] = word
            scratch[n_right] = word
            to_left += left
            n_right += 1 - left
        for k in range(n_right):
            dst[f, to_left + k] = scratch[k]
