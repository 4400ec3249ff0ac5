#!/bin/sh
# Records what the commands printed before they called the library API (issue 32),
# run from the project root at e3b102f: `sh tests/data/cli_before_api/record.sh`.
# tests/test_api_cli.py compares the commands' output today with these files,
# timings aside, and resumes runs.jsonl (written here) expecting nothing rerun.
set -e
out=tests/data/cli_before_api
data="examples/iris.csv examples/imbalanced/new-thyroid1.dat"
rm -f "$out/runs.jsonl"
dtree compare $data --criteria gini,entropy,gini*3,fdf,gini+nb,entropy:leaf_estimate=laplace \
    --criteria tsallis:q=auto --grid q=1,2 --inner-cv 2 --cv 3 --jobs 1 -q \
    --results "$out/runs.jsonl" -f json > "$out/compare.json"
dtree evaluate examples/imbalanced/new-thyroid1.dat --criterion entropy --cv 3 --repeats 2 \
    --jobs 1 -q -f json > "$out/evaluate.json"
dtree evaluate examples/imbalanced/new-thyroid1.dat --criterion tsallis --param q=auto \
    --grid q=1,2 --cv 3 --inner-cv 2 --jobs 1 -q -f json > "$out/evaluate_tuned.json"
dtree tune examples/imbalanced/new-thyroid1.dat --criterion tsallis --grid q=1,2 --cv 3 \
    --jobs 1 -q -f json > "$out/tune.json"
