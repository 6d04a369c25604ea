"""Study 4's forests: where a replication's time goes, and what would make the forests faster.

Reproduce with::

    .venv/bin/python benchmarks/bench_study4_forest.py profile [--d 11 24]
    .venv/bin/python benchmarks/bench_study4_forest.py identical [--rounds 6] [--d 11 24]
    .venv/bin/python benchmarks/bench_study4_forest.py options [--only NAME ...] [--r-cache FILE]

``profile``: one replication of ``berrar4`` at the paper profile per d (after a
warm-up one), under cProfile with process CPU time as its clock; the shares of
oneDAL's forest training, the forest's Python work around it (scikit-learn-intelex's
validation and dispatch, our checks), oneDAL's prediction and the SVM.

``identical``: whole replications of the paper profile, in turn with the forest
as it is (``sklearnex.ensemble.RandomForestClassifier``) and fitted through
``onedal.ensemble.RandomForestClassifier`` directly with the parameters and the
seed that scikit-learn-intelex passes (no variable importance computed), which
skips the extension's validation and dispatch.  Prints the CPU seconds of each
and whether every row of every replication is the same.

``options``: changes that give other trees (4-byte floats, fewer or more
histogram bins, oneDAL's exact ``dense`` method, scikit-learn's forest).  Per
option the CPU seconds of the ten forests of one study-4-sized cross-validation
(1000 cases, stratified 10-fold) at d = 11 and d = 24, the speed against the first row,
and the mean accuracy on study 4's folds (``benchmarks/r/rbridge.py``:
``cv_tasks`` for d = 20, seed 103, the folds of the R cross-check, and d = 11 and
24, seeds 103 and 104; three random states per fold) against R's
``randomForest`` on the same folds with ``set.seed(1..3)`` when Rscript with
randomForest is installed (R's run takes several minutes; ``--r-cache FILE``
keeps R's mean accuracy in FILE and reads it from there on later runs).

The intelex backend is needed (``make setup`` installs it).  Process CPU time,
one thread per kernel as the engine's workers have: other jobs on the machine
disturb it less than wall time.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

D_VALUES = (11, 24)
R_TASKS = ((20, 103), (11, 103), (11, 104), (24, 103), (24, 104))


# --------------------------------------------------------------------------- the forest fitted through onedal


def _direct_fit(self, X, y):
    """RandomForestR.fit (intelex backend) through onedal's estimator, with scikit-learn-intelex's parameters."""
    from onedal.ensemble import RandomForestClassifier as OneDALForest

    from simstudy.pipeline.learners import rdefaults

    X, y = rdefaults._check_Xy(X, y)
    p = X.shape[1]
    self.mtry_ = max(1, int(math.floor(math.sqrt(p)))) if self.mtry is None else int(self.mtry)
    seed_forest, self._vote_seed = (int(s) for s in np.random.default_rng(self.random_state).integers(0, 2**31 - 1, 2))
    self.classes_, codes = np.unique(y, return_inverse=True)
    self.n_features_in_, self.n_regrown_ = p, 0
    if self.classes_.size < 2:
        self.forest_ = None
        return self
    # scikit-learn-intelex draws oneDAL's seed so from the estimator's random_state
    seed = np.random.RandomState(seed_forest).randint(0, np.iinfo(np.int32).max)
    self.forest_ = OneDALForest(
        n_estimators=int(self.n_estimators),
        max_features=self.mtry_,
        min_samples_split=int(self.nodesize) + 1,
        min_samples_leaf=1,
        bootstrap=True,
        random_state=seed,
        max_bins=256,
        min_bin_size=1,
        error_metric_mode="none",
        variable_importance_mode="none",
    ).fit(X, codes.astype(float), None, self.classes_.size)
    return self


def _direct_votes(self, X):
    from simstudy.pipeline.learners import rdefaults

    X = rdefaults._check_X(self, X)
    if self.forest_ is None:
        return np.full((X.shape[0], 1), self.n_estimators)
    proba = np.clip(self.forest_.predict_proba(X), 0.0, 1.0)
    return np.rint(proba * self.n_estimators).astype(np.int64)


@contextlib.contextmanager
def direct_forest():
    """RandomForestR's intelex backend fitted through onedal directly, for the duration."""
    from simstudy.pipeline.learners.rdefaults import RandomForestR

    saved = RandomForestR.fit, RandomForestR.vote_counts
    RandomForestR.fit, RandomForestR.vote_counts = _direct_fit, _direct_votes
    try:
        yield
    finally:
        RandomForestR.fit, RandomForestR.vote_counts = saved


# --------------------------------------------------------------------------- profile


