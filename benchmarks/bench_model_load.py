"""Seconds to load and validate model files of each kind (issue 36: every kind goes through
model_check's element-by-element checks): a deep tree as JSON lists, a forest in compact
arrays, an FDF model. Fits seeded synthetic data once, writes the files to --dir, then
times `dtcli.model.load_model` (best of --repeats); run from the project root:

    python benchmarks/bench_model_load.py [--rows 100000] [--trees 30] [--dir /tmp/bench]

To compare with another checkout, fit once here and time its loader on the same files:
`PYTHONPATH=OTHER python benchmarks/bench_model_load.py --load-only --dir /tmp/bench`.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from timing import best_of


def fit_files(folder: Path, n_rows: int, n_trees: int) -> None:
    from dtcli import DecisionTreeClassifier, RandomForestClassifier
    from dtcli.fdf.estimator import FDFClassifier
    from dtcli.model import save_model

    rng = np.random.default_rng(0)
    X = rng.normal(size=(n_rows, 8)).round(3)
    y = ((X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n_rows)) > 0).astype(int)  # noisy: deep
    save_model(DecisionTreeClassifier().fit(X, y), str(folder / "tree.json"))
    save_model(RandomForestClassifier(n_estimators=n_trees, random_state=0).fit(X, y),
               str(folder / "forest.json"))
    few = slice(0, min(n_rows, 5000))  # FDF keeps its training rows in the file
    save_model(FDFClassifier().fit(X[few], y[few]), str(folder / "fdf.json"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--trees", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/dtree-bench-model-load"))
    parser.add_argument("--load-only", action="store_true", help="time the files in --dir")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    if not args.load_only:
        print(f"fitting {args.rows} rows ...", file=sys.stderr)
        fit_files(args.dir, args.rows, args.trees)
    import dtcli
    from dtcli.model import load_model

    print(f"dtcli from {Path(dtcli.__file__).parent}")
    print(f"{'file':<12} {'MB':>7} {'nodes':>9} {'load s':>8}")
    for name in ("tree", "forest", "fdf"):
        path = args.dir / f"{name}.json"
        timing = best_of(lambda: load_model(str(path)), args.repeats)
        model = timing.result[0]
        trees = getattr(model, "estimators_", None)
        nodes = (sum(e.tree_.node_count for e in trees) if trees is not None
                 else model.tree_.node_count if hasattr(model, "tree_")
                 else len(model.forest_.parent))
        print(f"{name:<12} {path.stat().st_size / 1e6:>7.2f} {nodes:>9} {timing.wall:>8.3f}")


if __name__ == "__main__":
    main()
