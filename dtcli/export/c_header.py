"""`-f c`: a dependency-free C99 header, `NAME_predict_proba(const double *x, double *proba)`
and `NAME_predict(const double *x)` (the class index).

`x` holds the features in the model's order: numbers, and for a nominal feature its
category's code (listed in the header's comment, the table `-f onnx --describe`
shows); NAN for a missing value, and any code not listed (-1) for a category the
model never saw. The trees are static const tables walked by a loop, so neither
deep trees nor forests make deeply nested code, and nothing is allocated.
Probabilities are added in dtree's order (flat.py): compiled without -ffast-math
they are dtree's doubles.
"""
from __future__ import annotations

import re

from dtcli._version import __version__
from dtcli.errors import ParameterError
from dtcli.export.flat import FlatModel, float_literal

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def check_name(name: str) -> str:
    if not IDENTIFIER.match(name):
        raise ParameterError(f"--name {name!r} must be a C identifier (letters, digits and _, "
                             "not starting with a digit)")
    return name


def render(model: FlatModel, name: str = "dtree") -> str:
    check_name(name)
    guard = f"{name.upper()}_PREDICT_H"
    n_classes = len(model.classes)
    lines = [f"/* A {model.kind} exported by dtree {__version__} (dtree export -f c).",
             " *",
             f" * {name}_predict_proba(x, proba): x[{len(model.features)}] the features in "
             "this order,",
             " * NAN where a value is missing; proba[%d] receives the class probabilities." %
             n_classes,
             " * Features (index: name, and for a nominal feature its category codes):"]
    for j, feature in enumerate(model.features):
        if feature.categories:
            codes = ", ".join(f"{c} = {_comment(v)}" for c, v in enumerate(feature.categories))
            lines.append(f" *   x[{j}]: {_comment(feature.name)} (nominal: {codes})")
        else:
            lines.append(f" *   x[{j}]: {_comment(feature.name)}")
    lines.append(" * Classes (index: label): " + ", ".join(
        f"{k} = {_comment(c)}" for k, c in enumerate(model.classes)))
    lines += [" */", f"#ifndef {guard}", f"#define {guard}", "", "#include <math.h>", "",
              f"#define {name.upper()}_N_FEATURES {len(model.features)}",
              f"#define {name.upper()}_N_CLASSES {n_classes}", ""]
    nodes, members, offsets, leaves, roots = [], [], [0], [], []
    for flat in model.trees:
        tree = flat.lists()
        base = len(nodes)
        roots.append(base)
        for i, leaf in enumerate(tree.is_leaf):
            if leaf:
                nodes.append(f"{{-1, -1, -1, 0.0, 0, {len(leaves)}}}")
                leaves.append(", ".join(_double(p) for p in tree.proba[i]))
                continue
            kind = 2 if tree.codes[i] else int(tree.missing_true[i])
            threshold = "0.0" if kind == 2 else _double(tree.threshold[i])
            nodes.append(f"{{{base + tree.true_child[i]}, {base + tree.false_child[i]}, "
                         f"{tree.feature[i]}, {threshold}, {kind}, {len(offsets) - 1}}}")
            members.extend(str(c) for c in tree.codes[i])
            offsets.append(len(members))
    lines += [
        "/* one split or leaf: children (-1 on a leaf), feature, x <= threshold goes true;",
        " * kind 0: numeric, missing false; 1: numeric, missing true; 2: category in",
        " * members[set..set+1) goes true (others and missing false); on a leaf, set is",
        " * its row of leaf_proba */",
        f"typedef struct {{ int true_child, false_child, feature; double threshold; "
        f"int kind, set; }} {name}_node;",
        f"static const {name}_node {name}_nodes[{len(nodes)}] = {{",
        "  " + ",\n  ".join(nodes), "};",
        f"static const int {name}_members[{max(len(members), 1)}] = {{"
        + (", ".join(members) or "0") + "};",
        f"static const int {name}_member_offsets[{len(offsets)}] = {{"
        + ", ".join(map(str, offsets)) + "};",
        f"static const double {name}_leaf_proba[{len(leaves)}][{n_classes}] = {{",
        "  {" + "},\n  {".join(leaves) + "}", "};",
        f"static const int {name}_roots[{len(roots)}] = {{" + ", ".join(map(str, roots)) + "};",
        f"static const int {name}_groups[{len(model.tree_groups()) + 1}] = {{"
        + ", ".join(str(g.start) for g in model.tree_groups()) + f", {len(model.trees)}}};",
        "",
        f"static inline const double *{name}_leaf(int node, const double *x) {{",
        f"  while ({name}_nodes[node].true_child >= 0) {{",
        f"    const {name}_node *n = &{name}_nodes[node];",
        "    double v = x[n->feature];",
        "    int goes_true;",
        "    if (n->kind == 2) {",
        "      goes_true = 0;",
        f"      for (int i = {name}_member_offsets[n->set]; "
        f"i < {name}_member_offsets[n->set + 1]; i++)",
        f"        if (v == (double){name}_members[i]) goes_true = 1;",
        "    } else if (isnan(v)) {",
        "      goes_true = n->kind;",
        "    } else {",
        "      goes_true = v <= n->threshold;",
        "    }",
        "    node = goes_true ? n->true_child : n->false_child;",
        "  }",
        f"  return {name}_leaf_proba[{name}_nodes[node].set];",
        "}",
        "",
        f"static inline void {name}_predict_proba(const double *x, double *proba) {{",
        f"  for (int k = 0; k < {n_classes}; k++) proba[k] = 0.0;",
        f"  for (int g = 0; g + 1 < (int)(sizeof {name}_groups / sizeof {name}_groups[0]); g++) {{",
        f"    double part[{n_classes}] = {{0.0}};",
        f"    for (int t = {name}_groups[g]; t < {name}_groups[g + 1]; t++) {{",
        f"      const double *leaf = {name}_leaf({name}_roots[t], x);",
        f"      for (int k = 0; k < {n_classes}; k++) part[k] += leaf[k];",
        "    }",
        f"    for (int k = 0; k < {n_classes}; k++) proba[k] += part[k];",
        "  }",
        f"  for (int k = 0; k < {n_classes}; k++) proba[k] /= {len(model.trees)}.0;",
        "}",
        "",
        ("/* the index of the first class of highest probability */" if model.decision is None
         else f"/* the index of the predicted class: {_comment(model.label_rule())} */"),
        f"static inline int {name}_predict(const double *x) {{",
        f"  double proba[{n_classes}];",
        f"  int best = 0;",
        f"  {name}_predict_proba(x, proba);",
        *(_decided(model.decision) if model.decision is not None else [
            f"  for (int k = 1; k < {n_classes}; k++) if (proba[k] > proba[best]) best = k;"]),
        "  return best;",
        "}",
        "",
        f"#endif /* {guard} */", ""]
    return "\n".join(lines)


def _decided(decision: tuple) -> list[str]:
    """predict's lines for a model with a decision threshold (flat.FlatModel.decision)."""
    positive, threshold = decision
    return [f"  best = proba[{positive}] >= {_double(threshold)} ? {positive} : {1 - positive};"]


def _double(x: float) -> str:
    return float_literal(x, "INFINITY")


def _comment(text: str) -> str:
    """Text safe inside a C comment."""
    return str(text).replace("*/", "* /").replace("\n", " ")
