"""Statistics: significance tests, replicability, replication probability, Monte Carlo intervals, size verdicts.

Functions of arrays only, vectorised over leading axes; nothing here knows
about learners, studies or stored runs.
"""
