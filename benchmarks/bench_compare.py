"""Wall time of `dtree compare` on the iHD paper's imbalanced protocol, with scikit-learn for scale.

Run from the project root (after `pip install -e ".[bench]"`):

    python benchmarks/bench_compare.py
    python benchmarks/bench_compare.py --jobs 1,2,4 --json out.json
    python benchmarks/bench_compare.py --repeats 10    # 10x10-fold: start-up costs amortised
    python benchmarks/bench_compare.py --data 'DIR/*.dat' --repeats 10 --jobs 1,2 --no-sklearn
    python benchmarks/bench_compare.py --start   # what a worker's start and a fold cost

What it measures:

- `dtree compare examples/imbalanced/*.dat --criteria <8 criteria> --cv 10
  --metric auc` in a subprocess, with --jobs 1 and --jobs 2: the wall time a
  user waits, start-up, data loading, worker start and kernel loading
  included. The 8 criteria are the iHD paper's (gini, entropy, gain-ratio,
  dcsm, hddt, ccpdt, ihd, ihdw), those of them that `dtree criteria` lists.
- The same with gini and entropy only, and the same protocol scripted with
  scikit-learn's DecisionTreeClassifier (gini and entropy, the criteria it
  has; random_state=0; the same folds, from dtcli.sampling.folds; AUC of
  predict_proba): fits, predictions and AUCs in one process, imports and data
  loading excluded, so it flatters scikit-learn slightly.
- Fit seconds summed over all folds, from dtree's JSON, to separate the
  trees' cost from the fixed costs, and each --jobs run's speed-up over the first
  (`-j 1`): workers pay for themselves when it is above 1, and a run too small to
  pay for them runs in one process whatever --jobs says (so about 1).
- `dtcli.compare(..., jobs=2)` against jobs=1 on the same data, in this process
  (the library call a notebook makes; a small one runs in-process either way).
- With --start: what the runner's choice of workers weighs (crossval/runner.py):
  a worker's start (a fresh `spawn` process: imports, then loading the kernels of
  each criterion), in CPU seconds, and the seconds of one fold in-process, against
  the runner's constants.

Each subprocess runs once after one warm-up run that fills numba's cache.
Progress goes to stderr, the table to stdout.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = sorted((ROOT / "examples" / "imbalanced").glob("*.dat"))
DTREE = Path(sys.executable).parent / "dtree"
PAPER_CRITERIA = ["gini", "entropy", "gain-ratio", "dcsm", "hddt", "ccpdt", "ihd", "ihdw"]
CV = 10


def progress(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def run_dtree(criteria: list[str], jobs: int | None, repeats: int = 1) -> tuple[float, dict]:
    """Wall seconds and JSON of `dtree compare`; jobs None: its default --jobs."""
    command = [str(DTREE), "-v", "compare", *map(str, DATA), "--criteria", ",".join(criteria),
               "--cv", str(CV), "--repeats", str(repeats), "--metric", "auc",
               *([] if jobs is None else ["--jobs", str(jobs)]), "-q", "-f", "json"]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    for line in done.stderr.splitlines():  # -v: whether the run started workers
        progress(line)
    return time.perf_counter() - start, json.loads(done.stdout)


WORKER_START = """
import resource, time
def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
import dtcli.crossval.workers
from dtcli.crossval.warm import warm_up
from dtcli.crossval.tasks import Task, TreeOptions
from dtcli.io import load_dataset
imported = cpu()
dataset = load_dataset({path!r})
tasks = [Task(0, name, (), TreeOptions(), 10, 0, 0, 0) for name in {criteria!r}]
warm_up([dataset], tasks[:1])  # numba, the drivers and the first criterion
first = cpu()
warm_up([dataset], tasks)
print(imported, first - imported, cpu() - first)
"""


def measure_start(criteria: list[str]) -> None:
    """A worker's start in CPU seconds (imports; loading the kernels of `criteria`) and
    one in-process fold's seconds, against the runner's constants."""
    from dtcli.crossval import runner

    script = WORKER_START.format(path=str(DATA[0]), criteria=criteria)
    starts, loads = [], []
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              check=True)
        imports, first, rest = map(float, done.stdout.split())
        starts.append(imports + first)
        loads.append(rest / max(len(criteria) - 1, 1))
    print(f"worker start: Python, imports, numba, the drivers and a first criterion "
          f"{min(starts):.2f} CPU s (runner: {runner.WORKER_START_SECONDS}); each further "
          f"criterion {min(loads):.3f} s (runner: {runner.KERNEL_LOAD_SECONDS})")
    _, doc = run_dtree(criteria, 1)
    folds = len(DATA) * len(criteria) * CV
    print(f"in-process fold: {fit_seconds(doc) / folds * 1000:.2f} ms of fitting on average")


def library_ratio(criteria: list[str]) -> None:
    """dtcli.compare(jobs=2) against jobs=1, in this process."""
    import dtcli

    seconds = {}
    for jobs in (1, 2, 1, 2):
        start = time.perf_counter()
        dtcli.compare([str(p) for p in DATA], criteria, cv=CV, metric="auc", jobs=jobs,
                      quiet=True)
        seconds[jobs] = min(seconds.get(jobs, float("inf")), time.perf_counter() - start)
    print(f"dtcli.compare, {len(DATA)} files x {len(criteria)} criteria x {CV} folds: "
          f"jobs=1 {seconds[1]:.2f} s, jobs=2 {seconds[2]:.2f} s, jobs=2 / jobs=1 "
          f"{seconds[2] / seconds[1]:.2f}")


def run_sklearn(criteria: list[str], repeats: int = 1) -> tuple[float, dict]:
    import numpy as np
    from sklearn.tree import DecisionTreeClassifier

    from dtcli.sampling.folds import repeat_folds
    from dtcli.measures.probabilities import auc
    from dtcli.io import load_dataset

    datasets = {path.stem: load_dataset(str(path)) for path in DATA}
    scores: dict = {}
    start = time.perf_counter()
    for name, data in datasets.items():
        folds = [fold for repeat in range(repeats) for fold in repeat_folds(data.y, CV, 0, repeat)]
        for criterion in criteria:
            values = []
            for train, test in folds:
                model = DecisionTreeClassifier(criterion=criterion, random_state=0)
                model.fit(data.X[train], data.y[train])
                values.append(auc(data.y[test], model.predict_proba(data.X[test])))
            scores.setdefault(name, {})[criterion] = float(np.mean(values))
    return time.perf_counter() - start, scores


def fit_seconds(doc: dict) -> float:
    tasks = len(doc["datasets"]) * CV * doc["repeats"]
    return sum(t["fit_seconds"] * tasks for t in doc["timing"].values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", default="1,2", help="comma-separated --jobs values")
    parser.add_argument("--repeats", type=int, default=1, help="repeats of the 10-fold CV")
    parser.add_argument("--json", metavar="FILE", help="also write the figures here")
    parser.add_argument("--data", metavar="GLOB", help="the data files (default: "
                        "examples/imbalanced/*.dat)")
    parser.add_argument("--paper-only", action="store_true",
                        help="only the 8 criteria's runs (no gini-entropy runs, no scikit-learn)")
    parser.add_argument("--start", action="store_true",
                        help="measure a worker's start and a fold instead")
    args = parser.parse_args()
    global DATA
    if args.data:
        import glob

        DATA = sorted(Path(p) for p in glob.glob(args.data))
    from dtcli.criteria import CRITERIA

    criteria = [c for c in PAPER_CRITERIA if c in CRITERIA]
    missing = [c for c in PAPER_CRITERIA if c not in CRITERIA]
    if missing:
        progress(f"not registered, left out: {', '.join(missing)}")
    jobs_list = [int(j) for j in args.jobs.split(",")]
    progress("warm-up run (fills numba's cache)")
    run_dtree(criteria, 1)
    if args.start:
        measure_start(criteria)
        library_ratio(criteria)
        return

    rows = []
    docs = {}
    runs = [(f"{len(criteria)} criteria", criteria)]
    if not args.paper_only:
        runs.append(("gini, entropy", ["gini", "entropy"]))
    for label, chosen in runs:
        for jobs in jobs_list:
            progress(f"dtree compare, {label}, --jobs {jobs}")
            seconds, doc = run_dtree(chosen, jobs, args.repeats)
            docs[(label, jobs)] = doc
            first = docs.get((label, jobs_list[0]), {}).get("wall_s", seconds)
            docs[(label, jobs)]["wall_s"] = seconds
            rows.append({"run": f"dtree compare --jobs {jobs}", "criteria": label,
                         "fits": len(DATA) * len(chosen) * CV * args.repeats, "wall_s": seconds,
                         "fit_s": fit_seconds(doc), "speed_up": first / seconds})
    if not args.paper_only:
        progress("scikit-learn, gini and entropy")
        seconds, sk_scores = run_sklearn(["gini", "entropy"], args.repeats)
        rows.append({"run": "scikit-learn script (1 process)", "criteria": "gini, entropy",
                     "fits": len(DATA) * 2 * CV * args.repeats, "wall_s": seconds,
                     "fit_s": None, "speed_up": None})

    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{len(DATA)} KEEL datasets, {CV}-fold CV x {args.repeats}, AUC; "
          f"{os.cpu_count()} cores, "
          f"load average {load}\n")
    print(f"| {'run':<32} | {'criteria':<13} | {'fits':>5} | {'wall s':>7} | {'ms/fit':>7} | {'sum of fit s':>12} | {'speed-up':>8} |")
    print(f"|{'-' * 34}|{'-' * 15}|{'-' * 6}:|{'-' * 8}:|{'-' * 8}:|{'-' * 13}:|{'-' * 9}:|")
    for row in rows:
        fit = "" if row["fit_s"] is None else f"{row['fit_s']:.2f}"
        speed = "" if row["speed_up"] is None else f"{row['speed_up']:.2f}"
        print(f"| {row['run']:<32} | {row['criteria']:<13} | {row['fits']:>5} | "
              f"{row['wall_s']:>7.2f} | {1000 * row['wall_s'] / row['fits']:>7.2f} | {fit:>12} | "
              f"{speed:>8} |")
    if args.paper_only:
        return

    ours = docs[("gini, entropy", jobs_list[0])]["scores"]
    diffs = [ours[d][c]["mean"] - sk_scores[d][c] for d in sk_scores for c in ("gini", "entropy")]
    print(f"\nAUC, dtree - scikit-learn on the same folds: mean {sum(diffs) / len(diffs):+.4f}, "
          f"largest |difference| {max(map(abs, diffs)):.4f} (ties between equally good splits "
          "are broken differently)")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "criteria": criteria}, indent=1))


if __name__ == "__main__":
    main()
