"""``python -m simstudy.cli``: the simstudy command."""

import sys

from simstudy.cli import main

sys.exit(main())
