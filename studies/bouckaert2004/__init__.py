"""Bouckaert 2004, "Estimating replicability of classifier learning experiments": Table 1 (and on matched
sources), Table 2 on the UCI data, and the further experiments."""
