"""How replicable is "logistic regression beats a random forest" on the breast-cancer data?

Run it from anywhere (about a minute on two cores)::

    python examples/assess_breast_cancer.py [--jobs 2] [--repeats 10] [--metric balanced_accuracy] [--out DIR]

The same assessment from the command line, the two learners taken from this very file::

    simstudy assess breast_cancer.csv --a examples/assess_breast_cancer.py:logreg \\
        --b examples/assess_breast_cancer.py:forest --metric balanced_accuracy --jobs 2

Every design the papers compare (10 x 10 cv with its six sampling schemes, 5 x 2 cv, ten 90/10
resampled splits) is repeated on new random partitions of the data; both learners are fitted once per
split and every test reads the same fits.  The forest gets a new random_state in every repeat, drawn
from the repeat's own random stream, so the numbers depend only on the seed.  The run is stored
(results/assess/... by default): run the script again and it re-summarises without fitting.
"""

from __future__ import annotations

import argparse

from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from simstudy.apps.assess import assess
from simstudy.apps.assess_report import write_assessment

# the learners, importable by the command line as examples/assess_breast_cancer.py:logreg and :forest
logreg = make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))
forest = RandomForestClassifier(n_estimators=50)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="parallel workers (default 2)")
    parser.add_argument("--repeats", type=int, default=10, help="repeats of every design (default 10)")
    parser.add_argument("--metric", default="accuracy", help="scikit-learn scorer name (default accuracy)")
    parser.add_argument("--out", default=None, help="run directory (default results/assess/breast_cancer-...)")
    parser.add_argument(
        "--evidence",
        default="results",
        help="results root with stored bouckaert1 / bouckaert_frank runs (default results)",
    )
    args = parser.parse_args(argv)

    X, y = load_breast_cancer(return_X_y=True)
    out = (
        args.out
        or f"results/assess/breast_cancer-logreg-forest{'' if args.metric == 'accuracy' else '-' + args.metric}"
    )
    result = assess(
        X,
        y,
        logreg,
        forest,
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
