"""The PIDT runs (docs/results/pidt.sh) as the paper's tables: one row per criterion,
for each dataset without and with S-pruning, the nested figure and, in brackets, the
papers' selection (the point of best mean on the folds it is scored on); then the
points each selection chose. Reads the compare JSON of accuracy and of n_nodes.

Usage: python3 docs/results/pidt_summary.py ACCURACY.json N_NODES.json > pidt_summary.md
"""
from __future__ import annotations

import json
import sys

PRUNED = ":pruning=s-pruning:significance=auto"


def short(label: str) -> str:
    name = label.split(":")[0]
    return name if name in ("entropy", "gini") else name.upper()


def figures(doc: dict, label: str, dataset: str) -> tuple[float, float | None]:
    """(nested, paper) of the reported metric; a fixed method has one figure."""
    report = doc.get("tuning", {}).get("methods", {}).get(label)
    if report is None:
        return doc["scores"][dataset][label]["mean"], None
    reported = report[dataset]["reported"]
    return reported["nested"], reported["paper"]


def cell(doc: dict, label: str, dataset: str, scale: float, digits: int) -> str:
    nested, paper = figures(doc, label, dataset)
    text = f"{nested * scale:.{digits}f}"
    return text if paper is None else f"{text} ({paper * scale:.{digits}f})"


def table(doc: dict, title: str, scale: float, digits: int) -> list[str]:
    labels = doc["criteria"]
    unpruned = [label for label in labels if PRUNED not in label]
    lines = [f"### {title}", "",
             "| criterion | " + " | ".join(f"{d} | {d} + S" for d in doc["datasets"]) + " |",
             "|---|" + "---:|" * (2 * len(doc["datasets"]))]
    for label in unpruned:
        pruned = next(p for p in labels if p.startswith(label.split(":")[0] + ":")
                      and PRUNED in p)
        cells = [c for d in doc["datasets"] for c in (cell(doc, label, d, scale, digits),
                                                      cell(doc, pruned, d, scale, digits))]
        lines.append(f"| {short(label)} | " + " | ".join(cells) + " |")
    return lines + [""]


def choices(doc: dict) -> list[str]:
    lines = ["### Points chosen: the papers' selection; nested, the most frequent of the 5 "
             "outer folds", "", "| criterion | " + " | ".join(doc["datasets"]) + " |",
             "|---|" + "---|" * len(doc["datasets"])]
    for label, report in doc["tuning"]["methods"].items():
        cells = []
        for dataset in doc["datasets"]:
            chosen = [json.dumps(c["params"], sort_keys=True)
                      for c in report[dataset]["nested"]["chosen"]]
            common = max(set(chosen), key=chosen.count)
            cells.append(_point(report[dataset]["paper"]["params"]) + "; "
                         + _point(json.loads(common)) + f" x{chosen.count(common)}")
        name = short(label) + (" + S" if PRUNED in label else "")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines + [""]


def _point(params: dict) -> str:
    names = {"alpha": "a", "beta": "b", "gamma": "g", "significance": "s"}
    return " ".join(f"{names.get(k, k)}={v:g}" for k, v in params.items())


def optimism(doc: dict) -> list[str]:
    lines = ["### Optimism of the papers' selection (paper - nested accuracy, points)", "",
             "| criterion | " + " | ".join(doc["datasets"]) + " | mean |",
             "|---|" + "---:|" * (len(doc["datasets"]) + 1)]
    for label, report in doc["tuning"]["methods"].items():
        gaps = [100 * report[d]["optimism"] for d in doc["datasets"]]
        name = short(label) + (" + S" if PRUNED in label else "")
        lines.append(f"| {name} | " + " | ".join(f"{g:+.2f}" for g in gaps)
                     + f" | {sum(gaps) / len(gaps):+.2f} |")
    return lines + [""]


def main(accuracy_path: str, nodes_path: str) -> None:
    accuracy, nodes = (json.load(open(p)) for p in (accuracy_path, nodes_path))
    lines = table(accuracy, "Accuracy (%), nested (papers' selection)", 100, 2)
    lines += table(nodes, "Node count, nested (papers' selection)", 1, 1)
    lines += choices(accuracy) + optimism(accuracy)
    print("\n".join(lines))


if __name__ == "__main__":
    main(*sys.argv[1:])
