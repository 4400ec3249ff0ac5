"""Statistics for comparing classifiers over data sets (Demsar 2006): ranks, the Friedman
and Iman-Davenport tests, post-hoc tests, and their distributions."""
