"""assess from numbers to a decision: the corrected tests' sizes, what baycomp is given, the Conclusion."""

from __future__ import annotations

import numpy as np
import pytest

from simstudy.apps.assess import assess, designs_for_data
from simstudy.apps.shipped_evidence import load_shipped

SMALL = dict(designs=("cv2x5",), n_repeats=2, evidence=None)


@pytest.fixture(scope="module")
def data():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    return X[::4], y[::4]  # 143 cases: 5 folds of 28.6 on average


# -- the correction with the design's mean sizes (Nadeau and Bengio's n1 and n2) ---------------


def test_the_designs_carry_their_mean_training_and_test_sizes():
    y = np.repeat([0, 1], [89, 89])  # 178 cases, as the wine data: folds of 17 and 18
    cv, two, res = designs_for_data(["cv10x10", "5x2cv", "resampled10"], y)
    assert (cv.n_train, cv.n_test) == pytest.approx((160.2, 17.8))
    assert cv.n_test / cv.n_train == pytest.approx(1 / 9)  # not 17/161, the smallest fold
    assert (two.n_train, two.n_test) == (89.0, 89.0)
    assert (res.n_train, res.n_test) == (160.0, 18.0)  # every resampled split has the same sizes


def test_corrected_p_uses_mean_sizes_and_is_larger_than_with_the_smallest_fold(tmp_path, data):
    from simstudy.statistics.significance import corrected_repeated_cv_t_test

    X, y = data
    a = assess(X, y, "NB", "C4.5", out=tmp_path / "c", **SMALL)
    d = a.designs[0]
    assert (d.n_train, d.n_test) == pytest.approx((143 - 28.6, 28.6))
    out = a.run.table("outcomes")
    s = a.scores("cv2x5")
    for repeat in range(2):
        diff = s[s["repeat"] == repeat][["NB", "C4.5"]].to_numpy(float)
        diff = (diff[:, 0] - diff[:, 1]).reshape(2, 5)
        stored = out[(out["test"] == "corrected_cv_t") & (out["replication"] == repeat)]["pvalue"].iloc[0]
        new = corrected_repeated_cv_t_test(diff, n_train=114.4, n_test=28.6).pvalue
        old = corrected_repeated_cv_t_test(diff, n_train=115, n_test=28).pvalue  # before: the smallest fold
        assert stored == pytest.approx(float(new), rel=1e-12)
        assert float(old) < float(new)  # the smaller fold's ratio 28/115 < 1/4 gave a liberal p


# -- what baycomp is given ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "design, runs",
    [("cv10x10", 10), ("cv1x10", 1), ("5x2cv", 5), ("resampled10", 1), ("resampled30-33", 10), ("resampled25", 1)],
)
def test_baycomp_runs_is_a_whole_divisor_nearest_to_the_test_share(design, runs):
    from simstudy.apps.assess import baycomp_runs

    (d,) = designs_for_data([design], np.repeat([0, 1], [61, 62]))  # 123 cases: no share is exactly whole
    r = baycomp_runs(d)
    n = d.n_runs * d.n_folds
    assert isinstance(r, int) and r == runs and n % r == 0


def test_baycomp_accepts_what_to_baycomp_returns_for_every_design(tmp_path, data):
    baycomp = pytest.importorskip("baycomp")
    from simstudy.statistics.bayesian import correlated_t_test

    X, y = data
    a = assess(X, y, "NB", "C4.5", out=tmp_path / "b", designs=("cv2x5", "5x2cv", "resampled10"), n_repeats=2)
    for d in a.designs:
        x, y_, runs = a.to_baycomp(d.key)
        assert isinstance(runs, int)
        p = baycomp.two_on_single(x, y_, rope=0.01, runs=runs)  # refused a non-integer before
        assert len(p) == 3
        if d.kind != "resampled":  # the same correlation as ours: the same probabilities
            ours = correlated_t_test(x - y_, n_train=d.n_train, n_test=d.n_test, rope=0.01)
            assert (ours.p_a_better, ours.p_rope, ours.p_b_better) == pytest.approx(p, abs=1e-9)


# -- the Conclusion: the practitioners' rules applied ------------------------------------------------


