#!/bin/sh
# Unpruned trees against cost-complexity (auto), pessimistic and reduced-error pruning
# on the 13 shipped imbalanced datasets, for gini, entropy, hddt and ihdw: 10-fold CV,
# AUC with frequency and Laplace leaves, accuracy and node count (docs/pruning.md).
# Run from the project root; about 2 minutes on one core. Writes docs/results/pruning/.
set -e
out=docs/results/pruning
mkdir -p "$out" out
for pruning in none ccp pessimistic reduced-error; do
  for leaf in frequency laplace; do
    for metric in auc accuracy n_nodes; do
      # accuracy and node count do not depend on the leaf estimate
      [ "$leaf" = laplace ] && [ "$metric" != auc ] && continue
      dtree compare examples/imbalanced/*.dat --criteria gini,entropy,hddt,ihdw --cv 10 \
        --metric "$metric" --pruning "$pruning" --leaf-estimate "$leaf" -j 1 -q \
        --results out/pruning-runs.jsonl -f json -o "$out/$pruning-$leaf-$metric.json"
    done
  done
done
python3 docs/results/pruning_summary.py "$out" > "$out/summary.md"
cat "$out/summary.md"
# all 16 methods in one comparison (AUC, Laplace leaves): ranks, Friedman, Nemenyi
entries=""
for c in gini entropy hddt ihdw; do
  for p in none ccp pessimistic reduced-error; do
    entries="$entries,$c:pruning=$p"
  done
done
dtree compare examples/imbalanced/*.dat --criteria "${entries#,}" --cv 10 --metric auc \
  --leaf-estimate laplace --base ihdw:pruning=none -j 1 -q --results out/pruning-runs.jsonl \
  --cd-diagram "$out/auc_laplace_cd.svg" -f markdown -o "$out/auc_laplace_all.md"
