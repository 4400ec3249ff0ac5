"""Words for a split test and a node's contents, shared by every export format.

Class names are rich `Text` in a colour of their own (a format without colour
takes `.plain`): never markup strings, so a name holding "[" prints as it is.
"""
from __future__ import annotations

import math

import numpy as np
from rich.text import Text

from dtcli.export.paths import Bounds
from dtcli.io.dataset import NOMINAL
from dtcli.leaves.discretise import bin_label

# One colour per class, repeating after twelve classes. Split tests are bold, not coloured.
CLASS_STYLES = ("green", "magenta", "blue", "yellow", "cyan", "red", "bright_green",
                "bright_magenta", "bright_blue", "bright_yellow", "bright_cyan", "bright_red")
# A node with more classes present than this shows its size and majority share instead.
MAX_LISTED_CLASSES = 4
OR_MISSING = " (or missing)"


def number(x: float) -> str:
    return f"{x:.6g}"


def condition(model, feature: int, value: int) -> str:
    """An FDF node's test: `feature = category`, or the bin of its discretised values."""
    f = model.features_[feature]
    if f.kind == NOMINAL:
        return f"{f.name} = {f.categories[value]}"
    return bin_label(f.name, model.cuts_[feature], value, number)


def percent(share: float) -> str:
    shown = round(100 * share, 1)
    if share < 1:  # 0.9996 is not 100%: an impure node never shows it
        shown = min(shown, 99.9)
    return f"{shown:.1f}%"


def category_test(feature, indices, missing: bool) -> str:
    """The test that a value of a nominal `feature` is one of the categories `indices`
    (or missing); "is missing" when no category is left, and when not even missing
    values take the branch (a format 1-2 file's split can list, on one side, only
    categories that the tests above already sent elsewhere), that no value takes it,
    rather than an empty set ("zip in {}")."""
    if not indices:
        return (f"{feature.name} is missing" if missing
                else f"{feature.name}: no value (never taken)")
    listed = ", ".join(feature.categories[i] for i in sorted(indices))
    return f"{feature.name} in {{{listed}}}" + (OR_MISSING if missing else "")


def bound_test(name: str, op: str, value: float, missing: bool) -> str:
    return f"{name} {op} {number(value)}" + (OR_MISSING if missing else "")


def split_test(model, node: int, left: bool, bounds: Bounds) -> str:
    """The test that sends a row to the left (or right) child of `node`, given what the
    tests above allow of its feature (`bounds`, from `paths`): a nominal test lists only
    the categories that reached the node in training and can reach it (`Tree`'s sets),
    and "(or missing)" marks the side that takes the missing values (and the
    categories the node did not see), if they can reach the node and training rows
    there had some (elsewhere they go to the larger child)."""
    tree = model.tree_
    feature = model.features_[tree.feature[node]]
    takes_missing = (bounds.missing and bool(tree.missing_left[node]) == left
                     and tree.saw_missing(node))
    if feature.kind == NOMINAL:
        codes, goes_left = tree.categories_at(node)
        indices = {i for i in codes[goes_left == (1 if left else 0)].tolist()
                   if bounds.categories is None or i in bounds.categories}
        return category_test(feature, indices, takes_missing)
    if math.isinf(tree.threshold[node]):
        return f"{feature.name} is present" if left else f"{feature.name} is missing"
    return bound_test(feature.name, "<=" if left else ">", tree.threshold[node], takes_missing)


def class_name(model, k: int) -> Text:
    return Text(str(model.classes_[k]), style=CLASS_STYLES[k % len(CLASS_STYLES)])


def majority(model, node: int) -> str:
    return str(model.classes_[model.tree_.node_class[node]])


def confidence(model, node: int) -> float:
    """The share of the node's predicted class in its (weighted) training counts."""
    tree = model.tree_
    return float(tree.node_proba[node, tree.node_class[node]])


def class_counts(model, node: int, summarise: bool = True) -> Text:
    """The node's non-zero class counts, "[a: 3, c: 1]"; with more than
    MAX_LISTED_CLASSES of them (and `summarise`), its training rows and the majority
    class's share of the counts, "[n = 120, c: 41.7%]"."""
    tree = model.tree_
    value = tree.counts[node]
    present = np.flatnonzero(value).tolist()
    text = Text("[")
    if summarise and len(present) > MAX_LISTED_CLASSES:
        text.append(f"n = {tree.n_node_samples[node]}, ")
        text.append_text(class_name(model, tree.node_class[node]))
        text.append(f": {percent(confidence(model, node))}")
    else:
        for i, k in enumerate(present):
            text.append(", " if i else "")
            text.append_text(class_name(model, k))
            text.append(f": {number(value[k])}")
    text.append("]")
    return text


def is_weighted(model) -> bool:
    """Whether the tree's class counts are weights rather than rows (`Tree.is_weighted`)."""
    return model.tree_.is_weighted


def rows_text(model, node: int) -> str:
    """"n = 412" (the training rows that reached the node), and where the counts are
    weights, what they sum to: "n = 412 rows · weight 653"."""
    tree = model.tree_
    rows = f"n = {tree.n_node_samples[node]}"
    if not is_weighted(model):
        return rows
    return f"{rows} rows · weight {number(float(tree.counts[node].sum()))}"


WEIGHTED_NOTE = ("n: the training rows that reached a node; weight and class counts: "
                 "those rows weighted (a forest tree's bootstrap draws, times any row "
                 "or class weights)")


def leaf_model_note(model, node: int) -> str | None:
    """What a leaf's own model says (Naive Bayes leaves: priors and the most influential
    features); None for leaves that predict their class counts."""
    leaf_model = getattr(model, "leaf_model_", None)
    if leaf_model is None:
        return None
    return leaf_model.describe(node, model.features_, model.classes_)


def pruning_note(doc: dict) -> str:
    """', pruned by pessimistic (confidence=0.25, subtree_raising=True)', and the leaf
    estimate unless frequency; empty for an unpruned tree of frequency leaves."""
    note = ""
    pruning = doc.get("pruning")
    if pruning:
        params = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                           for k, v in pruning.items() if k not in ("method", "p_values"))
        note = f", pruned by {pruning['method']}" + (f" ({params})" if params else "")
    estimate = doc.get("leaf_estimate") or {"name": "frequency"}
    if estimate["name"] == "laplace":
        note += ", laplace leaves"
    elif estimate["name"] == "m-estimate":
        note += f", m-estimate leaves (m={estimate['m']:g})"
    return note


def decision_comment(doc: dict) -> str:
    """'# decision threshold: ...' and a newline, the first line of the text and rules of
    a model file with a `decision` block (dtcli/measures/fitted.py); '' without one."""
    from dtcli.measures.fitted import describe

    line = describe(doc.get("decision"))
    return "" if line is None else f"# {line}\n"
