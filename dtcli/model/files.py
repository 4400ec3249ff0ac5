"""Model files: a fitted model and its metadata as versioned JSON, never pickle.

`save_model` and `load_model` (and their dict forms) serve every kind of model
file; dtcli/model/kinds.py says which module writes and reads each kind (`tree`:
model_tree.py, `forest`: ensemble/model_file.py, `fdf`: fdf/files.py, `c45`:
c45/model_file.py), and every
kind validates every field with model_check.Checker, so a damaged or foreign file
is one ModelError line naming the file and the field rather than a misprediction
or a traceback. docs/model-format.md describes each field.
"""
from __future__ import annotations

import json
import sys
from typing import Any

from dtcli.atomic import open_output
from dtcli.errors import ModelError
from dtcli.model.check import DECISION_VERSION, Checker, version_and_kind
from dtcli.model.kinds import KINDS, function


def model_to_dict(model, *, target: str = "class", source: str | None = None) -> dict[str, Any]:
    """JSON-ready dict of a fitted model of any kind (its class's `model_kind`), with its
    decision threshold's block if it has one (every kind alike: dtcli/measures/fitted.py)."""
    doc = function(model.model_kind, "to_dict")(model, target=target, source=source)
    if getattr(model, "decision_", None) is not None:
        doc["format_version"] = DECISION_VERSION
        doc["decision"] = model.decision_
    return doc


def save_model(model, path: str, *, target: str = "class", source: str | None = None) -> None:
    text = json.dumps(model_to_dict(model, target=target, source=source), allow_nan=False,
                      separators=(",", ":"))
    with open_output(path) as handle:
        handle.write(text + "\n")


def load_model(path: str):
    """Read and validate a model file ('-' for stdin); returns (model, metadata dict)."""
    try:
        if path == "-":
            raw = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as handle:
                raw = handle.read()
    except FileNotFoundError:
        raise ModelError(f"{path}: no such model file") from None
    except OSError as exc:
        raise ModelError(f"{path}: cannot read model file ({exc.strerror})") from None
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise ModelError(f"{path}: not a dtree model file (not JSON)") from None
    except ValueError as exc:  # JSON, but an integer of thousands of digits
        raise ModelError(f"{path}: damaged model file: {exc}") from None
    return model_from_dict(doc, path)


def model_from_dict(doc: Any, path: str = "<model>"):
    """A fitted model from a parsed model file, validated field by field; returns
    (model, doc). `path` names the file in error messages."""
    _, kind = version_and_kind(doc, path, tuple(KINDS))
    check = Checker(path)
    model = function(kind, "from_dict")(doc, check)
    model.threshold_, model.decision_ = None, None  # as a model fitted without one
    if "decision" in doc:
        from dtcli.model.decision import read_block, set_from_block

        set_from_block(model, read_block(doc["decision"], [str(c) for c in model.classes_],
                                          check.fail))
    return model, doc