def _tables(rows, *, rope=0.01, repeats=10):
    """An assessment table and effect table with one corrected test per design, as recommend() leaves them."""
    import pandas as pd

    t, e = [], []
    for key, size, mean, low, high, above, below, pa, pr, pb in rows:
        test = "corrected_resampled_t" if key.startswith("resampled") else "corrected_cv_t"
        t.append({"design": key, "scheme": "", "test": test, "procedure": f"{test} [{key}]", "size": size,
                  "Type I error %": 4.0, "Type I low %": 3.0, "Type I high %": 5.0,
                  "deciding null scenario": "gauss-nb-n300-rho0-e0", "null data sets": 600})  # fmt: skip
        t.append({"design": key, "scheme": "", "test": "cv_t" if test == "corrected_cv_t" else "resampled_t",
                  "procedure": f"x [{key}]", "size": "liberal", "Type I error %": 60.0, "Type I low %": 55.0,
                  "Type I high %": 65.0, "deciding null scenario": "gauss-1nn", "null data sets": 1000})  # fmt: skip
        e.append({"design": key, "first: A - B": mean, "low": low, "high": high, "ROPE": f"±{rope:g}",
                  "P(A better)": pa, "P(equivalent)": pr, "P(B better)": pb,
                  "interval above 0": f"{above}/{repeats}", "interval below 0": f"{below}/{repeats}"})  # fmt: skip
    return pd.DataFrame(t), pd.DataFrame(e)


def _conclude(rows, keys):
    from simstudy.apps.conclusion import conclude

    y = np.repeat([0, 1], 100)
    designs = designs_for_data(keys, y)
    table, effect = _tables(rows)
    return conclude(table, effect, designs, rope=0.01, a="logreg", b="forest", evidence="the test's")


def test_a_better_needs_the_interval_in_most_repeats_and_the_bayesian_probability():
    c = _conclude([("cv10x10", "controls size", 0.03, 0.01, 0.05, 8, 0, 0.97, 0.03, 0.0)], ["cv10x10"])
    assert c.verdict == "A better" and c.text.startswith("A (logreg) is better than B (forest) on this data.")
    assert "decided by `corrected_cv_t` on cv10x10, which controls size on the nearest evidence" in c.text
    assert "ROPE ±0.01: P(A better) 0.97" in c.text
    assert "Not for the decision: 1 test(s) liberal on the nearest evidence, 1 of them uncorrected" in c.text
    # the interval alone, or the probability alone, is not enough
    short = _conclude([("cv10x10", "controls size", 0.03, 0.01, 0.05, 8, 0, 0.90, 0.1, 0.0)], ["cv10x10"])
    assert short.verdict == "not settled"
    assert (
        "above 0 in most repeats (8 of 10), but P(A better) beyond the ROPE ±0.01 is 0.90, short of 0.95" in short.text
    )
    c = _conclude([("cv10x10", "controls size", 0.03, -0.01, 0.05, 4, 0, 0.97, 0.03, 0.0)], ["cv10x10"])
    assert c.verdict == "not settled"
    assert "the interval lies above 0 in 4 and below 0 in 0 of 10 repeats, where most repeats must agree" in c.text


def test_equivalence_within_the_rope_and_disagreeing_designs():
    eq = ("cv10x10", "controls size", 0.001, -0.004, 0.006, 0, 0, 0.01, 0.98, 0.01)
    c = _conclude([eq], ["cv10x10"])
    assert c.verdict == "equivalent within the ROPE" and "equivalent within the ROPE of ±0.01" in c.text
    b = ("resampled10", "controls size", -0.03, -0.05, -0.01, 0, 9, 0.0, 0.02, 0.98)
    c = _conclude([eq, b], ["cv10x10", "resampled10"])
    assert (
        c.verdict == "not settled"
        and "The designs contradict each other (cv10x10: equivalent within the ROPE" in c.text
    )


