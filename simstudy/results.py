"""The stored runs' reader under its public name, :mod:`simstudy.outputs.runs` itself.

``import simstudy.results`` and ``from simstudy import results`` both give that
module (this file puts it in its own place among the imported modules), so a
user's code reads stored runs the way the README shows whichever form it uses.
"""

import sys

from simstudy.outputs import runs as _runs

sys.modules[__name__] = _runs
