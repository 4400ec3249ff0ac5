"""The iHD paper's comparison (its Table 4) from Python, without the command line.

Eight split criteria on the 13 imbalanced KEEL datasets shipped in
examples/imbalanced/, ranked by AUC over 10-fold cross-validation, with
Demsar's tests against iHDw and the critical-difference diagram. From the
project root:

    python examples/ihd_comparison.py                  # the whole comparison
    python examples/ihd_comparison.py --datasets 4 --cv 3 --criteria gini,entropy,ihdw

prints the table of mean AUC and the average ranks, the Friedman test and the
Nemenyi critical difference, and writes the diagram to out/ihd_cd.svg. In a
notebook, `result` shows itself as the table with the diagram beneath.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import dtcli

HERE = Path(__file__).resolve().parent
CRITERIA = "entropy,gini,gain-ratio,dcsm,hddt,ccpdt,ihd,ihdw"  # the paper's, in its order


def run(datasets: int | None = None, cv: int = 10, criteria: str = CRITERIA, jobs=None,
        cd_diagram: str | None = None):
    """The comparison's result (a dtcli Comparison); the diagram written to `cd_diagram`."""
    paths = sorted((HERE / "imbalanced").glob("*.dat"))[:datasets]
    # Laplace leaves: AUC ranks the rows by their leaves' probabilities (README)
    return dtcli.compare(paths, criteria, cv=cv, metric="auc",
                         base="ihdw" if "ihdw" in criteria.split(",") else None,
                         leaf_estimate="laplace", jobs=jobs, cd_diagram=cd_diagram)


def report(result) -> str:
    """The table of mean AUC, the average ranks and the tests, as text."""
    methods = result.methods
    width = max(len(d) for d in result.datasets)
    lines = [f"{'dataset':<{width}}  " + "  ".join(f"{m:>8}" for m in methods)]
    for dataset in result.datasets:
        lines.append(f"{dataset:<{width}}  "
                     + "  ".join(f"{result.means[dataset][m]:8.4f}" for m in methods))
    lines.append(f"{'avg rank':<{width}}  " + "  ".join(f"{result.ranks[m]:8.2f}" for m in methods))
    if result.friedman is not None:
        lines.append(f"Friedman chi2 {result.friedman['chi2']:.2f}, p {result.friedman['p']:.4g}; "
                     f"Nemenyi critical difference {result.nemenyi['cd']:.2f}")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=int, help="only the first N datasets")
    parser.add_argument("--cv", type=int, default=10)
    parser.add_argument("--criteria", default=CRITERIA)
    parser.add_argument("--jobs", type=int)
    parser.add_argument("--svg", default="out/ihd_cd.svg", help="where to write the diagram")
    args = parser.parse_args(argv)
    Path(args.svg).parent.mkdir(parents=True, exist_ok=True)
    print(report(run(args.datasets, args.cv, args.criteria, args.jobs, args.svg)))


if __name__ == "__main__":  # a command with arguments; importing it (tests) runs nothing
    main()
