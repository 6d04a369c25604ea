"""simstudy: Monte Carlo studies of how we compare classifiers.

The package mirrors the pipeline of a comparison study::

    sources -> splits -> learners -> scores -> schemes -> hypothesis -> outcome -> summary

and adds the two quantities the published studies estimate from outcomes:
:mod:`simstudy.replicability` (Bouckaert 2004) and :mod:`simstudy.replication`
(Berrar's replication probability).  :mod:`simstudy.engine` runs studies
declared in the top-level ``studies`` package.
"""

__version__ = "0.1.0"
