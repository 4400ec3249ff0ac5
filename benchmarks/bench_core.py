"""Speed of dtree's core against scikit-learn and pandas, side by side in one run.

Run from the project root (after `pip install -e ".[bench]"`):

    python benchmarks/bench_core.py --quick            # everything but the 1M-row fit
    python benchmarks/bench_core.py                    # also 1M x 20 (sklearn alone: 1-2 min)
    python benchmarks/bench_core.py --sizes 10k,100k --parts fit --json out.json

What it measures (see benchmarks/README.md for details):

- fit and predict: `dtcli.DecisionTreeClassifier()` (gini, unpruned) with one
  thread and with all cores against scikit-learn's
  `DecisionTreeClassifier(criterion="gini", random_state=0)` on the same
  seeded synthetic arrays: 10k x 20, 100k x 20 and 1M x 20 with two classes,
  100k x 50 with ten. Also node counts, whether the root splits agree and the
  training accuracies.
- CSV load of the 1M x 20 file: `dtcli.io.read_table` and `dtcli.io.load_dataset`
  against `pandas.read_csv`.
- `dtree train examples/iris.csv` wall time in a subprocess, with a warm numba
  cache and with an empty one (the first run after installing).

Targets (issue 2): fit <= 0.1x scikit-learn's time at 100k x 20 and 1M x 20 and
<= 0.2x at 10k x 20; predict at least as fast as scikit-learn; CSV load within
1.5x of pandas.read_csv; `dtree train` on iris < 1.0 s warm, < 10 s first run.

Times are the best of a few repeats (one run at 1M rows), taken with
time.perf_counter after a warm-up fit, so numba compilation and cache loading
are not part of them. Progress goes to stderr, the table to stdout.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from timing import best_of

ROOT = Path(__file__).resolve().parent.parent
IRIS = ROOT / "examples" / "iris.csv"
DTREE = Path(sys.executable).parent / "dtree"

LABEL_NOISE = 0.1  # fraction of labels replaced by another class
DECIMALS = 6  # features are rounded so that CSV round trips are exact
ROOT_RTOL = 1e-6  # scikit-learn's thresholds are midpoints of float32 values
CLI_TIMEOUT = 600


@dataclass(frozen=True)
class Size:
    name: str
    n_rows: int
    n_features: int
    n_classes: int
    fit_target: float | None = None  # largest acceptable dtree/sklearn fit ratio

    @property
    def label(self) -> str:
        return f"{_short(self.n_rows)} x {self.n_features}, {self.n_classes} cls"

    @property
    def repeats(self) -> int:
        return 1 if self.n_rows >= 1_000_000 else 3 if self.n_rows >= 100_000 else 5


SIZES = {size.name: size for size in (
    Size("10k", 10_000, 20, 2, fit_target=0.2),
    Size("100k", 100_000, 20, 2, fit_target=0.1),
    Size("100k10c", 100_000, 50, 10),
    Size("1M", 1_000_000, 20, 2, fit_target=0.1),
)}
CSV_SIZE = SIZES["1M"]
CSV_TARGET = 1.5
PREDICT_TARGET = 1.0
CLI_WARM_TARGET = 1.0
CLI_COLD_TARGET = 10.0
PARTS = ("fit", "csv", "cli")


def _short(n: int) -> str:
    return f"{n // 1_000_000}M" if n % 1_000_000 == 0 else f"{n // 1000}k"


def progress(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --- results -------------------------------------------------------------------------

@dataclass
class Row:
    """One measurement: dtree's seconds against a reference's, and a target."""

    measurement: str
    dtree_s: float
    reference_s: float | None = None
    reference: str = ""  # what the reference is ("sklearn", "pandas")
    max_ratio: float | None = None  # target on dtree_s / reference_s
    max_seconds: float | None = None  # target on dtree_s
    notes: str = ""

    @property
    def ratio(self) -> float | None:
        if self.reference_s is None or self.reference_s <= 0:
            return None
        return self.dtree_s / self.reference_s

    @property
    def target(self) -> str:
        if self.max_ratio is not None:
            return f"<= {self.max_ratio:g}x"
        if self.max_seconds is not None:
            return f"< {self.max_seconds:g} s"
        return ""

    @property
    def ok(self) -> bool | None:
        if self.max_ratio is not None and self.ratio is not None:
            return self.ratio <= self.max_ratio
        if self.max_seconds is not None:
            return self.dtree_s < self.max_seconds
        return None

    def as_json(self) -> dict:
        return {**asdict(self), "ratio": self.ratio, "target": self.target, "ok": self.ok}


def format_table(rows: list[Row]) -> str:
    header = ("measurement", "dtree s", "ref s", "ref", "dtree/ref", "target", "ok", "notes")
    cells = [header] + [(
        row.measurement,
        f"{row.dtree_s:.3f}",
        "" if row.reference_s is None else f"{row.reference_s:.3f}",
        row.reference,
        "" if row.ratio is None else f"{row.ratio:.3f}x",
        row.target,
        {True: "yes", False: "NO", None: ""}[row.ok],
        row.notes,
    ) for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(header))]
    right = {1, 2, 4}  # numbers are right-aligned
    lines = ["  ".join(cell.rjust(w) if i in right else cell.ljust(w)
                       for i, (cell, w) in enumerate(zip(line, widths))).rstrip()
             for line in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)



def paired(fns: list, repeats: int) -> tuple[list[float], list]:
    """Each function's best wall time over `repeats` rounds that call them in turn, and
    its last result. This machine's speed drifts by a quarter within minutes: two
    things timed in turn see the same drift, timed one after the other they do not."""
    best, results = [math.inf] * len(fns), [None] * len(fns)
    for _ in range(repeats):
        for i, fn in enumerate(fns):
            results[i] = None
            timing = best_of(fn, 1)
            seconds, results[i] = timing.wall, timing.result
            best[i] = min(best[i], seconds)
    return best, results


# --- data ----------------------------------------------------------------------------

def _basis(X: np.ndarray) -> np.ndarray:
    """Non-linear functions of the first eight features (the informative ones)."""
    x = [X[:, j] for j in range(8)]
    return np.column_stack([
        np.sin(x[0]),
        np.cos(0.7 * x[1]) * np.sign(x[2]),
        x[2] * x[3] / 16,
        np.abs(x[4]) / 4 - 1,
        np.tanh(x[5] - x[6]),
        (x[7] > 1.5) - 0.5,
        np.sin(x[0] * x[5] / 8),
        (x[1] + x[3]) ** 2 / 64 - 0.5,
    ])


@lru_cache(maxsize=1)
def make_data(size: Size, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Seeded X (float64, 6 decimals) and y (int64 in [0, n_classes)).

    Even columns are uniform on (-8, 8), odd ones 7.9 * tanh(N(0, 0.4^2))
    (bell-shaped, bounded): within +-8 float32 still separates values 1e-6
    apart, so scikit-learn's float32 copy adds no ties. The class is the
    argmax of random mixtures of non-linear functions of eight features,
    with LABEL_NOISE of the labels replaced by another class; the other
    features are noise. The noise makes unpruned trees large, as on real data.
    """
    n, d, k = size.n_rows, size.n_features, size.n_classes
    if d < 8:
        raise ValueError("the generator needs at least 8 features")
    rng = np.random.default_rng([seed, n, d, k])
    X = np.empty((n, d))
    X[:, 0::2] = rng.uniform(-8.0, 8.0, (n, (d + 1) // 2))
    X[:, 1::2] = 7.9 * np.tanh(0.4 * rng.standard_normal((n, d // 2)))
    X = np.round(X, DECIMALS)
    scores = _basis(X) @ rng.standard_normal((8, k))
    scores -= np.median(scores, axis=0)  # roughly balanced classes
    y = np.argmax(scores, axis=1).astype(np.int64)
    noisy = rng.random(n) < LABEL_NOISE
    y[noisy] = (y[noisy] + rng.integers(1, k, np.count_nonzero(noisy))) % k
    return X, y


# --- fit and predict -----------------------------------------------------------------

def warm_up(seed: int) -> float:
    """Fit and predict once on tiny data so numba compiles or loads its cache."""
    from dtcli import DecisionTreeClassifier

    start = time.perf_counter()
    for n_classes in (2, 3):
        X, y = make_data(Size("warm-up", 500, 8, n_classes), seed)
        for n_jobs in (1, None):
            DecisionTreeClassifier(n_jobs=n_jobs).fit(X, y).predict(X)
    return time.perf_counter() - start


def root_split(tree) -> tuple[int, float] | None:
    return None if tree.children_left[0] < 0 else (int(tree.feature[0]), float(tree.threshold[0]))


def compare_roots(ours, theirs) -> str:
    if ours is None or theirs is None:
        return f"root: dtree {ours}, sklearn {theirs}"
    same = ours[0] == theirs[0] and math.isclose(ours[1], theirs[1], rel_tol=ROOT_RTOL)
    if same:
        return f"root same (x{ours[0]} <= {ours[1]:.6g})"
    return (f"ROOT DIFFERS: dtree x{ours[0]} <= {ours[1]!r}, "
            f"sklearn x{theirs[0]} <= {theirs[1]!r}")


def timed_fit_predict(make_model: Callable[[], object], X, y, repeats: int):
    """(fit seconds, predict seconds, fitted model, training accuracy)."""
    fit_s, _, model = best_of(lambda: make_model().fit(X, y), repeats)
    predict_s, _, predicted = best_of(lambda: model.predict(X), repeats)
    return fit_s, predict_s, model, float(np.mean(predicted == y))


def bench_size(size: Size, seed: int) -> list[Row]:
    from sklearn.tree import DecisionTreeClassifier as SkTree

    from dtcli import DecisionTreeClassifier

    progress(f"{size.label}: generating data")
    X, y = make_data(size, seed)
    repeats = size.repeats
    all_cores = os.cpu_count() or 1
    runs = {}
    for name, n_jobs in (("1 thread", 1), (f"{all_cores} threads", None)):
        progress(f"{size.label}: dtree fit/predict, {name}, best of {repeats}")
        runs[name] = timed_fit_predict(lambda: DecisionTreeClassifier(n_jobs=n_jobs),
                                       X, y, repeats)
    progress(f"{size.label}: sklearn fit/predict, best of {repeats}")
    sk_fit, sk_predict, sk_model, sk_accuracy = timed_fit_predict(
        lambda: SkTree(criterion="gini", random_state=0), X, y, repeats)

    rows = []
    for name, (fit_s, predict_s, model, accuracy) in runs.items():
        notes = (f"nodes {model.tree_.node_count} vs {sk_model.tree_.node_count}; "
                 f"{compare_roots(root_split(model.tree_), root_split(sk_model.tree_))}; "
                 f"train acc {accuracy:.4f} vs {sk_accuracy:.4f}")
        rows.append(Row(f"fit {size.label}, {name}", fit_s, sk_fit, "sklearn",
                        max_ratio=size.fit_target, notes=notes))
    for name, (fit_s, predict_s, model, accuracy) in runs.items():
        rows.append(Row(f"predict {size.label} (model fit with {name})", predict_s, sk_predict,
                        "sklearn", max_ratio=PREDICT_TARGET))
    return rows


# --- CSV load --------------------------------------------------------------------------

def write_csv(X: np.ndarray, y: np.ndarray, path: Path) -> None:
    import pandas as pd

    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    frame["class"] = y
    frame.to_csv(path, index=False)


def bench_csv(seed: int, tmp: Path) -> list[Row]:
    import pandas as pd

    from dtcli.io import load_dataset, read_table

    size = CSV_SIZE
    X, y = make_data(size, seed)
    path = tmp / f"bench_{_short(size.n_rows)}x{size.n_features}.csv"
    progress(f"CSV: writing {size.label} to {path}")
    write_csv(X, y, path)
    megabytes = path.stat().st_size / 1e6
    rounds = 5
    progress(f"CSV: pandas.read_csv, dtcli.io.read_table and load_dataset in turn, "
             f"best of {rounds}")
    (pandas_s, table_s, dataset_s), (frame, _, dataset) = paired(
        [lambda: pd.read_csv(path), lambda: read_table(str(path)),
         lambda: load_dataset(str(path))], rounds)
    pandas_exact = np.array_equal(frame.iloc[:, :-1].to_numpy(), X)
    del frame
    dtree_exact = np.array_equal(dataset.X, X)
    what = f"{size.label} ({megabytes:.0f} MB)"
    return [
        Row(f"CSV read_table {what}", table_s, pandas_s, "pandas", max_ratio=CSV_TARGET),
        Row(f"CSV load_dataset {what}", dataset_s, pandas_s, "pandas", max_ratio=CSV_TARGET,
            notes=f"X round trip exact: dtree {_yes(dtree_exact)}, "
                  f"pandas {_yes(pandas_exact)}"),
    ]


def _yes(flag: bool) -> str:
    return "yes" if flag else "NO"


# --- CLI -------------------------------------------------------------------------------

def run_cli(output: Path, env: dict[str, str] | None = None) -> float:
    command = [str(DTREE), "train", str(IRIS), "-o", str(output)]
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=CLI_TIMEOUT)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()}")
    return seconds


def bench_cli(tmp: Path) -> list[Row]:
    output = tmp / "iris.json"
    progress("CLI: dtree train iris, warm cache (one run to warm it, then best of 5)")
    run_cli(output)
    warm_s = best_of(lambda: run_cli(output), 5).wall
    progress("CLI: dtree train iris, empty NUMBA_CACHE_DIR (compiles everything)")
    cache = Path(tempfile.mkdtemp(prefix="numba-cache-", dir=tmp))
    cold_s = run_cli(output, env={**os.environ, "NUMBA_CACHE_DIR": str(cache)})
    return [
        Row("CLI dtree train iris, warm cache", warm_s, max_seconds=CLI_WARM_TARGET,
            notes="best of 5, subprocess wall time"),
        Row("CLI dtree train iris, empty cache", cold_s, max_seconds=CLI_COLD_TARGET,
            notes="one run, NUMBA_CACHE_DIR fresh"),
    ]


# --- main ------------------------------------------------------------------------------

def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=f"sizes: {', '.join(f'{s.name} ({s.label})' for s in SIZES.values())}")
    parser.add_argument("--sizes", default=",".join(SIZES),
                        help="comma-separated sizes to fit (default: all)")
    parser.add_argument("--quick", action="store_true", help="skip the 1M-row fit")
    parser.add_argument("--parts", default=",".join(PARTS),
                        help=f"comma-separated parts to run (default: {','.join(PARTS)})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthetic data")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args(argv)
    args.sizes = _choices(parser, "--sizes", args.sizes, SIZES)
    args.parts = _choices(parser, "--parts", args.parts, PARTS)
    if args.quick:
        args.sizes = [s for s in args.sizes if s.n_rows < 1_000_000]
    return args


def _choices(parser, option: str, text: str, known) -> list:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in known]
    if unknown:
        parser.error(f"{option}: unknown {', '.join(unknown)} (choose from {', '.join(known)})")
    return [known[name] for name in names] if isinstance(known, dict) else names


def environment() -> dict:
    import numba
    import pandas
    import sklearn

    import dtcli

    return {"python": platform.python_version(), "machine": platform.machine(),
            "cpu_count": os.cpu_count(), "load_average": os.getloadavg(),
            "dtcli": dtcli.__version__, "numpy": np.__version__, "numba": numba.__version__,
            "sklearn": sklearn.__version__, "pandas": pandas.__version__,
            "date": time.strftime("%Y-%m-%d %H:%M:%S")}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    env = environment()
    progress(f"{env['cpu_count']} cores, load average {env['load_average'][0]:.2f}")
    rows: list[Row] = []
    if "fit" in args.parts and args.sizes:
        progress("warm-up fit on tiny data (numba compile or cache load)")
        rows.append(Row("warm-up: first fits in process, tiny data", warm_up(args.seed),
                        notes="numba compile/cache load; not in other rows"))
        for size in args.sizes:
            rows += bench_size(size, args.seed)
    with tempfile.TemporaryDirectory(prefix="dtree-bench-") as tmp:
        if "csv" in args.parts:
            rows += bench_csv(args.seed, Path(tmp))
        if "cli" in args.parts:
            rows += bench_cli(Path(tmp))
    env["load_average_end"] = os.getloadavg()
    print(format_table(rows))
    print(f"\n{env['cpu_count']} cores; load average {env['load_average'][0]:.2f} at start, "
          f"{env['load_average_end'][0]:.2f} at end; numba {env['numba']}, "
          f"scikit-learn {env['sklearn']}, pandas {env['pandas']}")
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"environment": env, "rows": [row.as_json() for row in rows]}, indent=2) + "\n")
        progress(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