def profile(d_values) -> None:
    import cProfile
    import inspect
    import pstats

    from simstudy.engine import get_study, replay
    from simstudy.pipeline.learners import rdefaults

    study = get_study("berrar4")
    replay(study, f"d{d_values[0]:02d}", 0, profile="paper")  # warm-up
    for d in d_values:
        prof = cProfile.Profile(time.process_time)
        c0 = time.process_time()
        prof.enable()
        replay(study, f"d{d:02d}", 0, profile="paper")
        prof.disable()
        total = time.process_time() - c0
        stats = pstats.Stats(prof).stats

        def cum(test):
            return sum(v[3] for k, v in stats.items() if test(k))

        def method(name, lo, hi):  # a method of rdefaults.py between two line numbers (the class)
            return lambda k: k[0].endswith("rdefaults.py") and k[2] == name and lo < k[1] < hi

        rf_line = inspect.getsourcelines(rdefaults.RandomForestR)[1]
        svm_line = inspect.getsourcelines(rdefaults.E1071SVC)[1]
        train = cum(lambda k: "decision_forest.classification.train" in k[2])
        infer = cum(lambda k: "decision_forest.classification.infer" in k[2])
        forest = cum(method("fit", rf_line, 10**9)) + cum(method("predict", rf_line, 10**9))
        svm = cum(method("fit", svm_line, rf_line)) + cum(method("predict", svm_line, rf_line))
        print(
            f"d = {d}: {total:.2f} CPU s; oneDAL forest training {train / total:.1%}, the forest's Python work "
            f"{(forest - train - infer) / total:.1%}, oneDAL prediction {infer / total:.1%}, SVM {svm / total:.1%}, "
            f"rest {(total - forest - svm) / total:.1%}",
            flush=True,
        )


# --------------------------------------------------------------------------- identical


def identical(d_values, rounds: int) -> int:
    import pandas as pd

    from simstudy.engine import get_study, replay

    study = get_study("berrar4")
    replay(study, f"d{d_values[0]:02d}", 0, profile="paper")  # warm-up
    cpu = {}
    same = True
    for r in range(rounds):
        order = ("now", "direct") if r % 2 == 0 else ("direct", "now")
        for d in d_values:
            rows = {}
            for variant in order:
                ctx = direct_forest() if variant == "direct" else contextlib.nullcontext()
                with ctx:
                    c0 = time.process_time()
                    rows[variant] = replay(study, f"d{d:02d}", r, profile="paper")
                    cpu.setdefault((variant, d), []).append(time.process_time() - c0)
            for table, frame in rows["now"].items():
                try:
                    pd.testing.assert_frame_equal(frame, rows["direct"][table], check_exact=True)
                except AssertionError:
                    same = False
                    print(f"d = {d}, replication {r}, {table}: rows differ", flush=True)
    for d in d_values:
        now, direct = statistics.median(cpu[("now", d)]), statistics.median(cpu[("direct", d)])
        print(
            f"d = {d}: {rounds} replications, median CPU s per replication: sklearnex {now:.3f}, onedal directly "
            f"{direct:.3f}, ratio {now / direct:.3f} (sums: {sum(cpu[('now', d)]) / sum(cpu[('direct', d)]):.3f})"
        )
    print("rows identical in every replication" if same else "ROWS DIFFER")
    return 0 if same else 1


# --------------------------------------------------------------------------- options


def _onedal_predictor(dtype=np.float64, **params):
    """fit-and-predict with oneDAL's forest, R's defaults as RandomForestR passes them, some parameters changed."""
    from onedal.ensemble import RandomForestClassifier as OneDALForest

    class Forest(OneDALForest):
        def _get_onedal_params(self, data):
            out = super()._get_onedal_params(data)
            out.update({k: v for k, v in params.items() if k == "method"})
            return out

    ctor = {k: v for k, v in params.items() if k != "method"}

    def fit_predict(X, y, Xt, random_state):
        seed_forest, seed_vote = (int(s) for s in np.random.default_rng(random_state).integers(0, 2**31 - 1, 2))
        classes, codes = np.unique(y, return_inverse=True)
        forest = Forest(
            n_estimators=500,
            max_features=max(1, int(math.floor(math.sqrt(X.shape[1])))),
            min_samples_split=2,
            random_state=np.random.RandomState(seed_forest).randint(0, np.iinfo(np.int32).max),
            variable_importance_mode="none",
            **ctor,
        ).fit(np.ascontiguousarray(X, dtype=dtype), codes.astype(dtype), None, classes.size)
        proba = np.clip(forest.predict_proba(np.ascontiguousarray(Xt, dtype=dtype)), 0.0, 1.0)
        votes = np.rint(proba * 500)
        noisy = votes + np.random.default_rng(seed_vote).random(votes.shape) * 0.5
        return classes[noisy.argmax(axis=1)]

    return fit_predict


