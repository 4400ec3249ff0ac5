"""Move the rows of split nodes into their children's order, in place (jitted).

`partition` rewrites every feature's segment of the given nodes, left rows
first, keeping the sorted order (stable), within the one word buffer, in chunks
of disjoint segments that threads can share: the left rows move down in place
(a left row's new position is never after its old one) while the right rows
wait in a scratch buffer of the longest segment, then follow them. One buffer of
words instead of two: 8 bytes per row x feature less for a fit (issue 46).
"""
import numpy as np

from dtcli.jit.flags import njit


@njit
def partition(words, starts, ends, left_sizes, goes_left, row_mask, lo, hi):
    """Stable in-place partition of (feature, node) segments lo..hi-1 (feature-major).

    Branch-free: each word is stored twice, at the next left slot of the segment
    and at the next slot of the scratch, and only the counter of its side moves
    on, picked arithmetically from goes_left[row]: at deep levels left/right is a
    coin flip, which a branch would mispredict. A store at the next left slot
    overwrites a word already read (that slot is at or before the word read)."""
    n_nodes = starts.shape[0]
    longest = 0
    for j in range(n_nodes):
        longest = max(longest, ends[j] - starts[j] - left_sizes[j])
    scratch = np.empty(longest + 1, np.uint64)
    for p in range(lo, hi):
        f = p // n_nodes
        j = p % n_nodes
        to_left = starts[j]
        n_right = 0
        for i in range(starts[j], ends[j]):
            word = words[f, i]
            left = np.int64(goes_left[np.int64(word & row_mask)])
            words[f, to_left] = word
            scratch[n_right] = word
            to_left += left
            n_right += 1 - left
        for k in range(n_right):
            words[f, to_left + k] = scratch[k]