def test_a_design_whose_corrected_test_is_liberal_does_not_decide():
    lib = ("cv10x10", "liberal", 0.03, 0.01, 0.05, 10, 0, 0.99, 0.01, 0.0)
    c = _conclude([lib], ["cv10x10"])
    assert c.verdict == "not settled" and "No design can decide" in c.text and "is liberal on the nearest" in c.text
    ok = ("5x2cv", "controls size", 0.03, 0.005, 0.055, 7, 0, 0.96, 0.04, 0.0)
    c = _conclude([lib, ok], ["cv10x10", "5x2cv"])
    assert c.verdict == "A better" and "Left out of the decision: cv10x10, since `corrected_cv_t` is liberal" in c.text
    none = ("cv10x10", "no evidence", 0.03, 0.01, 0.05, 10, 0, 0.99, 0.01, 0.0)
    assert "is without evidence on its size" in _conclude([none], ["cv10x10"]).text


# -- the evidence shipped with the package ------------------------------------------------------------


def test_the_shipped_file_is_what_the_published_files_give():
    import json
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root / "scripts"))
    try:
        import make_shipped_evidence as make
    finally:
        sys.path.remove(str(root / "scripts"))
    from simstudy.apps.shipped_evidence import SHIPPED_FILE

    stored = json.loads(SHIPPED_FILE.read_text())
    groups = {k: {c: x for c, x in v.items() if c != "class"} for k, v in stored["stability"]["groups"].items()}
    assert json.dumps(make.build(groups), sort_keys=True) == json.dumps(stored, sort_keys=True)
    prov = stored["provenance"]
    # the run is the one the published page states, never a value typed here
    assert prov == make.provenance() and prov["profile"] == "paper"
    assert prov["null_scenarios"] == 38 and prov["data_sets"] == 56400


def test_a_comparison_is_matched_by_its_measured_stability_never_by_name():
    from simstudy.apps.shipped_evidence import load_shipped, shipped_evidence
    from simstudy.apps.stability import nearest_group

    groups = load_shipped()["stability"]["groups"]
    # a comparison measured exactly as a scenario was takes that scenario's class, with 10 folds or with 2
    for key in ("gauss-lda-n1000-rho0-e0", "gauss-1nn-n300-rho0-e0", "gauss-tree-n300-rho0-e0"):
        g = groups[key]
        assert nearest_group({"pair": g["pair"], "folds": 10}, groups) == key or (
            groups[nearest_group({"pair": g["pair"], "folds": 10}, groups)]["pair"] == g["pair"]
        )
        measured = {"pair": g["pair_2fold"], "a": g["a_2fold"], "b": g["b_2fold"], "design": "5x2cv", "folds": 2}
        got = shipped_evidence(measured)
        assert got.name == g["class"] and "5x2cv" in got.provenance
    assert groups["gauss-lda-n1000-rho0-e0"]["class"] == "stable"
    assert groups["gauss-tree-n300-rho0-e0"]["class"] == "unstable"
    every = shipped_evidence(None)
    assert every.name == "all" and "could not be measured" in every.provenance
    stable = groups["gauss-lda-n1000-rho0-e0"]["pair"]
    t = shipped_evidence({"pair": stable, "a": stable, "b": stable, "folds": 10}).table.set_index("procedure")
    assert t.loc["corrected_cv_t [cv10x10]", "size"] == "controls size"
    t = shipped_evidence({"pair": 0.5, "a": 0.5, "b": 0.1, "folds": 10}).table.set_index("procedure")
    assert t.loc["corrected_cv_t [cv10x10]", "size"] == "liberal"  # unpruned trees: the page's liberal scenarios


def test_a_stable_learner_against_an_unstable_one_is_a_class_of_its_own():
    from simstudy.apps.stability import STABLE_AGAINST_UNSTABLE, comparison_class

    bands = {"moderately stable": [0.02, 0.1], "stable": [None, 0.02], "unstable": [0.1, None]}  # as stored
    assert comparison_class(0.01, 0.015, bands) == "stable"
    assert comparison_class(0.05, 0.2, bands) == "unstable"  # the less stable learner's band
    assert comparison_class(0.01, 0.05, bands) == comparison_class(0.3, 0.01, bands) == STABLE_AGAINST_UNSTABLE