def _learner_predictor(backend):
    from simstudy.pipeline.learners import RandomForestR

    def fit_predict(X, y, Xt, random_state):
        return RandomForestR(backend=backend, random_state=random_state).fit(X, y).predict(Xt)

    return fit_predict


OPTIONS = {
    "as now (oneDAL hist, 256 bins, 8-byte floats)": lambda: _learner_predictor("intelex"),
    "4-byte floats": lambda: _onedal_predictor(np.float32),
    "128 bins": lambda: _onedal_predictor(max_bins=128),
    "64 bins": lambda: _onedal_predictor(max_bins=64),
    "32 bins": lambda: _onedal_predictor(max_bins=32),
    "4-byte floats, 64 bins": lambda: _onedal_predictor(np.float32, max_bins=64),
    "1024 bins (a bin per value)": lambda: _onedal_predictor(max_bins=1024),
    "oneDAL dense (exact splits)": lambda: _onedal_predictor(method="dense"),
    "scikit-learn's forest": lambda: _learner_predictor("sklearn"),
}


def options(only, r_cache) -> None:
    sys.path.insert(0, str(Path(__file__).with_name("r")))
    import rbridge

    from simstudy.pipeline.sources import berrar_cv_source
    from simstudy.pipeline.splits import stratified_fold_ids

    tasks = [t for d, s in R_TASKS for t in rbridge.cv_tasks(d, s, learners=("rf",), rf_seeds=3)]
    r_acc = None
    if r_cache is not None and r_cache.exists():
        r_acc = json.loads(r_cache.read_text())["mean_accuracy"]
    elif rbridge.r_available():
        with tempfile.TemporaryDirectory() as tmp:
            out, _ = rbridge.run_r(tmp, tasks)
        r_acc = float(np.mean([(out[(t.id, "rf")] == t.y_test[:, None]).mean() for t in tasks]))
        if r_cache is not None:
            r_cache.write_text(json.dumps({"tasks": R_TASKS, "seeds": 3, "mean_accuracy": r_acc}) + "\n")
    if r_acc is not None:
        print(f"R randomForest: mean accuracy {r_acc:.4f} ({len(tasks)} folds x 3 seeds)", flush=True)
    speed = {}
    for d in D_VALUES:
        rng = np.random.default_rng([50, d])
        X, y = berrar_cv_source(d).sample(1000, rng)
        speed[d] = (X, y, stratified_fold_ids(y, 10, rng), int(rng.integers(0, 2**31 - 1)))
    base = {}
    print("| option | CPU s, 10 forests, d = 11 | d = 24 | speed vs now | mean accuracy | minus R's |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in only or OPTIONS:
        fit_predict = OPTIONS[name]()
        cpu = {}
        for d, (X, y, ids, seed) in speed.items():
            c0 = time.process_time()
            for f in range(10):
                fit_predict(X[ids != f], y[ids != f], X[ids == f], seed)
            cpu[d] = time.process_time() - c0
        base = base or cpu
        acc = np.mean(
            [(fit_predict(t.X_train, t.y_train, t.X_test, s) == t.y_test).mean() for t in tasks for s in range(3)]
        )
        ratio = (base[11] + base[24]) / (cpu[11] + cpu[24])
        vs_r = f"{acc - r_acc:+.4f}" if r_acc is not None else "-"
        print(f"| {name} | {cpu[11]:.2f} | {cpu[24]:.2f} | {ratio:.2f}x | {acc:.4f} | {vs_r} |", flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("profile")
    p.add_argument("--d", type=int, nargs="+", default=list(D_VALUES))
    i = sub.add_parser("identical")
    i.add_argument("--d", type=int, nargs="+", default=list(D_VALUES))
    i.add_argument("--rounds", type=int, default=6)
    o = sub.add_parser("options")
    o.add_argument("--only", nargs="+", choices=list(OPTIONS), metavar="NAME")
    o.add_argument("--r-cache", type=Path, help="JSON file keeping R's mean accuracy (written when missing)")
    args = parser.parse_args(argv)
    from importlib.util import find_spec

    if find_spec("sklearnex") is None:
        parser.error("the intelex backend is not installed (make setup installs it)")
    if args.cmd != "options" and any(not 4 <= d <= 30 for d in args.d):
        parser.error("--d: study 4's conditions are d = 4..30")
    if args.cmd == "identical" and args.rounds < 1:
        parser.error("--rounds: must be at least 1")
    if args.cmd == "profile":
        profile(args.d)
        return 0
    if args.cmd == "identical":
        return identical(args.d, args.rounds)
    options(args.only, args.r_cache)
    return 0


if __name__ == "__main__":
    from simstudy.engine.threads import one_thread_per_kernel

    with one_thread_per_kernel():  # one thread per kernel, as the engine's workers have
        raise SystemExit(main())
