"""The significance levels of the proving ground, in a module of their own.

The study stores each procedure's sign at every level up to ``ALPHA_MAX`` and
judges at ``ALPHA``; the report, its figures, its plug-in rows and its
statements read them from here, so that none of them imports the study module
(which reaches the report, lazily, for its page).
"""

ALPHA = 0.05
ALPHA_MAX = 0.5  # the stored sign holds for every level up to this one