def test_a_comparison_is_placed_by_both_its_learners():
    from simstudy.apps.stability import nearest_group

    groups = {
        "two unstable": {"a": 0.2, "b": 0.2, "pair": 0.2},
        "stable against unstable": {"a": 0.01, "b": 0.2, "pair": 0.2},
    }
    # the same less stable learner: the more stable one tells the two apart
    assert nearest_group({"pair": 0.2, "a": 0.012, "b": 0.2}, groups) == "stable against unstable"
    assert nearest_group({"pair": 0.2, "a": 0.2, "b": 0.15}, groups) == "two unstable"
    # without both learners' values, the less stable one alone (a tie: the first key)
    assert nearest_group({"pair": 0.2, "a": float("nan"), "b": 0.2}, groups) == "stable against unstable"
    assert nearest_group({"pair": 0.2}, groups) == "stable against unstable"


def test_a_fresh_install_fills_the_size_column_from_the_shipped_evidence(tmp_path, data):
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    X, y = data
    learners = {"bayes": GaussianNB(), "tree": DecisionTreeClassifier()}
    a = assess(X, y, learners=learners, designs=("cv10x10",), n_repeats=2, evidence=tmp_path / "no-results")
    assert a.shipped is not None and a.shipped.name in (
        "stable",
        "moderately stable",
        "unstable",
        "stable against unstable",
    )
    assert not (a.table["size"] == "no evidence").any()
    line = [n for n in a.evidence_notes if n.startswith("shipped with simstudy")]
    prov = load_shipped()["provenance"]
    assert len(line) == 1 and f"commit {prov['commit']}, code fingerprint {prov['code_fingerprint']}" in line[0]
    assert f"which puts them in its '{a.shipped.name}' class" in line[0]
    text = str(a)
    shipped_n = int(load_shipped()["provenance"]["data_sets"])
    assert text.startswith("Conclusion: ")
    assert f"Evidence: the shipped proving ground (paper profile, {shipped_n:,} data sets), class" in text
    # the same learners under other names: the same measured class
    b = assess(X, y, learners={"x": GaussianNB(), "y": DecisionTreeClassifier()}, designs=("cv10x10",), n_repeats=2,
               evidence=tmp_path / "no-results")  # fmt: skip
    assert b.shipped.name == a.shipped.name and b.stability == a.stability
    # evidence given: the shipped file is not used
    assert assess(X, y, learners=learners, designs=("cv2x5",), n_repeats=2, evidence=[]).shipped is None


def test_several_data_sets_need_friedman_then_holm_and_the_bayesian_signed_rank():
    import pandas as pd

    from simstudy.apps.conclusion import conclude_many

    across = pd.DataFrame(
        [
            {"A": "logreg", "B": "tree", "data sets": 12, "mean A - B": 0.05, "wins A": 11, "wins B": 1,
             "Wilcoxon p": 0.004, "Wilcoxon p (Holm)": 0.012, "P(A better)": 0.97, "P(equivalent)": 0.02,
             "P(B better)": 0.01},
            {"A": "logreg", "B": "bayes", "data sets": 12, "mean A - B": 0.02, "wins A": 9, "wins B": 3,
             "Wilcoxon p": 0.03, "Wilcoxon p (Holm)": 0.06, "P(A better)": 0.96, "P(equivalent)": 0.03,
             "P(B better)": 0.01},
            {"A": "tree", "B": "bayes", "data sets": 12, "mean A - B": 0.0, "wins A": 6, "wins B": 6,
             "Wilcoxon p": 0.9, "Wilcoxon p (Holm)": 0.9, "P(A better)": 0.01, "P(equivalent)": 0.98,
             "P(B better)": 0.01},
        ]
    )  # fmt: skip
    # the page's post-hoc on mean ranks: the Conclusion follows it, never the pairwise Wilcoxon after Holm
    holm = pd.DataFrame(
        [
            {"A": "tree", "B": "logreg", "p": 0.004, "Holm p": 0.012, "significant": True},
            {"A": "bayes", "B": "logreg", "p": 0.04, "Holm p": 0.08, "significant": False},
            {"A": "tree", "B": "bayes", "p": 0.8, "Holm p": 0.8, "significant": False},
        ]
    )
    rejects = pd.DataFrame([{"Iman-Davenport F": 6.1, "p (F)": 0.002}])
    c = conclude_many({"across": across, "friedman": rejects, "holm": holm}, alpha=0.05, rope=0.01)
    assert "logreg is better than tree (Holm on mean ranks p 0.012" in c.text
    assert "logreg against bayes: not settled, since Holm on mean ranks does not reject (p 0.08 > 0.05)" in c.text
    assert "tree and bayes are equivalent within the ROPE" in c.text
    assert "the pairwise Wilcoxon p-values, raw or Holm-adjusted for the 3 comparisons" in c.text
    assert c.headline.startswith("logreg is better than tree; tree and bayes are equivalent within the ROPE")
    assert [p["verdict"] for p in c.pairs] == [
        "logreg is better than tree",
        "not settled",
        "tree and bayes are equivalent within the ROPE",
    ]
    calm = pd.DataFrame([{"Iman-Davenport F": 1.2, "p (F)": 0.32}])
    c = conclude_many({"across": across, "friedman": calm}, alpha=0.05, rope=0.01)
    assert c.verdict == "not settled" and c.text.startswith("Not settled: Friedman's test does not reject")


