"""The former place of :mod:`simstudy.apps.assess.report`, kept so that
``from simstudy.apps.assess_report import write_assessment``, which the documentation showed, still works: the
module is now part of the package :mod:`simstudy.apps.assess`, and this name is that module itself (every name of
it, as older code imported them from here)."""

import sys

from simstudy.apps.assess import report as _report

sys.modules[__name__] = _report
