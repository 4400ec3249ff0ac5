"""Tuning parameters by cross-validation: grids (`grid`), grid search and its nested
assessment (`search`), a tuned estimator (`estimator`), and the tuned methods of
`evaluate` and `compare` (`methods`)."""
