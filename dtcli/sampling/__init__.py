"""How rows are dealt into folds (stratified k-fold), below every part that draws them:
cross-validation, pruning, tuning and the analyses."""
