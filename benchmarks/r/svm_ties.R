# e1071::svm with its defaults on the problems written by svm_ties.py; writes R's classes and
# decision values (17 significant digits) for every test case.
# Usage: Rscript svm_ties.R DIR   (DIR holds train_K.csv and test_K.csv, K = 0, 1, ...)
suppressPackageStartupMessages(library(e1071))
dir <- commandArgs(trailingOnly = TRUE)[1]
k <- 0
while (file.exists(file.path(dir, sprintf("train_%d.csv", k)))) {
  tr <- read.csv(file.path(dir, sprintf("train_%d.csv", k)))
  te <- read.csv(file.path(dir, sprintf("test_%d.csv", k)))
  p <- ncol(tr) - 1
  x <- tr[, 1:p, drop = FALSE]
  m <- suppressWarnings(svm(x, factor(tr$y)))
  pr <- predict(m, te[, 1:p, drop = FALSE], decision.values = TRUE)
  dv <- attr(pr, "decision.values")
  out <- data.frame(pred = as.character(pr), dec = sprintf("%.17g", dv[, 1]), orient = colnames(dv)[1])
  write.csv(out, file.path(dir, sprintf("r_%d.csv", k)), row.names = FALSE)
  k <- k + 1
}
