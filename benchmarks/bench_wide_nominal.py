"""Peak memory of train, predict and export on a nominal column of 100,000 categories
(issue 24: such a 3.4 MB file asked for 37 GiB; a 3.7 MB model made predict use 6 GB
and `export -f dot` more than 11 GB).

Each step runs `dtree` in a process of its own under /usr/bin/time, which reports the
process's peak resident memory:

    python benchmarks/bench_wide_nominal.py [--rows 120000] [--dir /tmp/wide]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path


def write_data(path: Path, n_rows: int) -> None:
    """x: 7 categories; id: one category per row; y: two classes, a function of both."""
    with open(path, "w") as out:
        out.write("x,id,y\n")
        out.writelines(f"{i % 7},id{i},c{(i * 7919) % 5 < 2}\n" for i in range(n_rows))


def peak(command: list[str]) -> tuple[float, int]:
    """(seconds, peak resident MB) of one command."""
    done = subprocess.run(["/usr/bin/time", "-f", "%e %M", *command], capture_output=True,
                          text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stderr}")
    seconds, kilobytes = done.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(kilobytes) // 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=120_000)
    parser.add_argument("--dir", default="/tmp/dtree-wide-nominal")
    args = parser.parse_args()
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    data, model = folder / "wide.csv", folder / "wide.json"
    write_data(data, args.rows)
    dtree = [str(Path(sys.executable).with_name("dtree"))]
    steps = {
        "train": [*dtree, "train", str(data), "--criterion", "gini", "-o", str(model)],
        "predict": [*dtree, "predict", str(model), str(data), "-o", os.devnull],
        "export dot": [*dtree, "export", str(model), "-f", "dot", "-o", os.devnull],
        "export text": [*dtree, "export", str(model), "-f", "text", "-o", os.devnull],
        "export rules": [*dtree, "export", str(model), "-f", "rules", "-o", os.devnull],
    }
    print(f"data {data.stat().st_size / 1e6:.1f} MB, {args.rows} rows, {args.rows} categories")
    for name, command in steps.items():
        seconds, megabytes = peak(command)
        extra = f", model {model.stat().st_size / 1e6:.1f} MB" if name == "train" else ""
        print(f"{name:12s} {seconds:7.1f} s  peak {megabytes:6d} MB{extra}")


if __name__ == "__main__":
    main()
