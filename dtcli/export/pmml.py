"""`-f pmml`: a PMML 4.4 TreeModel of a single tree (http://dmg.org/pmml/v4-4/TreeModel.html).

- dtree's binary trees (from flat.py): each split's first child takes the rows of its
  predicate (`lessOrEqual`, `SimpleSetPredicate isIn`), wrapped in a `surrogate`
  CompoundPredicate whose second part (True or False) says where a missing value
  goes; the second child is `True`. missingValueStrategy="none": the surrogate
  decides. Leaves hold the probabilities dtree predicts (frequency, Laplace or
  m-estimate) in `ScoreDistribution probability`.
- J48's multiway trees: dtcli/c45/pmml.py, with `document` and `node` from here.

A category the model never saw is treated as missing (invalidValueTreatment=
"asMissing"), as dtree treats it. Forests are refused: PMML would need a MiningModel.

A model with a decision threshold (dtcli/measures/fitted.py) adds the OutputField
`decision` (if probability(positive) >= threshold: positive, else the other class), the
label `dtree predict` gives, for both kinds; a binary tree's leaves also score their
decided class, so its predicted value agrees. J48's weightedConfidence predicted value
(missing values spread over branches) stays PMML's most confident class: read `decision`.
"""
from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

import numpy as np

from dtcli._version import __version__
from dtcli.export.flat import ExportRefused, FlatModel, flatten

NAMESPACE = "http://www.dmg.org/PMML-4_4"


def render(model) -> str:
    """The PMML document of a fitted DecisionTreeClassifier (J48Classifier.to_pmml
    writes J48's: dtcli/c45/pmml.py)."""
    if getattr(model, "model_kind", None) == "forest":
        raise ExportRefused("-f pmml writes single trees (a TreeModel); a forest: -f onnx, "
                            "sql, c or python")
    flat = flatten(model, "pmml")
    return document(model, flat.classes, _binary_nodes(flat), "none", "binarySplit")


def document(model, classes: list[str], body: str, strategy: str, split: str) -> str:
    """The PMML document around a TreeModel's nodes (`body`): the data dictionary of
    the model's features and classes, the mining schema, the probabilities' Output."""
    target = _target_name(model)
    fields = [_data_field(f) for f in model.features_]
    fields.append(f'    <DataField name={quoteattr(target)} optype="categorical" '
                  'dataType="string">\n' + "".join(
                      f"      <Value value={quoteattr(c)}/>\n" for c in classes)
                  + "    </DataField>\n")
    mining = "".join(f"      <MiningField name={quoteattr(f.name)} "
                     'invalidValueTreatment="asMissing"/>\n' for f in model.features_)
    mining += f'      <MiningField name={quoteattr(target)} usageType="target"/>\n'
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<PMML xmlns="{NAMESPACE}" version="4.4">\n'
            f'  <Header description="{model.model_kind} exported by dtree export -f pmml">\n'
            f'    <Application name="dtree" version="{__version__}"/>\n  </Header>\n'
            f'  <DataDictionary numberOfFields="{len(fields)}">\n' + "".join(fields)
            + "  </DataDictionary>\n"
            f'  <TreeModel functionName="classification" splitCharacteristic="{split}" '
            f'missingValueStrategy="{strategy}" noTrueChildStrategy="returnLastPrediction">\n'
            f"    <MiningSchema>\n{mining}    </MiningSchema>\n"
            + "    <Output>\n" + "".join(
                f"      <OutputField name={quoteattr(f'probability({c})')} optype=\"continuous\" "
                f"dataType=\"double\" feature=\"probability\" value={quoteattr(c)}/>\n"
                for c in classes) + _decision_field(model, classes) + "    </Output>\n" + body
            + "  </TreeModel>\n</PMML>\n")


