"""The kinds of model file, by the `kind` they write: where each is written and read.

Each entry names a module and, in it, `to_dict(model, *, target, source)` (the
file's JSON-ready dict) and `from_dict(doc, check)` (the fitted model, after
validating every field with `check`, a model_check.Checker that names the file in
its one-line errors). The modules are imported only when a file of their kind is
written or read, so no kind imports another or dtcli.model. Blocks that several
kinds share are validated the same way: Naive Bayes leaves (dtcli/leaves/files.py)
in trees and forests, the tuning record (dtcli/tuning/record.py) in trees; the decision
threshold's block (dtcli/model/decision.py) is written and read for every kind by files.py.

A new kind is one entry here, a `model_kind` attribute on its estimator class
naming the entry, and its module's two functions.
"""
from __future__ import annotations

import importlib
from typing import NamedTuple


class Kind(NamedTuple):
    module: str
    to_dict: str
    from_dict: str


KINDS = {
    "tree": Kind("dtcli.model_tree", "tree_to_dict", "tree_from_dict"),
    "forest": Kind("dtcli.ensemble.model_file", "forest_to_dict", "forest_from_dict"),
    "fdf": Kind("dtcli.fdf.files", "fdf_to_dict", "fdf_from_dict"),
    "c45": Kind("dtcli.c45.model_file", "c45_to_dict", "c45_from_dict"),
}


def function(kind: str, which: str):
    """Kind `kind`'s "to_dict" or "from_dict" function."""
    entry = KINDS[kind]
    return getattr(importlib.import_module(entry.module), getattr(entry, which))
