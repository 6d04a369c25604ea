"""How replicable is "logistic regression beats a random forest" on the breast-cancer data?

Run it from anywhere (seconds; with --full, minutes on two cores)::

    python examples/assess_breast_cancer.py [--jobs 2] [--full] [--repeats N] [--metric balanced_accuracy] [--out DIR]

The same assessment from the command line, the two learners taken from this very file::

    simstudy assess breast_cancer.csv --a examples/assess_breast_cancer.py:logreg \\
        --b examples/assess_breast_cancer.py:forest --metric balanced_accuracy --jobs 2

The 5 x 2 cv is repeated on new random partitions of the data (with --full: every design the papers
compare, 10 x 10 cv with its six sampling schemes, 5 x 2 cv, ten 90/10 resampled splits); both learners
are fitted once per split and every test reads the same fits.  The report opens with its Conclusion.
The forest gets a new random_state in every repeat, drawn from the repeat's own random stream, so the
numbers depend only on the seed.  The run is stored
(results/assess/... by default): run the script again and it re-summarises without fitting, and with
another --metric it scores the stored predictions without fitting.
"""

from __future__ import annotations

import argparse

from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from simstudy import assess
from simstudy.apps.assess.report import write_assessment

# the learners, importable by the command line as examples/assess_breast_cancer.py:logreg and :forest
logreg = make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))
forest = RandomForestClassifier(n_estimators=50)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="parallel workers (default 2)")
    parser.add_argument("--full", action="store_true", help="every design the papers compare, 10 repeats each")
    parser.add_argument("--repeats", type=int, default=None, help="repeats of every design (default 5; --full 10)")
    parser.add_argument("--metric", default="accuracy", help="scikit-learn scorer name (default accuracy)")
    parser.add_argument("--out", default=None, help="run directory (default results/assess/breast_cancer-...)")
    parser.add_argument(
        "--evidence",
        default="results",
        help="results root with stored evidence runs (default results; without any, the proving ground shipped "
        "with simstudy)",
    )
    args = parser.parse_args(argv)

    X, y = load_breast_cancer(return_X_y=True)
    out = args.out or f"results/assess/breast_cancer-logreg-forest{'-full' if args.full else ''}"
    result = assess(
        X,
        y,
        learners={"logreg": logreg, "forest": forest},
        full=args.full,
        n_repeats=args.repeats,
        jobs=args.jobs,
        out=out,
        metric=args.metric,
        evidence=args.evidence,
        progress=True,
    )
    print(result)
    paths = write_assessment(result)
    print("\nWrote " + ", ".join(str(p) for p in paths.values()))


if __name__ == "__main__":
    main()
