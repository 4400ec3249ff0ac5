"""What a tree can be trained on, checked when a dataset is made (and, for the node
records, again by the estimators' fit(X, y)), before training allocates anything.

- The target must be classes. As scikit-learn's `type_of_target` and
  `check_classification_targets` tell: numbers that are not all whole are
  "continuous", regression data; and more distinct values than half the rows
  (with over 20 rows) look like a regression target or an identifier. Either is an
  error unless `force` (the CLI's --force) says the values really are classes.
- Memory: the engine reserves a record for each of up to 2 x rows nodes, holding 8
  bytes per class (`value`) (dtcli/engine/nodes.py, `new_store`). Those class counts
  may take at most NODE_RECORD_BYTES; a target beyond that is an error saying how
  many classes fit, whatever `force` says (the allocation would fail or exhaust the
  machine). Nominal features need no limit: a tree keeps only the categories seen
  at its nominal splits, at most a node's rows each (dtcli/engine/tree.py).
- Memory available: the records are not all a fit takes. Measured (issue 47: 3,000 and
  6,000 rows of 890 classes, peak resident memory less the imports'): a fit holds the
  records and their compacted copy (the library's fit: 2.0x the records,
  FIT_BYTES_PER_NODE_COUNT), and `dtree train`'s model file turns every class count
  into a Python float and JSON text (6.8x the records in all, as the audit saw: 12,000
  rows x 4,000 classes used 5.39 GB for 0.77 GB of records; TRAIN_BYTES_PER_NODE_COUNT,
  which the command line checks before it fits, `experiments.training.fit_model`'s
  `saved`). A target whose fit would need more than the memory available (MemAvailable
  in /proc/meminfo) is refused in one line.
"""
from __future__ import annotations

import numpy as np

from dtcli.errors import DataError

NODE_RECORD_BYTES = 4 << 30
# Bytes a fit takes per class count of a node record (8 bytes), and a fit and its model
# file (`dtree train`): see the module docstring.
FIT_BYTES_PER_NODE_COUNT = 2 * 8
TRAIN_BYTES_PER_NODE_COUNT = 7 * 8
_MIN_ROWS_FOR_CLASS_COUNT = 20  # scikit-learn's: fewer rows are too few to judge
_FORCE_HINT = "give --force (force=True) if its values really are classes"


def check_class_target(name: str, values: np.ndarray | None, n_classes: int, n_labelled: int,
                       source: str, *, force: bool = False) -> None:
    """Refuse a target that looks like regression data (see the module docstring).

    `values` are the labelled values of a numeric target (None for a text one)."""
    if force:
        return
    if values is not None:
        fractions = values[values != np.round(values)]
        if fractions.size:
            raise DataError(f"{source}: target column '{name}' holds numbers that are not whole, "
                            f"such as {float(fractions[0])!r}: continuous values, regression data "
                            f"rather than classes; choose the class column with --target, or "
                            f"{_FORCE_HINT}")
    if n_labelled > _MIN_ROWS_FOR_CLASS_COUNT and n_classes > round(0.5 * n_labelled):
        raise DataError(f"{source}: target column '{name}' has {n_classes} distinct values in "
                        f"{n_labelled} rows, more than half: regression data or an identifier "
                        f"rather than classes? choose the class column with --target, or "
                        f"{_FORCE_HINT}")


def check_node_records(n_rows: int, n_classes: int, target: str, source: str,
                       bytes_per_count: int = FIT_BYTES_PER_NODE_COUNT) -> None:
    """Refuse a target whose class counts in the node records would exceed
    NODE_RECORD_BYTES, or whose fit (taking `bytes_per_count` per class count of a
    record) would exceed the memory available (module docstring)."""
    slots = 2 * max(n_rows, 1)
    need, available = slots * n_classes * bytes_per_count, available_memory()
    if slots * 8 * n_classes <= NODE_RECORD_BYTES and (available is None or need <= available):
        return
    if slots * 8 * n_classes <= NODE_RECORD_BYTES:
        raise DataError(f"{source}: target column '{target}' has {n_classes} classes; "
                        f"training on {n_rows} rows would take about {need / 2**30:.1f} GiB "
                        f"({bytes_per_count} bytes per class for each of 2 x {n_rows} "
                        f"nodes), more than the {available / 2**30:.1f} GiB of memory "
                        "available")
    fit = NODE_RECORD_BYTES // (8 * slots)
    raise DataError(f"{source}: target column '{target}' has {n_classes} classes; with "
                    f"{n_rows} rows at most {fit} are supported: the tree's node records take "
                    f"8 bytes per class for each of 2 x {n_rows} rows, at most "
                    f"{NODE_RECORD_BYTES >> 30} GiB (dtcli/engine/nodes.py)")


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation (Linux's MemAvailable), or None
    where unknown."""
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None
