"""Study declarations, installed as :mod:`simstudy.studies`: one folder per paper, one module per study.

``bouckaert2004``, ``bouckaert_frank2004`` and ``berrar`` hold the published studies; ``demo`` and
``proving_ground`` are not a paper's.  A study is found by its name wherever it lives (see
:mod:`simstudy.engine.study`).
"""
