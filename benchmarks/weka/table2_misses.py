"""The largest misses of Bouckaert's Table 2, measured against Weka 3.6's own cross-validation.

Usage: .venv/bin/python benchmarks/weka/table2_misses.py RUN [--seeds 10] [--out benchmarks/weka/table2_misses.csv]

RUN is a stored paper-profile run of ``bouckaert2`` (``simstudy run bouckaert2 --profile paper``).  For each
printed cell of the table whose count of accepts is farthest from ours (rank and t tests; the sign cells'
misses follow from the sign test's convention, see the reproduction page), it sets side by side:

* Weka 3.6's own 10-fold cross-validated accuracy of both learners on the shipped ARFF file, over
  ``--seeds`` seeds (``java weka.classifiers... -t FILE -x 10 -s SEED``), and their difference;
* ours: the mean fold accuracies of the stored run (10 experiments x 10 runs x 10 folds) and their
  difference, and the mean and SD over the 10 experiments of the sorted-runs statistic;
* the statistic the published count needs: the mean statistic at which a normal spread of the
  statistic (our SD) gives the published share of accepts (|statistic| below the critical value), and
  the accuracy difference that means at our spread of fold differences (the statistic grows in
  proportion to the mean difference);
* the order of the training cases: each learner's accuracy over 5 x 10 stratified folds with its
  training cases in the file's order (as our runs fit them) and shuffled (as Weka's cross-validation
  presents them, after randomising the data): IB1 breaks distance ties by the first training case.

Needs Debian's ``weka`` (java); the package does not.  Writes a CSV and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
from scipy import optimize, stats

ROOT = Path(__file__).resolve().parents[2]
WEKA = {
    "NB": "weka.classifiers.bayes.NaiveBayes",
    "C4.5": "weka.classifiers.trees.J48",
    "NN": "weka.classifiers.lazy.IB1",
}
JAR = "/usr/share/java/weka.jar"


def weka_accuracy(learner: str, arff: Path, seed: int) -> float:
    out = subprocess.run(
        ["java", "-Xmx1g", "-cp", JAR, WEKA[learner], "-t", str(arff), "-x", "10", "-s", str(seed), "-o", "-v"],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    ).stdout
    m = re.search(r"Correctly Classified Instances\s+\d+\s+([\d.]+)\s*%", out)
    return float(m.group(1)) / 100


def needed_mean(accepts: int, sd: float, critical: float) -> float:
    """The mean statistic whose N(mean, sd) lies within +-critical with probability accepts / 10."""
    share = min(max(accepts / 10, 0.005), 0.995)

    def f(mu):
        return stats.norm.cdf((critical - mu) / sd) - stats.norm.cdf((-critical - mu) / sd) - share

    return float(optimize.brentq(f, 0.0, 50.0)) if f(0.0) > 0 else 0.0


def _by_order(name: str, learner: str) -> tuple[float, float]:
    """Mean accuracy over 5 x 10 stratified folds, training cases in the file's order and shuffled."""
    from sklearn.model_selection import StratifiedKFold

    from simstudy.protocols.bouckaert import load_uci_for_learning, uci_learner_factories

    X, y, _, _ = load_uci_for_learning(name)
    (make,) = uci_learner_factories((learner,), name)
    acc = {"file": [], "shuffled": []}
    for seed in range(5):
        rng = np.random.default_rng(seed)
        for train, test in StratifiedKFold(10, shuffle=True, random_state=seed).split(X, y):
            for how, rows in (("file", np.sort(train)), ("shuffled", rng.permutation(train))):
                acc[how].append(float((make().fit(X[rows], y[rows]).predict(X[test]) == y[test]).mean()))
    return float(np.mean(acc["file"])), float(np.mean(acc["shuffled"]))


def main(argv) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--cells", type=int, default=6)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "weka" / "table2_misses.csv"))
    args = parser.parse_args(argv)

    import pandas as pd

    from simstudy.engine import get_study, load_run
    from simstudy.pipeline.data.uci import verify_uci

    st = get_study("bouckaert2")
    run = load_run(st, profile="paper", out=args.run)
    cells = st.summarize(run)["cells"]
    printed = cells[cells["published_accepts"].notna() & cells["test"].isin(["rank", "t"])].copy()
    printed["miss"] = (printed["accepts"] - printed["published_accepts"]).abs()
    worst = printed.sort_values(["miss", "dataset"], ascending=[False, True]).head(args.cells)
    scores, outcomes = run.table("scores"), run.table("outcomes")
    rows = []
    for cell in worst.itertuples():
        a, b = cell.pair.split("-")
        arff = verify_uci(cell.dataset)
        weka = {x: [weka_accuracy(x, arff, s) for s in range(1, args.seeds + 1)] for x in (a, b)}
        mine = scores[scores["dataset"] == cell.dataset]
        o = outcomes[(outcomes["dataset"] == cell.dataset) & (outcomes["pair"] == cell.pair)]
        o = o[o["test"] == cell.test]
        stat = o["statistic"].to_numpy(dtype=float)
        critical = stats.t.isf(0.025, 9) if cell.test == "t" else stats.norm.isf(0.025)
        sd = float(stat.std(ddof=1)) if len(stat) > 1 else float("nan")
        need = needed_mean(int(cell.published_accepts), sd, critical) if np.isfinite(sd) and sd > 0 else float("nan")
        ours_diff = float((mine[f"acc_{a}"] - mine[f"acc_{b}"]).mean())
        order = {x: _by_order(cell.dataset, x) for x in (a, b)}
        rows.append(
            {
                "dataset": cell.dataset,
                "test": cell.test,
                "pair": cell.pair,
                "published_accepts": int(cell.published_accepts),
                "our_accepts": int(cell.accepts),
                f"weka_{a}": float(np.mean(weka[a])),
                f"weka_{b}": float(np.mean(weka[b])),
                "weka_difference": float(np.mean(weka[a]) - np.mean(weka[b])),
                "weka_difference_sd": float(np.std(np.subtract(weka[a], weka[b]), ddof=1)),
                "our_difference": ours_diff,
                "our_mean_statistic": float(np.abs(stat).mean()),
                "our_statistic_sd": sd,
                "statistic_needed": need,
                "difference_needed": ours_diff * need / float(np.abs(stat.mean())) if stat.mean() else float("nan"),
                **{f"{x}_file_order": order[x][0] for x in (a, b)},
                **{f"{x}_shuffled": order[x][1] for x in (a, b)},
            }
        )
    frame = pd.DataFrame(rows)
    frame.to_csv(args.out, index=False, float_format="%.4g")
    from simstudy.outputs.tables import markdown_table

    print(markdown_table(frame))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
