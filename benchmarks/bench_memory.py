"""Memory a fit adds, dtree against scikit-learn, side by side in one run.

Run from the project root (after `pip install -e ".[bench]"`):

    python benchmarks/bench_memory.py                          # 1M and 4M rows, 2 and 10 classes
    python benchmarks/bench_memory.py --rows 1M --classes 2    # one size

Each fit runs in a fresh subprocess: bench_core's seeded synthetic data (20 features,
float64, the classes a noisy function of eight of them) is made, a fit on 2,000 of its
rows loads the kernels, then the peak resident set is reset (/proc/self/clear_refs)
and the fit of all rows runs; its added memory is the peak (VmHWM) less the resident
set before it. dtree: `DecisionTreeClassifier()` (gini, unpruned, all cores);
scikit-learn: `DecisionTreeClassifier(random_state=0)`, which converts X to float32
(counted: it is memory the fit adds). Printed: bytes per row x feature for each, their
ratio (issue 46: at most 1.5), and the largest such fit 24 GB holds (the data itself,
8 bytes per cell, plus the fit's added bytes per cell, linear in the rows).

Memory figures do not depend on other processes' load; the fit times printed beside
them do.
"""
from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
N_FEATURES = 20
WARM_ROWS = 2_000
MACHINE_BYTES = 24 * 10**9
DATA_BYTES_PER_CELL = 8  # X as float64
TARGET_RATIO = 1.5


def _status() -> dict[str, int]:
    """VmRSS and VmHWM (peak) of this process, in bytes."""
    found = {}
    with open("/proc/self/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(value.split()[0]) * 1024
    return found


def child(library: str, n_rows: int, n_classes: int) -> dict:
    """One fit's added peak memory, measured in this (fresh) process."""
    sys.path.insert(0, str(HERE))
    from bench_core import Size, make_data

    X, y = make_data(Size("memory", n_rows, N_FEATURES, n_classes), 0)
    if library == "dtree":
        from dtcli import DecisionTreeClassifier

        def make():
            return DecisionTreeClassifier()
    else:
        from sklearn.tree import DecisionTreeClassifier

        def make():
            return DecisionTreeClassifier(random_state=0)
    make().fit(X[:WARM_ROWS], y[:WARM_ROWS])
    gc.collect()
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")  # reset VmHWM to the current resident set
    before = _status()["VmRSS"]
    start = time.perf_counter()
    model = make().fit(X, y)
    seconds = time.perf_counter() - start
    added = _status()["VmHWM"] - before
    nodes = model.tree_.node_count
    return {"library": library, "rows": n_rows, "classes": n_classes, "added": added,
            "per_cell": added / (n_rows * N_FEATURES), "seconds": seconds, "nodes": nodes}


def measure(library: str, n_rows: int, n_classes: int) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", library, str(n_rows),
                          str(n_classes)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def largest_rows(per_cell: float) -> float:
    """Rows of a 20-feature fit that 24 GB holds, data included."""
    return MACHINE_BYTES / ((DATA_BYTES_PER_CELL + per_cell) * N_FEATURES)


def _rows(text: str) -> int:
    text = text.strip().lower()
    scale = {"k": 1_000, "m": 1_000_000}.get(text[-1], 1)
    return int(float(text.rstrip("km")) * scale)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="1M,4M", help="comma-separated, e.g. 1M,4M")
    parser.add_argument("--classes", default="2,10", help="comma-separated")
    parser.add_argument("--dtree-only", action="store_true",
                        help="measure dtree alone (scikit-learn's 1M-row fits take minutes)")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        library, n_rows, n_classes = args.child
        print(json.dumps(child(library, int(n_rows), int(n_classes))))
        return 0
    print(f"{'fit':<18} {'dtree B/cell':>12} {'sklearn B/cell':>14} {'ratio':>6} "
          f"{'dtree s':>8} {'sklearn s':>9} {'nodes (dtree/sklearn)':>22}  "
          f"largest 20-feature fit in 24 GB (dtree / sklearn)")
    worst = 0.0
    for n_rows in (_rows(r) for r in args.rows.split(",")):
        for n_classes in (int(k) for k in args.classes.split(",")):
            ours = measure("dtree", n_rows, n_classes)
            if args.dtree_only:
                print(f"{n_rows / 1e6:g}M x {N_FEATURES}, {n_classes:>2} cls   "
                      f"{ours['per_cell']:12.1f} {ours['seconds']:8.2f} {ours['nodes']:>11}",
                      flush=True)
                continue
            theirs = measure("sklearn", n_rows, n_classes)
            ratio = ours["per_cell"] / theirs["per_cell"]
            worst = max(worst, ratio)
            print(f"{n_rows / 1e6:g}M x {N_FEATURES}, {n_classes:>2} cls   "
                  f"{ours['per_cell']:12.1f} {theirs['per_cell']:14.1f} {ratio:6.2f} "
                  f"{ours['seconds']:8.2f} {theirs['seconds']:9.2f} "
                  f"{ours['nodes']:>11}/{theirs['nodes']:<10}  "
                  f"{largest_rows(ours['per_cell']) / 1e6:.0f}M / "
                  f"{largest_rows(theirs['per_cell']) / 1e6:.0f}M rows", flush=True)
    if not args.dtree_only:
        print(f"worst ratio {worst:.2f} (target <= {TARGET_RATIO})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
