"""A scheme and a design registered in the user's own file (not in the package) work in run, bench, assess and the
proving ground, on one worker or two."""

import numpy as np
import pandas as pd
import pytest

from simstudy.cli import main

USER_FILE = '''
"""My study: an unstratified repeated k-fold cv and a median-of-runs scheme, registered here."""

from dataclasses import dataclass

import numpy as np
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

from simstudy import SCHEMES, Comparison, Profile, Provides, Study
from simstudy.pipeline.designs import DesignSpec, register_design
from simstudy.pipeline.schemes import register_scheme


class Unstratified:
    """r runs of k folds dealt at random, whatever the classes."""

    def __init__(self, spec):
        self.r, self.k = spec.n_runs, spec.n_folds

    def fold_ids(self, y, rng):
        n = len(y)
        return np.stack([rng.permutation(np.arange(n) % self.k) for _ in range(self.r)])

    def sizes(self, y):
        n = len(y) if np.ndim(y) else int(y)
        return n - n // self.k, n // self.k

    def mean_sizes(self, y):
        n = len(y) if np.ndim(y) else int(y)
        return n - n / self.k, n / self.k


def unstratified(m):
    return DesignSpec(m.group(0), "cv", int(m.group(1)), int(m.group(2)), make_splitter=Unstratified,
                      words=f"{m.group(1)}x{m.group(2)} unstratified cv")


def median_over_runs(x):
    return np.median(x, axis=-2)


register_design(r"ucv(\\d+)x(\\d+)", unstratified, text="ucvRxK (unstratified r x k cv)", replace=True)
register_scheme("median_over_runs", median_over_runs, lambda r, k: k, citation="ours", replace=True)


@dataclass(frozen=True)
class Condition:
    n_cases: int

    @property
    def key(self):
        return f"n{self.n_cases}"


COMPARISON = Comparison((GaussianNB(), DecisionTreeClassifier()), designs=("ucv2x5", "cv2x5"),
                        schemes=(*SCHEMES, "median_over_runs"), split_sizes=True)


def replicate(cond, rng):
    X = rng.normal(size=(cond.n_cases, 3))
    y = (X[:, 0] + rng.normal(size=cond.n_cases) > 0).astype(int)
    return COMPARISON.run(X, y, rng)


STUDY = Study(
    name="my_catalogue",
    title="a scheme and a design of my own",
    conditions=lambda profile: [Condition(60)],
    replicate=replicate,
    profiles={"smoke": Profile("smoke", n_replications=4)},
    provides=Provides(paired_scores=COMPARISON.layout(groups=("n_cases",))),
)
'''


@pytest.fixture
def catalogue_kept():
    """The registries as they were: what the user's file registers does not outlive the test."""
    from simstudy.pipeline import designs, outcomes, schemes

    saved = (list(designs._FAMILIES), dict(schemes._REGISTRY), dict(outcomes._REGISTRY))
    yield
    designs._FAMILIES[:] = saved[0]
    for registry, old in ((schemes._REGISTRY, saved[1]), (outcomes._REGISTRY, saved[2])):
        registry.clear()
        registry.update(old)


def test_a_users_scheme_and_design_everywhere(tmp_path, catalogue_kept, capsys):
    from simstudy.engine import get_study, load_run, run_study

    study = tmp_path / "my_catalogue.py"
    study.write_text(USER_FILE)
    outs = {}
    for jobs in (1, 2):  # run: the workers get the user's registrations with every chunk
        out = tmp_path / f"run{jobs}"
        assert main(["run", str(study), "--profile", "smoke", "--jobs", str(jobs), "--quiet", "--out", str(out)]) == 0
        outs[jobs] = load_run(get_study(str(study)), profile="smoke", out=out).table("outcomes")
    pd.testing.assert_frame_equal(outs[1], outs[2])
    rows = outs[1]
    mine = rows[(rows["design"] == "ucv2x5") & (rows["scheme"] == "median_over_runs")]
    assert set(mine["test"]) >= {"paired_t", "sign", "signed_rank"} and len(mine) == 4 * len(set(mine["test"]))
    capsys.readouterr()

    # bench: every registered test on the stored scores, on the design it is made for or takes, said so
    assert main(["bench", str(study), "--profile", "smoke", "--test", "all", "--out", str(tmp_path / "run1")]) == 0
    text = capsys.readouterr().out
    # the study's layout reads the sample tests' input from its first r x k cv: the user's own design
    assert "median_over_runs" in text and "Designs: `paired_t` on ucv2x5" in text
    assert "`5x2cv_t` gave no result: its input does not fit design ucv2x5" in text
    assert "No size verdicts: 'my_catalogue' does not say which of its conditions are null" in text
    # a test that runs on no stored design says why, and no empty list of designs precedes it
    bench = ["bench", str(study), "--profile", "smoke", "--test", "inflated_cv_t_unstable", "--out"]
    assert main([*bench, str(tmp_path / "run1")]) == 0
    text = capsys.readouterr().out
    assert "`inflated_cv_t_unstable` gave no result:" in text and "Designs:" not in text
    assert (
        main(
            [
                "bench",
                str(study),
                "--profile",
                "smoke",
                "--test",
                "paired_t",
                "--design",
                "cv2x5",
                "--out",
                str(tmp_path / "run1"),
            ]
        )
        == 0
    )
    assert "Designs: `paired_t` on cv2x5" in capsys.readouterr().out

    # assess: the user's design by name, the user's scheme among the schemes, two workers
    from simstudy.apps.assess import assess

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] > 0).astype(int)
    a = assess(
        X,
        y,
        "NB",
        "C4.5",
        designs=("ucv2x5",),
        n_repeats=2,
        jobs=2,
        out=tmp_path / "assess",
        evidence=None,
        progress=False,
    )
    stored = a.run.table("outcomes")
    assert set(stored["condition"]) == {"ucv2x5"} and "median_over_runs" in set(stored["scheme"])
    assert "2x5 unstratified cv" in str(a) or "ucv2x5" in str(a)

    # the proving ground on the user's design, two workers
    from simstudy.apps.proving.study import proving_study
    from simstudy.apps.proving.summary import summarize

    run = run_study(proving_study(designs=("ucv2x5",)), "smoke", out=tmp_path / "pg", jobs=2, progress=False)
    tables = summarize(run)
    procs = set(tables["size"]["procedure"])
    assert "paired_t [ucv2x5, median_over_runs]" in procs and "corrected_cv_t [ucv2x5]" in procs
