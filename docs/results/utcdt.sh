#!/bin/sh
# The Tsallis paper's Table 1 protocol on the shipped datasets it names (docs/tuning.md).
# Usage: sh docs/results/utcdt.sh [REPEATS [INNER_CV]]   (the paper: 10 10)
set -e
mkdir -p out
repeats=${1:-10}
inner=${2:-10}
out=docs/results
common="--spec $out/utcdt.toml --cv 10 --repeats $repeats --inner-cv $inner --min-samples-leaf 5
        --criteria entropy,gini,gain-ratio,tsallis:q=auto,tsallis-gain-ratio:q=@tsallis
        --grid q=0.1:10:0.1 --results out/utcdt_runs_r$repeats.jsonl -q"
for selection in nested paper; do
    for metric in accuracy n_nodes; do
        dtree compare $common --selection $selection --metric $metric --base tsallis:q=auto \
            --reference docs/reference/utcdt_table1_$metric.csv -f markdown \
            > $out/utcdt_${selection}_${metric}_r$repeats.md
    done
done
dtree compare $common -f json > $out/utcdt_r$repeats.json
