# rpart's cp tables and pruned trees on shipped datasets, for tests/test_rpart_agreement.py.
# Run from the project root (Debian: apt-get install r-base-core r-cran-rpart):
#     Rscript tests/data/rpart/make_golden.R
# For each dataset it writes, beside this script:
#   NAME_cptable.csv  the cp table of the tree grown at cp = 0 (gini, minsplit = 20,
#                     minbucket = 7, no cross-validation): CP, nsplit, rel_error;
#   NAME_cp0.01.csv   the tree rpart grows at its defaults (cp = 0.01), one row per node
#                     in rpart's numbering (children 2i and 2i + 1): the split variable
#                     ("<leaf>" for a leaf), the cut point, ncat (-1: rows with x < cut go
#                     to child 2i; 1: rows with x >= cut do) and the class counts.
library(rpart)
here <- "tests/data/rpart"
datasets <- list(
  iris = list(file = "examples/iris.csv", target = "class", drop = character()),
  wine = list(file = "examples/balanced/wine.csv", target = "class", drop = character()),
  glass = list(file = "examples/balanced/glass.csv", target = "Type", drop = "Id"),
  bupa = list(file = "examples/balanced/bupa.csv", target = "class", drop = character()),
  pima = list(file = "examples/balanced/pima.csv", target = "class", drop = character()),
  wdbc = list(file = "examples/balanced/wdbc.csv", target = "class", drop = character()),
  sonar = list(file = "examples/balanced/sonar.csv", target = "class", drop = character()),
  # hold-out KEEL files (issue 45): the last column is the class
  ecoli1 = list(file = "tests/data/holdout/ecoli1.dat"),
  ecoli3 = list(file = "tests/data/holdout/ecoli3.dat"),
  vehicle1 = list(file = "tests/data/holdout/vehicle1.dat"),
  yeast1 = list(file = "tests/data/holdout/yeast1.dat"),
  haberman = list(file = "examples/imbalanced/haberman.dat"),
  wisconsin = list(file = "examples/imbalanced/wisconsin.dat"),
  vehicle3 = list(file = "examples/imbalanced/vehicle3.dat"),
  yeast0359 = list(file = "examples/imbalanced/yeast-0-3-5-9_vs_7-8.dat"),
  ecoli2 = list(file = "examples/imbalanced/ecoli2.dat"),
  winequality = list(file = "examples/imbalanced/winequality-red-4.dat")
)
# a KEEL file: its @attribute names, then the rows after @data
read_keel <- function(file) {
  lines <- trimws(readLines(file))
  names <- sub("^@attribute\\s+([^ \\[{]+).*$", "\\1",
               grep("^@attribute", lines, value = TRUE, ignore.case = TRUE))
  rows <- lines[(grep("^@data", lines, ignore.case = TRUE) + 1):length(lines)]
  data <- read.csv(text = rows[rows != ""], header = FALSE, strip.white = TRUE)
  names(data) <- names
  data
}
control <- function(cp) rpart.control(minsplit = 20, minbucket = 7, cp = cp, xval = 0,
                                      maxcompete = 0, maxsurrogate = 0, usesurrogate = 0)
for (name in names(datasets)) {
  d <- datasets[[name]]
  if (grepl("[.]dat$", d$file)) {
    data <- read_keel(d$file)
    d$target <- names(data)[ncol(data)]
  } else {
    data <- read.csv(d$file, check.names = FALSE)
    data <- data[, setdiff(names(data), d$drop)]
  }
  data[[d$target]] <- factor(data[[d$target]])
  formula <- as.formula(paste0("`", d$target, "` ~ ."))
  full <- rpart(formula, data = data, method = "class", control = control(0))
  cp <- full$cptable
  write.csv(data.frame(CP = sprintf("%.17g", cp[, "CP"]), nsplit = cp[, "nsplit"],
                       rel_error = sprintf("%.17g", cp[, "rel error"])),
            file.path(here, paste0(name, "_cptable.csv")), row.names = FALSE, quote = FALSE)
  fit <- rpart(formula, data = data, method = "class", control = control(0.01))
  frame <- fit$frame
  k <- nlevels(data[[d$target]])
  counts <- frame$yval2[, 2:(k + 1), drop = FALSE]
  split <- frame$var != "<leaf>"
  cut <- rep(NA_real_, nrow(frame))
  ncat <- rep(NA_integer_, nrow(frame))
  cut[split] <- fit$splits[, "index"]
  ncat[split] <- fit$splits[, "ncat"]
  write.csv(data.frame(node = rownames(frame), var = frame$var,
                       cut = ifelse(is.na(cut), "", sprintf("%.17g", cut)),
                       ncat = ifelse(is.na(ncat), "", ncat),
                       counts = apply(counts, 1, paste, collapse = ";")),
            file.path(here, paste0(name, "_cp0.01.csv")), row.names = FALSE, quote = FALSE)
}
