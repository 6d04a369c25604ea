# e1071's naiveBayes where one class has a single training case (its sd is NA): type = "raw" gives NA for
# every class of every case, type = "class" still predicts among the other classes. The expected output,
# with e1071 1.7.13 on R 4.2.2, is in tests/pipeline/test_e1071_nb_single_row.py.
# Usage: Rscript benchmarks/r/nb_single_row_class.R
suppressMessages(library(e1071))
X <- data.frame(a = c(1.0, 2.0, 1.5, 5.0, 6.0, 5.5, 9.0), b = c(0.5, 0.1, 0.3, 2.0, 2.2, 1.9, 4.0))
y <- factor(c("x", "x", "x", "y", "y", "y", "z"))
m <- naiveBayes(X, y)
new <- data.frame(a = c(1.2, 5.8, 9.1), b = c(0.2, 2.1, 3.9))
print(predict(m, new, type = "raw"))
print(predict(m, new))
print(packageVersion("e1071"))
