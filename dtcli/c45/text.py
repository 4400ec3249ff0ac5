"""A C4.5 tree printed as Weka's J48 prints it (ClassifierTree.toString, C45Split and
BinC45Split.rightSide, ClassifierSplitModel.dumpLabel), character for character, so
that a tree can be set beside J48's output and diffed."""
from __future__ import annotations

import math

import numpy as np

from dtcli.c45.split import BINARY_NOMINAL, MULTIWAY, gr, max_class
from dtcli.c45.tree import LEAF, C45Tree


def java_double(x: float) -> str:
    """Java's Double.toString: plain decimals from 1e-3 to 1e7, else d.dddE<n>."""
    if x == 0:
        return "0.0"
    if 1e-3 <= abs(x) < 1e7:
        text = repr(float(x))
        return text if "." in text else text + ".0"
    mantissa, exponent = f"{x:.16e}".split("e")
    digits = repr(float(x) / 10 ** int(exponent))  # the shortest digits of the mantissa
    if abs(float(digits)) >= 10:  # the division rounded up to the next power
        exponent, digits = str(int(exponent) + 1), repr(float(x) / 10 ** (int(exponent) + 1))
    return f"{digits if '.' in digits else digits + '.0'}E{int(exponent)}"


def weka_decimal(value: float, digits: int = 6) -> str:
    """Weka 3.6's Utils.doubleToString(value, digits): rounded half up to `digits`
    decimals, trailing zeros (and a bare point) dropped."""
    scaled = value * 10.0 ** digits
    if not abs(scaled) < 2.0 ** 63:
        return java_double(value)
    rounded = math.floor(scaled + 0.5) if scaled > 0 else -math.floor(abs(scaled) + 0.5)
    text = str(abs(rounded)).rjust(digits + 1, "0")
    whole, fraction = text[:-digits], text[-digits:].rstrip("0")
    return ("-" if rounded < 0 else "") + whole + ("." + fraction if fraction else "")


def _rounded(value: float) -> str:
    """Utils.roundDouble(value, 2) printed by Java."""
    return java_double(math.floor(value * 100.0 + 0.5) / 100.0)


def leaf_label(counts: np.ndarray, fallback: np.ndarray, classes) -> str:
    """`class (weight/errors)`: the branch's majority class (the split node's, for a
    branch that received no weight) and its weight and errors, to two decimals."""
    weight = float(counts.sum())
    k = max_class(counts) if gr(weight, 0) else max_class(fallback)
    wrong = weight - float(counts[k])
    return f"{classes[k]} ({_rounded(weight)}" + (f"/{_rounded(wrong)}" if gr(wrong, 0) else "") + ")"


def render(tree: C45Tree, features, classes, binary: bool = False) -> str:
    """J48's text of the tree: its lines, then the number of leaves and the tree's size.
    `binary`: printed as by -B, whose numeric cuts Java prints in full. Walked with a
    stack, not recursion: a model file's tree may be thousands of levels deep."""
    lines: list[str] = []
    if tree.feature[0] == LEAF:
        lines.append(": " + leaf_label(tree.counts[0], tree.counts[0], classes))
    stack = [] if tree.feature[0] == LEAF else [(0, 0, 0)]  # (node, depth, next branch)
    while stack:
        node, depth, b = stack.pop()
        start = tree.child_offsets[node]
        kids = tree.branches(node)
        if b == kids.shape[0]:
            continue
        stack.append((node, depth, b + 1))  # the branches after this one, later
        feature = features[tree.feature[node]]
        child = int(kids[b])
        line = "|   " * depth + feature.name + _condition(tree, node, b, feature, binary)
        if tree.feature[child] == LEAF:
            bags = tree.branch_counts[start:start + kids.shape[0]]
            lines.append(line + ": " + leaf_label(bags[b], bags.sum(axis=0), classes))
        else:
            lines.append(line)
            stack.append((child, depth + 1, 0))
    return ("\n".join(lines) + f"\n\nNumber of Leaves  : \t{tree.n_leaves}\n\n"
            f"Size of the tree : \t{tree.node_count}\n")


def _condition(tree: C45Tree, node: int, branch: int, feature, binary: bool) -> str:
    kind = tree.kind[node]
    if kind == MULTIWAY:
        return " = " + feature.categories[branch]
    if kind == BINARY_NOMINAL:
        category = feature.categories[int(tree.threshold[node])]
        return (" = " if branch == 0 else " != ") + category
    cut = float(tree.threshold[node])
    text = java_double(cut) if binary else weka_decimal(cut)
    return (" <= " if branch == 0 else " > ") + text
