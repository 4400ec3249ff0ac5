#!/bin/sh
# Reproduce the iHD paper's Tables 3 and 4 with dtree (see docs/reproduce.md).
# Run from the project root: sh docs/results/reproduce.sh
# Finished folds are kept in runs.jsonl: an interrupted run continues where it
# stopped, and each table below is rendered from the same folds for free.
set -eu
C=entropy,gini,gain-ratio,dcsm,hddt,ccpdt,ihd,ihdw   # the paper's column order
OUT=docs/results
RUNS=${RUNS:-runs.jsonl}

table4() {  # 13 imbalanced KEEL datasets, AUC (Hand & Till), 10-fold CV
    dtree compare examples/imbalanced/*.dat --criteria $C --base ihdw --metric auc --cv 10 \
        --reference docs/reference/ihd_table4_auc_imbalanced.csv --results "$RUNS" "$@"
}
table3() {  # the 10 balanced datasets of Table 3 that ship in examples/balanced, accuracy
    dtree compare --spec $OUT/ihd_balanced.toml --criteria $C --base ihdw --metric accuracy \
        --cv 10 --reference docs/reference/ihd_table3_accuracy_balanced.csv --results "$RUNS" "$@"
}

# The paper's protocol: one stratified 10-fold split (seed 0).
table4 --sd --cd-diagram $OUT/ihd_table4_cd.svg -f markdown > $OUT/ihd_table4_auc.md
table4 -q -f json > $OUT/ihd_table4_auc.json
table3 --sd --cd-diagram $OUT/ihd_table3_cd.svg -f markdown > $OUT/ihd_table3_accuracy.md
table3 -q -f json > $OUT/ihd_table3_accuracy.json

# Ten different 10-fold splits (the first is the one above): how much the
# figures move with the fold assignment alone.
table4 --repeats 10 --cd-diagram $OUT/ihd_table4_cd_10x10.svg -f markdown > $OUT/ihd_table4_auc_10x10.md
table4 --repeats 10 -q -f json > $OUT/ihd_table4_auc_10x10.json
table3 --repeats 10 --cd-diagram $OUT/ihd_table3_cd_10x10.svg -f markdown > $OUT/ihd_table3_accuracy_10x10.md
table3 --repeats 10 -q -f json > $OUT/ihd_table3_accuracy_10x10.json

# Ten single 10-fold runs with different seeds, as ten papers might have run
# them: how far the ranks and the agreement with the paper move.
{
    python docs/results/seed_spread.py "Table 4, imbalanced, AUC" -- \
        examples/imbalanced/*.dat --criteria $C --base ihdw --metric auc --cv 10 \
        --reference docs/reference/ihd_table4_auc_imbalanced.csv --results "$RUNS"
    echo
    python docs/results/seed_spread.py "Table 3, balanced, accuracy" -- \
        --spec $OUT/ihd_balanced.toml --criteria $C --base ihdw --metric accuracy --cv 10 \
        --reference docs/reference/ihd_table3_accuracy_balanced.csv --results "$RUNS"
} > $OUT/ihd_seed_spread.md

# The paper's own figures on the datasets we have, through the same statistics.
names=$(ls examples/imbalanced | sed 's/\.dat$//' | paste -sd'|' -)
grep -E "^(dataset|$names)," docs/reference/ihd_table4_auc_imbalanced.csv > $OUT/paper_table4_13.csv
dtree compare --table $OUT/paper_table4_13.csv --base iHDw -f markdown > $OUT/paper_table4_13.md
names=$(sed -n 's/^\[datasets\.\(.*\)\]$/\1/p' $OUT/ihd_balanced.toml | paste -sd'|' -)
grep -E "^(dataset|$names)," docs/reference/ihd_table3_accuracy_balanced.csv > $OUT/paper_table3_10.csv
dtree compare --table $OUT/paper_table3_10.csv --base iHDw -f markdown > $OUT/paper_table3_10.md
