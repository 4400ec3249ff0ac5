"""`TunedClassifier`: a decision tree whose parameters are chosen by cross-validation.

    tree = DecisionTreeClassifier(criterion="tsallis", criterion_params={"q": "auto"},
                                  min_samples_leaf=5)
    TunedClassifier(tree, cv=10).fit(X, y).best_params_   # {'q': 2.6}

A criterion parameter given as "auto" is searched over the papers' default
grid (`grid.DEFAULT_GRIDS`), and so is S-pruning's `significance="auto"` (the
PIDT paper's {0.01, 0.05, 0.1}); `grid` adds or overrides parameters, criterion
parameters or tree options alike ({"q": [0.5, 1.5], "min_samples_leaf": "1:10:1"}).
The tree's own options, its pruning among them, hold at every grid point.
`fit` scores every point on the same seeded folds (`search.grid_search`,
through the runner: with n_jobs > 1, in worker processes, which run dtree's code
only: dtcli.processes), then refits the best on all rows.
"""
from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from dtcli.errors import ParameterError
from dtcli.estimator import DecisionTreeClassifier
from dtcli.tuning.grid import AUTO, auto_options, default_grid, parse_values

_PARAMS = ("tree", "grid", "cv", "repeats", "seed", "scoring", "n_jobs")


class TunedClassifier:
    """A `DecisionTreeClassifier` tuned by grid search over seeded stratified folds.

    `tree` (default: a Tsallis tree) gives the criterion and every fixed option; its
    criterion parameters given as "auto" are searched over the papers' grids, and
    `grid` adds parameters or overrides values. After `fit`: `best_params_` (the
    chosen values), `best_score_` (their mean cross-validated `scoring`),
    `cv_results_` (scikit-learn's layout: `params`, `mean_test_score`,
    `std_test_score`, `rank_test_score`, `param_NAME`), `best_estimator_` (a copy
    of `tree` with the chosen values, refitted on all rows), `search_` (the
    `search.SearchResult`), and the fitted tree's `classes_`. `n_jobs`: worker
    processes of the search (the runner's).
    """

    def __init__(self, tree: DecisionTreeClassifier | None = None, grid: dict | None = None,
                 cv: int = 5, repeats: int = 1, seed: int = 0, scoring: str = "accuracy",
                 n_jobs: int | None = 1):
        self.tree = tree
        self.grid = grid
        self.cv = cv
        self.repeats = repeats
        self.seed = seed
        self.scoring = scoring
        self.n_jobs = n_jobs

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _PARAMS}

    def set_params(self, **params) -> "TunedClassifier":
        for name, value in params.items():
            if name not in _PARAMS:
                raise ParameterError(f"unknown parameter '{name}' for TunedClassifier")
            setattr(self, name, value)
        return self

    def _tree(self) -> DecisionTreeClassifier:
        return self.tree if self.tree is not None else DecisionTreeClassifier(criterion="tsallis")

    def search_grid(self) -> dict[str, tuple[float, ...]]:
        """The grid searched: the default grid of every "auto" criterion parameter, then
        `grid` (values as lists or as a range text "START:STOP:STEP")."""
        tree = self._tree()
        auto = [n for n, v in (tree.criterion_params or {}).items() if v == AUTO]
        auto += auto_options(tree.get_params(deep=False))
        searched = default_grid(tree.criterion, auto) if auto else {}
        for name, values in (self.grid or {}).items():
            searched[name] = (parse_values(values, f"{name}={values}") if isinstance(values, str)
                              else tuple(float(v) for v in np.atleast_1d(values)))
        if not searched:
            raise ParameterError('nothing to tune: give a criterion parameter as "auto" or a grid')
        return searched

    def fit(self, X, y, sample_weight=None) -> "TunedClassifier":
        from dtcli.crossval.tasks import Protocol, TreeOptions
        from dtcli.io.dataset import Dataset
        from dtcli.measures.fitted import as_dataset, decide
        from dtcli.tuning.search import Search, grid_search

        if sample_weight is not None:
            raise ParameterError("TunedClassifier takes no sample_weight (use class_weight)")
        tree = self._tree()
        data = tree.fit_data(X, y)
        dataset = Dataset(data.X, data.y, data.features, tuple(str(c) for c in data.classes),
                          "class", "X")
        fixed = tuple((n, float(v)) for n, v in (tree.criterion_params or {}).items()
                      if v != AUTO)
        weights = tree.class_weight  # the runner's datasets name classes as text
        if isinstance(weights, dict):
            weights = {str(label): float(w) for label, w in weights.items()}
        # every tree option of the tree (its pruning too); an auto one's values are the grid's
        params = tree.get_params(deep=False)
        names = ({f.name for f in dataclasses.fields(TreeOptions)} & params.keys()
                 - set(auto_options(params)))  # the estimator's (no resampling)
        options = TreeOptions(**{**{n: params[n] for n in names}, "class_weight": weights})
        search = Search(tree.criterion, self.search_grid(), fixed, options.check(), self.scoring)
        self.search_ = grid_search("X", dataset, search, Protocol(self.cv, self.repeats, self.seed),
                                   jobs=self.n_jobs)
        self.best_params_ = self.search_.best_params
        self.best_score_ = self.search_.best_score
        self.cv_results_ = _cv_results(self.search_)
        choice, chosen = search.candidate(self.best_params_)
        params = {**tree.get_params(deep=False), **chosen.estimator_params(),
                  "class_weight": tree.class_weight,
                  "criterion_params": dict(choice.params) or None}
        best = DecisionTreeClassifier(**params).fit_prepared(data)
        # the tree's decision threshold, if it has one, fitted on all the rows as fit does
        self.best_estimator_ = decide(best, as_dataset(data.X, data.y, data.features,
                                                       data.classes))
        self.classes_ = self.best_estimator_.classes_
        self.n_features_in_ = self.best_estimator_.n_features_in_
        return self

    def _fitted(self) -> DecisionTreeClassifier:
        if not hasattr(self, "best_estimator_"):
            from dtcli.validation import not_fitted

            raise not_fitted(self)
        return self.best_estimator_

    def predict(self, X):
        return self._fitted().predict(X)

    def predict_proba(self, X):
        return self._fitted().predict_proba(X)

    def score(self, X, y, sample_weight=None) -> float:
        return self._fitted().score(X, y, sample_weight)


def _cv_results(result) -> dict[str, list]:
    """A SearchResult in the layout of scikit-learn's GridSearchCV.cv_results_ (ranks 1 =
    best, equal means sharing the smallest rank)."""
    rows = result.results()
    means = [r["mean"] for r in rows]
    order = sorted(means, reverse=result.search.better(1.0, 0.0))
    ranks = [order.index(m) + 1 for m in means]
    table = {"params": [r["params"] for r in rows], "mean_test_score": means,
             "std_test_score": [r["std"] for r in rows], "rank_test_score": ranks}
    for name in result.points[0]:
        table[f"param_{name}"] = [p[name] for p in result.points]
    return table
