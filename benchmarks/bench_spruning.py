"""S-pruning's cost against the unpruned fit, side by side in one run.

Run from the project root:

    python benchmarks/bench_spruning.py                    # 10k x 10 and 100k x 20
    python benchmarks/bench_spruning.py --threads 1 --permutations 1000 --json out.json

Data: the seeded synthetic arrays of `bench_core.py`, two classes. The
unpruned fit is what `DecisionTreeClassifier(criterion="gini").fit` runs
(builder.prepare, then builder.grow); the S-pruned fit (significance.s_prune,
1000 shuffles per node, significance 0.05: the same presort, then a growth
that tests each split as it grows) is timed in its default mode and in exact
mode. The unpruned fit and the default mode are timed in turn a few rounds
(`bench_core.paired`: the pair sees the same drift of the machine's speed) and
the best of each is kept; exact mode is timed once. The ratio is S-pruned fit
/ unpruned fit. Times are wall times; CPU seconds (process_time) are given
too, which another process on a shared machine does not inflate.

Target (issue 20): default mode at most 3x the unpruned fit at both sizes.
Progress goes to stderr, the table to stdout.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_core import Size, make_data, paired, progress  # noqa: E402

TARGET = 3.0
SIZES = {"10k": Size("10k", 10_000, 10, 2), "100k": Size("100k", 100_000, 20, 2)}


def cpu_seconds(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def measure(size: Size, permutations: int, threads: int | None, seed: int,
            rounds: int) -> dict:
    from dtcli import criteria
    from dtcli.engine.builder import StopRules, grow, prepare
    from dtcli.pruning.significance import s_prune

    X, y = make_data(size, seed)
    engine = criteria.get("gini").engine()
    d = X.shape[1]
    nominal, categories = np.zeros(d, np.uint8), np.zeros(d, np.int64)

    def unpruned():
        return grow(prepare(X, y, 2, nominal, categories, threads), engine, StopRules(),
                    n_threads=threads, reuse=False)

    def pruned(mode):
        return lambda: s_prune(prepare(X, y, 2, nominal, categories, threads), engine,
                               StopRules(), significance=0.05, permutations=permutations,
                               mode=mode, seed=seed, n_threads=threads)

    (fit_s, default_s), (tree, result) = paired([unpruned, pruned("default")], rounds)
    fit_cpu = min(cpu_seconds(unpruned) for _ in range(rounds))
    default_cpu = min(cpu_seconds(pruned("default")) for _ in range(rounds))
    progress(f"{size.name}: exact mode")
    start = time.perf_counter()
    exact = pruned("exact")()
    exact_s = time.perf_counter() - start
    tested = result.n_shuffles >= 0
    return {"size": f"{size.n_rows} x {size.n_features}", "fit_s": fit_s,
            "default_s": default_s, "default_ratio": default_s / fit_s,
            "exact_s": exact_s, "exact_ratio": exact_s / fit_s,
            "fit_cpu_s": fit_cpu, "default_cpu_s": default_cpu,
            "default_cpu_ratio": default_cpu / fit_cpu,
            "nodes": tree.node_count, "default_nodes": result.tree.node_count,
            "exact_nodes": exact.tree.node_count, "tested": int(tested.sum()),
            "shuffled": int((result.n_shuffles > 0).sum()),
            "same_tree": bool(result.tree.node_count == exact.tree.node_count
                              and np.array_equal(result.tree.feature, exact.tree.feature))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10k,100k", help="of: " + ", ".join(SIZES))
    parser.add_argument("--permutations", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=None, help="default: all cores")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    from dtcli import criteria
    from dtcli.engine.builder import StopRules, grow, prepare
    from dtcli.pruning.significance import s_prune

    progress("warm-up (compilation or cache loading)")
    warm = make_data(Size("warm", 2000, 8, 2), args.seed)
    engine = criteria.get("gini").engine()
    prepared = prepare(*warm, 2, np.zeros(8, np.uint8), np.zeros(8, np.int64))
    grow(prepared, engine, StopRules())
    for mode in ("default", "exact"):
        s_prune(prepared, engine, StopRules(), permutations=10, mode=mode)
    rows = []
    for name in args.sizes.split(","):
        progress(f"{name}: unpruned fit and default mode, {args.rounds} rounds")
        rows.append(measure(SIZES[name], args.permutations, args.threads, args.seed,
                            args.rounds))
    print(f"S-pruning, gini, {args.permutations} shuffles, significance 0.05, "
          f"threads {args.threads or os.cpu_count()}, load average {os.getloadavg()[0]:.1f}")
    print("| data | unpruned fit s | S-pruned fit s | ratio | target <= 3x | CPU ratio "
          "| exact s | exact ratio | nodes: grown, pruned | tested (shuffled) | same tree |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        met = "met" if r["default_ratio"] <= TARGET else "NOT met"
        print(f"| {r['size']} | {r['fit_s']:.3f} | {r['default_s']:.3f} "
              f"| {r['default_ratio']:.2f} | {met} "
              f"| {r['default_cpu_ratio']:.2f} | {r['exact_s']:.2f} | {r['exact_ratio']:.1f} "
              f"| {r['nodes']}, {r['default_nodes']} | {r['tested']} ({r['shuffled']}) "
              f"| {'yes' if r['same_tree'] else 'no'} |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
