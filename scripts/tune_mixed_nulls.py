"""Tune the mixed nulls of the proving ground: the separation at which a stable learner is as accurate as an unstable one.

For each pair of :data:`simstudy.apps.proving.scenarios.MIXED_PAIRS`, each size
of ``MIXED_SIZES`` and each training share (90% and 50% of the cases), the
unstable learner's expected accuracy on view B (``delta_b = 1.5``) is measured
over ``--train-sets`` training sets, each scored on a fresh test set of
``--test-cases`` cases.  The stable learner's expected accuracy on view A is
then measured the same way on the same standard-normal draws for any
``delta_a`` (common random numbers make it a smooth increasing function of
``delta_a``), and Brent's method finds the ``delta_a`` at which the two are
equal.  Where the unstable learner sees both views (``AB``) its accuracy moves
with ``delta_a`` too, and both are measured on the same draws at every
``delta_a`` tried.  The mean of the two separations (90% and 50%), rounded to 3 decimals,
goes into ``MIXED_NULL_DELTAS`` in ``simstudy/apps/proving/scenarios.py``; the
stored truth (``scripts/make_proving_truth.py``) then measures both gaps again
with other draws, and the scenario is a null at each share where the gap is
within half a point of 0.

    .venv/bin/python scripts/tune_mixed_nulls.py             # prints the table to paste
"""

from __future__ import annotations

import argparse
import sys
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simstudy.apps.proving.scenarios import BASE_DELTA, MIXED_PAIRS, MIXED_SIZES  # noqa: E402
from simstudy.apps.proving.worlds import VIEW_LEARNERS  # noqa: E402

SEED = 20261206
N_VIEW = 2


def _draws(n_train, train_sets, test_cases, rng):
    """Standard-normal draws of the training and test cases of one view (class 1 first, as the world samples)."""
    z = rng.standard_normal((train_sets, n_train + test_cases, N_VIEW))
    y = np.zeros(n_train + test_cases, dtype=np.int64)
    y[: n_train // 2] = 1
    y[n_train : n_train + test_cases // 2] = 1
    return z, y


def _mean_accuracy(kind, deltas, views, y, n_train):
    """Accuracy per training set of the learner ``kind`` on the views ``views`` (standard-normal draws, one array
    per view) with the class separations ``deltas``."""
    sign = np.where(y == 1, 0.5, -0.5)[:, None] / np.sqrt(N_VIEW)
    acc = np.empty(views[0].shape[0])
    cols = tuple(range(N_VIEW * len(views)))
    for t in range(acc.size):
        X = np.hstack([z[t] + sign * d for z, d in zip(views, deltas)])
        model = VIEW_LEARNERS[kind](cols).fit(X[:n_train], y[:n_train])
        acc[t] = np.mean(model.predict(X[n_train:]) == y[n_train:])
    return acc


def tune(stable, unstable, sees, n, share, train_sets, test_cases):
    from scipy.optimize import brentq

    n_train = int(round(0.9 * n)) if share == 0.9 else n // 2
    name = f"{stable}-{unstable}-{n}-{share}" + ("-ab" if sees == "AB" else "")
    rng = np.random.default_rng([SEED, zlib.crc32(name.encode())])
    zb, y = _draws(n_train, train_sets, test_cases, rng)
    za, _ = _draws(n_train, train_sets, test_cases, rng)
    if sees == "AB":
        both = {}

        def gap(d):
            both[d] = _mean_accuracy(unstable, (d, BASE_DELTA), (za, zb), y, n_train)
            return _mean_accuracy(stable, (d,), (za,), y, n_train).mean() - both[d].mean()

        delta = brentq(gap, 0.05, 4.0, xtol=1e-4)
        target = both.get(delta, _mean_accuracy(unstable, (delta, BASE_DELTA), (za, zb), y, n_train))
    else:
        target = _mean_accuracy(unstable, (BASE_DELTA,), (zb,), y, n_train)
        delta = brentq(
            lambda d: _mean_accuracy(stable, (d,), (za,), y, n_train).mean() - target.mean(), 0.05, 4.0, xtol=1e-4
        )
    se = target.std(ddof=1) / np.sqrt(train_sets)
    return (stable, unstable, sees, n), share, float(delta), float(target.mean()), float(se)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--train-sets", type=int, default=1000, help="training sets per learner and size (default 1000)")
    p.add_argument("--test-cases", type=int, default=4000, help="fresh test cases per training set (default 4000)")
    p.add_argument("--jobs", type=int, default=2, help="parallel processes (default 2)")
    args = p.parse_args(argv)
    from joblib import Parallel, delayed

    found = Parallel(n_jobs=args.jobs)(
        delayed(tune)(a, b, sees, n, share, args.train_sets, args.test_cases)
        for a, b, sees in MIXED_PAIRS
        for n in MIXED_SIZES
        for share in (0.9, 0.5)
    )
    by_pair: dict = {}
    for key, share, delta, acc, se in found:
        by_pair.setdefault(key, []).append(f"{share:.0%}: {delta:.3f}, accuracy {100 * acc:.2f}% (se {100 * se:.2f})")
        by_pair.setdefault((key, "deltas"), []).append(delta)
    print("MIXED_NULL_DELTAS = {")
    for key in dict.fromkeys(f[0] for f in found):
        mean = round(float(np.mean(by_pair[(key, "deltas")])), 3)
        print(f"    {key!r}: {mean},  # {'; '.join(by_pair[key])}")
    print("}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
