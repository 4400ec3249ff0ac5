"""The `decision` block of a model file of any kind: the decision threshold a model was
trained with (dtcli/measures/fitted.py), checked on load and set on the loaded model
(docs/model-format.md, "Format version 4")."""
from __future__ import annotations

from dtcli.measures import THRESHOLD_METRICS
from dtcli.model.check import is_finite, is_int

_COST_NAMES = ("FN", "FP", "TP", "TN")
_INNER_CV = {"method", "folds", "seed", "metric", "costs"}


def read_block(block, classes: list[str], fail) -> dict:
    """The block after checking every field (`fail(message)` raises one line): two
    classes, `positive` one of them, `threshold` a number in [0, 1], `chosen_by`
    {"method": "given"} or an inner cross-validation's record."""
    if not isinstance(block, dict) or set(block) != {"positive", "threshold", "chosen_by"}:
        fail("decision must be an object of positive, threshold and chosen_by")
    if len(classes) != 2:
        fail(f"decision: a threshold applies to two classes, the model has {len(classes)}")
    if block["positive"] not in classes:
        fail(f"decision.positive must be one of the classes ({', '.join(classes)}), got "
             f"{block['positive']!r}")
    threshold = block["threshold"]
    if not is_finite(threshold) or not 0.0 <= threshold <= 1.0:
        fail(f"decision.threshold must be a number in [0, 1], got {threshold!r}")
    chosen = block["chosen_by"]
    if chosen == {"method": "given"}:
        return block
    if (not isinstance(chosen, dict) or chosen.get("method") != "inner-cv"
            or set(chosen) != _INNER_CV):
        fail('decision.chosen_by must be {"method": "given"} or {"method": "inner-cv", '
             '"folds", "seed", "metric", "costs"}')
    if not is_int(chosen["folds"]) or chosen["folds"] < 2 or not is_int(chosen["seed"]):
        fail("decision.chosen_by.folds must be an integer >= 2 and seed an integer")
    if chosen["metric"] is not None and chosen["metric"] not in THRESHOLD_METRICS:
        fail(f"decision.chosen_by.metric must be null or one of {', '.join(THRESHOLD_METRICS)}")
    costs = chosen["costs"]
    if costs is not None and not (isinstance(costs, list) and len(costs) == 2 and all(
            isinstance(r, list) and len(r) == 2 and all(is_finite(c) for c in r) for r in costs)):
        fail("decision.chosen_by.costs must be null or a 2 x 2 list of numbers")
    if (chosen["metric"] is None) == (costs is None):
        fail("decision.chosen_by must name a metric or costs, not both")
    return block


def set_from_block(model, block: dict) -> None:
    """A loaded model's threshold parameters and fitted attributes from its block, as
    the fit that wrote it left them."""
    chosen = block["chosen_by"]
    model.threshold_, model.decision_ = float(block["threshold"]), block
    model.positive = block["positive"]
    if chosen["method"] == "given":
        model.threshold = float(block["threshold"])
        return
    model.threshold, model.threshold_metric = "auto", chosen["metric"]
    if chosen["costs"] is not None:
        positive = [str(c) for c in model.classes_].index(block["positive"])
        negative = 1 - positive
        matrix = chosen["costs"]
        model.cost = dict(zip(_COST_NAMES, (matrix[positive][negative],
                                            matrix[negative][positive],
                                            matrix[positive][positive],
                                            matrix[negative][negative])))
