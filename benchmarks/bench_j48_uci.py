"""J48 with Table 2's options over the folds of UCI data sets: the compiled split choice against numpy's.

Usage::

    .venv/bin/python benchmarks/bench_j48_uci.py [--runs 1] [--numpy-select] [--data-dir DIR] [SET ...]

Fits J48 as Bouckaert's Table 2 does (Weka's defaults, the data set's attribute
types and category counts) on every fold of ``--runs`` stratified 10-fold
cross-validations of each set (``RepeatedKFold``, seed ``--seed``) and prints the
CPU seconds per set and in all.  ``--numpy-select`` chooses every node's split
attribute by attribute with numpy (``J48._compiled_select = False``), the path
before the compiled choice; the two print the same predictions checksum.

Sets are the shipped ones by their Table 2 names, or with ``--data-dir`` ARFF files
``DIR/SET.arff`` prepared as the UCI loader prepares them (rows whose class is
missing dropped); without names, every shipped set, or every ARFF file in DIR.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np


def load(name: str, data_dir: Path | None):
    """``(X, y, nominal, n_categories, n_classes)`` of a shipped set or of ``data_dir/name.arff``."""
    if data_dir is None:
        from simstudy.protocols.bouckaert import load_uci_for_learning

        X, y, nominal, data = load_uci_for_learning(name)
    else:
        from simstudy.pipeline.data.arff import read_arff

        data = read_arff(data_dir / f"{name}.arff")
        keep = ~np.isnan(data.y)
        X, y, nominal = data.X[keep], data.y[keep].astype(np.int64), data.nominal
    ncat = tuple(len(c) if c is not None else 0 for c in data.categories)
    return X, y, nominal, ncat, len(data.class_categories)


def main(argv=None) -> int:
    from simstudy.pipeline.designs import RepeatedKFold
    from simstudy.pipeline.learners.j48 import J48
    from simstudy.pipeline.scores import fold_predictions

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="*")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--data-dir", type=Path)
    ap.add_argument("--numpy-select", action="store_true", help="the numpy choice of split (the path before)")
    args = ap.parse_args(argv)
    if args.sets:
        names = args.sets
    elif args.data_dir is not None:
        names = sorted(p.stem for p in args.data_dir.glob("*.arff"))
    else:
        from simstudy.protocols.bouckaert import available_sets

        names = available_sets()
    cls = type("J48", (J48,), {"_compiled_select": not args.numpy_select})
    total, check = 0.0, 0
    for name in names:
        X, y, nominal, ncat, c = load(name, args.data_dir)
        ids = RepeatedKFold(args.runs, min(10, int(np.bincount(y).max()))).fold_ids(y, np.random.default_rng(args.seed))
        t0 = time.process_time()
        pred = fold_predictions(X, y, ids, lambda: cls(nominal=nominal, n_categories=ncat, n_classes=c))
        sec = time.process_time() - t0
        total += sec
        check = (check * 31 + int((pred * np.arange(1, pred.size + 1).reshape(pred.shape)).sum())) % (2**61 - 1)
        print(f"{name}: {sec:.3f} s, accuracy {np.mean(pred == y[None, :]):.4f}", flush=True)
    print(f"total {total:.3f} s CPU; predictions checksum {check}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
