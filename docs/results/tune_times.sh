#!/bin/sh
# Wall time of `dtree tune` for Tsallis q over the 100-value default grid, 10-fold CV,
# minimum leaf size 5, on each Tsallis-paper dataset that ships (docs/tuning.md).
set -e
t() { name=$1; shift; start=$(date +%s.%N)
      dtree tune "$@" --criterion tsallis --cv 10 --min-samples-leaf 5 -q -f json > /dev/null
      echo "$name $(echo "$(date +%s.%N) - $start" | bc)"; }
t glass examples/balanced/glass.csv -t Type --drop Id
t vehicle examples/balanced/vehicle.csv
t wine examples/balanced/wine.csv
t haberman examples/imbalanced/haberman.dat
t hayes-roth examples/balanced/hayes-roth.csv
t monk-2 examples/balanced/monk-2.csv
t contraceptive examples/balanced/contraceptive.csv
