"""Every figure the project draws keeps its text readable: no label over another, none past the figure's edge.

Each figure is drawn from small data with the right columns (synthetic tables, rows whose p-values are
drawn here, a stand-in for a finished assessment) and checked by
:func:`simstudy.outputs.plots.layout.text_faults`; long learner and procedure names are among them.  The
slow tests draw the studies' declared figures from stored smoke runs and run the figure scripts.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from simstudy.outputs.plots import (
    berrar_binomial_figure,
    berrar_figure2,
    berrar_figure4,
    berrar_t_figure,
    berrar_wilcoxon_figure,
    bouckaert_figure2,
    critical_difference_diagram,
    describe_text_faults,
    new_figure,
    text_faults,
)

ROOT = Path(__file__).resolve().parents[2]
#: A plug-in named by a long path, as a user's own test file is.
LONG_PLUGIN = "/home/someone/projects/comparing-classifiers/plugins/my_permutation_test.py:sign_flip_with_permutations"
#: Learners named by their full scikit-learn reprs.
LONG_LEARNERS = [
    "RandomForestClassifier(n_estimators=500, max_depth=None, min_samples_leaf=2, random_state=0)",
    "NB",
    "C4.5",
    "make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=1000))",
    "stump",
    "SVC(kernel='rbf', C=10, gamma='scale')",
]


def assert_clear(fig):
    assert fig is not None
    faults = text_faults(fig)
    assert not faults, describe_text_faults(faults)


# -- Berrar's and Bouckaert's figures -----------------------------------------------------------------


def _replication_tables(n_groups=12):
    """One row per group with every model's p, P and interval, and F: the columns the study figures read."""
    rng = np.random.default_rng(5)
    p = np.sort(10 ** rng.uniform(-4, np.log10(0.045), n_groups))
    cols = {"g": np.arange(1, n_groups + 1), "q": np.arange(1, n_groups + 1), "d": np.arange(1, n_groups + 1)}
    for model in ("binomial", "bayes", "wilcoxon", "t"):
        P = np.clip(1 - 8 * p + rng.normal(0, 0.03, n_groups), 0.05, 0.99)
        cols |= {
            f"{model}_p": p * rng.uniform(0.9, 1.1, n_groups),
            f"{model}_P": P,
            f"{model}_P_low": np.clip(P - 0.3, 0, 1),
            f"{model}_P_high": np.clip(P + 0.1, 0, 1),
        }
    cols["binomial_statistic"] = np.arange(n_groups) + 30
    cols["F"] = np.clip(cols["t_P"] + rng.normal(0, 0.05, n_groups), 0, 1)
    table = pd.DataFrame(cols)
    return {"binomial": table, "wilcoxon": table, "t": table}


@pytest.mark.parametrize(
    "draw",
    [
        lambda t, ax: berrar_binomial_figure(t, ax, profile="quick", title="Study 1: NB vs SVM over 20 data sets"),
        lambda t, ax: berrar_wilcoxon_figure(t, ax, profile="quick", title="Study 2: NB vs SVM over 44 data sets"),
        lambda t, ax: berrar_wilcoxon_figure(
            {"wilcoxon": t["wilcoxon"].rename(columns=lambda c: c.replace("wilcoxon_", "wilcoxon_s1_"))},
            ax,
            profile="quick",
            title="Study 2: NB vs SVM over 44 data sets",
        ),
        lambda t, ax: berrar_t_figure(
            t, ax, profile="quick", title="Study 3: SVM with oracle vs SVM", group="q", first=1
        ),
        lambda t, ax: berrar_t_figure(t, ax, profile="quick", title="Study 4: the k-NN learner", group="d", first=3),
    ],
    ids=["binomial", "wilcoxon", "wilcoxon-s1", "t-q", "t-d"],
)
def test_study_figures(draw):
    fig = new_figure()  # as render_study_figure draws a declared figure
    draw(_replication_tables(), fig.add_subplot())
    assert_clear(fig)


def test_study_figure_without_a_significant_group():
    tables = _replication_tables()
    tables["binomial"] = tables["binomial"].assign(binomial_p=0.2)
    fig = new_figure()
    berrar_binomial_figure(tables, fig.add_subplot(), profile="smoke", title="Study 1: NB vs SVM over 20 data sets")
    assert_clear(fig)


