"""Replay chosen replications of every study and store their rows, or compare two such snapshots.

A refactor must not change a number.  Before it, take a snapshot; after it, take
another and compare them::

    python scripts/row_snapshot.py take before/ [--profiles smoke quick] [--per-condition 2]
    # ... change the code ...
    python scripts/row_snapshot.py take after/
    python scripts/row_snapshot.py compare before/ after/

``take`` replays replications in this process through ``simstudy.engine.replay``
(the engine's own seeds: root seed, study, condition, replication), all of them
at the smoke profile and the first ``--per-condition`` of every condition at the
others, and writes one Parquet file per study, profile and table.  ``compare``
says, per file, whether the rows are identical (same columns, dtypes and values,
NaN equal to NaN) and exits 1 if any differ or are missing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd


def take(out: Path, profiles, per_condition: int, studies=None, jobs: int = 1):
    from joblib import Parallel, delayed

    from simstudy.engine import list_studies

    out.mkdir(parents=True, exist_ok=True)
    names = studies or list_studies()
    tasks = [(name, prof) for name in names for prof in profiles]
    for line in Parallel(n_jobs=jobs)(delayed(_take_one)(out, n, p, per_condition) for n, p in tasks):
        print(line, flush=True)


def _take_one(out: Path, name: str, profile: str, per_condition: int) -> str:
    from simstudy.engine import get_study, replay
    from simstudy.engine.study import condition_key, n_replications_of

    t0 = time.perf_counter()
    study = get_study(name)
    if profile not in study.profiles:
        return f"{name}/{profile}: no such profile"
    prof = study.profile(profile)
    parts: dict[str, list[pd.DataFrame]] = {}
    for cond in study.conditions_for(prof):
        n = n_replications_of(cond, prof)
        reps = range(n) if profile == "smoke" else range(min(n, per_condition))
        for r in reps:
            for table, df in replay(study, condition_key(cond), r, profile=profile).items():
                parts.setdefault(table, []).append(df)
    for table, dfs in parts.items():
        pd.concat(dfs, ignore_index=True).to_parquet(out / f"{name}__{profile}__{table}.parquet", index=False)
    rows = sum(len(d) for dfs in parts.values() for d in dfs)
    return f"{name}/{profile}: {rows} rows in {len(parts)} tables, {time.perf_counter() - t0:.1f} s"


def compare(a: Path, b: Path) -> int:
    files = sorted({p.name for p in a.glob("*.parquet")} | {p.name for p in b.glob("*.parquet")})
    bad = 0
    for name in files:
        pa, pb = a / name, b / name
        if not pa.exists() or not pb.exists():
            print(f"{name}: only in {'after' if not pa.exists() else 'before'}")
            bad += 1
            continue
        x, y = pd.read_parquet(pa), pd.read_parquet(pb)
        try:
            pd.testing.assert_frame_equal(x, y, check_exact=True)
            print(f"{name}: identical ({len(x)} rows)")
            continue
        except AssertionError:
            pass
        try:  # the same values, stored with other integer widths?
            pd.testing.assert_frame_equal(x, y, check_exact=True, check_dtype=False)
            changed = {c: f"{x[c].dtype} -> {y[c].dtype}" for c in x if x[c].dtype != y[c].dtype}
            print(f"{name}: identical values ({len(x)} rows); storage types changed: {changed}")
        except AssertionError as exc:
            bad += 1
            print(f"{name}: DIFFERENT: {' '.join(str(exc).split())[:300]}")
    print(f"{len(files) - bad} of {len(files)} tables identical")
    return 1 if bad else 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("take")
    t.add_argument("out", type=Path)
    t.add_argument("--profiles", nargs="+", default=["smoke", "quick"])
    t.add_argument("--per-condition", type=int, default=2)
    t.add_argument("--studies", nargs="*")
    t.add_argument("--jobs", type=int, default=1)
    c = sub.add_parser("compare")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = p.parse_args(argv)
    if args.cmd == "take":
        take(args.out, args.profiles, args.per_condition, args.studies, args.jobs)
        return 0
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
