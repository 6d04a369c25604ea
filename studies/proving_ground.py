"""The proving ground: every registered test on a bank of scenarios with a stored truth (see :mod:`simstudy.apps.proving`).

``simstudy proving-ground`` runs this study and writes its report (leaderboard,
calibration, power and replicability curves, Berrar's calibration); ``simstudy
run proving_ground`` stores the same rows.
"""

from simstudy.apps.proving.study import proving_study

STUDY = proving_study()
