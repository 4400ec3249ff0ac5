"""What the experiments return: `Evaluation`, `Comparison` and `Tuning`.

Each holds the document the command prints with `-f json` (`document`; `to_json()`
is that text exactly) and the fold results it was made from. Printed (`print(result)`,
or the REPL's echo) they are the command's table, `render(stream, fmt)` writes any of
the command's formats; in a notebook they show themselves as HTML tables
(`_repr_html_`, with the command's numbers; a comparison with its critical-difference
diagram as SVG); `to_pandas()` gives one row per fold (pandas is an optional extra:
ImportError without it).
"""
from __future__ import annotations

import html
import io
import math

from dtcli.errors import ParameterError


class _Result:
    document: dict

    def to_json(self) -> str:
        """The document as `-f json` prints it."""
        from dtcli.reporting.report import to_json

        return to_json(self.document)

    def render(self, stream, fmt: str = "table") -> None:
        """Write the result as the command does with `-f fmt` (table, json, csv, markdown)."""
        raise NotImplementedError

    def __str__(self) -> str:
        text = io.StringIO()
        self.render(text)
        return text.getvalue().rstrip("\n")

    def __repr__(self) -> str:
        return str(self)

    def _fold_rows(self) -> list[dict]:
        raise NotImplementedError

    def to_pandas(self):
        """A DataFrame of the fold results, one row per fold (needs pandas)."""
        import pandas

        return pandas.DataFrame(self._fold_rows())


