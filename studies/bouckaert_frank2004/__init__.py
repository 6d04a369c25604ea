"""Bouckaert and Frank 2004, "Evaluating the replicability of significance tests for comparing learning
algorithms": the simulated sources and the UCI data."""
