"""Statistics: significance tests, replicability, replication probability, Monte Carlo intervals, size verdicts.

For practitioners comparing their own learners: effect sizes with corrected
intervals (:mod:`.effect`), Bayesian verdicts with a region of practical
equivalence (:mod:`.bayesian`) and comparisons over several data sets and
learners (:mod:`.multiple`).

Functions of arrays only, vectorised over leading axes where a comparison is
one sample; nothing here knows about learners, studies or stored runs.
"""
