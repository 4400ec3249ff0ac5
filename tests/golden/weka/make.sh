#!/bin/sh
# Makes the J48 golden outputs that tests/test_c45_weka.py compares dtree's C4.5
# with, by running Weka itself (Debian's package: apt-get install weka, 3.6.14).
# Run from anywhere; it rewrites tests/data/weka/ (the datasets: Weka's own ARFF
# files, and four KEEL files in ARFF: two of examples/imbalanced, and the hold-out
# ecoli1 and ecoli3 of tests/data/holdout) and trees/, predictions/ and folds/ here.
#   trees/NAME.OPTS.txt          J48's printed tree for OPTS in default, U, S, B,
#                                C0.1-M5 (-C 0.1 -M 5), C0.4-M1-B-S
#   predictions/NAME.OPTS.txt    J48 -p 0 -distribution on its own training data
#                                (default, -U unpruned and -A, Laplace leaves)
#   folds/NAME.txt               Weka's 10 stratified folds (seed 1, as J48 -x 10
#                                makes them): one line per test row, "fold id
#                                class": the row (from 1) of tests/data/weka/NAME.arff
#                                and the index of the class J48 predicted for it
#   folds/NAME.cv.txt            J48 -x 10 -s 1's own summary, for the totals
set -eu
here=$(cd "$(dirname "$0")" && pwd)
jar=${WEKA_JAR:-/usr/share/java/weka.jar}
examples=${WEKA_DATA:-/usr/share/doc/weka/examples}
keel=${KEEL_DATA:-$here/../../../examples/imbalanced}
holdout=$here/../../data/holdout
weka() { java -Xmx1g -cp "$jar" "$@"; }
java -cp "$jar" weka.core.Version | head -1 > "$here/WEKA_VERSION"

data="$here/../../data/weka"
mkdir -p "$data" "$here/trees" "$here/predictions" "$here/folds"
for name in iris breast-cancer diabetes glass vote labor; do
    cp "$examples/$name.arff" "$data/$name.arff"
done
# KEEL's header declares ranges ("real [0.11, 1.0]"), which Weka cannot read
for file in "$keel/yeast-2_vs_4.dat" "$keel/new-thyroid1.dat" "$holdout/ecoli1.dat" \
        "$holdout/ecoli3.dat"; do
    sed -E -e 's/^(@attribute [^ ]+) (real|integer) \[.*\]$/\1 numeric/' \
        -e '/^@(inputs|outputs|input|output)/d' \
        "$file" > "$data/$(basename "$file" .dat).arff"
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for file in "$data"/*.arff; do
    name=$(basename "$file" .arff)
    echo "$name" >&2
    for opts in default U S B C0.1-M5 C0.4-M1-B-S; do
        case $opts in
            default) flag="" ;;
            C0.1-M5) flag="-C 0.1 -M 5" ;;
            C0.4-M1-B-S) flag="-C 0.4 -M 1 -B -S" ;;
            *) flag="-$opts" ;;
        esac
        weka weka.classifiers.trees.J48 $flag -t "$file" -no-cv -v > "$tmp/out"
        # the tree alone: after the dashes (and the empty line before a split's first
        # line; a tree of one leaf is printed ": label" right after them) to its size
        sed -n '/^------------------$/,/^Size of the tree/p' "$tmp/out" | sed '1d' \
            | sed '1{/^$/d}' > "$here/trees/$name.$opts.txt"
    done
    for opts in default U A; do
        flag=$([ "$opts" = default ] && echo "" || echo "-$opts")
        weka weka.classifiers.trees.J48 $flag -t "$file" -T "$file" -p 0 -distribution \
            | sed -n '/inst#/,$p' | sed '/^$/d' > "$here/predictions/$name.$opts.txt"
    done
    weka weka.classifiers.trees.J48 -t "$file" -x 10 -s 1 -o \
        | sed -n '/Stratified cross-validation/,/Total Number of Instances/p' > "$here/folds/$name.cv.txt"
    weka weka.filters.unsupervised.attribute.AddID -i "$file" -o "$tmp/id.arff"
    : > "$here/folds/$name.txt"
    for fold in 1 2 3 4 5 6 7 8 9 10; do
        weka weka.filters.supervised.instance.StratifiedRemoveFolds -S 1 -N 10 -F $fold \
            -c last -i "$tmp/id.arff" -o "$tmp/test.arff"
        weka weka.filters.supervised.instance.StratifiedRemoveFolds -S 1 -N 10 -F $fold -V \
            -c last -i "$tmp/id.arff" -o "$tmp/train.arff"
        weka weka.classifiers.meta.FilteredClassifier \
            -F "weka.filters.unsupervised.attribute.Remove -R 1" -W weka.classifiers.trees.J48 \
            -t "$tmp/train.arff" -T "$tmp/test.arff" -p 1 -distribution \
            | awk -v fold=$fold '/^ *[0-9]+ /{ id=$NF; gsub(/[()]/, "", id);
                  n=split($(NF-1), p, ","); for (i = 1; i <= n; i++) if (p[i] ~ /\*/) k=i-1;
                  print fold, id, k }' \
            >> "$here/folds/$name.txt"
    done
done
