"""A tidy layout of a tree of boxes (Reingold and Tilford 1981, for any number of
children per node), without recursion.

Every node is a box of its own width and height; the boxes of one depth share a
row, as high as its highest box. Bottom-up, each subtree keeps its contour: the
leftmost and rightmost extent of its boxes on every row below its root. Siblings are
pushed apart, left to right, until their contours are `gap` apart on every row they
share, and a parent is centred over its first and last child. The contours are
shared lists with a lazy offset, and merging two costs the rows they share, so
the whole layout takes time linear in the number of nodes (Reingold and Tilford's
bound), at any depth. The result has no two boxes overlapping, by construction:
tests check it from the coordinates.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


class _Contour:
    """The extents of a subtree's rows, relative to its root's centre: `left[i] +
    shift` and `right[i] + shift`, the last entry the root's row, the first the deepest."""

    __slots__ = ("left", "right", "shift")

    def __init__(self, half_width: float):
        self.left, self.right, self.shift = [-half_width], [half_width], 0.0

    def distance_to(self, other: "_Contour") -> float:
        """How far right of this subtree's root `other`'s root must be for their rows
        to touch (no gap) on every row they share."""
        shared = min(len(self.left), len(other.left))
        return max(self.right[-i] + self.shift - other.left[-i] - other.shift
                   for i in range(1, shared + 1))

    def merged(self, other: "_Contour", offset: float) -> "_Contour":
        """This contour and `other` placed `offset` to its right, as one: the longer
        list is kept and the shared rows of the other side are written into it."""
        other.shift += offset
        shared = min(len(self.left), len(other.left))
        if len(self.left) >= len(other.left):
            for i in range(1, shared + 1):
                self.right[-i] = other.right[-i] + other.shift - self.shift
            return self
        for i in range(1, shared + 1):
            other.left[-i] = self.left[-i] + self.shift - other.shift
        return other

    def add_root(self, half_width: float, centre: float) -> None:
        """Put a parent of this width on top, its centre at `centre` (in this
        contour's coordinates), and make it the new origin."""
        self.shift -= centre
        self.left.append(-half_width - self.shift)
        self.right.append(half_width - self.shift)


@dataclass
class Layout:
    """Where each box goes: `x` its centre, `y` its top (NaN for nodes not drawn);
    `width` and `height` of the whole drawing; `row_top` and `row_height` per depth."""

    x: np.ndarray
    y: np.ndarray
    width: float
    height: float
    row_top: list[float]
    row_height: list[float]


def preorder(children: list[list[int]], root: int = 0) -> list[int]:
    """The nodes reachable from `root`, parents before children, left child first."""
    order, stack = [], [root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(reversed(children[node]))
    return order


def tidy(children: list[list[int]], widths, heights, gap: float = 14.0,
         row_gap: float = 40.0, margin: float = 10.0) -> Layout:
    """Lay out the tree whose node i has `children[i]` (left to right) and a box of
    `widths[i]` x `heights[i]`; node 0 is the root. Sibling subtrees are at least `gap`
    apart, rows `row_gap` apart, and the drawing has a `margin` all round."""
    n = len(children)
    order = preorder(children)
    depth = np.zeros(n, dtype=np.int64)
    for node in order:
        for child in children[node]:
            depth[child] = depth[node] + 1
    relative = np.zeros(n)  # centre relative to the parent's
    contours: dict[int, _Contour] = {}
    for node in reversed(order):  # every child before its parent
        kids = children[node]
        if not kids:
            contours[node] = _Contour(widths[node] / 2)
            continue
        joined, offsets = contours.pop(kids[0]), [0.0]
        for child in kids[1:]:
            contour = contours.pop(child)
            offsets.append(joined.distance_to(contour) + gap)  # from the first child
            joined = joined.merged(contour, offsets[-1])
        centre = (offsets[0] + offsets[-1]) / 2
        for child, offset in zip(kids, offsets):
            relative[child] = offset - centre
        joined.add_root(widths[node] / 2, centre)
        contours[node] = joined
    x = np.full(n, np.nan)
    x[0] = 0.0
    for node in order:
        for child in children[node]:
            x[child] = x[node] + relative[child]
    drawn = np.array(order)
    n_rows = int(depth[drawn].max()) + 1
    row_height = [0.0] * n_rows
    for node in order:
        row_height[depth[node]] = max(row_height[depth[node]], float(heights[node]))
    row_top = [margin]
    for h in row_height[:-1]:
        row_top.append(row_top[-1] + h + row_gap)
    y = np.full(n, np.nan)
    y[drawn] = np.array(row_top)[depth[drawn]]
    half = np.asarray(widths, dtype=float)[drawn] / 2
    left = float((x[drawn] - half).min())
    x -= left - margin
    width = float((x[drawn] + half).max()) + margin
    return Layout(x, y, width, row_top[-1] + row_height[-1] + margin, row_top, row_height)
