"""FDF, the hybrid decision forest of Wang, Zang and Xu ("Induction of a Novel Hybrid
Decision Forest Model based on Information Theory"): rules grown bottom-up ("down-top")
per sample by general information gain, combined into trees whose leaves are Naive
Bayes models. `dtcli.FDFClassifier` is the estimator; docs/fdf.md our reading."""
