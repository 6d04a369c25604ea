# randomForest on the tiny training sets written by rf_tiny.py: the test accuracy of every
# (set, seed), seeds 1..S.  Usage: Rscript rf_tiny.R DIR SEEDS NTREE
suppressPackageStartupMessages(library(randomForest))
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]; seeds <- as.integer(args[2]); ntree <- as.integer(args[3])
rows <- list()
k <- 0
while (file.exists(file.path(dir, sprintf("train_%d.csv", k)))) {
  tr <- read.csv(file.path(dir, sprintf("train_%d.csv", k)))
  te <- read.csv(file.path(dir, sprintf("test_%d.csv", k)))
  p <- ncol(tr) - 1
  lev <- sort(unique(c(tr$y, te$y)))
  for (s in 1:seeds) {
    set.seed(s)
    rf <- randomForest(tr[, 1:p, drop = FALSE], factor(tr$y, levels = lev), ntree = ntree)
    acc <- mean(as.character(predict(rf, te[, 1:p, drop = FALSE])) == as.character(te$y))
    rows[[length(rows) + 1]] <- data.frame(set = k, seed = s, acc = acc)
  }
  k <- k + 1
}
write.csv(do.call(rbind, rows), file.path(dir, "r_acc.csv"), row.names = FALSE)
