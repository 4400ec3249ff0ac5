"""Thousands of small fits: the batch path of cross-validation against scikit-learn, side by side.

Run from the project root (after `pip install -e ".[bench]"`):

    python benchmarks/bench_batch.py                 # every figure below, once
    python benchmarks/bench_batch.py --skip-compare  # the in-process figures only

On the 13 imbalanced KEEL files of examples/imbalanced (215-1,599 rows):

- Fit plus predict per fold, stratified 10-fold, gini and entropy: dtree's batch
  path (`dtcli.crossval.batch.run_tasks`: one presort per dataset, every fold grown
  from 0/1 weights, predicted and scored) against scikit-learn's
  DecisionTreeClassifier fitted on the fold's rows and asked for predict_proba
  (not scored: that flatters it slightly); and dtree's DecisionTreeClassifier used
  the same way as scikit-learn's. Best of --rounds, in this process, kernels loaded.
- A single fit on the whole file, each estimator, best of --rounds.
- `dtree compare` of the iHD paper's 8 criteria (those `dtree criteria` lists)
  and of gini and entropy alone, 10x10-fold, in a subprocess (the wall a user
  waits: start-up, loading, workers): with the default --jobs, --jobs 1 and
  --jobs 2; and the same protocol scripted with scikit-learn (gini and entropy,
  one process, imports and loading excluded; bench_compare.run_sklearn).

Progress goes to stderr, the tables to stdout. The machine's load average is
printed: ratios are meaningful only when both sides ran under the same load.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_compare import CV, DATA, PAPER_CRITERIA, progress, run_dtree, run_sklearn  # noqa: E402
from timing import best_of



def in_process(rounds: int) -> list[tuple[str, float, float]]:
    """(what, dtree ms, scikit-learn ms) per fold and per single fit."""
    from sklearn.tree import DecisionTreeClassifier as SklearnTree

    from dtcli.estimator import DecisionTreeClassifier
    from dtcli.crossval.batch import run_tasks
    from dtcli.sampling.folds import repeat_folds
    from dtcli.crossval.warm import warm_up
    from dtcli.crossval.tasks import Task, TreeOptions
    from dtcli.io import load_dataset

    datasets = [load_dataset(str(path)) for path in DATA]
    criteria = ("gini", "entropy")
    groups = [[Task(d, c, (), TreeOptions(), CV, 0, 0, f) for c in criteria for f in range(CV)]
              for d in range(len(datasets))]
    warm_up(datasets, [t for group in groups for t in group])
    folds = [repeat_folds(d.y, CV, 0, 0) for d in datasets]
    fits = len(datasets) * len(criteria) * CV

    def batch():
        for dataset, tasks in zip(datasets, groups):
            for _ in run_tasks(dataset, tasks):
                pass

    def per_fold(estimator, **params):
        def run():
            for dataset, splits in zip(datasets, folds):
                for criterion in criteria:
                    for train, test in splits:
                        model = estimator(criterion=criterion, **params)
                        model.fit(dataset.X[train], dataset.y[train])
                        model.predict_proba(dataset.X[test])
        return run

    def single(estimator, **params):
        def run():
            for dataset in datasets:
                for criterion in criteria:
                    estimator(criterion=criterion, **params).fit(dataset.X, dataset.y)
        return run

    batch()  # the first run loads what is left to load
    rows = []
    sklearn_fold = best_of(per_fold(SklearnTree, random_state=0), rounds).wall / fits
    progress("batch path")
    rows.append(("fit + predict per fold: batch path (scored too)",
                 best_of(batch, rounds).wall / fits, sklearn_fold))
    progress("estimator per fold")
    rows.append(("fit + predict per fold: DecisionTreeClassifier",
                 best_of(per_fold(DecisionTreeClassifier), rounds).wall / fits, sklearn_fold))
    progress("single fits")
    singles = len(datasets) * len(criteria)
    rows.append(("single fit on the whole file",
                 best_of(single(DecisionTreeClassifier), rounds).wall / singles,
                 best_of(single(SklearnTree, random_state=0), rounds).wall / singles))
    return rows


def compares(repeats: int) -> list[tuple[str, int, float]]:
    """(run, fits, wall seconds)."""
    from dtcli.criteria import CRITERIA

    paper = [c for c in PAPER_CRITERIA if c in CRITERIA]
    progress("warm-up run (fills numba's cache)")
    run_dtree(paper, 1)
    rows = []
    for label, chosen in ((f"{len(paper)} criteria", paper), ("gini, entropy", ["gini", "entropy"])):
        for jobs in (None, 1, 2):
            name = "default --jobs" if jobs is None else f"--jobs {jobs}"
            progress(f"dtree compare, {label}, {name}")
            seconds, _ = run_dtree(chosen, jobs, repeats)
            rows.append((f"dtree compare, {label}, {name}",
                         len(DATA) * len(chosen) * CV * repeats, seconds))
    progress("scikit-learn script, gini and entropy")
    seconds, _ = run_sklearn(["gini", "entropy"], repeats)
    rows.append(("scikit-learn script, gini, entropy (1 process)", len(DATA) * 2 * CV * repeats,
                 seconds))
    return rows


def load_average() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def print_table(header: str, rows: list[list[str]]) -> None:
    """A markdown table: the header's columns, then the rows (all but the first right-aligned)."""
    columns = header.count("|") - 1
    print(header + "\n|---" + "|---:" * (columns - 1) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="best of this many (in process)")
    parser.add_argument("--repeats", type=int, default=10, help="repeats of the 10-fold CV")
    parser.add_argument("--skip-compare", action="store_true", help="in-process figures only")
    args = parser.parse_args()
    start_load = load_average()
    rows = in_process(args.rounds)
    print(f"{len(DATA)} imbalanced KEEL files, {os.cpu_count()} cores, load average "
          f"{start_load} at the start\n")
    print_table("| per fit | dtree ms | scikit-learn ms | ratio |",
                [[what, f"{1000 * ours:.3f}", f"{1000 * theirs:.3f}", f"{ours / theirs:.2f}x"]
                 for what, ours, theirs in rows])
    if args.skip_compare:
        return
    runs = compares(args.repeats)
    print(f"\n10x{args.repeats}-fold, AUC; load average {load_average()} at the end\n")
    print_table("| run | fits | wall s | ms/fit |",
                [[what, str(fits), f"{seconds:.2f}", f"{1000 * seconds / fits:.3f}"]
                 for what, fits, seconds in runs])
    walls = {what: seconds for what, _, seconds in runs}
    for label in ("8 criteria", "gini, entropy"):
        one, two = (walls.get(f"dtree compare, {label}, --jobs {j}") for j in (1, 2))
        if one and two:
            print(f"\n{label}: --jobs 1 / --jobs 2 = {one / two:.2f}x")


if __name__ == "__main__":
    main()
