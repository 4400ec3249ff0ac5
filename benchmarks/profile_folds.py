"""Where a cross-validation fold's time goes on the batch path: the share of each part.

Run from the project root:

    python benchmarks/profile_folds.py                       # gini, entropy
    python benchmarks/profile_folds.py --criteria gini,entropy,gain-ratio,dcsm,hddt,ccpdt,ihd,ihdw

Runs 2 repeats of 10-fold on the 13 files of examples/imbalanced through
`dtcli.crossval.batch.run_tasks`, with the engine's steps wrapped in timers
(wall clock, so on a shared machine the milliseconds inflate; the shares
hold better). "dispatch" is an extra call of the grower with no roots: what
numba's typing and unboxing of its arguments cost, before any work.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--criteria", default="gini,entropy")
    args = parser.parse_args()

    from dtcli.engine import tree as tree_module
    from dtcli.engine import builder, folds, subtree
    from dtcli.crossval import batch, warm
    from dtcli.crossval.tasks import Task, TreeOptions
    from dtcli.io import load_dataset

    spent: dict[str, float] = defaultdict(float)

    def timed(name, function):
        def run(*args, **kwargs):
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - start
        return run

    growers = {subtree.grow_subtrees}
    run_chunks = builder.run_chunks

    def chunks(kernel, n_items, n_threads, work, *rest, **options):
        name = "grower kernel" if kernel in growers else "other kernels"
        found = timed(name, run_chunks)(kernel, n_items, n_threads, work, *rest, **options)
        if kernel in growers:
            timed("  of it, dispatch", kernel)(*rest, 0, 0)
        return found

    builder.run_chunks = chunks
    folds.predict_folds = timed("folds.predict_folds, all of it (growth, routing, sizes)",
                                folds.predict_folds)
    folds.store_leaves = timed("  routing the test rows", folds.store_leaves)
    builder.grow = timed("builder.grow (folds grown one by one), all of it", builder.grow)
    builder.keep_rows = timed("  keep_rows", builder.keep_rows)
    builder.compact = timed("  compact", builder.compact)
    batch.score_predictions = timed("metrics", batch.score_predictions)
    tree_module.Tree.apply = timed("Tree.apply (folds grown one by one)", tree_module.Tree.apply)

    datasets = [load_dataset(str(p)) for p in sorted((ROOT / "examples" / "imbalanced").glob("*.dat"))]
    criteria = args.criteria.split(",")
    groups = [[Task(d, c, (), TreeOptions(), 10, 0, r, f) for c in criteria for r in range(2)
               for f in range(10)] for d in range(len(datasets))]
    warm.warm_up(datasets, [t for group in groups for t in group])

    def run():
        for dataset, tasks in zip(datasets, groups):
            for _ in batch.run_tasks(dataset, tasks):
                pass

    run()
    spent.clear()
    start = time.perf_counter()
    run()
    total = time.perf_counter() - start - spent["  of it, dispatch"]
    folds = sum(map(len, groups))
    print(f"{folds} folds of {len(datasets)} files, {', '.join(criteria)}: "
          f"{1000 * total / folds:.3f} ms per fold\n")
    print("| part | ms per fold | share |\n|---|---:|---:|")
    for name, seconds in sorted(spent.items(), key=lambda item: -item[1]):
        print(f"| {name} | {1000 * seconds / folds:.3f} | {100 * seconds / total:.0f}% |")


if __name__ == "__main__":
    sys.exit(main())
