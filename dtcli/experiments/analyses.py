"""`dtcli.skew_sweep`, `dtcli.frontier` and `dtcli.reproduce`: the analyses of
`dtree compare --imbalance`, `dtree compare --frontier` and `dtree reproduce` as library
calls (dtcli/analyses/ computes them).

    sweep = dtcli.skew_sweep(["a.dat", "b.dat"], "gini,hddt", ratios=[1, 5, 20])
    sweep.document["slopes"], sweep.plot()           # every number; the SVG plot
    dtcli.frontier("a.dat", "gini,entropy", metric="auc").document["fronts"]
    dtcli.reproduce("ihd", quick=True).tables[0].holds
"""
from __future__ import annotations

from dtcli.errors import ParameterError
from dtcli.experiments.data import Reading
from dtcli.experiments.notes import saved
from dtcli.experiments.pool import one_pool


class Analysis:
    """A skew sweep or a pruning frontier: `document` (what the command prints with
    `-f json`; `to_json()` is that text), `plot()` (its SVG), and in a notebook its
    tables as HTML with the plot."""

    def __init__(self, kind: str, document: dict):
        self.kind, self.document = kind, document

    def to_json(self) -> str:
        """The document as `-f json` prints it."""
        from dtcli.reporting.report import to_json

        return to_json(self.document)

    def plot(self) -> str:
        from dtcli.analyses import report

        return (report.frontier_svg if self.kind == "frontier" else report.sweep_svg)(
            self.document)

    def render(self, fmt: str, stream) -> None:
        """The report as the command writes it: table, markdown, csv or json."""
        from dtcli.analyses import report

        (report.render_frontier if self.kind == "frontier" else report.render_sweep)(
            self.document, fmt, stream)

    def _repr_html_(self) -> str:
        import io

        text = io.StringIO()
        self.render("markdown", text)
        from dtcli.export.svgkit import escape

        return f"<pre>{escape(text.getvalue())}</pre>{self.plot()}"


def _analysis(kind: str, datasets, methods, analyse, *, spec, cv, repeats, seed, jobs,
              results, scheduler, reading: Reading, quiet, outputs, options) -> Analysis:
    """Read and check the run as compare does, then `analyse(names, datasets, choices,
    options, protocol, **run)` under a progress bar."""
    from dtcli.experiments.comparison import prepare_run

    notes, fixed, tuned, names, loaded, options, protocol, store, _ = prepare_run(
        datasets, methods, spec=spec, cv=cv, repeats=repeats, seed=seed, results=results,
        scheduler=scheduler, reading=reading, force=reading.force, quiet=quiet,
        outputs=outputs or {}, inputs={}, options=options)
    if tuned:
        raise ParameterError(f"--{kind}: tune parameters in a separate run; give the "
                             "--criteria entries fixed parameters")
    choices = [method.choice for method in fixed]
    result = notes.run("cross-validating",
                       lambda progress: analyse(names, loaded, choices, options, protocol,
                                                jobs=jobs, store=store, scheduler=scheduler,
                                                progress=progress),
                       lambda: saved(store))
    result.about = {"cv": protocol.cv, "repeats": protocol.repeats, "seed": protocol.seed,
                    "options": options.estimator_params()}
    doc = result.to_json()
    notes.warn([f"dataset '{name}' cannot reach ratio(s) "
                f"{', '.join(f'{r:g}' for r in unreached)} (its training folds are more "
                "imbalanced than that): skipped there"
                for name, unreached in doc.get("skipped", {}).items() if unreached])
    return Analysis(kind, doc)


@one_pool
def skew_sweep(datasets=None, methods=None, *, ratios=(1, 2, 5, 10, 20, 50),
               minority: str | None = None, metric: str = "auc", spec: str | None = None,
               cv: int = 10, repeats: int = 1, seed: int = 0, jobs: int | None = None,
               results: str | None = None, scheduler: str | None = None, target=None,
               drop=(), input_format=None, header: bool = True, delimiter=None,
               force: bool = False, quiet: bool = False, outputs: dict | None = None,
               **options) -> Analysis:
    """Every method at every majority : minority ratio of `ratios` (a list, or text as
    --imbalance takes it): each training fold resampled to the ratio by leaving out
    minority rows (`minority`: the class, default the smaller of two), test folds
    untouched; per ratio the mean `metric` and the rank tests, per method the slope
    against ln(ratio). Keywords as `dtcli.compare`'s."""
    from dtcli.analyses.skew import parse_ratios
    from dtcli.analyses.skew import skew_sweep as sweep

    if isinstance(ratios, str):
        ratios = parse_ratios(ratios)

    def analyse(names, loaded, choices, options, protocol, **run):
        return sweep(names, loaded, choices, options, protocol, list(ratios), metric=metric,
                     minority=minority, **run)

    return _analysis("imbalance", datasets, methods, analyse, spec=spec, cv=cv,
                     repeats=repeats, seed=seed, jobs=jobs, results=results,
                     scheduler=scheduler, reading=Reading(target, tuple(drop), input_format,
                                                          header, delimiter, force),
                     quiet=quiet, outputs=outputs, options=options)


@one_pool
def frontier(datasets=None, methods=None, *, metric: str = "accuracy", spec: str | None = None,
             cv: int = 10, repeats: int = 1, seed: int = 0, jobs: int | None = None,
             results: str | None = None, scheduler: str | None = None, target=None, drop=(),
             input_format=None, header: bool = True, delimiter=None, force: bool = False,
             quiet: bool = False, outputs: dict | None = None, **options) -> Analysis:
    """Every pruning method of each method of `methods`, swept over its parameter on the
    same folds: mean leaves against mean `metric`, each method's Pareto front and the
    overall one. Keywords as `dtcli.compare`'s (no pruning option: the sweep sets it)."""
    from dtcli.analyses.frontier import frontier as sweep

    def analyse(names, loaded, choices, options, protocol, **run):
        return sweep(names, loaded, choices, options, protocol, metric=metric, **run)

    return _analysis("frontier", datasets, methods, analyse, spec=spec, cv=cv,
                     repeats=repeats, seed=seed, jobs=jobs, results=results,
                     scheduler=scheduler, reading=Reading(target, tuple(drop), input_format,
                                                          header, delimiter, force),
                     quiet=quiet, outputs=outputs, options=options)


def reproduce(paper: str, *, quick: bool = False, repeats: int | None = None,
              examples: str | None = None, jobs: int | None = None, results: str | None = None,
              scheduler: str | None = None, quiet: bool = False):
    """A paper's tables re-run (`dtree reproduce`: "ihd", "tsallis", "pidt", "fdf") on its
    datasets under `examples` (default: the project's examples/): a `Reproduction`, whose
    `tables` hold each comparison, the paired test and the claims checked."""
    from dtcli.experiments.reproduce import default_examples
    from dtcli.experiments.reproduce import reproduce as run_paper

    return run_paper(paper, examples or default_examples(), quick=quick, repeats=repeats,
                     jobs=jobs, results=results, scheduler=scheduler, quiet=quiet)
