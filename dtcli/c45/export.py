"""`dtree export` of a J48 model: `-f text` prints the tree as J48 prints it, `-f json`
the model file; DOT and rules are not drawn for its multiway trees yet."""
from __future__ import annotations

import json

from dtcli.errors import ParameterError


def write(model, doc: dict, output_format: str, output: str, max_depth) -> None:
    from dtcli.atomic import open_output

    if output_format not in ("text", "json"):
        raise ParameterError(f"-f {output_format} is not available for J48 models "
                             "(-f text prints the tree as J48 does; -f json the model file)")
    if max_depth is not None:
        raise ParameterError("--max-depth is not available for J48 models")
    with open_output(output) as handle:
        handle.write(json.dumps(doc, indent=1) + "\n" if output_format == "json"
                     else model.text())
