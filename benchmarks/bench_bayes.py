"""What `compare --bayes` adds (issue 44): the Bayesian signed-rank tests (50,000 posterior
samples each) and the correlated t-tests of a comparison of 30 datasets x 8 methods with
10 fold scores each, against the Demsar statistics of the same table, side by side.

Run from the project root:

    python benchmarks/bench_bayes.py [--rounds 3]

The scores are a synthetic table (uniform in [0.6, 0.9], seed 0): the cost does not depend
on the values. Wall and CPU seconds are printed with the machine's load average.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from dtcli.reporting.bayes import bayes_document
from dtcli.reporting.comparison import comparison_document


def timed(function) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    function()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    rng = np.random.default_rng(0)
    datasets, methods = [f"d{i}" for i in range(30)], [f"m{j}" for j in range(8)]
    folds = {d: {m: rng.uniform(0.6, 0.9, 10).tolist() for m in methods} for d in datasets}
    means = [[float(np.mean(folds[d][m])) for m in methods] for d in datasets]
    doc = comparison_document(datasets, methods, means, about={"cv": 10})
    print(f"load average {os.getloadavg()[0]:.1f}; 30 datasets x 8 methods, 10 folds")
    for name, run in (("Demsar's statistics", lambda: comparison_document(datasets, methods,
                                                                           means)),
                      ("--bayes (7 signed-rank + 210 t-tests)",
                       lambda: bayes_document(doc, folds, 10, 0.01, 0))):
        best = min((timed(run) for _ in range(rounds)), key=lambda t: t[0])
        print(f"{name}: {best[0]:.3f} s wall, {best[1]:.3f} s CPU (best of {rounds})")


if __name__ == "__main__":
    main()
