"""The summary tables of docs/pruning.md from the JSON reports docs/results/pruning.sh writes:
per criterion and pruning, the mean over datasets of each metric, and the average rank of
the pruning methods per criterion (1 = best; ties share ranks)."""
import json
import sys
from pathlib import Path

PRUNINGS = ["none", "ccp", "pessimistic", "reduced-error"]
COLUMNS = [("frequency", "auc", "AUC"), ("laplace", "auc", "AUC, Laplace leaves"),
           ("frequency", "accuracy", "accuracy"), ("frequency", "n_nodes", "nodes")]


def ranks(values, higher_is_better):
    order = sorted(values, reverse=higher_is_better)
    return [sum(i + 1 for i, v in enumerate(order) if v == x) / order.count(x) for x in values]


def main(folder: Path) -> None:
    reports = {(p, leaf, metric): json.loads((folder / f"{p}-{leaf}-{metric}.json").read_text())
               for p in PRUNINGS for leaf, metric, _ in COLUMNS}
    first = reports[PRUNINGS[0], "frequency", "auc"]
    datasets, criteria = first["datasets"], first["criteria"]
    print("| criterion | pruning | " + " | ".join(f"{t} (mean, rank)" for *_, t in COLUMNS) + " |")
    print("|---|---|" + "---:|" * len(COLUMNS))
    for criterion in criteria:
        cells = {}
        for leaf, metric, _ in COLUMNS:
            higher = metric != "n_nodes"
            table = [[reports[p, leaf, metric]["scores"][d][criterion]["mean"] for p in PRUNINGS]
                     for d in datasets]
            rank = [ranks(row, higher) for row in table]
            for j, p in enumerate(PRUNINGS):
                mean = sum(row[j] for row in table) / len(datasets)
                avg_rank = sum(r[j] for r in rank) / len(datasets)
                text = f"{mean:.1f}" if metric == "n_nodes" else f"{mean:.4f}"
                cells[p, metric, leaf] = f"{text} ({avg_rank:.2f})"
        for p in PRUNINGS:
            print(f"| {criterion} | {p} | "
                  + " | ".join(cells[p, metric, leaf] for leaf, metric, _ in COLUMNS) + " |")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
