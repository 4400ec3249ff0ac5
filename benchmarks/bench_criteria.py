"""Fit time of every split criterion relative to gini, side by side in one run.

Run from the project root:

    python benchmarks/bench_criteria.py                 # both sizes, every criterion
    python benchmarks/bench_criteria.py --sizes 100k --criteria gini,tsallis:q=1.5,ihdw
    python benchmarks/bench_criteria.py --threads 1 --json out.json

Data: the seeded synthetic arrays of `bench_core.py` (100k x 20 with two
classes, 100k x 50 with ten). Every criterion fits an unpruned tree, with its
default parameters and, for the parameterised ones, also with parameters
away from the classic special cases (`name:param=value/param=value`), which
is where their own arithmetic (powers, expm1) runs. Each criterion is fitted
in turn with gini on the same data, a few rounds, and the best time of each
is kept (after a warm-up fit per criterion: numba compiles the engine once
per criterion, and compilation is not in the times): the machine's speed
drifts within minutes, and the pair sees the same drift. The gini row is
gini against itself, the noise of the measurement.

The gain ratios grow trees about n/10 levels deep on this noisy data (they
peel off a few rows at a time; see docs/criteria.md), which takes many
minutes: they are timed with max_depth = DEEP_TREE_DEPTH, against gini at the
same depth, and so is gain ratio with C4.5's average-gain rule (which scans
every node twice: once for the gain ratio, once for the information gain).

Target (issue 3): every criterion at most 1.5x gini's time on the same data.
The column "per row" divides that ratio by the ratio of rows searched (see
`rows_searched`): the cost of the criterion's arithmetic, apart from the
deeper trees some criteria grow.
Progress goes to stderr, the table to stdout.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_core import SIZES, Size, make_data, paired, progress  # noqa: E402

TARGET = 1.5
BENCH_SIZES = ("100k", "100k10c")
DEEP_TREES = {"gain-ratio", "tsallis-gain-ratio"}
DEEP_TREE_DEPTH = 12
# Parameters away from the special cases that reduce to gini or entropy.
AWAY_FROM_DEFAULTS = ["tsallis:q=1.5", "tsallis-gain-ratio:q=2.5", "renyi:gamma=2",
                      "renyi:gamma=0.5", "pe:alpha=0.5", "pg:alpha=0.5", "pt:alpha=0.5/gamma=1.5",
                      "pr:alpha=0.5/gamma=2", "ge:alpha=0.5/beta=0.5", "abi:alpha=0.5/beta=0.5",
                      "gain-ratio:average_gain=1"]


def parse_spec(spec: str) -> tuple[str, dict[str, float]]:
    """'pt:alpha=0.5/gamma=1.5' -> ('pt', {'alpha': 0.5, 'gamma': 1.5})."""
    name, _, rest = spec.partition(":")
    params = {}
    for item in filter(None, rest.split("/")):
        key, _, value = item.partition("=")
        params[key] = float(value)
    return name, params


def depth_limit(spec: str) -> int | None:
    return DEEP_TREE_DEPTH if parse_spec(spec)[0] in DEEP_TREES else None


def fit(spec: str, X, y, n_jobs: int | None, max_depth: int | None = None):
    from dtcli import DecisionTreeClassifier

    name, params = parse_spec(spec)
    return DecisionTreeClassifier(criterion=name, criterion_params=params or None,
                                  max_depth=max_depth, n_jobs=n_jobs).fit(X, y)


def warm_up(specs: list[str], seed: int) -> None:
    """One tiny fit per criterion, so that compilation or cache loading is not timed."""
    for n_classes in (2, 3):
        X, y = make_data(Size("warm-up", 500, 8, n_classes), seed)
        for spec in specs:
            fit(spec, X, y, None)


def rows_searched(tree, max_depth: int | None) -> int:
    """Rows of the nodes whose split the engine searched (each scanned once per feature):
    impure nodes above the depth limit. Criteria that peel a few rows off at a time
    grow deeper trees and search many more rows than gini on the same data; time
    per row searched compares the engines' work on each row, apart from the shape
    of the tree the criterion chooses."""
    depth = np.zeros(tree.node_count, dtype=np.int64)
    for node in range(tree.node_count):  # parents come before their children
        for child in (tree.children_left[node], tree.children_right[node]):
            if child >= 0:
                depth[child] = depth[node] + 1
    impure = np.count_nonzero(tree.counts > 0, axis=1) > 1
    searched = impure & (depth < max_depth if max_depth is not None else True)
    return int(tree.n_node_samples[searched].sum())


def bench(sizes: list[Size], specs: list[str], seed: int, n_jobs: int | None) -> dict:
    """{(spec, size name): (seconds, nodes, max_depth, rows searched, gini's seconds,
    gini's rows searched)}, gini fitted at the same depth limit in the same rounds."""
    results = {}
    for size in sizes:
        X, y = make_data(size, seed)
        for spec in specs:
            max_depth = depth_limit(spec)
            progress(f"{size.label}: {spec} and gini in turn, best of {size.repeats}")
            (seconds, ref_seconds), (model, reference) = paired(
                [lambda: fit(spec, X, y, n_jobs, max_depth),
                 lambda: fit("gini", X, y, n_jobs, max_depth)], size.repeats)
            results[spec, size.name] = (seconds, model.tree_.node_count, max_depth,
                                        rows_searched(model.tree_, max_depth), ref_seconds,
                                        rows_searched(reference.tree_, max_depth))
    return results


def format_table(results: dict, specs: list[str], sizes: list[Size]) -> str:
    header = ["criterion"]
    for size in sizes:
        header += [f"{size.label} s", "gini s", "/gini", "nodes", "per row"]
    header += ["depth", f"<= {TARGET:g}x"]
    lines = [header]
    for spec in specs:
        row, ok = [spec], True
        for size in sizes:
            seconds, nodes, max_depth, rows, ref_seconds, ref_rows = results[spec, size.name]
            ratio = seconds / ref_seconds
            ok &= ratio <= TARGET
            row += [f"{seconds:.3f}", f"{ref_seconds:.3f}", f"{ratio:.2f}x", str(nodes),
                    f"{ratio * ref_rows / rows:.2f}x"]
        row += ["full" if max_depth is None else f"<= {max_depth}", "yes" if ok else "NO"]
        lines.append(row)
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    text = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                      for i, (cell, w) in enumerate(zip(line, widths))) for line in lines]
    text.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(text)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    from dtcli.criteria import CRITERIA

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(BENCH_SIZES),
                        help=f"comma-separated, from {', '.join(SIZES)} (default: %(default)s)")
    parser.add_argument("--criteria", default=",".join(list(CRITERIA) + AWAY_FROM_DEFAULTS),
                        help="comma-separated NAME or NAME:PARAM=VALUE/PARAM=VALUE "
                             "(default: every criterion, then parameters away from defaults)")
    parser.add_argument("--threads", type=int, default=None,
                        help="threads per fit (default: all cores)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthetic data")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args(argv)
    try:
        args.sizes = [SIZES[name] for name in args.sizes.split(",")]
    except KeyError as error:
        parser.error(f"--sizes: unknown size {error}")
    args.criteria = [spec for spec in args.criteria.split(",") if spec]
    unknown = [spec for spec in args.criteria if parse_spec(spec)[0] not in CRITERIA]
    if unknown:
        parser.error(f"--criteria: unknown {', '.join(unknown)}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    progress(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; warm-up")
    warm_up(["gini"] + args.criteria, args.seed)
    results = bench(args.sizes, args.criteria, args.seed, args.threads)
    print(format_table(results, args.criteria, args.sizes))
    print(f"\n{os.cpu_count()} cores, threads {args.threads or 'all'}; "
          f"load average {os.getloadavg()[0]:.2f} at end")
    if args.json:
        Path(args.json).write_text(json.dumps(
            [{"criterion": spec, "size": size, "seconds": s, "nodes": n, "max_depth": d,
              "rows_searched": r, "gini_seconds": gs, "gini_rows_searched": gr}
             for (spec, size), (s, n, d, r, gs, gr) in results.items()], indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
