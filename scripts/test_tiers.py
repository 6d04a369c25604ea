"""Write tests/full_tier.txt: the tests left out of ``make test-fast`` because they take a second or more.

The fast tier is the suite (``-m 'not slow'``) less the tests named in that file. Timings come from a
pytest run with ``--durations=0 --durations-min=0`` whose output is given as LOG; a test's time is its
set-up, call and tear-down together (a module-scoped fixture counts for the first test that uses it).

    python -m pytest -q -n 2 --dist loadfile --durations=0 --durations-min=0 > durations.log
    python scripts/test_tiers.py durations.log [--seconds 1.0]

Re-run after adding slow tests; `make test-fast` prints its own time, to be kept under two minutes.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

LINE = re.compile(r"^([\d.]+)s (setup|call|teardown)\s+(\S.*)$")
HEADER = """\
# Tests run by `make test` but not by `make test-fast`: each took at least {seconds:g} s (set-up, call and
# tear-down) on 2 cores. Written by scripts/test_tiers.py from a --durations=0 run; one pytest node id a
# line; a file name alone would leave out the whole file.
"""


def times(log: str) -> Counter:
    out: Counter = Counter()
    for line in log.splitlines():
        match = LINE.match(line.strip())
        if match:
            out[match.group(3)] += float(match.group(1))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", type=Path, help="output of pytest --durations=0 --durations-min=0")
    parser.add_argument("--seconds", type=float, default=1.0, help="a test this slow or slower is left out")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "tests" / "full_tier.txt")
    args = parser.parse_args(argv)
    per_test = times(args.log.read_text())
    if not per_test:
        parser.error("log: no durations found (run pytest with --durations=0 --durations-min=0)")
    slow = sorted(node for node, t in per_test.items() if t >= args.seconds)
    args.out.write_text(HEADER.format(seconds=args.seconds) + "".join(f"{node}\n" for node in slow))
    kept = sum(t for t in per_test.values() if t < args.seconds)
    print(f"{len(slow)} of {len(per_test)} timed tests left out of the fast tier; the rest took {kept:.0f} s in all")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
