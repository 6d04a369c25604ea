# Fit Berrar's learners with their R defaults on data sets written by simstudy.
#
# Usage: Rscript benchmarks/r/learners_r.R DIR
#
# DIR/tasks.csv has columns id, learners ("nb;svm;rf"), rf_seeds (number of
# randomForest seeds, 1..rf_seeds).  For each id, DIR/<id>_train.csv and
# DIR/<id>_test.csv hold numeric columns x1..xp and a 0/1 column y.
# Writes DIR/<id>_nb.csv, DIR/<id>_svm.csv (columns pred, and dv for the svm
# decision value oriented so that positive means class "1"), DIR/<id>_rf.csv
# (one column per seed) and DIR/timing.csv (seconds of fit + predict, without
# start-up and CSV reading).
suppressPackageStartupMessages({
  library(e1071)
  library(randomForest)
})
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]
tasks <- read.csv(file.path(dir, "tasks.csv"), stringsAsFactors = FALSE)
timing <- data.frame(id = character(0), learner = character(0), seconds = numeric(0))
for (k in seq_len(nrow(tasks))) {
  id <- tasks$id[k]
  tr <- read.csv(file.path(dir, paste0(id, "_train.csv")))
  te <- read.csv(file.path(dir, paste0(id, "_test.csv")))
  x <- tr[, setdiff(names(tr), "y"), drop = FALSE]
  y <- factor(tr$y, levels = as.character(sort(unique(tr$y))))
  xt <- te[, setdiff(names(te), "y"), drop = FALSE]
  learners <- strsplit(tasks$learners[k], ";")[[1]]
  if ("nb" %in% learners) {
    t0 <- proc.time()[["elapsed"]]
    m <- naiveBayes(x, y)
    p <- predict(m, xt)
    timing <- rbind(timing, data.frame(id = id, learner = "nb", seconds = proc.time()[["elapsed"]] - t0))
    raw <- predict(m, xt, type = "raw")
    colnames(raw) <- paste0("p", levels(y))
    write.csv(data.frame(pred = as.character(p), format(raw, digits = 17)), file.path(dir, paste0(id, "_nb.csv")),
              row.names = FALSE, quote = FALSE)
  }
  if ("svm" %in% learners) {
    t0 <- proc.time()[["elapsed"]]
    m <- svm(x, y)
    p <- predict(m, xt, decision.values = TRUE)
    timing <- rbind(timing, data.frame(id = id, learner = "svm", seconds = proc.time()[["elapsed"]] - t0))
    res <- data.frame(pred = as.character(p))
    if (nlevels(y) == 2) {
      dv <- attr(p, "decision.values")[, 1]
      # The column is named "a/b": positive values vote for a.
      if (strsplit(colnames(attr(p, "decision.values"))[1], "/")[[1]][1] == levels(y)[1]) dv <- -dv
      res$dv <- format(dv, digits = 17)
    }
    write.csv(res, file.path(dir, paste0(id, "_svm.csv")), row.names = FALSE, quote = FALSE)
  }
  if ("rf" %in% learners) {
    out <- list()
    for (s in seq_len(tasks$rf_seeds[k])) {
      set.seed(s)
      t0 <- proc.time()[["elapsed"]]
      m <- randomForest(x, y)
      p <- predict(m, xt)
      timing <- rbind(timing, data.frame(id = id, learner = "rf", seconds = proc.time()[["elapsed"]] - t0))
      out[[paste0("seed", s)]] <- as.character(p)
    }
    write.csv(as.data.frame(out), file.path(dir, paste0(id, "_rf.csv")), row.names = FALSE, quote = FALSE)
  }
}
write.csv(timing, file.path(dir, "timing.csv"), row.names = FALSE, quote = FALSE)