def _fold_row(about: dict, index: int, cv: int, fold: dict) -> dict:
    return {**about, "repeat": index // cv + 1, "fold": index % cv + 1, **fold["metrics"]}


def _cell(value, best: bool = False) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        text = "-"
    elif isinstance(value, float):
        text = f"{value:.4f}"
    else:
        text = html.escape(str(value))
    return f"<td><b>{text}</b></td>" if best else f"<td>{text}</td>"


def _table(header: list[str], rows: list[list[str]], caption: str = "") -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(f"<tr>{''.join(row)}</tr>" for row in rows)
    caption = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


class Evaluation(_Result):
    """A method cross-validated on one dataset (or a saved model scored): `document`
    (`dtree evaluate -f json`), `folds` (each fold's metrics and confusion matrix, in
    (repeat, fold) order), `mean(metric)` and `std(metric)`."""

    def __init__(self, document: dict, folds: list[dict]):
        self.document, self.folds = document, folds

    def mean(self, metric: str = "accuracy") -> float:
        return self.document[metric]["mean"]

    def std(self, metric: str = "accuracy") -> float:
        return self.document[metric]["std"]

    @property
    def scores(self) -> dict[str, list[float]]:
        """Per metric, every fold's value."""
        from dtcli.reporting.report import METRICS

        return {name: self.document[name]["values"] for name in METRICS}

    def calibration_plot(self) -> str:
        """The reliability diagram of the pooled out-of-fold probabilities, as SVG."""
        from dtcli.export.plots import reliability_diagram

        doc = self.document
        what = doc.get("model") or _method_label(doc.get("criterion"))
        return reliability_diagram(doc["calibration"], f"{what} on {doc['dataset']}")

    def _fold_rows(self) -> list[dict]:
        about = {"dataset": self.document.get("dataset"),
                 "method": _method_label(self.document.get("criterion"))}
        cv = self.document.get("cv") or len(self.folds)
        return [_fold_row(about, i, cv, f) for i, f in enumerate(self.folds)]

    def render(self, stream, fmt: str = "table") -> None:
        from dtcli.reporting.report import render_evaluation

        render_evaluation(self.document, fmt, stream)
        _render_tuning(self.document, fmt, stream)

    def _repr_html_(self) -> str:
        """The command's tables (its numbers as it formats them: counts, seconds)."""
        from dtcli.reporting.report import evaluation_sections

        return "".join(_table(header, [[_cell(v) for v in row] for row in rows], title)
                       for title, header, rows in evaluation_sections(self.document))


def _render_tuning(document: dict, fmt: str, stream) -> None:
    """A tuned method's both selections, after the table (the JSON holds them already)."""
    if "tuning" in document and fmt in ("table", "markdown"):
        from dtcli.tuning.report import render_tuning

        render_tuning(document["tuning"], fmt, stream)


def _method_label(criterion: dict | None) -> str:
    if not criterion:
        return ""
    params = "".join(f":{k}={v if isinstance(v, str) else f'{v:g}'}"
                     for k, v in (criterion.get("params") or {}).items())
    return f"{criterion.get('name')}{params}"


class Comparison(_Result):
    """Methods compared over datasets: `document` (`dtree compare -f json`: the mean
    scores, average ranks, Friedman and Iman-Davenport tests, Nemenyi's critical
    difference, the tests against the base, the tuned methods' both selections and
    their optimism), and `folds[(dataset, method)]`, each fold's results."""

    def __init__(self, document: dict, folds: dict[tuple[str, str], list[dict]]):
        self.document, self.folds = document, folds

    @property
    def datasets(self) -> list[str]:
        return self.document["datasets"]

    @property
    def methods(self) -> list[str]:
        return self.document["criteria"]

    @property
    def means(self) -> dict[str, dict[str, float]]:
        """dataset -> method -> the mean of the metric over its folds."""
        return {d: {m: s["mean"] for m, s in row.items()}
                for d, row in self.document["scores"].items()}

    @property
    def ranks(self) -> dict[str, float]:
        return self.document["average_ranks"]

    @property
    def friedman(self) -> dict | None:
        return self.document["friedman"]

    @property
    def iman_davenport(self) -> dict | None:
        return self.document["iman_davenport"]

    @property
    def nemenyi(self) -> dict | None:
        return self.document["nemenyi"]

    @property
    def optimism(self) -> dict[str, dict[str, float]]:
        """Tuned method -> dataset -> how much the papers' selection (on the outer
        folds) overstates the nested one."""
        tuning = self.document.get("tuning", {}).get("methods", {})
        return {m: {d: r["optimism"] for d, r in by_dataset.items()}
                for m, by_dataset in tuning.items()}

    def render(self, stream, fmt: str = "table", show_sd: bool = False) -> None:
        from dtcli.reporting.comparison import render_comparison

        render_comparison(self.document, fmt, stream, show_sd=show_sd)
        _render_tuning(self.document, fmt, stream)

    def calibration_plot(self, method: str) -> str:
        """The reliability diagram of `method`'s pooled out-of-fold probabilities on the
        comparison's one dataset, as SVG."""
        from dtcli.export.plots import reliability_diagram

        calibration = self.document.get("calibration")
        if not calibration:
            raise ParameterError("reliability diagrams are drawn for a comparison on one "
                                 "dataset")
        return reliability_diagram(calibration[method],
                                   f"{method} on {self.document['datasets'][0]}")

    @property
    def bayes(self) -> dict | None:
        """The Bayesian comparisons of the base against each other method (compare's
        `bayes=True`): {rope, base, signed_rank: method -> {better, equivalent, worse},
        correlated_t: dataset -> method -> {...}, ...}; None without them."""
        return self.document.get("bayes")

    def cd_diagram(self) -> str:
        """The critical-difference diagram, as SVG text (needs two datasets)."""
        from dtcli.reporting.cd_diagram import comparison_svg

        return comparison_svg(self.document)

    def _fold_rows(self) -> list[dict]:
        cv = self.document.get("cv") or 1
        return [_fold_row({"dataset": d, "method": m}, i, cv, fold)
                for (d, m), folds in self.folds.items() for i, fold in enumerate(folds)]

    def _repr_html_(self) -> str:
        doc = self.document
        rows = [[_cell(d)] + [_cell(doc["scores"][d][m]["mean"], m in doc["best"][d])
                              for m in self.methods] for d in self.datasets]
        rows.append([_cell("average rank")] + [_cell(self.ranks[m]) for m in self.methods])
        what = doc.get("metric") or "score"
        parts = [_table(["dataset", *self.methods], rows, f"mean {what} (best in bold)")]
        notes = []
        if doc.get("friedman"):
            notes.append(f"Friedman p = {doc['friedman']['p']:.4g}")
        if doc.get("iman_davenport"):
            notes.append(f"Iman-Davenport p = {doc['iman_davenport']['p']:.4g}")
        if doc.get("nemenyi"):
            notes.append(f"Nemenyi CD = {doc['nemenyi']['cd']:.3f}")
        if doc.get("friedman"):  # without a post-hoc test, the ranks and why (Demsar 2006)
            parts.append(self.cd_diagram())
        parts.insert(1, f"<p>{html.escape('; '.join(notes))}</p>" if notes else "")
        return "".join(parts)


class Tuning(_Result):
    """A grid search: `document` (`dtree tune -f json`), `search` (the SearchResult:
    every point's fold results), `best_params`, `best_score`."""

    def __init__(self, document: dict, search):
        self.document, self.search = document, search

    @property
    def best_params(self) -> dict[str, float]:
        return self.document["best_params"]

    @property
    def best_score(self) -> float:
        return self.document["best_score"]

    def render(self, stream, fmt: str = "table") -> None:
        from dtcli.tuning.report import render_search

        render_search(self.document, fmt, stream)

    def _fold_rows(self) -> list[dict]:
        cv = self.search.protocol.cv
        return [_fold_row(dict(point), i, cv, fold)
                for point, folds in zip(self.search.points, self.search.folds)
                for i, fold in enumerate(folds)]

    def _repr_html_(self) -> str:
        names = list(self.document["grid"])
        rows = [[_cell(r["params"][n]) for n in names]
                + [_cell(r["mean"], r["params"] == self.best_params), _cell(r["std"])]
                for r in self.document["results"]]
        return _table([*names, "mean", "std"], rows,
                      f"{self.document['metric']} by grid point (best in bold)")
