"""Two versions of a compiled per-fold kernel, timed in one process, in turn.

Reproduce with, for example::

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_kernel_versions.py --kernel smo --a 72c2963 --b df67bba
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_kernel_versions.py --kernel j48 --a afe9e35 --b 0fdf7a0

On this machine the same code timed in two processes differs by up to 10%
(placement, frequency), more than the changes worth measuring here.  So both
versions of the kernel's module are read from git (``git show REV:path``; an
empty revision is the working tree), loaded side by side in this process under
their own names (with a fresh numba cache), given the same data (a source's
sample of 300 cases, ``--runs`` stratified 10-fold partitions), checked to
predict the same, and called alternately ``--reps`` times.  Printed per source:
each version's least CPU time per fit and the ratio B / A of the least times
(an A/A run of one version gives 1.00 to within 1%), with the median ratio of
the pairs of calls.

Kernels: ``j48`` (``simstudy/pipeline/learners/_j48_nominal.py``, any revision) and
``smo`` (``simstudy/pipeline/learners/_smo_weka.py`` from 72c2963 on, when its fold loop
was compiled).
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PATHS = {"j48": "simstudy/pipeline/learners/_j48_nominal.py", "smo": "simstudy/pipeline/learners/_smo_weka.py"}


def _load(kernel: str, rev: str, tag: str, where: Path):
    path = PATHS[kernel]
    if rev:
        text = subprocess.run(
            ["git", "show", f"{rev}:{path}"], cwd=ROOT, check=True, capture_output=True, text=True
        ).stdout
    else:
        text = (ROOT / path).read_text()
    text = text.replace("from ._", "from simstudy.pipeline.learners._").replace(
        "from . import", "from simstudy.pipeline.learners import"
    )
    file = where / f"{tag}.py"
    file.write_text(text)
    spec = importlib.util.spec_from_file_location(f"simstudy.pipeline.learners._version_{tag}", file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _j48_call(module, X, y, ids):
    from simstudy.pipeline.learners.j48 import J48

    Xc, yc, ncat, c, fids = J48(nominal=np.ones(X.shape[1], bool))._nominal_codes(X, y, ids)
    n = Xc.shape[0]
    args = (
        Xc,
        yc,
        fids,
        ncat,
        c,
        2.0,
        np.zeros(Xc.shape[1], np.bool_),
        False,
        module.log_table(n),
        module.error_table(n, 0.25),
        True,
        True,
    )
    extra = len(inspect.signature(module.fold_predictions.py_func).parameters) - len(args)
    if extra:  # a version with its own tuning arguments takes its defaults
        args += (module.memo_entries(n, fids.shape[0] * 10), module.MEMO_CASES)[:extra]
    return lambda: module.fold_predictions(*args)


def _smo_call(module, X, y, ids):
    args = (
        np.ascontiguousarray(X),
        y.astype(np.int64),
        ids.astype(np.int64),
        np.array([[0, 1]], dtype=np.int64),
        2,
        1.0,
        1e-3,
        1e-12,
        10_000_000,
        np.uint64(module.JavaRandom(1).seed),
    )
    return lambda: module.fold_predictions(*args)[0]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernel", choices=sorted(PATHS), required=True)
    parser.add_argument("--a", default="", help="git revision of version A (default: the working tree)")
    parser.add_argument("--b", default="", help="git revision of version B (default: the working tree)")
    parser.add_argument("--sources", default="bouckaert1,bouckaert3", help="comma-separated sources")
    parser.add_argument("--runs", type=int, default=100, help="10-fold partitions per call (default 100)")
    parser.add_argument("--reps", type=int, default=12, help="calls of each version (default 12)")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.reps < 1:
        parser.error("--runs and --reps: must be at least 1")

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["NUMBA_CACHE_DIR"] = str(Path(tmp) / "numba")  # before numba is imported
        from simstudy.pipeline.splits import stratified_fold_ids
        from simstudy.protocols.bouckaert import network_source

        a = _load(args.kernel, args.a, "a", Path(tmp))
        b = _load(args.kernel, args.b, "b", Path(tmp))
        make = _j48_call if args.kernel == "j48" else _smo_call
        print(f"kernel {args.kernel}: A = {args.a or 'working tree'}, B = {args.b or 'working tree'}")
        for name in args.sources.split(","):
            rng = np.random.default_rng(5)
            X, y = network_source(name).sample(300, rng)
            X, y = np.asarray(X, dtype=float), np.asarray(y)
            ids = np.stack([stratified_fold_ids(y, 10, rng) for _ in range(args.runs)])
            calls = {"A": make(a, X, y, ids), "B": make(b, X, y, ids)}
            if not np.array_equal(calls["A"](), calls["B"]()):
                print(f"{name}: the two versions predict differently", file=sys.stderr)
                return 1
            best = {"A": np.inf, "B": np.inf}
            ratios = []
            for rep in range(args.reps):
                took = {}
                for k in "AB" if rep % 2 == 0 else "BA":
                    t0 = time.process_time()
                    calls[k]()
                    took[k] = time.process_time() - t0
                    best[k] = min(best[k], took[k])
                ratios.append(took["B"] / took["A"])
            fits = args.runs * 10
            print(
                f"{name}: A {best['A'] / fits * 1e6:.1f} us a fit, B {best['B'] / fits * 1e6:.1f} us, "
                f"B / A {best['B'] / best['A']:.3f} (median of pairs {np.median(ratios):.3f})",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    from simstudy.engine.threads import one_thread_per_kernel

    with one_thread_per_kernel():  # one thread per kernel, as a run in one process has
        raise SystemExit(main())