def test_analytic_figures():
    for draw in (lambda ax: berrar_figure2(ax, n=44), lambda ax: berrar_figure4(ax, nu=9)):
        fig = new_figure((7, 4.5))  # the size figures/figure2.py and figure4.py draw at
        draw(fig.add_subplot())
        assert_clear(fig)
    fig = new_figure((12, 5))
    bouckaert_figure2(fig, n_sim=200)
    assert_clear(fig)


# -- the critical-difference diagram ---------------------------------------------------------------


@pytest.mark.parametrize("names", [LONG_LEARNERS, [f"learner {i}" for i in range(9)], ["a", "b", "c"]])
def test_critical_difference_diagram(names):
    from simstudy.statistics.multiple import nemenyi_test

    k = len(names)
    res = nemenyi_test(np.random.default_rng(3).normal(np.linspace(0, 1.5, k), 0.7, (25, k)))
    ax = critical_difference_diagram(
        res.mean_ranks,
        names,
        groups=res.groups,
        critical_difference=res.critical_difference,
        title="accuracy, cv10x10, 25 data sets: Nemenyi at alpha = 0.05",
    )
    assert_clear(ax.figure)
    # the names are all there, whole (a long one on several lines)
    shown = " ".join(" ".join(t.get_text().split()) for t in ax.texts)
    assert all(name.replace(" ", "") in shown.replace(" ", "") for name in names)


def test_assess_many_figure_with_long_learner_names():
    from simstudy.apps.assess.many import ManyAssessment

    rng = np.random.default_rng(0)
    means = pd.DataFrame(rng.uniform(0.6, 0.9, (8, len(LONG_LEARNERS))), columns=LONG_LEARNERS)
    means.insert(0, "data set", [f"set {i}" for i in range(8)])
    fake = SimpleNamespace(
        tables={"means": means, "ranks": None}, labels=LONG_LEARNERS, alpha=0.05, metric="accuracy", design="cv10x10"
    )
    assert_clear(ManyAssessment.plot(fake))


# -- the assessment's figure --------------------------------------------------------------------------


def test_assessment_figure_with_long_names():
    from simstudy.apps.assess.report import _pvalue_figure

    rng = np.random.default_rng(1)
    parts = []
    for design, tests in (
        (
            "cv10x10",
            [("paired_t", s) for s in ("kfold_cv", "use_all_data", "average_over_sorted_runs")] + [("cv_t", "")],
        ),
        ("resampled10", [("resampled_t", ""), ("corrected_resampled_t", "")]),
        ("5x2cv", [("5x2cv_t", ""), ("5x2cv_f", "")]),
    ):
        for test, scheme in tests:
            p = rng.uniform(0, 1, 5) ** 3
            parts.append(
                pd.DataFrame(
                    {
                        "condition": design,
                        "scheme": scheme,
                        "test": test,
                        "pvalue": p,
                        "decision": np.where(p < 0.05, 1, 0),
                    }
                )
            )
    outcomes = pd.concat(parts, ignore_index=True)
    fake = SimpleNamespace(
        run=SimpleNamespace(table=lambda name: outcomes),
        alpha=0.05,
        a=SimpleNamespace(label=LONG_LEARNERS[0], shown=LONG_LEARNERS[0]),  # unnamed: shown by their labels
        b=SimpleNamespace(label=LONG_LEARNERS[3], shown=LONG_LEARNERS[3]),
        data=SimpleNamespace(name="/data/some/rather/long/path/to/the/users/data set file.csv"),
        effect=pd.DataFrame({"metric": ["balanced_accuracy"]}),
        table=pd.DataFrame({"repeats": [5]}),
    )
    assert_clear(_pvalue_figure(fake))


# -- the proving ground ----------------------------------------------------------------------------------

PROCEDURES = [  # design, scheme, test, liberal
    ("cv10x10", "kfold_cv", "paired_t", True),
    ("cv10x10", "", "cv_t", True),
    ("cv10x10", "", "corrected_cv_t", False),
    ("cv10x10", "average_over_sorted_runs", "paired_t", False),
    ("cv10x10", "average_over_sorted_runs", "signed_rank", False),
    ("5x2cv", "", "5x2cv_t", False),
    ("5x2cv", "", "5x2cv_f", False),
    ("resampled10", "", "resampled_t", True),
    ("resampled10", "", "corrected_resampled_t", False),
    ("cv10x10", "", "examples/permutation_test.py:sign_flip", False),
    ("cv10x10", "", LONG_PLUGIN, False),
    ("resampled10", "", LONG_PLUGIN, False),
]


