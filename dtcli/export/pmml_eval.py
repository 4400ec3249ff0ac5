"""A small PMML 4.4 TreeModel evaluator that follows the specification
(http://dmg.org/pmml/v4-4/TreeModel.html), for `dtree verify` and the tests where no
PMML engine (JPMML, PyPMML: both need Java) is installed. It reads what a TreeModel
of classification may hold of: SimplePredicate, SimpleSetPredicate, CompoundPredicate
(and, or, xor, surrogate), True, False; missingValueStrategy none, lastPrediction,
nullPrediction and weightedConfidence; invalidValueTreatment asMissing and asIs.
Predicates are three-valued: True, False or None (UNKNOWN, a missing input).
"""
from __future__ import annotations

import xml.etree.ElementTree as ElementTree

import numpy as np

from dtcli.errors import DtreeError

_NS = "{http://www.dmg.org/PMML-4_4}"


def score(path: str, rows, classes: list[str]):
    """(labels, probabilities) of `rows` (runtimes.Rows) by the PMML file at `path`."""
    try:
        root = ElementTree.parse(path).getroot()
    except (ElementTree.ParseError, OSError) as exc:
        raise DtreeError(f"{path}: not a PMML document ({exc})") from None
    model = root.find(f"{_NS}TreeModel")
    if model is None:
        raise DtreeError(f"{path}: no PMML TreeModel")
    evaluator = _TreeModel(root, model)
    proba = np.zeros((len(rows.raw[0]) if rows.raw else 0, len(classes)))
    for i, row in enumerate(rows.dicts()):
        confidences = evaluator.confidences(row)
        proba[i] = [confidences.get(c, 0.0) for c in classes]
    labels = np.array(classes, dtype=object)[proba.argmax(axis=1)] if len(proba) else \
        np.array([], dtype=object)
    decision = _decision(model, classes)
    if decision is not None and len(proba):
        positive, threshold, then, otherwise = decision
        labels = np.where(proba[:, positive] >= threshold, then, otherwise).astype(object)
    return labels, proba


def _decision(model, classes: list[str]):
    """The OutputField `decision` dtree writes for a decision threshold (pmml.py), as
    (positive column, threshold, label if reached, label if not), or None."""
    for field in model.iter(f"{_NS}OutputField"):
        if field.get("name") != "decision" or field.get("feature") != "transformedValue":
            continue
        test = field.find(f"{_NS}Apply/{_NS}Apply")
        ref = None if test is None else test.find(f"{_NS}FieldRef")
        values = [c.text or "" for c in field.findall(f"{_NS}Apply/{_NS}Constant")]
        bar = None if test is None else test.find(f"{_NS}Constant")
        name = "" if ref is None else ref.get("field", "")
        if (test is None or test.get("function") != "greaterOrEqual" or bar is None
                or len(values) != 2 or not name.startswith("probability(")
                or name[len("probability("):-1] not in classes):
            raise DtreeError("the PMML's decision OutputField is not dtree's "
                             "if(probability(class) >= threshold, class, other)")
        return (classes.index(name[len("probability("):-1]), float(bar.text), values[0],
                values[1])
    return None


class _TreeModel:
    def __init__(self, root, model):
        self.valid = {}
        for field in root.iter(f"{_NS}DataField"):
            values = [v.get("value") for v in field.findall(f"{_NS}Value")]
            if field.get("optype") == "categorical" and values:
                self.valid[field.get("name")] = set(values)
        self.as_missing = {m.get("name") for m in model.iter(f"{_NS}MiningField")
                           if m.get("invalidValueTreatment") == "asMissing"}
        self.strategy = model.get("missingValueStrategy", "none")
        self.root = model.find(f"{_NS}Node")

    def _value(self, row: dict, field: str):
        value = row.get(field)
        if value is None or (isinstance(value, float) and value != value):
            return None
        if field in self.valid and str(value) not in self.valid[field] \
                and field in self.as_missing:
            return None
        return value

    def predicate(self, element, row: dict):
        """True, False or None (UNKNOWN) of one predicate element."""
        tag = element.tag[len(_NS):]
        if tag == "True":
            return True
        if tag == "False":
            return False
        if tag == "SimplePredicate":
            value = self._value(row, element.get("field"))
            operator = element.get("operator")
            if operator == "isMissing":
                return value is None
            if operator == "isNotMissing":
                return value is not None
            if value is None:
                return None
            other = element.get("value")
            if isinstance(value, str):
                a, b = value, other
            else:
                a, b = float(value), float(other)
            return {"equal": a == b, "notEqual": a != b, "lessThan": a < b,
                    "lessOrEqual": a <= b, "greaterThan": a > b,
                    "greaterOrEqual": a >= b}[operator]
        if tag == "SimpleSetPredicate":
            value = self._value(row, element.get("field"))
            if value is None:
                return None
            members = set(_array(element.find(f"{_NS}Array")))
            inside = str(value) in members
            return inside if element.get("booleanOperator") == "isIn" else not inside
        if tag == "CompoundPredicate":
            parts = [p for p in element if p.tag != f"{_NS}Extension"]
            operator = element.get("booleanOperator")
            if operator == "surrogate":
                for part in parts:
                    result = self.predicate(part, row)
                    if result is not None:
                        return result
                return None
            results = [self.predicate(p, row) for p in parts]
            if operator == "and":
                return False if False in results else (None if None in results else True)
            if operator == "or":
                return True if True in results else (None if None in results else False)
            if None in results:
                return None
            return sum(results) % 2 == 1  # xor
        raise DtreeError(f"PMML predicate {tag} is not read by dtree's evaluator")

    def confidences(self, row: dict) -> dict:
        return self._score(self.root, row)

    def _score(self, node, row: dict) -> dict:
        children = node.findall(f"{_NS}Node")
        if not children:
            return _distribution(node)
        results = [(child, self.predicate(_predicate_of(child), row)) for child in children]
        for child, result in results:
            if result is True:
                return self._score(child, row)
            if result is None and self.strategy == "weightedConfidence":
                total = float(node.get("recordCount"))
                out = {}
                for sibling, outcome in results:
                    if outcome is False:
                        continue
                    share = float(sibling.get("recordCount")) / total
                    for label, c in self._score(sibling, row).items():
                        out[label] = out.get(label, 0.0) + share * c
                return out
            if result is None and self.strategy == "lastPrediction":
                return _distribution(node)
            if result is None and self.strategy == "nullPrediction":
                return {}
        return _distribution(node)  # no child fired: returnLastPrediction


def _predicate_of(node):
    for element in node:
        if element.tag[len(_NS):] in ("True", "False", "SimplePredicate", "SimpleSetPredicate",
                                      "CompoundPredicate"):
            return element
    raise DtreeError(f"PMML Node {node.get('id')} has no predicate")


def _distribution(node) -> dict:
    out = {}
    for entry in node.findall(f"{_NS}ScoreDistribution"):
        value = entry.get("confidence") or entry.get("probability")
        out[entry.get("value")] = float(value)
    return out


def _array(element) -> list[str]:
    """The values of a PMML string Array: space-separated, in double quotes when they hold
    spaces or quotes (a backslash escapes a quote)."""
    text, out, i = element.text or "", [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
        elif text[i] == '"':
            i += 1
            value = []
            while i < len(text) and text[i] != '"':
                if text[i] == "\\" and i + 1 < len(text):
                    i += 1
                value.append(text[i])
                i += 1
            out.append("".join(value))
            i += 1
        else:
            j = i
            while j < len(text) and not text[j].isspace():
                j += 1
            out.append(text[i:j])
            i = j
    return out
