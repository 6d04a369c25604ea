"""Cross-check NaiveBayes, J48 and IB1 against Weka 3.6 on every UCI data set shipped with simstudy.

Usage: .venv/bin/python benchmarks/weka/crosscheck_uci.py [name ...]

Same 10 folds for Weka (run through java on ARFF files of each fold) and for our
learners; prints per data set and learner the accuracies and the number of
differing predictions.  Needs Debian's ``weka`` (java); the package does not.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import crosscheck  # noqa: E402
import j48_crosscheck  # noqa: E402

from simstudy.pipeline.data import load_uci, uci_datasets  # noqa: E402


def main(argv):
    names = argv or uci_datasets()
    print("| data | learner | Weka acc | ours acc | differing / tested |")
    print("|---|---|---|---|---|")
    totals = {}
    for name in names:
        d = load_uci(name)
        rows = crosscheck.crosscheck(d, learners=("NaiveBayes", "IB1"))
        for learner in ("NaiveBayes", "IB1"):
            r = [x for x in rows if x[0] == learner]
            n = sum(x[5] for x in r)
            line = (
                name,
                learner,
                sum(x[2] * x[5] for x in r) / n,
                sum(x[3] * x[5] for x in r) / n,
                sum(x[4] for x in r),
                n,
            )
            print("| {} | {} | {:.4f} | {:.4f} | {} / {} |".format(*line), flush=True)
            totals.setdefault(learner, [0, 0])
            totals[learner][0] += line[4]
            totals[learner][1] += n
        r = j48_crosscheck.crosscheck_j48(d)
        n = sum(x[4] for x in r)
        diff = sum(x[3] for x in r)
        print(
            f"| {name} | J48 | {sum(x[1] * x[4] for x in r) / n:.4f} | {sum(x[2] * x[4] for x in r) / n:.4f} "
            f"| {diff} / {n} |",
            flush=True,
        )
        totals.setdefault("J48", [0, 0])
        totals["J48"][0] += diff
        totals["J48"][1] += n
    for learner, (diff, n) in totals.items():
        print(f"{learner}: {diff} differing predictions of {n}")


if __name__ == "__main__":
    main(sys.argv[1:])