@pytest.fixture(scope="module")
def proving():
    """Stored-like outcome rows of twelve procedures (two plug-ins, one with a long name) on eight Gaussian
    worlds: uniform p-values on the nulls (a power of them for the liberal ones), smaller as the effect grows."""
    from simstudy.apps.proving import summary

    scenarios = [f"gauss-{pair}-n{n}-rho0-e{e}" for pair in ("nb", "1nn") for n in (100, 1000) for e in (0, 1)]
    scenarios += ["gauss-nb-n100-rho0.6-e0", "gauss-nb-n100-rho0.6-e1"]
    rng = np.random.default_rng(0)
    n_units, n_exp = 40, 3
    grid = np.meshgrid(np.arange(n_units), np.arange(n_exp), indexing="ij")
    parts = []
    for key in scenarios:
        effect = float(key.rsplit("-e", 1)[1])
        for design, scheme, test, liberal in PROCEDURES:
            p = rng.uniform(size=(n_units, n_exp)) ** (2.5 if liberal else 1.0) * (1 - 0.9 * effect) ** 3
            parts.append(
                pd.DataFrame(
                    {
                        "condition": key,
                        "replication": grid[0].ravel(),
                        "experiment": grid[1].ravel(),
                        "design": design,
                        "scheme": scheme,
                        "test": test,
                        "pvalue": p.ravel(),
                        "sign": np.int8(1),
                    }
                )
            )
    pr = summary.procedures(pd.concat(parts, ignore_index=True))
    named = summary.named_procedures(pr.info, extra_tests=["examples/permutation_test.py:sign_flip", LONG_PLUGIN])
    return pr, named


def _board(long=True, n=12):
    """A leaderboard of ``n`` procedures that control size and two that do not, in the columns leaderboard() makes."""
    rng = np.random.default_rng(1)
    names = [f"{t} [{d}{', ' + s if s else ''}]" for d, s, t, _ in PROCEDURES if long or t != LONG_PLUGIN]
    names = [name if i < len(names) else f"{name} (copy {i})" for i, name in enumerate((names * 3)[: n + 2])]
    adjusted = np.sort(rng.uniform(40, 95, n + 2))[::-1]
    worst = np.r_[rng.uniform(2, 6, n), 12.0, 30.0]
    return pd.DataFrame(
        {
            "procedure": names,
            "controlled": [True] * n + [False, False],
            "rank": np.r_[np.arange(1, n + 1), np.nan, np.nan],
            "size": ["controls size"] * n + ["unresolved", "liberal"],
            "adjusted_power": adjusted,
            "adjusted_power_mc_low": adjusted - 4,
            "adjusted_power_mc_high": np.minimum(adjusted + 4, 100),
            "power": np.minimum(adjusted + rng.uniform(0, 5, n + 2), 100),
            "worst_null": worst,
            "worst_null_low": np.maximum(worst - 2, 0),
            "worst_null_high": worst + 2,
        }
    )


@pytest.mark.parametrize("long", [False, True], ids=["short-names", "long-names"])
@pytest.mark.parametrize("n", [1, 12])
def test_leaderboard_figure(long, n):
    """The leaderboard's two axis labels used to print over each other; each now stays under its own panel."""
    from simstudy.apps.proving.figures import leaderboard_figure

    fig = leaderboard_figure(_board(long, n))
    assert_clear(fig)
    ax1, ax2 = fig.axes
    r = fig.canvas.get_renderer()
    assert ax1.xaxis.label.get_window_extent(r).x1 < ax2.xaxis.label.get_window_extent(r).x0


def test_size_power_figure(proving):
    from simstudy.apps.proving import summary
    from simstudy.apps.proving.figures import size_power_figure

    pr, named = proving
    assert_clear(size_power_figure(summary.leaderboard(pr), named))
    # every named procedure crowded onto one point: the labels stack up beside it, each with a line to it
    procs = list(named.values())
    crowded = _board(True, n=len(procs) - 2).assign(procedure=procs, power=100.0, adjusted_power=100.0, worst_null=0.0)
    assert_clear(size_power_figure(crowded, named))