def _decision_field(model, classes: list[str]) -> str:
    """With a decision threshold, the OutputField `decision`: the positive class where its
    probability output is >= the threshold, else the other (PMML 4.4 transformedValue)."""
    block = getattr(model, "decision_", None)
    if block is None:
        return ""
    positive = block["positive"]
    negative = next(c for c in classes if c != positive)
    return ('      <OutputField name="decision" optype="categorical" dataType="string" '
            'feature="transformedValue">\n'
            '        <Apply function="if">\n'
            '          <Apply function="greaterOrEqual">'
            f"<FieldRef field={quoteattr(f'probability({positive})')}/>"
            f'<Constant dataType="double">{number(block["threshold"])}</Constant></Apply>\n'
            f'          <Constant dataType="string">{escape(positive)}</Constant>\n'
            f'          <Constant dataType="string">{escape(negative)}</Constant>\n'
            "        </Apply>\n      </OutputField>\n")


def _target_name(model) -> str:
    names = {f.name for f in model.features_}
    name = "class"
    while name in names:
        name = "_" + name
    return name


def _data_field(feature) -> str:
    if not feature.categories:
        return (f"    <DataField name={quoteattr(feature.name)} optype=\"continuous\" "
                'dataType="double"/>\n')
    return (f"    <DataField name={quoteattr(feature.name)} optype=\"categorical\" "
            'dataType="string">\n' + "".join(f"      <Value value={quoteattr(c)}/>\n"
                                             for c in feature.categories)
            + "    </DataField>\n")


def number(x: float) -> str:
    return repr(float(x))


def distribution(classes, counts, proba, pad: str) -> str:
    return "".join(f"{pad}<ScoreDistribution value={quoteattr(c)} recordCount="
                   f"\"{number(n)}\" probability=\"{number(p)}\" confidence=\"{number(p)}\"/>\n"
                   for c, n, p in zip(classes, counts, proba))


def node_element(node_id, score: str, record_count: float, predicate: str, inner: str,
                 pad: str) -> str:
    return (f"{pad}<Node id=\"{node_id}\" score={quoteattr(score)} "
            f"recordCount=\"{number(record_count)}\">\n{pad}  {predicate}\n{inner}"
            f"{pad}</Node>\n")


def _string_array(values) -> str:
    quoted = " ".join('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values)
    return f'<Array n="{len(values)}" type="string">{escape(quoted)}</Array>'


# --- binary trees ---------------------------------------------------------------------------

def _binary_nodes(flat: FlatModel) -> str:
    tree = flat.trees[0]
    return _binary(flat, tree, 0, "<True/>", "    ")


def _binary(flat: FlatModel, tree, node: int, predicate: str, pad: str) -> str:
    proba, counts = tree.proba[node], tree.counts[node]
    score = flat.classes[int(np.argmax(proba if tree.is_leaf(node) else counts))]
    if flat.decision is not None and tree.is_leaf(node):  # a row reaches one leaf
        positive, threshold = flat.decision
        score = flat.classes[positive if proba[positive] >= threshold else 1 - positive]
    if tree.is_leaf(node):
        inner = distribution(flat.classes, counts, proba, pad + "  ")
        return node_element(node, score, counts.sum(), predicate, inner, pad)
    feature = flat.features[tree.feature[node]]
    name = quoteattr(feature.name)
    if tree.codes[node]:
        test = (f'<SimpleSetPredicate field={name} booleanOperator="isIn">'
                + _string_array([feature.categories[c] for c in tree.codes[node]])
                + "</SimpleSetPredicate>")
    elif tree.threshold[node] == np.inf:
        test = f'<SimplePredicate field={name} operator="isNotMissing"/>'
    else:
        test = (f'<SimplePredicate field={name} operator="lessOrEqual" '
                f'value="{number(tree.threshold[node])}"/>')
    missing = "<True/>" if tree.missing_true[node] else "<False/>"
    first = f'<CompoundPredicate booleanOperator="surrogate">{test}{missing}</CompoundPredicate>'
    inner = (_binary(flat, tree, int(tree.true_child[node]), first, pad + "  ")
             + _binary(flat, tree, int(tree.false_child[node]), "<True/>", pad + "  "))
    return node_element(node, score, counts.sum(), predicate, inner, pad)
