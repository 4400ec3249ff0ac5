"""Fit time of dtree's J48 (dtcli.c45, plain numpy) on the J48 golden datasets and on
larger shipped data, beside the time of dtree's numba gain-ratio tree (compiled, warm)
on the same rows. Run from the project root:

    .venv/bin/python benchmarks/bench_c45.py

Each figure is the best of 3 fits, in seconds."""
from __future__ import annotations

import time
from pathlib import Path

from dtcli import DecisionTreeClassifier
from dtcli.c45 import J48Classifier
from dtcli.io import load_dataset

ROOT = Path(__file__).resolve().parent.parent
FILES = [*(ROOT / "tests" / "data" / "weka" / f"{name}.arff" for name in
           ("iris", "breast-cancer", "diabetes", "glass", "vote", "labor", "new-thyroid1",
            "yeast-2_vs_4")),
         ROOT / "examples" / "balanced" / "segment.csv",
         ROOT / "examples" / "balanced" / "spambase.csv",
         ROOT / "examples" / "balanced" / "optdigits.csv"]


def best_of(fit, repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fit()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    print(f"{'dataset':<16}{'rows':>6}{'feat':>5}{'j48 s':>9}{'unpruned s':>11}"
          f"{'gain-ratio s':>13}{'leaves':>7}")
    for path in FILES:
        data = load_dataset(str(path))
        j48 = J48Classifier()
        seconds = best_of(lambda: j48.fit_dataset(data))
        unpruned = best_of(lambda: J48Classifier(pruning=None).fit_dataset(data))
        tree = DecisionTreeClassifier(criterion="gain-ratio", min_samples_leaf=2)
        tree.fit_dataset(data)  # compile or load the kernels first
        numba = best_of(lambda: tree.fit_dataset(data))
        print(f"{path.stem:<16}{data.X.shape[0]:>6}{data.X.shape[1]:>5}{seconds:>9.3f}"
              f"{unpruned:>11.3f}{numba:>13.4f}{j48.tree_.n_leaves:>7}")


if __name__ == "__main__":
    main()
