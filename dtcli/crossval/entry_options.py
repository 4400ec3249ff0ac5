"""Tree options of one --criteria entry: `gini:pruning=ccp:ccp_alpha=auto-1se`,
`hddt:leaf_estimate=laplace`, so that one comparison can set pruning methods and
leaf estimates side by side. An entry's options override the command's own
(--pruning, --leaf-estimate ...) for that entry's trees."""
from __future__ import annotations

from dtcli.errors import ParameterError


def _alpha(text: str):
    return text if text in ("auto", "auto-1se") else float(text)


def _flag(text: str) -> bool:
    if text.lower() not in ("true", "false", "1", "0"):
        raise ValueError(text)
    return text.lower() in ("true", "1")


def _pruning(text: str):
    return None if text == "none" else text


# the options an entry may set, and how its text reads as the estimator's value
ENTRY_OPTIONS = {"pruning": _pruning, "ccp_alpha": _alpha, "cp": float, "ccp_risk": str,
                 "confidence": float, "subtree_raising": _flag, "pruning_folds": int,
                 "significance": float, "permutations": int, "pruning_mode": str,
                 "leaf_estimate": str, "m": float}


def parse_option(entry: str, key: str, text: str):
    """The value of `key=text` in --criteria entry `entry` (ParameterError if it does not read)."""
    try:
        return ENTRY_OPTIONS[key](text.strip())
    except ValueError:
        raise ParameterError(f"--criteria: {key}={text!r} in {entry!r} is not a valid "
                             "value") from None


def format_option(key: str, value) -> str:
    """How a label writes an option: `:pruning=ccp`, `:m=4`."""
    if value is None:
        value = "none"
    return f":{key}={value:g}" if isinstance(value, float) else f":{key}={value}"