def test_the_fewest_data_sets_a_several_data_set_verdict_can_rest_on():
    from simstudy.apps.conclusion import least_data_sets

    # two learners: the exact Wilcoxon's smallest two-sided p is 2 / 2**N, so 6 data sets (1/32) reach 0.05
    assert least_data_sets(2, 0.05) == 6
    # four learners over all 6 pairs: Friedman and Holm on mean ranks can decide from 3 data sets, where the
    # pairwise Wilcoxon tests adjusted by Holm cannot with 7 (6 x 2/2**7 = 0.094)
    assert least_data_sets(4, 0.05) == 3
    assert least_data_sets(4, 0.001) > least_data_sets(4, 0.05)


def shipped_evidence_row(name: str, procedure: str) -> dict:
    """The row of ``procedure`` in the shipped evidence's class ``name``."""
    from simstudy.apps.shipped_evidence import load_shipped

    rows = load_shipped()["classes"][name]["procedures"]
    return next(r for r in rows if r["procedure"] == procedure)


def test_the_numbers_the_practitioners_page_gives_for_the_decision_come_from_the_calibration():
    from pathlib import Path

    from simstudy.apps.conclusion import class_procedure, least_data_sets
    from simstudy.pipeline.inflation import pooled_evidence

    page = (Path(__file__).resolve().parents[2] / "docs" / "howto" / "practitioners.rst").read_text()
    page = " ".join(page.split())
    pooled = class_procedure("5x2cv", 5, "moderately stable")
    one = pooled_evidence("5x2cv", 1, "moderately stable")
    assert pooled["repeats"] == 5 and float(pooled["factor"]) == 1.0
    assert f"pooling gives {pooled['power']:.1f}% power where one repeat gives {one['power']:.1f}%" in page
    count = {9: "nine", 10: "ten", 11: "eleven", 12: "twelve"}[pooled["null_scenarios"]]
    assert (
        f"Type I error of {pooled['deciding_type1']:.1f}% [{pooled['deciding_low']:.1f}, "
        f"{pooled['deciding_high']:.1f}] on the deciding one of its {count} null scenarios" in page
    )
    unstable = pooled_evidence("cv10x10", 1, "unstable")
    assert unstable["size"] == "controls size" and f"inflated x{float(unstable['factor']):g}" in page
    assert unstable["power"] > pooled_evidence("5x2cv", 5, "unstable")["power"]
    # a stable learner against an unstable one: the shipped class's own numbers
    mixed = "stable against unstable"
    plain = shipped_evidence_row(mixed, "corrected_cv_t [cv10x10]")
    inflated, default = pooled_evidence("cv10x10", 1, mixed), class_procedure("5x2cv", 5, mixed)
    assert plain["size"] == "liberal" and (
        f"liberal ({plain['deciding_type1']:.1f}% [{plain['deciding_low']:.1f}, {plain['deciding_high']:.1f}] on its "
        f"deciding null) and keeps size only with its term inflated x{float(inflated['factor']):g}, as for unstable "
        f"learners, and then has {inflated['power']:.1f}% power where the default five 5x2 cvs, which keep size "
        f"there uninflated, have {default['power']:.1f}%" in page
    )
    assert inflated["size"] == default["size"] == "controls size" and float(default["factor"]) == 1.0
    assert float(inflated["factor"]) == float(unstable["factor"]) and inflated["power"] < default["power"]
    assert f"(two models: {least_data_sets(2, 0.05)}; four: {least_data_sets(4, 0.05)})" in page