def test_calibration_and_pvalue_figures(proving):
    from simstudy.apps.proving import summary
    from simstudy.apps.proving.figures import calibration_figure, pvalues_figure

    pr, named = proving
    assert_clear(calibration_figure(summary.calibration(pr), named))
    assert_clear(pvalues_figure(summary.pvalue_distribution(pr), named))


@pytest.mark.parametrize("table", ["power", "replicability"])
def test_power_and_replicability_panels(proving, table):
    from simstudy.apps.proving import summary
    from simstudy.apps.proving.figures import gaussian_panels_figure

    pr, named = proving
    if table == "power":
        t, value = summary.power_table(pr), "rejecting"
        title = "Power against the true gap (Gaussian worlds; effect 0 = null: Type I error)"
    else:
        t, value = summary.replicability_table(pr), "r2"
        title = "Replicability R2 of the repeats against the true gap (Gaussian worlds)"
    fig = gaussian_panels_figure(t, value, named, f"{table}, %", title)
    assert len([ax for ax in fig.axes if ax.get_visible()]) == 4
    assert_clear(fig)
    # one panel only: the figure keeps the width its legend and title need
    one = t[t["scenario"].str.startswith("gauss-nb-n100-")]
    assert_clear(gaussian_panels_figure(one, value, named, f"{table}, %", title))


def test_reliability_figure():
    from simstudy.apps.proving.berrar_calibration import reliability_figure

    rng = np.random.default_rng(2)
    cal = {"reliability": {}}
    for study in ("berrar1", "berrar2", "berrar3"):
        for model in ("binomial", "Bayesian", "Wilcoxon (s*)", "Wilcoxon (s* = 1)", "t"):
            P = np.linspace(0.15, 0.95, 8)
            F = np.clip(P + rng.normal(0, 0.05, 8), 0, 1)
            cal["reliability"][(study, model)] = pd.DataFrame(
                {"mean_P": P, "observed": F, "observed_mc_low": F - 0.05, "observed_mc_high": F + 0.05}
            )
    assert_clear(reliability_figure(cal))


# -- the declared figures and the figure scripts, from stored runs -------------------------------------


@pytest.fixture(scope="module")
def smoke_runs(tmp_path_factory):
    """Every built-in study that declares figures, stored at the smoke profile."""
    from simstudy.engine import get_study, list_studies, run_study

    root = tmp_path_factory.mktemp("results")
    names = [name for name in list_studies() if get_study(name).publication.figures]
    for name in names:
        run_study(name, "smoke", out=root / name / "smoke", progress=False)
    return root, names


@pytest.mark.slow
def test_every_declared_figure_from_a_smoke_run(smoke_runs):
    from simstudy.engine import get_study, load_run
    from simstudy.outputs.plots import draw_study_figure

    root, names = smoke_runs
    assert {"berrar1", "berrar2", "berrar3", "berrar4"} <= set(names)
    for name in names:
        st = get_study(name)
        tables = st.summarize(load_run(st, profile="smoke", out=root / name / "smoke"))
        for figure in st.publication.figures:
            faults = text_faults(draw_study_figure(figure, tables, profile="smoke"))
            assert not faults, f"{name} {figure.name}:\n{describe_text_faults(faults)}"


@pytest.mark.slow
def test_every_figure_script(smoke_runs, tmp_path, monkeypatch):
    """Each script of figures/ run as it is, every figure it saves checked before it is written."""
    import simstudy.outputs.plots as plots
    from simstudy.outputs.plots import output

    root, _ = smoke_runs
    checked = []
    save = output.save_figure

    def checking(fig, directory, name, **kwargs):
        faults = text_faults(fig)
        assert not faults, f"{name}:\n{describe_text_faults(faults)}"
        checked.append(name)
        return save(fig, directory, name, **kwargs)

    monkeypatch.setattr(output, "save_figure", checking)
    monkeypatch.setattr(plots, "save_figure", checking)
    monkeypatch.syspath_prepend(str(ROOT / "figures"))
    scripts = sorted(p for p in (ROOT / "figures").glob("*.py") if p.stem not in ("_common", "table1"))
    for script in scripts:
        args = ["--out", str(tmp_path / script.stem)]
        if "bouckaert" not in script.stem and script.stem not in ("figure2", "figure4"):
            args += ["--profile", "smoke", "--results", str(root)]
        monkeypatch.setattr(sys, "argv", [str(script), *args])
        runpy.run_path(str(script), run_name="__main__")
    assert sorted(checked) == sorted(p.stem for p in scripts)
