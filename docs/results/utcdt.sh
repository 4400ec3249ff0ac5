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
            --reference docs/reference/utcdt_table1_$metric.csv --sd -f markdown \
            > $out/utcdt_${selection}_${metric}_r$repeats.md
    done
    # the paper's third claim: Tsallis gain ratio against gain ratio (Wilcoxon)
    dtree compare $common --selection $selection --base tsallis-gain-ratio:q=@tsallis \
        -f markdown > $out/utcdt_${selection}_accuracy_base_tsallis_gr_r$repeats.md
done
dtree compare $common -f json > $out/utcdt_r$repeats.json
# the paper's own figures (its 11 datasets) through the same statistics
dtree compare --table docs/reference/utcdt_table1_accuracy.csv --base tsallis:q=auto \
    -f markdown > $out/utcdt_paper_table1_accuracy.md
