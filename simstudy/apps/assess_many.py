"""The former place of :mod:`simstudy.apps.assess.many`, kept so that ``simstudy.apps.assess_many.assess_many``,
which the documentation showed, still imports: the module is now part of the package :mod:`simstudy.apps.assess`,
and this name is that module itself (every name of it, as older code imported them from here)."""

import sys

from simstudy.apps.assess import many as _many

sys.modules[__name__] = _many
