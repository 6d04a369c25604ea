"""Start-up of the quick commands (``list``, ``status``, the calculator), against an older source tree.

Reproduce with::

    git worktree add /tmp/simstudy-base d7a46ad      # a commit before the lazy imports
    .venv/bin/python benchmarks/bench_startup.py --baseline /tmp/simstudy-base [--runs 15]

Each command is run as a fresh process (``python -m simstudy.cli ...``), with
the tree under test first on ``PYTHONPATH`` (the last row imports what a
worker imports before its first replication, through the code check's import
hook where the tree has one), the baseline tree and this one in
turn (A B A B ...), after one warm-up run each; the median wall time of each
and their ratio are printed as a Markdown table.  ``status`` reads a smoke run
of the demo study stored in a temporary directory by this checkout.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def _time(cmd, tree: Path, cwd: Path) -> float:
    env = dict(os.environ, PYTHONPATH=str(tree))
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True, help="source tree of the commit to compare with")
    parser.add_argument("--runs", type=int, default=15, help="timed runs of each command and tree (default 15)")
    args = parser.parse_args(argv)
    cli = args.baseline / "simstudy"
    if not ((cli / "cli.py").is_file() or (cli / "cli" / "__init__.py").is_file()):
        parser.error(f"--baseline: {args.baseline} is not a simstudy source tree (no simstudy/cli)")
    if args.runs < 1:
        parser.error(f"--runs: must be >= 1, got {args.runs}")
    studies = args.baseline / "simstudy" / "studies"
    if not studies.exists():  # a plain checkout: the built-in studies live in studies/, imported as simstudy.studies
        studies.symlink_to(args.baseline / "studies")

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "simstudy.cli",
                "run",
                "demo",
                "--profile",
                "smoke",
                "--quiet",
                "--out",
                str(tmp / "demo"),
            ],
            cwd=tmp,
            check=True,
            stdout=subprocess.DEVNULL,
            env=dict(os.environ, PYTHONPATH=str(HERE)),
        )
        py = [sys.executable, "-m", "simstudy.cli"]
        commands = {
            "simstudy list": py + ["list"],
            "simstudy status demo": py + ["status", "demo", "--out", str(tmp / "demo")],
            "simstudy replication-probability --model t --statistic 2.262 --df 9": py
            + ["replication-probability", "--model", "t", "--statistic", "2.262", "--df", "9"],
            "simstudy replication-probability --model bayes --wins 29 --n 44": py
            + ["replication-probability", "--model", "bayes", "--wins", "29", "--n", "44"],
            # what a worker imports before its first replication: the code check's import hook loads
            # the study's and simstudy's own modules, the installed libraries pass by it
            "import the runner, scikit-learn, pandas, scipy.stats": [
                sys.executable,
                "-c",
                "import simstudy.engine.runner, sklearn.ensemble, pandas, scipy.stats",
            ],
        }
        print(f"| command | baseline ({args.baseline.name}) | this tree | ratio (this / baseline) |")
        print("|---|---:|---:|---:|")
        for label, cmd in commands.items():
            _time(cmd, args.baseline, tmp), _time(cmd, HERE, tmp)  # warm-up: file caches, byte code
            base, ours = [], []
            for _ in range(args.runs):
                base.append(_time(cmd, args.baseline, tmp))
                ours.append(_time(cmd, HERE, tmp))
            b, o = statistics.median(base), statistics.median(ours)
            how = f"{b / o:.1f}x faster" if o <= b else f"{o / b:.2f}x slower"
            print(f"| `{label}` | {b:.2f} s | {o:.2f} s | {o / b:.2f} ({how}) |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
