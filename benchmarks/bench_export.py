"""Time of `dtree export -f onnx|sql|c|python` for a forest (issue 43), beside the time dtree
takes to score the same rows, in one run.

Run from the project root (after `pip install -e ".[test]"`, which brings onnx):

    python benchmarks/bench_export.py                          # the issue's size: 100 trees, 100k rows
    python benchmarks/bench_export.py --rows 20000 --trees 20  # smaller, quicker

What it measures, on bench_forest's seeded synthetic two-class data (20 features):
the forest is fitted once (gini, max_features="sqrt", unlimited depth; not timed
here: bench_forest.py times it); then for each format the time of
`dtcli.export.production.render` (the flat view and the writer; what `dtree export`
spends besides reading the model file) and the artifact's size, and for ONNX the
time ONNX Runtime takes to score all the rows against dtree's predict_proba. Times
are the best of `--repeats` (wall: time.perf_counter; CPU: this process's, the
steadier figure on a shared machine); the table goes to stdout.
"""
from __future__ import annotations

import argparse
import importlib.util

import numpy as np

from bench_forest import synthetic
from timing import best_of


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--trees", type=int, default=100)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=None)
    args = parser.parse_args()

    from dtcli import RandomForestClassifier
    from dtcli.export.production import ExportOptions, render

    X, y = synthetic(args.rows, args.features)
    model = RandomForestClassifier(n_estimators=args.trees, n_jobs=args.jobs,
                                   random_state=0).fit(X, y)
    nodes = sum(e.tree_.node_count for e in model.estimators_)
    print(f"forest: {args.trees} trees, {nodes} nodes, fitted on {args.rows} rows x "
          f"{args.features} features")
    model.predict_proba(X[:10])  # compile the prediction kernel before timing it
    predict = best_of(lambda: model.predict_proba(X), args.repeats)
    print(f"{'what':<28} {'wall s':>9} {'CPU s':>9} {'MB':>9}  CPU vs dtree predict_proba")
    print(f"{'dtree predict_proba':<28} {predict.wall:>9.3f} {predict.cpu:>9.3f} {'':>9}  1.00")
    formats = [("python", {}), ("sql", {}), ("c", {})]
    has_onnx = all(importlib.util.find_spec(m) for m in ("onnx", "onnxruntime"))
    if has_onnx:
        formats += [("onnx", {"onnx_opset": 5}), ("onnx", {"onnx_opset": 3})]
    artifacts = {}
    for fmt, options in formats:
        name = f"export -f {fmt}" + (f" (opset {options['onnx_opset']})" if options else "")
        timed = best_of(lambda: render(model, fmt, ExportOptions(**options)), args.repeats)
        artifacts[name] = timed.result
        size = len(timed.result) / 1e6
        print(f"{name:<28} {timed.wall:>9.3f} {timed.cpu:>9.3f} {size:>9.1f}  "
              f"{timed.cpu / predict.cpu:.2f}")
    if has_onnx:
        import onnxruntime

        session = onnxruntime.InferenceSession(artifacts["export -f onnx (opset 5)"],
                                               providers=["CPUExecutionProvider"])
        scored = best_of(lambda: session.run(["probabilities"], {"input": X})[0], args.repeats)
        difference = float(np.abs(scored.result - predict.result).max())
        print(f"{'onnxruntime scoring':<28} {scored.wall:>9.3f} {scored.cpu:>9.3f} {'':>9}  "
              f"{scored.cpu / predict.cpu:.2f}  (largest difference {difference:.2g})")


if __name__ == "__main__":
    main()
