"""How much a single 10-fold comparison moves with the fold assignment alone.

Runs `dtree compare ARGS... --seed S -q -f json` for S = 0..9 (each one a
paper-like single 10-fold split) and prints a markdown summary: per criterion,
the mean, sd and range of its average rank over the seeds; per seed, Spearman's
rho with the reference ranks, the best-ranked criterion and the Iman-Davenport p.

    python docs/results/seed_spread.py TITLE -- dtree compare arguments...
"""
from __future__ import annotations

import json
import statistics
import subprocess
import sys

SEEDS = range(10)


def main() -> None:
    split = sys.argv.index("--")
    title, args = " ".join(sys.argv[1:split]), sys.argv[split + 1:]
    docs = [json.loads(subprocess.run(["dtree", "compare", *args, "--seed", str(seed), "-q",
                                       "-f", "json"], check=True, capture_output=True,
                                      text=True).stdout) for seed in SEEDS]
    criteria = docs[0]["criteria"]
    ranks = {c: [d["average_ranks"][c] for d in docs] for c in criteria}
    reference = docs[0].get("reference", {}).get("average_ranks", {}).get("reference", {})
    print(f"### {title}: {len(SEEDS)} single 10-fold runs (seeds 0-{len(SEEDS) - 1})\n")
    print("| criterion | mean average rank | sd | min | max | reference rank |")
    print("|---|---:|---:|---:|---:|---:|")
    for c in sorted(criteria, key=lambda c: statistics.mean(ranks[c])):
        r = ranks[c]
        ref = f"{reference[c]:.2f}" if c in reference else "-"
        print(f"| {c} | {statistics.mean(r):.2f} | {statistics.stdev(r):.2f} | {min(r):.2f} | "
              f"{max(r):.2f} | {ref} |")
    print("\n| seed | best average rank | Spearman rho with the reference ranks | "
          "Iman-Davenport p |")
    print("|---:|---|---:|---:|")
    for seed, d in zip(SEEDS, docs):
        best = min(criteria, key=lambda c: d["average_ranks"][c])
        rho = d.get("reference", {}).get("spearman_rho")
        print(f"| {seed} | {best} ({d['average_ranks'][best]:.2f}) | "
              f"{'-' if rho is None else f'{rho:.2f}'} | {d['iman_davenport']['p']:.3g} |")
    rhos = [d["reference"]["spearman_rho"] for d in docs if "reference" in d]
    if rhos:
        print(f"\nSpearman rho over the seeds: mean {statistics.mean(rhos):.2f}, "
              f"range {min(rhos):.2f} to {max(rhos):.2f}.")


if __name__ == "__main__":
    main()
