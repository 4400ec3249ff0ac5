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
from dtcli.measures import BY_NAME, COUNTS

# The measures of the first results files: every line has them. A line without a measure
# added since is kept (the file stays ours) but not used: its task runs again and appends a
# complete line under the same key.
_FIRST = ("accuracy", "balanced_accuracy", "auc", "log_loss", "f1_macro", *COUNTS,
          "fit_seconds", "predict_seconds")
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
    else None: the first results files' measures present, every measure present in its
    range (dtcli/measures/__init__.py), null only where a measure may be undefined (AUC only for a
    fold with a single class), and the accuracy the one the confusion matrix gives."""
    if not isinstance(record, dict) or not isinstance(record.get("key"), str):
        return None
    metrics, matrix = record.get("metrics"), _confusion_matrix(record.get("confusion_matrix"))
    if not isinstance(metrics, dict) or matrix is None:
        return None
    total = sum(map(sum, matrix))
    classes_present = sum(1 for row in matrix if sum(row) > 0)
    if any(name not in metrics for name in _FIRST):
        return None
    for name, measure in BY_NAME.items():
        if name not in metrics:
            continue
        value = metrics[name]
        if value is None and measure.may_be_undefined and (name != "auc" or classes_present < 2):
            continue
        if (not _is_number(value) or not measure.low <= value <= measure.high
                or abs(value) > _LARGEST):
            return None
        if name in COUNTS and value != int(value):
            return None
    if total == 0 or abs(metrics["accuracy"] - sum(matrix[i][i] for i in range(len(matrix)))
                         / total) > _TOLERANCE:
        return None
    checked = {"key": record["key"], "metrics": {name: metrics[name] for name in BY_NAME
                                                 if name in metrics},
               "confusion_matrix": matrix}
    if "calibration" in record:
        calibration = _calibration(record["calibration"], total)
        if calibration is None:
            return None
        checked["calibration"] = calibration
    if "threshold" in record:
        if not _is_number(record["threshold"]) or not 0 <= record["threshold"] <= 1:
            return None
        checked["threshold"] = record["threshold"]
    return checked


def _calibration(value, total: int) -> dict | None:
    """The reliability bins' sums of a line (scoring.score_predictions) if they are ones a
    task gives: ECE_BINS counts adding up to the rows, sums within them; else None."""
    from dtcli.measures.probabilities import ECE_BINS

    if not isinstance(value, dict) or set(value) != {"count", "confidence", "correct"}:
        return None
    lists = [value[name] for name in ("count", "confidence", "correct")]
    if not all(isinstance(v, list) and len(v) == ECE_BINS and all(map(_is_number, v))
               for v in lists):
        return None
    count, confidence, correct = lists
    if (any(c != int(c) or c < 0 for c in count) or sum(count) != total
            or any(not 0 <= s <= c * (1 + _TOLERANCE) for s, c in zip(confidence, count))
            or any(not 0 <= s <= c for s, c in zip(correct, count))):
        return None
    return value


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
            key = record.pop("key")
            if len(record["metrics"]) == len(BY_NAME):  # else an older line: run it again
                self.cells[key] = record
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
                  "confusion_matrix": result["confusion_matrix"],
                  **{name: result[name] for name in ("calibration", "threshold")
                     if name in result}}
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
