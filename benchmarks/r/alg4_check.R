# Berrar's Algorithm 4 (study 4) run with R itself: e1071 svm and randomForest with their
# defaults, 1000 cases (500 positives N(0.3, 1) in every feature), stratified 10-fold cv, the
# variance-corrected t of Eq. 15. Prints per replication the mean accuracies and t, for the
# forest as a classifier (factor labels) and, as a what-if, as a regression forest on 0/1 labels.
# Usage: Rscript benchmarks/r/alg4_check.R [replications per d]
suppressMessages({library(e1071); library(randomForest)})
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args)) as.integer(args[1]) else 2
set.seed(1)
for (d in c(11, 24)) {
  for (rep in seq_len(reps)) {
    n <- 1000
    X <- rbind(matrix(rnorm(n / 2 * d, 0.3, 1), n / 2), matrix(rnorm(n / 2 * d), n / 2))
    y <- factor(c(rep(1, n / 2), rep(0, n / 2)))
    fold <- integer(n)
    fold[y == 1] <- sample(rep(1:10, 50))
    fold[y == 0] <- sample(rep(1:10, 50))
    a <- c(); b <- c(); br <- c()
    yn <- as.numeric(as.character(y))
    for (f in 1:10) {
      tr <- fold != f
      a <- c(a, mean(predict(svm(X[tr, ], y[tr]), X[!tr, ]) == y[!tr]))
      b <- c(b, mean(predict(randomForest(X[tr, ], y[tr]), X[!tr, ]) == y[!tr]))
      br <- c(br, mean((predict(randomForest(X[tr, ], yn[tr]), X[!tr, ]) > 0.5) == (yn[!tr] == 1)))
    }
    tstat <- function(dd) mean(dd) / sqrt((1 / 10 + 100 / 900) * var(dd))
    cat(sprintf("d=%d rep=%d svm=%.3f rf=%.3f t=%.3f rf_regression=%.3f t_regression=%.3f\n",
                d, rep, mean(a), mean(b), tstat(a - b), mean(br), tstat(a - br)))
  }
}
