"""The pipeline of one replication: source -> design -> learners -> paired scores -> scheme sample -> test -> outcome.

:mod:`~simstudy.pipeline.comparison` joins the steps: it draws a design's
partitions, fits every learner once per split and runs every test on the same
fits, returning the scores and outcome rows a study stores.
"""
