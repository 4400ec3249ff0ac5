"""Speed of dtree's random forests against scikit-learn's and YDF's, side by side in one run.

Run from the project root (after `pip install -e ".[bench]"`; YDF is optional, the
`ydf` package on PyPI):

    python benchmarks/bench_forest.py                        # the issue's sizes: 100k x 20, 100 trees
    python benchmarks/bench_forest.py --rows 20000 --trees 30   # smaller, quicker
    python benchmarks/bench_forest.py --parts growth         # trees in parallel vs one by one
    python benchmarks/bench_forest.py --parts predict --predict-rows 1000000   # predict only

What it measures (issue 22), on a seeded synthetic two-class dataset:

- fit: `dtcli.RandomForestClassifier(n_estimators=T, max_features="sqrt")` of gini
  trees on all cores, against scikit-learn's `RandomForestClassifier(n_estimators=T,
  n_jobs=2)` and YDF's `RandomForestLearner(num_trees=T, max_depth=-1,
  compute_oob_performances=False)` (unlimited depth, no OOB evaluation); targets: at
  most 0.2x scikit-learn's time and 0.5x YDF's.
- predict on the training rows (or on `--predict-rows` fresh rows of the same
  distribution): dtree's throughput at least 3x scikit-learn's (issue 46; rows in
  blocks through all trees, dtcli/ensemble/forest_walk.py). `--parts predict`
  fits dtree's gini forest and scikit-learn's only, and times their predictions.
- a forest of ihdw trees: within 1.5x of the gini forest's time.
- `--parts growth`: the same forest grown one tree per thread (what dtree does) and
  tree after tree with each tree on all threads (the engine's own parallelism).

Times are the best of `--repeats` runs (time.perf_counter) after a warm-up fit on
small data, so numba compilation is not part of them. The table goes to stdout.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from timing import best_of


def synthetic(n_rows: int, n_features: int, seed: int = 0):
    """Two classes from a noisy linear rule over half the features, 10% labels flipped."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, n_features)).round(6)
    weights = rng.normal(size=n_features) * (np.arange(n_features) < n_features // 2)
    y = (X @ weights + rng.normal(0, 1.0, n_rows) > 0).astype(np.int64)
    flip = rng.random(n_rows) < 0.1
    y[flip] = 1 - y[flip]
    return X, y



def dtree_forest(X, y, trees, criterion, repeats, jobs, X_test, y_test):
    from dtcli import RandomForestClassifier

    def make():
        return RandomForestClassifier(n_estimators=trees, criterion=criterion, n_jobs=jobs,
                                      random_state=0)

    make().set_params(n_estimators=2).fit(X[:2000], y[:2000]).predict_proba(X[:100])  # warm
    fit, fit_cpu, model = best_of(lambda: make().fit(X, y), repeats)
    predict, predict_cpu, proba = best_of(lambda: model.predict_proba(X_test), repeats)
    return fit, fit_cpu, predict, predict_cpu, float(np.mean(proba.argmax(1) == y_test)), np.mean(
        [e.tree_.node_count for e in model.estimators_])


def sklearn_forest(X, y, trees, repeats, jobs, X_test, y_test):
    from sklearn.ensemble import RandomForestClassifier

    def make():
        return RandomForestClassifier(n_estimators=trees, n_jobs=jobs, random_state=0)

    fit, fit_cpu, model = best_of(lambda: make().fit(X, y), repeats)
    predict, predict_cpu, proba = best_of(lambda: model.predict_proba(X_test), repeats)
    return fit, fit_cpu, predict, predict_cpu, float(np.mean(proba.argmax(1) == y_test)), np.mean(
        [e.tree_.node_count for e in model.estimators_])


def ydf_forest(X, y, trees, repeats, jobs, X_test, y_test):
    try:
        import ydf
    except ImportError:
        return None
    data = {f"x{j}": X[:, j] for j in range(X.shape[1])} | {"y": y}

    def make():
        return ydf.RandomForestLearner(label="y", num_trees=trees, max_depth=-1,
                                       compute_oob_performances=False, num_threads=jobs)

    fit, fit_cpu, model = best_of(lambda: make().train(data, verbose=0), repeats)
    features = {f"x{j}": X_test[:, j] for j in range(X_test.shape[1])}
    predict, predict_cpu, proba = best_of(lambda: model.predict(features), repeats)
    return (fit, fit_cpu, predict, predict_cpu, float(np.mean((proba > 0.5) == y_test)),
            float("nan"))


def growth_strategies(X, y, trees, repeats, jobs):
    """(wall, CPU) seconds to grow the forest one tree per thread, and tree after tree on
    all threads."""
    from dtcli import RandomForestClassifier
    from dtcli.ensemble import growth
    from dtcli.fit_data import FitData
    from dtcli.io.dataset import NUMERIC, Feature

    forest = RandomForestClassifier(n_estimators=trees, random_state=0, n_jobs=jobs)
    classes = np.array([0, 1], dtype=object)
    features = [Feature(f"x{j}", NUMERIC) for j in range(X.shape[1])]
    data = FitData(X, y, features, classes)
    plan = forest._plan(data, None)
    prepared = data.presort(jobs)
    growth.grow_trees(prepared, plan, range(2), jobs)  # load the kernels
    parallel = best_of(lambda: growth.grow_trees(prepared, plan, range(trees), jobs), repeats)
    serial = best_of(lambda: [growth.grow_tree(prepared, plan, i, jobs) for i in range(trees)],
                     repeats)
    return parallel[:2], serial[:2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--trees", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--predict-rows", type=int, default=None,
                        help="predict this many fresh rows (default: the training rows)")
    parser.add_argument("--parts", default="peers",
                        choices=["peers", "growth", "predict", "all"])
    args = parser.parse_args()
    X, y = synthetic(args.rows, args.features)
    X_test, y_test = X, y
    if args.predict_rows:  # one rule for both: drawn together, split
        X_all, y_all = synthetic(args.rows + args.predict_rows, args.features)
        X, y, X_test, y_test = (X_all[:args.rows], y_all[:args.rows], X_all[args.rows:],
                                y_all[args.rows:])
    print(f"{args.rows} x {args.features}, two classes, {args.trees} trees, "
          f"{args.jobs} threads, best of {args.repeats}; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", file=sys.stderr)
    if args.parts in ("growth", "all"):
        parallel, serial = growth_strategies(X, y, args.trees, args.repeats, args.jobs)
        print(f"growth: one tree per thread {parallel[0]:.2f} s (CPU {parallel[1]:.2f} s), "
              f"tree after tree on {args.jobs} threads {serial[0]:.2f} s (CPU {serial[1]:.2f} s)")
    if args.parts == "growth":
        return
    test = (X_test, y_test)
    rows = {"dtree gini": dtree_forest(X, y, args.trees, "gini", args.repeats, args.jobs, *test)}
    if args.parts != "predict":
        rows["dtree ihdw"] = dtree_forest(X, y, args.trees, "ihdw", args.repeats, args.jobs,
                                          *test)
    rows["scikit-learn"] = sklearn_forest(X, y, args.trees, args.repeats, args.jobs, *test)
    if args.parts != "predict":
        rows["ydf"] = ydf_forest(X, y, args.trees, args.repeats, args.jobs, *test)
    base = rows["dtree gini"]
    print(f"predicting {X_test.shape[0]} rows")
    print(f"{'forest':<14}{'fit s':>8}{'fit CPU s':>11}{'predict s':>11}{'predict CPU s':>15}"
          f"{'accuracy':>11}{'nodes/tree':>12}")
    for name, row in rows.items():
        if row is None:
            print(f"{name:<14}  (not installed)")
            continue
        fit, fit_cpu, predict, predict_cpu, accuracy, nodes = row
        print(f"{name:<14}{fit:>8.2f}{fit_cpu:>11.2f}{predict:>11.2f}{predict_cpu:>15.2f}"
              f"{accuracy:>11.4f}{nodes:>12.0f}")
    sk, ydf_row, ihdw = rows["scikit-learn"], rows.get("ydf"), rows.get("dtree ihdw")

    def ratios(a, b, index):  # wall and CPU ratios a / b of a row's figure
        return f"{a[index] / b[index]:.2f} (CPU {a[index + 1] / b[index + 1]:.2f})"

    if args.parts == "predict":
        print(f"target: scikit-learn predict time / dtree's {ratios(sk, base, 2)} (>= 3)")
        return

    print(f"targets: gini fit / scikit-learn {ratios(base, sk, 0)} (<= 0.2); "
          + (f"gini fit / ydf {ratios(base, ydf_row, 0)} (<= 0.5); " if ydf_row else "")
          + f"scikit-learn predict time / dtree's {ratios(sk, base, 2)} (>= 3); "
          f"ihdw fit / gini fit {ratios(ihdw, base, 0)} (<= 1.5)")


if __name__ == "__main__":
    main()
