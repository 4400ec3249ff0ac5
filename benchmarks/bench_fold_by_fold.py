"""The batch path's folds that are fitted one by one (class weights, pruning): ms per fold.

Since issue 32 these folds are the estimator's own fit from the dataset's presort
(`DecisionTreeClassifier.fit_prepared`); before, the batch path grew them itself.
Run from the project root, with the code to measure on the path:

    python benchmarks/bench_fold_by_fold.py [--rounds 5]

Stratified 10-fold x 3 repeats, gini and entropy, on the 13 files of
examples/imbalanced, with class_weight="balanced" and with pessimistic pruning;
`batch.run_tasks` in this process, kernels loaded first, best of --rounds. The
machine's load average is printed: compare runs made under the same load.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import best_of  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    from dtcli.crossval.batch import run_tasks
    from dtcli.crossval.warm import warm_up
    from dtcli.crossval.tasks import Task, TreeOptions
    from dtcli.io import load_dataset

    paths = sorted((ROOT / "examples" / "imbalanced").glob("*.dat"))
    datasets = [load_dataset(str(p)) for p in paths]
    for what, options in (("class_weight balanced", TreeOptions(class_weight="balanced")),
                          ("pessimistic pruning", TreeOptions(pruning="pessimistic"))):
        groups = [[Task(d, c, (), options, 10, 0, r, f) for c in ("gini", "entropy")
                   for r in range(3) for f in range(10)] for d in range(len(datasets))]
        warm_up(datasets, [t for g in groups for t in g])

        def run():
            for dataset, tasks in zip(datasets, groups):
                list(run_tasks(dataset, tasks))

        timing = best_of(run, args.rounds)
        folds = sum(len(g) for g in groups)
        print(f"{what}: {1000 * timing.wall / folds:.3f} ms wall, {1000 * timing.cpu / folds:.3f} "
              f"ms CPU per fold ({folds} folds, best of {args.rounds}; load "
              f"{os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
