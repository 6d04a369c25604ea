"""The experimental protocols of the published studies, shared by their declarations in ``studies/``.

* :mod:`.bouckaert`: Bouckaert's sources and repeated-cv experiments (his 2004
  Tables 1 and 2 and the further experiments), the UCI data sets of both
  Bouckaert papers, the significance-level table.
* :mod:`.bouckaert_frank`: one experiment of Bouckaert and Frank (5 x 2 cv,
  resampling, repeated cv, every test of the paper) and its summary.
* :mod:`.berrar`: Berrar's benchmark experiments (Algorithms 1 and 2) and his
  cross-validation experiments (Algorithms 3 and 4) with their summaries.

A study module declares its grid, settings, published numbers and figures and
calls these; no study imports another study.
"""
