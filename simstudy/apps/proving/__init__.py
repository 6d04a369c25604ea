"""The proving ground: every significance test, built-in or plug-in, scored the same way on worlds with a known truth.

:mod:`.scenarios` (the bank and its stored truth), :mod:`.worlds` (the two-view
Gaussian worlds and their learners), :mod:`.study` (the Study), :mod:`.summary`
(size verdicts, power, replicability, the leaderboard), :mod:`.diagnostics`
(why a test is liberal), :mod:`.berrar_calibration` and :mod:`.report`.  Why it
is built this way: the design notes of the documentation (``docs/design.rst``).
"""

from simstudy.apps.proving.scenarios import BANK, Scenario, scenario, truth, truth_table
from simstudy.apps.proving.study import DEFAULT_DESIGNS, STUDY_NAME, parse_designs, proving_study

__all__ = [
    "BANK",
    "Scenario",
    "scenario",
    "truth",
    "truth_table",
    "DEFAULT_DESIGNS",
    "STUDY_NAME",
    "parse_designs",
    "proving_study",
]
