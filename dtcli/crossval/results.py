"""The `--results` file: finished cross-validation tasks as JSON lines, to resume a run.

Each line is one task: {"key", "dataset", "criterion", "repeat", "fold",
"metrics", "confusion_matrix"}; only "key" identifies it (`tasks.task_key`),
the rest is for people. A line is used only if every value in it is one a
task can produce (`check_record`); any other line (an interrupted write, a
tampered value, bytes that are not UTF-8) makes the file one that is not ours
(refused untouched), unless it is the last line, which an interrupted write
leaves: then it is cut off, kept in a `.damaged` copy and reported once.
"""
from __future__ import annotations

import json
import math

from dtcli.errors import DtreeError
from dtcli.reporting.report import METRICS

# Metrics that are proportions, counts, and all the others (non-negative numbers).
_PROPORTIONS = ("accuracy", "balanced_accuracy", "auc", "f1_macro")
_COUNTS = ("n_nodes", "n_leaves", "depth")
# A stored accuracy must equal the one its confusion matrix gives, up to rounding.
_TOLERANCE = 1e-9
# No fold takes 30,000 years or grows 10^12 nodes; a larger value is tampering, and its
# square would overflow the standard deviation over folds.
_LARGEST = 1e12


def _none_if_nan(value):
    return None if isinstance(value, float) and math.isnan(value) else value


def _is_number(value) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def _confusion_matrix(value) -> list[list[int]] | None:
    """A square matrix of non-negative integer counts with at least one row, else None."""
    if not isinstance(value, list) or not value:
        return None
    for row in value:
        if not (isinstance(row, list) and len(row) == len(value) and all(
                isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in row)):
            return None
    return value


def check_record(record) -> dict | None:
    """{"key", "metrics", "confusion_matrix"} of a line if it is one a task can produce,
    else None: every metric present and in range, AUC null only for a fold with a single
    class, and the accuracy the one the confusion matrix gives."""
    if not isinstance(record, dict) or not isinstance(record.get("key"), str):
        return None
    metrics, matrix = record.get("metrics"), _confusion_matrix(record.get("confusion_matrix"))
    if not isinstance(metrics, dict) or matrix is None:
        return None
    total = sum(map(sum, matrix))
    classes_present = sum(1 for row in matrix if sum(row) > 0)
    for name in METRICS:
        value = metrics.get(name)
        if value is None and name == "auc" and classes_present < 2:
            continue
        if not _is_number(value) or not 0 <= value <= _LARGEST:
            return None
        if name in _PROPORTIONS and value > 1 or name in _COUNTS and value != int(value):
            return None
    if total == 0 or abs(metrics["accuracy"] - sum(matrix[i][i] for i in range(len(matrix)))
                         / total) > _TOLERANCE:
        return None
    return {"key": record["key"], "metrics": {name: metrics[name] for name in METRICS},
            "confusion_matrix": matrix}


class ResultStore:
    """Finished tasks by key; with a path, also the results file, appended as tasks finish
    (dtcli/appendfile.py: a file that is not a results file is refused, a damaged last
    line cut off and kept in a copy, each line written whole or not at all).

    A key seen twice keeps its last line. `repaired` is (line number, copy) when the
    file's damaged last line was cut off on reading, else None.
    """

    def __init__(self, path: str | None = None):
        from dtcli.crossval.appendfile import AppendFile

        self.path = path
        self.cells: dict[str, dict] = {}
        self.written = 0  # lines appended to the file by this run
        self._file = None if path is None else AppendFile(path, "results file")
        self.repaired = None
        if self._file is None:
            return
        for record in self._file.read(_parse_line):
            self.cells[record.pop("key")] = record
        self.repaired = self._file.repaired

    def repair_note(self) -> str | None:
        """The warning to give when reading cut off a damaged last line."""
        if self.repaired is None:
            return None
        number, copy = self.repaired
        return (f"{self.path}: removed its damaged last line {number} (an interrupted write); "
                f"the line is kept in {copy}")

    def get(self, key: str) -> dict | None:
        return self.cells.get(key)

    def add(self, key: str, result: dict, **about) -> None:
        """Remember a finished task; with a file, append its line, whole or not at all.

        NaN metrics (an AUC on a single-class fold) are kept as None, in memory
        as in the file, so a resumed run reports exactly what a fresh one does.
        A failed write (a full disk) is a DtreeError; the lines before it stay.
        """
        result = {"metrics": {k: _none_if_nan(v) for k, v in result["metrics"].items()},
                  "confusion_matrix": result["confusion_matrix"]}
        self.cells[key] = result
        if self._file is None:
            return
        line = json.dumps({"key": key, **about, **result}, allow_nan=False, separators=(",", ":"))
        try:
            self._file.append(line.encode("utf-8"))
            self.written += 1
        except OSError as exc:
            raise DtreeError(f"{self.path}: cannot write the results file ({exc.strerror}); "
                             "the folds written before are kept") from None

    def close(self) -> None:
        if self._file is not None:
            self._file.close()


def _parse_line(line: bytes) -> dict | None:
    try:
        return check_record(json.loads(line.decode("utf-8")))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
