"""The `--results` file: finished cross-validation tasks as JSON lines, to resume a run.

Each line is one task: {"key", "dataset", "criterion", "repeat", "fold",
"metrics", "confusion_matrix"}; only "key" identifies it (`tasks.task_key`),
the rest is for people. A line is used only if every value in it is one a
task can produce (`check_record`); any other line (an interrupted write, a
tampered value, bytes that are not UTF-8) is skipped, its line number
reported once, and the file rewritten without it, so the next run neither
warns again nor trips over it.
"""
from __future__ import annotations

import json
import math
import os
import stat

from dtcli.errors import DtreeError
from dtcli.evaluate.report import METRICS

# Metrics that are proportions, counts, and all the others (non-negative numbers).
_PROPORTIONS = ("accuracy", "balanced_accuracy", "auc", "f1_macro")
_COUNTS = ("n_nodes", "n_leaves", "depth")
# A stored accuracy must equal the one its confusion matrix gives, up to rounding.
_TOLERANCE = 1e-9


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
        if not _is_number(value) or value < 0:
            return None
        if name in _PROPORTIONS and value > 1 or name in _COUNTS and value != int(value):
            return None
    if total == 0 or abs(metrics["accuracy"] - sum(matrix[i][i] for i in range(len(matrix)))
                         / total) > _TOLERANCE:
        return None
    return {"key": record["key"], "metrics": {name: metrics[name] for name in METRICS},
            "confusion_matrix": matrix}


class ResultStore:
    """Finished tasks by key; with a path, also the results file, appended as tasks finish.

    A key seen twice keeps its last line. `damaged` lists the line numbers
    (1-based) of the lines skipped on reading; the file has then been rewritten
    without them.
    """

    def __init__(self, path: str | None = None):
        self.path = path
        self.cells: dict[str, dict] = {}
        self.damaged: list[int] = []
        self.written = 0  # lines appended to the file by this run
        self._handle = None
        if path is None:
            return
        try:
            status = os.stat(path)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise DtreeError(f"{path}: cannot read the results file ({exc.strerror})") from None
        if not stat.S_ISREG(status.st_mode):
            raise DtreeError(f"{path}: the results file must be a regular file (it is read, "
                             "appended to and rewritten)")
        lines = self._read(path)
        if self.damaged:
            self._rewrite(lines)

    def _read(self, path: str) -> list[bytes]:
        """The file's good lines, as they are; fills `cells` and `damaged`."""
        try:
            with open(path, "rb") as handle:
                raw = handle.read()
        except OSError as exc:
            raise DtreeError(f"{path}: cannot read the results file ({exc.strerror})") from None
        good = []
        for number, line in enumerate(raw.split(b"\n"), start=1):
            if not line.strip():
                continue
            try:
                record = check_record(json.loads(line.decode("utf-8")))
            except (UnicodeDecodeError, ValueError, RecursionError):
                record = None
            if record is None:
                self.damaged.append(number)
                continue
            self.cells[record.pop("key")] = record
            good.append(line)
        return good

    def _rewrite(self, lines: list[bytes]) -> None:
        from dtcli.atomic import open_output

        with open_output(self.path, "wb") as handle:
            handle.write(b"".join(line + b"\n" for line in lines))

    def get(self, key: str) -> dict | None:
        return self.cells.get(key)

    def add(self, key: str, result: dict, **about) -> None:
        """Remember a finished task; with a file, append its line and flush it.

        NaN metrics (an AUC on a single-class fold) are kept as None, in memory
        as in the file, so a resumed run reports exactly what a fresh one does.
        A failed write (a full disk) is a DtreeError; the lines before it stay.
        """
        result = {"metrics": {k: _none_if_nan(v) for k, v in result["metrics"].items()},
                  "confusion_matrix": result["confusion_matrix"]}
        self.cells[key] = result
        if self.path is None:
            return
        line = json.dumps({"key": key, **about, **result}, allow_nan=False, separators=(",", ":"))
        try:
            if self._handle is None:
                self._handle = self._open()
            self._handle.write(line + "\n")
            self._handle.flush()
            self.written += 1
        except OSError as exc:
            raise DtreeError(f"{self.path}: cannot write the results file ({exc.strerror}); "
                             "the folds written before are kept") from None

    def _open(self):
        handle = open(self.path, "a+", encoding="utf-8")
        handle.seek(0, os.SEEK_END)
        if handle.tell() > 0:
            handle.seek(handle.tell() - 1)
            if handle.read(1) != "\n":  # the last line has no end: start a fresh one
                handle.write("\n")
        return handle

    def close(self) -> None:
        if self._handle is None:
            return
        handle, self._handle = self._handle, None
        try:
            handle.close()
        except OSError:  # the write that failed already said so
            pass
