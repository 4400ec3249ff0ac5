#!/usr/bin/env sh
# Remakes the screenshots in docs/pictures/ from the shipped examples:
#   . .venv/bin/activate && sh docs/pictures/make-screenshots.sh
# Needs dtree on the PATH, rsvg-convert (Debian: librsvg2-bin) and chromium (for the
# report page, which is HTML).
set -eu
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -r "$work"' EXIT
dtree train examples/hepatitis.csv --target Class --pruning s-pruning -q -o "$work/hepatitis.json"
dtree export "$work/hepatitis.json" -f svg -o "$work/tree.svg"
rsvg-convert "$work/tree.svg" -o docs/pictures/tree.png
dtree compare examples/imbalanced/*.dat --criteria gini,hddt,ihdw --metric auc \
    --leaf-estimate laplace -q --report "$work/report.html" > /dev/null
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1100,1900 \
    --screenshot="$PWD/docs/pictures/report.png" "file://$work/report.html" 2> /dev/null
dtree tune examples/balanced/wine.csv --criterion tsallis --grid q=0.25:5:0.25 --cv 10 -q \
    --plot "$work/curve.svg" > /dev/null
rsvg-convert "$work/curve.svg" -o docs/pictures/curve.png
dtree train examples/imbalanced/ecoli2.dat --pruning-path --plot "$work/path.svg" -q > /dev/null
rsvg-convert "$work/path.svg" -o docs/pictures/pruning-path.png
