"""dtree's C4.5 paths beside Weka's J48, measured side by side in one run (issue 46 §7).

Run from the project root (Weka: Debian's `weka` package, Java 11+):

    .venv/bin/python benchmarks/bench_c45.py                     # 10k and 100k rows
    .venv/bin/python benchmarks/bench_c45.py --sizes 10000 --paths j48
    .venv/bin/python benchmarks/bench_c45.py --files             # the J48 golden files

For each size, seeded synthetic data (bench_core's generator: 20 numeric features,
two classes, 10 % label noise) is written as one ARFF file that both tools read, and
it times:

- Weka's fit: J48's buildClassifier at its defaults, in its own JVM
  (benchmarks/J48Fit.java: thread CPU seconds, best of --repeats, the JIT warm);
- dtree's fits, in this process (CPU seconds, best of --repeats): `J48Classifier()`
  (`--preset j48`) and `DecisionTreeClassifier(criterion="gain-ratio",
  pruning="pessimistic")`, whose numba kernels are loaded first;
- the whole commands, CPU seconds of the child process (start-up and reading the
  file included): `java weka.classifiers.trees.J48 -t DATA -no-cv -v` and
  `dtree train DATA --preset j48` / `--criterion gain-ratio --pruning pessimistic`.

Ratios are dtree's CPU seconds over Weka J48's (target: <= 0.5 at 100k rows). The
leaves columns show that `--preset j48` grows J48's tree. CPU seconds are the steadier
figure on a shared machine; wall seconds vary with its load.

`--files` prints the older table instead: J48Classifier's fit with and without pruning
on the J48 golden datasets and shipped files, beside the numba gain-ratio tree.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_core import Size, make_data
from timing import best_of

from dtcli import DecisionTreeClassifier
from dtcli.c45 import J48Classifier
from dtcli.io import load_dataset

ROOT = Path(__file__).resolve().parent.parent
DTREE = Path(sys.executable).parent / "dtree"
WEKA_JAR = Path(os.environ.get("WEKA_JAR", "/usr/share/java/weka.jar"))
FIT_SOURCE = Path(__file__).resolve().parent / "J48Fit.java"
FILES = [*(ROOT / "tests" / "data" / "weka" / f"{name}.arff" for name in
           ("iris", "breast-cancer", "diabetes", "glass", "vote", "labor", "new-thyroid1",
            "yeast-2_vs_4")),
         ROOT / "examples" / "balanced" / "segment.csv",
         ROOT / "examples" / "balanced" / "spambase.csv",
         ROOT / "examples" / "balanced" / "optdigits.csv"]
PATHS = {"j48": (lambda: J48Classifier(), ["--preset", "j48"]),
         "gain-ratio": (lambda: DecisionTreeClassifier(criterion="gain-ratio",
                                                       pruning="pessimistic"),
                        ["--criterion", "gain-ratio", "--pruning", "pessimistic"])}


def write_arff(n_rows: int, path: Path) -> None:
    X, y = make_data(Size(f"{n_rows}", n_rows, 20, 2), 0)
    with open(path, "w") as out:
        out.write("@relation synthetic\n")
        out.writelines(f"@attribute f{j} numeric\n" for j in range(X.shape[1]))
        out.write("@attribute class {c0,c1}\n@data\n")
        for row, label in zip(X, y):
            out.write(",".join(f"{value:.6f}" for value in row) + f",c{label}\n")


def child_cpu(command: list[str]) -> float:
    """CPU seconds (user + system) of one run of `command`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {done.stderr.strip()[-500:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def weka_fit(path: Path, repeats: int) -> tuple[float, int]:
    """(CPU seconds of J48's fastest buildClassifier, its leaves)."""
    done = subprocess.run(["java", "-Xmx4g", "-cp", str(WEKA_JAR), str(FIT_SOURCE), str(path),
                           str(repeats)], capture_output=True, text=True, check=True)
    cpu, _, leaves = done.stdout.split()
    return float(cpu), int(leaves)


def side_by_side(sizes: list[int], paths: list[str], repeats: int) -> None:
    if shutil.which("java") is None or not WEKA_JAR.exists():
        sys.exit(f"bench_c45: needs java and Weka ({WEKA_JAR}; apt-get install weka)")
    print(f"{'rows':>7} {'path':<11}{'weka fit':>9}{'dtree fit':>10}{'ratio':>7}"
          f"{'weka cmd':>9}{'dtree cmd':>10}{'ratio':>7}{'leaves':>8}{'weka':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for n_rows in sizes:
            data_file = Path(tmp) / f"synthetic{n_rows}.arff"
            write_arff(n_rows, data_file)
            print(f"{n_rows} rows: Weka", file=sys.stderr, flush=True)
            weka_cpu, weka_leaves = weka_fit(data_file, repeats)
            weka_cmd = child_cpu(["java", "-Xmx4g", "-cp", str(WEKA_JAR),
                                  "weka.classifiers.trees.J48", "-t", str(data_file),
                                  "-no-cv", "-v"])
            data = load_dataset(str(data_file))
            for name in paths:
                print(f"{n_rows} rows: dtree {name}", file=sys.stderr, flush=True)
                make, options = PATHS[name]
                if name == "gain-ratio":
                    DecisionTreeClassifier(criterion="gain-ratio").fit_dataset(data)  # kernels
                timing = best_of(lambda: make().fit_dataset(data), repeats)
                leaves = timing.result.tree_.n_leaves
                command = child_cpu([str(DTREE), "train", str(data_file), *options, "-q",
                                     "-o", str(Path(tmp) / "model.json")])
                print(f"{n_rows:>7} {name:<11}{weka_cpu:>9.2f}{timing.cpu:>10.2f}"
                      f"{timing.cpu / weka_cpu:>7.2f}{weka_cmd:>9.2f}{command:>10.2f}"
                      f"{command / weka_cmd:>7.2f}{leaves:>8}{weka_leaves:>6}", flush=True)


def golden_files() -> None:
    print(f"{'dataset':<16}{'rows':>6}{'feat':>5}{'j48 s':>9}{'unpruned s':>11}"
          f"{'gain-ratio s':>13}{'leaves':>7}")
    for path in FILES:
        data = load_dataset(str(path))
        j48 = best_of(lambda: J48Classifier().fit_dataset(data), 3)
        unpruned = best_of(lambda: J48Classifier(pruning=None).fit_dataset(data), 3)
        tree = DecisionTreeClassifier(criterion="gain-ratio", min_samples_leaf=2)
        tree.fit_dataset(data)  # compile or load the kernels first
        numba = best_of(lambda: tree.fit_dataset(data), 3)
        print(f"{path.stem:<16}{data.X.shape[0]:>6}{data.X.shape[1]:>5}{j48.wall:>9.3f}"
              f"{unpruned.wall:>11.3f}{numba.wall:>13.4f}{j48.result.tree_.n_leaves:>7}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000", help="rows, comma-separated")
    parser.add_argument("--paths", default="j48,gain-ratio", help="j48, gain-ratio")
    parser.add_argument("--repeats", type=int, default=2, help="fits per figure (best)")
    parser.add_argument("--files", action="store_true", help="the golden files' table")
    args = parser.parse_args(argv)
    if args.files:
        golden_files()
        return
    paths = args.paths.split(",")
    unknown = sorted(set(paths) - set(PATHS))
    if unknown:
        parser.error(f"--paths: unknown {', '.join(unknown)} (j48, gain-ratio)")
    side_by_side([int(n) for n in args.sizes.split(",")], paths, args.repeats)


if __name__ == "__main__":
    main()
