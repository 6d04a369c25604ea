# Berrar's Algorithm 4 (study 4) with R's own learners, as stored evidence for the reproduction page:
# e1071::svm and randomForest::randomForest with their defaults, 1000 cases (500 positives drawn
# N(0.3, 1) in every one of d features, 500 negatives N(0, 1)), stratified 10-fold cross-validation,
# and the variance-corrected t of Eq. 15 on the ten paired fold accuracies (n1/n2 = 100/900).
# Each (d, replication) has its own seed, so a replication can be recomputed on its own.
# Usage: Rscript benchmarks/r/alg4_evidence.R [OUT.csv [replications per d [d ...]]]
# The stored evidence the reproduction page reads is studies/berrar/r_evidence/alg4_evidence.csv (the default OUT),
# made by this script with its defaults (30 replications, d = 4, 7, 11, 17, 24, 30).
# Writes one row per replication; the R and package versions go to OUT.csv's companion OUT.versions.
suppressMessages({library(e1071); library(randomForest)})
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args) >= 1) args[1] else "studies/berrar/r_evidence/alg4_evidence.csv"
reps <- if (length(args) >= 2) as.integer(args[2]) else 30
ds <- if (length(args) >= 3) as.integer(args[-(1:2)]) else c(4, 7, 11, 17, 24, 30)
writeLines(c(
  sprintf("R %s", paste(R.version$major, R.version$minor, sep = ".")),
  sprintf("e1071 %s", as.character(packageVersion("e1071"))),
  sprintf("randomForest %s", as.character(packageVersion("randomForest"))),
  sprintf("seed per replication: 100000 * d + replication; RNGkind %s", paste(RNGkind(), collapse = "/"))
), sub("\\.csv$", ".versions", out))
tstat <- function(dd) mean(dd) / sqrt((1 / 10 + 100 / 900) * var(dd))
cat("d,replication,svm_accuracy,rf_accuracy,t\n", file = out)
for (d in ds) {
  for (rep in seq_len(reps)) {
    set.seed(100000 * d + rep)
    n <- 1000
    X <- rbind(matrix(rnorm(n / 2 * d, 0.3, 1), n / 2), matrix(rnorm(n / 2 * d), n / 2))
    y <- factor(c(rep(1, n / 2), rep(0, n / 2)))
    fold <- integer(n)
    fold[y == 1] <- sample(rep(1:10, 50))
    fold[y == 0] <- sample(rep(1:10, 50))
    a <- numeric(10); b <- numeric(10)
    for (f in 1:10) {
      tr <- fold != f
      a[f] <- mean(predict(svm(X[tr, , drop = FALSE], y[tr]), X[!tr, , drop = FALSE]) == y[!tr])
      b[f] <- mean(predict(randomForest(X[tr, , drop = FALSE], y[tr]), X[!tr, , drop = FALSE]) == y[!tr])
    }
    cat(sprintf("%d,%d,%.6f,%.6f,%.6f\n", d, rep, mean(a), mean(b), tstat(a - b)), file = out, append = TRUE)
  }
}
