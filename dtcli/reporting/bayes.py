"""`compare --bayes`: the Bayesian comparisons of the base method against each other one
(dtcli/stats/bayes.py) as a document section and table lines; the HTML report draws them
(export/compare_report.py)."""
from __future__ import annotations

import math

from dtcli.reporting.report import number


def bayes_document(doc: dict, fold_scores: dict | None, cv: int | None, rope: float,
                   seed: int) -> dict:
    """doc["bayes"]: {rope, prior, samples, seed, base, signed_rank: method -> {better,
    equivalent, worse}, correlated_t: dataset -> method -> {...} (with fold scores)}.
    Probabilities of the base against each other method, in the direction of the metric;
    the signed-rank test of the `index`-th other method draws from `generator(seed, index)`."""
    import numpy as np

    from dtcli.stats import bayes

    base, sign = doc["base"], 1.0 if doc["higher_is_better"] else -1.0
    others = [m for m in doc["criteria"] if m != base]
    section = {"rope": rope, "prior": bayes.PRIOR_STRENGTH, "samples": bayes.SAMPLES,
               "seed": seed, "base": base, "signed_rank": {}}
    for index, method in enumerate(others):
        differences = [sign * (doc["scores"][d][base]["mean"] - doc["scores"][d][method]["mean"])
                       for d in doc["datasets"]]
        section["signed_rank"][method] = bayes.signed_rank_test(
            differences, rope, rng=bayes.generator(seed, index))
    if fold_scores is not None:
        section["correlated_t"] = {
            d: {m: bayes.correlated_t_test(
                sign * (np.asarray(fold_scores[d][base], dtype=float)
                        - np.asarray(fold_scores[d][m], dtype=float)), cv, rope)
                for m in others}
            for d in doc["datasets"]}
    return section


def posterior_samples(doc: dict, method: str, count: int = 1500):
    """`count` of the signed-rank posterior samples of base against `method` (the ones
    doc["bayes"] counted: same seed, same draws), for the triangle plot."""
    from dtcli.stats import bayes

    section, sign = doc["bayes"], 1.0 if doc["higher_is_better"] else -1.0
    index = [m for m in doc["criteria"] if m != section["base"]].index(method)
    differences = [sign * (doc["scores"][d][section["base"]]["mean"]
                           - doc["scores"][d][method]["mean"]) for d in doc["datasets"]]
    masses = bayes.signed_rank_samples(differences, section["rope"],
                                       rng=bayes.generator(section["seed"], index),
                                       samples=section["samples"])
    return masses[:count]


def _triple(p: dict) -> str:
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in p.values()):
        return "-"
    return "/".join(number(p[r], 2) for r in ("better", "equivalent", "worse"))


def bayes_lines(doc: dict) -> list[str]:
    """The signed-rank probabilities as sentences (below the comparison's conclusions)."""
    section = doc["bayes"]
    base = section["base"]
    parts = [f"{m}: {number(p['better'], 3)} / {number(p['equivalent'], 3)} / "
             f"{number(p['worse'], 3)}" for m, p in section["signed_rank"].items()]
    return [f"Bayesian signed-rank test (Benavoli et al. 2017; rope {section['rope']:g}, "
            f"prior 0.5, {section['samples']} posterior samples, seed {section['seed']}): "
            f"P({base} better) / P(equivalent) / P({base} worse) against "
            + "; ".join(parts) + "."
            + ("" if "correlated_t" in section else
               " (A table of scores has no fold scores: no correlated t-test per dataset.)")]


def correlated_t_table(doc: dict) -> tuple[str, list[str], list[list[str]]] | None:
    """(title, header, rows) of the per-dataset correlated t-tests, or None."""
    section = doc["bayes"]
    by_dataset = section.get("correlated_t")
    if not by_dataset:
        return None
    others = list(section["signed_rank"])
    title = (f"Correlated Bayesian t-test per dataset (Corani and Benavoli 2015; rho = 1/k, "
             f"rope {section['rope']:g}): P({section['base']} better)/P(equivalent)/"
             f"P(worse) against each method")
    rows = [[d, *(_triple(by_dataset[d][m]) for m in others)] for d in doc["datasets"]]
    return title, ["dataset", *others], rows