def test_not_settled_says_what_would_settle_equivalence_and_the_headline_is_short():
    # the interval +0.002 [-0.018, +0.022] is wider than the ROPE: about (0.02 / 0.008)^2 = 6 times the cases
    c = _conclude([("cv10x10", "controls size", 0.002, -0.018, 0.022, 0, 0, 0.3, 0.6, 0.1)], ["cv10x10"])
    assert (
        c.verdict == "not settled"
        and c.headline == "Not settled: logreg - forest = +0.002 [-0.018, +0.022] on this data (cv10x10)."
    )
    assert "about 6 times as many cases" in c.text
    # a difference outside the ROPE: more data can only tell which is better
    c = _conclude([("cv10x10", "controls size", 0.03, -0.01, 0.07, 3, 0, 0.9, 0.05, 0.05)], ["cv10x10"])
    assert "unless it shrinks, more data settles which is better rather than equivalence" in c.text
    better = _conclude([("cv10x10", "controls size", 0.03, 0.01, 0.05, 8, 0, 0.97, 0.03, 0.0)], ["cv10x10"])
    assert better.headline == "logreg is better than forest by 0.030 [+0.010, +0.050] on this data (cv10x10)."


def test_the_most_powerful_design_decides_and_another_may_only_veto():
    import pandas as pd

    from simstudy.apps.conclusion import conclude

    y = np.repeat([0, 1], 100)
    designs = designs_for_data(["cv10x10", "5x2cv"], y)
    strong = ("cv10x10", "controls size", 0.03, 0.01, 0.05, 8, 0, 0.97, 0.03, 0.0)
    weak = ("5x2cv", "controls size", 0.03, -0.02, 0.08, 2, 0, 0.8, 0.1, 0.1)
    table, effect = _tables([strong, weak])
    table = table.assign(**{"power %": np.where(table["design"] == "cv10x10", 50.0, 30.0)})
    c = conclude(table, effect, designs, rope=0.01, a="logreg", b="forest", evidence="the test's")
    assert c.verdict == "A better" and "it decides since it has the most power of the designs that may (50.0%" in c.text
    contrary = ("5x2cv", "controls size", -0.05, -0.08, -0.02, 0, 9, 0.0, 0.01, 0.99)
    table, effect = _tables([strong, contrary])
    table = table.assign(**{"power %": np.where(table["design"] == "cv10x10", 50.0, 30.0)})
    c = conclude(table, effect, designs, rope=0.01, a="logreg", b="forest", evidence="the test's")
    assert c.verdict == "not settled" and "The designs contradict each other" in c.text
    assert isinstance(effect, pd.DataFrame)


def test_an_assessment_decides_by_the_calibrated_procedure_of_its_class(tmp_path, data):
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.tree import DecisionTreeClassifier

    from simstudy.apps.conclusion import class_procedure
    from simstudy.statistics.effect import corrected_difference_interval

    X, y = data
    a = assess(X, y, ("tree", DecisionTreeClassifier()), ("1nn", KNeighborsClassifier(1)), n_repeats=5,
               evidence=tmp_path / "no-results")  # fmt: skip
    proc = class_procedure("5x2cv", 5, a.shipped.name)
    assert proc is not None and proc["size"] == "controls size"
    e = a.effect.set_index("design").loc["5x2cv"]
    assert e["decided on"] == (f"{proc['repeats']} repeats pooled" if proc["repeats"] > 1 else "first repeat")
    scores = a.run.table("scores")
    s = scores[scores["condition"] == "5x2cv"].sort_values(["replication", "run", "fold"])
    diff = (s["acc_a"] - s["acc_b"]).to_numpy().reshape(5, -1)[: proc["repeats"]].reshape(-1)
    d = a.designs[0]
    ci = corrected_difference_interval(diff, n_train=d.n_train, n_test=d.n_test * proc["factor"])
    assert float(ci.low) == pytest.approx(e["decision low"]) and float(ci.high) == pytest.approx(e["decision high"])
    decision = a.conclusion.designs[0]
    assert decision.usable and decision.test == "corrected_cv_t" and decision.low == pytest.approx(e["decision low"])
    assert f"judged on {proc['judged_on']}" in a.conclusion.text
