#!/bin/sh
# FDF against random forests of gini trees (docs/fdf.md, "Against random forests"),
# on the ten shipped datasets of docs/results/fdf_datasets.toml, seed 0, the same
# folds for every method:
# - 10 x 10-fold CV: single trees with and without Naive Bayes leaves, FDF, and a
#   forest of 1,000 gini trees (the paper's forest);
# - 1 x 10-fold CV (the first repeat's folds, so the results of the first run are
#   reused): the same, plus forests of 100 gini trees with counts, MDL Naive Bayes
#   and Gaussian Naive Bayes leaves (NB leaves cost about 15x the trees' growth:
#   docs/forests.md).
# One results file: rerunning reuses every finished fold.
set -e
cd "$(dirname "$0")/../.."
mkdir -p out
runs=out/fdf_forest_runs.jsonl
for m in log_loss accuracy auc; do
  dtree compare --spec docs/results/fdf_datasets.toml \
      --criteria 'gini,gini+nb,gini+nb-gaussian,fdf,gini*1000' \
      --cv 10 --repeats 10 -m $m --base fdf -j 1 -q --results $runs \
      -f markdown -o docs/results/fdf_forest_$m.md
  dtree compare --spec docs/results/fdf_datasets.toml \
      --criteria 'gini,gini+nb,gini+nb-gaussian,fdf,gini*1000,gini*100,gini+nb*100,gini+nb-gaussian*100' \
      --cv 10 --repeats 1 -m $m --base fdf -j 1 -q --results $runs \
      -f markdown -o docs/results/fdf_forest_nb_$m.md
done
