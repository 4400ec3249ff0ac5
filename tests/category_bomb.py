"""A valid model file built to make exports slow: a balanced tree of `nodes` nodes
(default 100,001), every split on one nominal feature of `categories` categories
(default 100) that it lists in full, sides alternating by a per-node pattern, so
that the tests above a deep node leave it only a few categories to show while it
still lists them all (issue 47, section 6: "a 100,001-node category bomb").

    python tests/category_bomb.py bomb.json [--nodes 100001] [--categories 100]

makes a 58 MB file (1,000 categories: 576 MB); docs/pictures.md, "Large trees", has
what each export takes of it.

Tests build small ones with `bomb_document`; the big one is made on demand, never
committed.
"""
from __future__ import annotations

import argparse
import json

import numpy as np


def bomb_document(nodes: int = 100_001, categories: int = 100) -> dict:
    """The model file's JSON object (format 3, kind tree, two classes)."""
    splits = (nodes - 1) // 2
    n = 2 * splits + 1
    ids = np.arange(n)
    is_split = ids < splits  # breadth-first numbering: children of i are 2i+1, 2i+2
    left = np.where(is_split, 2 * ids + 1, -1)
    right = np.where(is_split, 2 * ids + 2, -1)
    value = np.zeros((n, 2), np.int64)
    leaves = np.flatnonzero(~is_split)
    value[leaves, leaves % 2] = categories  # every node holds at least one row per category
    for node in reversed(range(splits)):
        value[node] = value[left[node]] + value[right[node]]
    codes = np.arange(categories)
    # Node i sends category c left when bit (depth of i) of c, shifted by i, is set:
    # sides differ from level to level, so paths narrow quickly.
    depth = np.floor(np.log2(ids[:splits] + 1)).astype(np.int64)
    goes_left = ((codes[None, :] + ids[:splits, None]) >> (depth[:, None] % 10)) & 1
    return {
        "format": "dtree-model", "format_version": 3, "kind": "tree",
        "dtree_version": "0.1.0",
        "features": [{"name": "colour", "kind": "nominal",
                      "categories": [f"category-{c:05d}" for c in range(categories)]}],
        "target": "class", "classes": ["no", "yes"],
        "criterion": {"name": "gini", "params": {}},
        "options": {"max_depth": None, "min_samples_split": 2, "min_samples_leaf": 1,
                    "min_gain": 0.0},
        "training": {"source": None, "n_samples": int(value[0].sum()), "fit_seconds": 0.0,
                     "class_weight": None},
        "pruning": None,
        "leaf_estimate": {"name": "frequency", "m": 2.0},
        "tree": {
            "node_count": n,
            "children_left": left.tolist(), "children_right": right.tolist(),
            "feature": np.where(is_split, 0, -2).tolist(),
            "threshold": [None] * n,
            "missing_left": (is_split & (ids % 2 == 0)).tolist(),
            "category_offsets": np.r_[np.arange(splits + 1) * categories,
                                      np.full(n - splits, splits * categories)].tolist(),
            "category_codes": np.tile(codes, splits).tolist(),
            "category_goes_left": goes_left.astype(bool).ravel().tolist(),
            "value": value.astype(float).tolist(),
            "n_node_samples": value.sum(axis=1).tolist(),
            "score": [0.1 if s else None for s in is_split.tolist()],
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output")
    parser.add_argument("--nodes", type=int, default=100_001)
    parser.add_argument("--categories", type=int, default=100)
    args = parser.parse_args()
    with open(args.output, "w", encoding="utf-8") as handle:
        json.dump(bomb_document(args.nodes, args.categories), handle)


if __name__ == "__main__":
    main()
