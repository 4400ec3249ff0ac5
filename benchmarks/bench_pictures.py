"""Seconds to draw trees as SVG (`dtree export -f svg`): layout, cards and SVG text, on
trees of about 10^2 to 10^4 leaves and a chain 5,000 deep, best of 3 after one warm-up.

    .venv/bin/python benchmarks/bench_pictures.py

Fits seeded synthetic data (4 numeric features, 2 or 26 classes; gini, unpruned), so
the tree sizes vary only with the data size. The figures go to stdout as a table.
"""
from __future__ import annotations

import time

import numpy as np

from dtcli import DecisionTreeClassifier
from dtcli.export import cards, layout, svg


def best_of(run, repeats: int = 3) -> float:
    run()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    rng = np.random.default_rng(0)
    print(f"{'tree':<32}{'nodes':>8}{'leaves':>8}{'layout s':>10}{'svg s':>9}{'MB':>7}")
    for rows, classes in ((400, 2), (4000, 2), (40000, 2), (4000, 26)):
        X = rng.normal(size=(rows, 4))
        y = rng.integers(0, classes, rows)
        model = DecisionTreeClassifier().fit(X, y)
        diagram = cards.tree_diagram(model)
        place = best_of(lambda: svg.place(diagram))
        draw = best_of(lambda: svg.render(cards.tree_diagram(model)))
        size = len(svg.render(diagram)) / 1e6
        print(f"{f'{rows} rows, {classes} classes':<32}{model.tree_.node_count:>8}"
              f"{model.tree_.n_leaves:>8}{place:>10.3f}{draw:>9.3f}{size:>7.1f}")
    n = 5000
    chain = [[i + 1] for i in range(n - 1)] + [[]]
    seconds = best_of(lambda: layout.tidy(chain, [80.0] * n, [40.0] * n))
    print(f"{'chain of 5000 nodes (layout)':<32}{n:>8}{1:>8}{seconds:>10.3f}")


if __name__ == "__main__":
    main()
