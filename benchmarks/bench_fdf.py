"""Fit and predict times of FDF beside a single tree's (with and without Naive Bayes
leaves) and a 100-tree forest's, side by side in one run, on the shipped datasets.

Run from the project root:

    python benchmarks/bench_fdf.py                      # the FDF comparison's ten + spambase
    python benchmarks/bench_fdf.py --datasets spambase --repeats 3 --json out.json

Each model is `dtcli.DecisionTreeClassifier()` (gini, unpruned, one thread), the same
with `leaf_model="naive-bayes"`, `dtcli.RandomForestClassifier(n_estimators=100)` (gini,
one thread) and `dtcli.fdf.FDFClassifier()` (defaults); predict
runs on the training rows. Times are time.perf_counter wall times, the best of
--repeats, after one untimed fit and predict of each model on the dataset (numba's
kernels loaded). The table gives seconds and FDF's ratio to the plain tree; the
target of issue 23 is an FDF fit of spambase under 10 s.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from timing import best_of

ROOT = Path(__file__).resolve().parent.parent
BALANCED = ROOT / "examples" / "balanced"
DATASETS = {name: {} for name in ("australian", "bupa", "german", "hayes-roth", "segment",
                                  "sonar", "vowel", "wdbc", "wine", "spambase")}
DATASETS["glass"] = {"target": "Type", "drop": ["Id"]}
SPAMBASE_TARGET = 10.0  # seconds


def models():
    from dtcli import DecisionTreeClassifier, RandomForestClassifier
    from dtcli.fdf.estimator import FDFClassifier

    return {"tree": lambda: DecisionTreeClassifier(n_jobs=1),
            "tree+nb": lambda: DecisionTreeClassifier(n_jobs=1, leaf_model="naive-bayes"),
            "forest": lambda: RandomForestClassifier(n_estimators=100, n_jobs=1, random_state=0),
            "fdf": FDFClassifier}



def measure(name: str, repeats: int) -> dict:
    from dtcli.io import load_dataset

    data = load_dataset(str(BALANCED / f"{name}.csv"), **DATASETS[name])
    row = {"dataset": name, "rows": int(data.X.shape[0]), "features": int(data.X.shape[1])}
    for label, make in models().items():
        fitted = make().fit_dataset(data)  # warm-up: kernels loaded, caches filled
        fitted.proba_from_matrix(data.X)
        row[f"{label} fit"] = best_of(lambda: make().fit_dataset(data), repeats).wall
        row[f"{label} predict"] = best_of(lambda: fitted.proba_from_matrix(data.X), repeats).wall
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default=",".join(sorted(DATASETS)))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    rows = []
    for name in args.datasets.split(","):
        print(f"measuring {name} ...", file=sys.stderr)
        rows.append(measure(name, args.repeats))
    header = ("dataset", "rows x feat", "tree fit", "tree+nb fit", "forest fit", "fdf fit",
              "fdf/tree", "tree pred", "tree+nb pred", "forest pred", "fdf pred", "fdf/tree")
    print(" | ".join(header))
    for r in rows:
        print(" | ".join([r["dataset"], f"{r['rows']} x {r['features']}",
                          *(f"{r[k]:.4f}" for k in ("tree fit", "tree+nb fit", "forest fit",
                                                    "fdf fit")),
                          f"{r['fdf fit'] / r['tree fit']:.0f}x",
                          *(f"{r[k]:.4f}" for k in ("tree predict", "tree+nb predict",
                                                    "forest predict", "fdf predict")),
                          f"{r['fdf predict'] / r['tree predict']:.0f}x"]))
    spam = next((r for r in rows if r["dataset"] == "spambase"), None)
    if spam:
        print(f"spambase FDF fit {spam['fdf fit']:.2f} s: target < {SPAMBASE_TARGET:.0f} s "
              f"{'met' if spam['fdf fit'] < SPAMBASE_TARGET else 'NOT met'}")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"rows": rows, "cores": os.cpu_count(), "load": os.getloadavg()},
                      handle, indent=1)


if __name__ == "__main__":
    main()
