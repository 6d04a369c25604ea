"""Stored runs as evidence: each study translates its own rows; assess combines them on the proving ground's rules."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from simstudy.apps.assess import designs_for_data, evidence_table, recommend
from simstudy.apps.evidence import Evidence, collect_evidence

ROOT = Path(__file__).resolve().parents[2]


def synthetic(source, procs, *, n_null=30, n_alt=30, n_exp=10, seed=0, pattern="random", alpha=0.5, prefix=True):
    """Evidence of one stored run: a null condition and an alternative (A better) twinned to it.

    ``procs`` maps (design, scheme, test) to (Type I error, power).  A rejection has p = 0.01 on the null (either
    direction) and 0.001 on the alternative (A's direction); other p-values are uniform on (0.2, 1).  ``pattern``
    places the rejections: ``random``; ``spread`` (exactly that share, at most one repeat per data set first);
    ``units`` (exactly that share, whole data sets first).
    """
    rng = np.random.default_rng(seed)
    frames = []
    for cond, n, which in (("null", n_null, 0), ("alt", n_alt, 1)):
        rep, exp = np.meshgrid(np.arange(n), np.arange(n_exp), indexing="ij")
        for (d, s, t), rates in procs.items():
            k = round(rates[which] * n * n_exp)
            if pattern == "spread":
                hit = exp * n + rep < k
            elif pattern == "units":
                hit = rep * n_exp + exp < k
            else:
                hit = rng.random((n, n_exp)) < rates[which]
            p = np.where(hit, 0.01 if which == 0 else 0.001, rng.uniform(0.2, 1.0, (n, n_exp)))
            sign = rng.choice([-1.0, 1.0], (n, n_exp)) if which == 0 else np.ones((n, n_exp))
            frames.append(
                pd.DataFrame(
                    {
                        "condition": cond,
                        "replication": rep.ravel(),
                        "experiment": exp.ravel(),
                        "design": d,
                        "scheme": s,
                        "test": t,
                        "pvalue": p.ravel(),
                        "sign": sign.ravel(),
                    }
                )
            )
    truths = {"null": {"truth": "null", "twin": ""}, "alt": {"truth": "A", "twin": "null"}}
    ev = Evidence(pd.concat(frames, ignore_index=True), truths, alpha, source)
    return ev.prefixed(source) if prefix else ev


def user_table(rows):
    """An assessment table (the columns recommend reads) from (design, scheme, test, R2) tuples."""
    return pd.DataFrame(
        [
            {
                "design": d,
                "scheme": s,
                "test": t,
                "repeats": 10,
                "A better": 3,
                "B better": 0,
                "R2": r2,
                "R2 se": np.nan,
            }
            for d, s, t, r2 in rows
        ]
    )


Y = np.repeat([0, 1], 50)
LIBERAL_LOOKING = ("cv10x10", "", "cv_t")
SOUND = ("cv10x10", "", "corrected_cv_t")


# -- the rule -------------------------------------------------------------------------------------------


def test_a_liberal_test_with_a_wide_interval_is_never_recommended():
    # 6% Type I error on 30 data sets: its interval reaches below alpha (the old rule let it pass) and above the
    # tolerance, so it is unresolved; it has the higher power and the higher R2 on the user's data, and loses
    wide = synthetic("s1/quick", {LIBERAL_LOOKING: (0.06, 0.9)}, n_null=30, pattern="spread")
    sound = synthetic("s2/quick", {SOUND: (0.03, 0.5)}, n_null=200, n_alt=100, pattern="spread", seed=1)
    table, text = recommend(
        user_table([(*LIBERAL_LOOKING, 0.95), (*SOUND, 0.6)]), designs_for_data(["cv10x10"], Y), [wide, sound]
    )
    by = table.set_index("test")
    assert by.loc["cv_t", "size"] == "unresolved"
    assert by.loc["cv_t", "Type I low %"] < 5 < 7.5 < by.loc["cv_t", "Type I high %"]
    assert by.loc["cv_t", "null data sets"] == 30
    assert by.loc["corrected_cv_t", "size"] == "controls size"
    assert text.startswith("Recommended: `corrected_cv_t` with cv10x10.")
    assert "unresolved (too few null data sets to tell): cv_t [cv10x10] (6.0%" in text
    assert "`simstudy run s1 --profile paper`" not in text  # a synthetic source has no command


def test_without_a_test_that_controls_size_there_is_no_recommendation():
    wide = synthetic("s1/quick", {LIBERAL_LOOKING: (0.06, 0.9)}, n_null=30, pattern="spread")
    bad = synthetic("s2/quick", {SOUND: (0.2, 0.9)}, n_null=200, seed=2)
    table, text = recommend(
        user_table([(*LIBERAL_LOOKING, 0.95), (*SOUND, 0.6)]), designs_for_data(["cv10x10"], Y), [wide, bad]
    )
    assert text.startswith("No recommendation: none of the 2 procedures")
    assert "liberal (Type I error shown above alpha on a null scenario): corrected_cv_t [cv10x10]" in text
    assert "unresolved (too few null data sets to tell): cv_t [cv10x10]" in text
    assert "Recommended" not in text
    assert set(table["size"]) == {"liberal", "unresolved"}


def test_a_design_without_evidence_is_named_as_not_covered():
    ev = synthetic("s1/quick", {SOUND: (0.03, 0.5)}, n_null=200, pattern="spread")
    designs = designs_for_data(["cv10x10", "5x2cv", "resampled10"], Y)
    table, text = recommend(
        user_table(
            [
                (*SOUND, 0.6),
                ("5x2cv", "", "5x2cv_t", 0.9),
                ("resampled10", "", "resampled_t", 0.9),
                ("cv10x10", "", "cv_t", 0.9),
            ]
        ),
        designs,
        [ev],
    )
    assert text.startswith("Recommended: `corrected_cv_t` with cv10x10.")
    assert "Not covered by the stored evidence: 5x2cv, resampled10" in text
    assert "`simstudy proving-ground --profile quick --designs 5x2cv resampled10`" in text
    assert "No stored evidence for cv_t [cv10x10]" in text
    assert table.set_index("test").loc["5x2cv_t", "size"] == "no evidence"


def test_no_evidence_at_all_names_every_design():
    table, text = recommend(user_table([(*SOUND, 0.6)]), designs_for_data(["cv10x10"], Y), [])
    assert text.startswith("No recommendation: no stored simulation evidence was found")
    assert "`simstudy proving-ground --profile quick --designs cv10x10`" in text
    assert (table["size"] == "no evidence").all()


def test_evidence_from_two_studies_combines():
    proc = ("cv10x10", "average_over_sorted_runs", "paired_t")
    one = synthetic("study1/paper", {proc: (0.2, 0.5), SOUND: (0.03, 0.6)}, n_null=300, n_exp=10, seed=3)
    two = synthetic("study2/quick", {proc: (0.2, 0.5)}, n_null=300, n_exp=4, seed=4)
    # the same raw scenario names, kept apart by their sources
    assert set(one.truths) & set(two.truths) == set()
    assert two.truths["study2/quick: alt"]["twin"] == "study2/quick: null"
    notes = []
    t = evidence_table([one, two], {proc, SOUND}, notes=notes).set_index("procedure")
    both = t.loc["paired_t [cv10x10, average_over_sorted_runs]"]
    assert both["null_scenarios"] == 2 and both["sources"] == "study1/paper, study2/quick"
    assert both["size"] == "liberal" and 15 < both["deciding_type1"] < 25  # not diluted by the other source's rows
    only = t.loc["corrected_cv_t [cv10x10]"]  # judged on the scenarios of the source that has it, none other
    assert only["null_scenarios"] == 1 and only["sources"] == "study1/paper"
    assert only["size"] == "controls size" and 50 < only["adjusted_power"] < 70
    assert any("first 4 repeats" in n for n in notes)


def test_one_source_is_judged_exactly_as_the_proving_ground_judges_it():
    from simstudy.apps.proving.summary import leaderboard, procedures, size_table, size_verdicts
    from simstudy.pipeline.procedures import procedure_id
    from simstudy.statistics.size_control import SizeRule

    procs = {SOUND: (0.03, 0.6), LIBERAL_LOOKING: (0.12, 0.8), ("cv10x10", "kfold_cv", "sign"): (0.04, 0.3)}
    ev = synthetic("pg/quick", procs, n_null=150, n_alt=80, n_exp=4, seed=5)
    mine = evidence_table([ev], set(procs)).set_index("procedure")
    pr = procedures(ev.rows, truths=ev.truths)
    sizes = size_table(pr, SizeRule(alpha=0.05))
    theirs = size_verdicts(sizes).set_index("procedure")
    board = leaderboard(pr, rule=SizeRule(alpha=0.05), sizes=sizes).set_index("procedure")
    for d, s, t in procs:
        p = procedure_id(d, s, t)
        assert mine.loc[p, "size"] == theirs.loc[p, "size"]
        assert mine.loc[p, "deciding_high"] == pytest.approx(theirs.loc[p, "deciding_high"])
        assert mine.loc[p, "adjusted_power"] == pytest.approx(board.loc[p, "adjusted_power"], nan_ok=True)
        assert mine.loc[p, "power"] == pytest.approx(board.loc[p, "power"])
        assert mine.loc[p, "rank"] == pytest.approx(board.loc[p, "rank"], nan_ok=True)
        assert mine.loc[p, "tied_with"] == pytest.approx(board.loc[p, "tied_with"], nan_ok=True)
    assert (mine["size"] == "controls size").sum() == 2 and set(mine["rank"].dropna()) == {1, 2}


def test_evidence_with_directions_only_at_its_own_alpha_is_not_used_at_a_larger_one():
    ev = synthetic("s1/quick", {SOUND: (0.03, 0.5)}, n_null=200, pattern="spread", alpha=0.05)
    ev = Evidence(ev.rows.assign(sign=ev.rows["sign"].where(ev.rows["pvalue"] <= 0.05)), ev.truths, 0.05, ev.source)
    notes = []
    table, text = recommend(
        user_table([(*SOUND, 0.6)]), designs_for_data(["cv10x10"], Y, alpha=0.1), [ev], alpha=0.1, notes=notes
    )
    assert any("directions only up to alpha = 0.05; not used at alpha = 0.1" in n for n in notes)
    assert table["size"].tolist() == ["no evidence"]
    assert text.startswith(
        "No recommendation: the stored evidence gives the direction of a rejection only up to "
        "alpha = 0.05, so it cannot judge tests at alpha = 0.1."
    )
    table, text = recommend(user_table([(*SOUND, 0.6)]), designs_for_data(["cv10x10"], Y), [ev])
    assert text.startswith("Recommended")


def test_decisions_only_give_no_size_adjusted_power_to_a_conservative_test():
    # a study that stores decisions at 0.05 only: a test with a Type I error well below alpha would be calibrated at
    # a threshold above 0.05, where the rows give no direction, so it gets no size-adjusted power (not the power of
    # a selected subset of data sets); it still controls size, and the choice rests on simulated replicability
    ev = synthetic("s1/quick", {SOUND: (0.01, 0.6)}, n_null=300, n_alt=100, pattern="spread", alpha=0.05)
    ev = Evidence(ev.rows.assign(sign=ev.rows["sign"].where(ev.rows["pvalue"] <= 0.05)), ev.truths, 0.05, ev.source)
    row = evidence_table([ev], {SOUND}).iloc[0]
    assert row["size"] == "controls size" and np.isnan(row["adjusted_power"]) and np.isnan(row["rank"])
    assert row["calibrated_units"] == 100 and row["adjusted_units"] == 0
    table, text = recommend(user_table([(*SOUND, 0.6)]), designs_for_data(["cv10x10"], Y), [ev])
    assert text.startswith("Recommended: `corrected_cv_t` with cv10x10.")
    assert "none of them has a size-adjusted power in the evidence" in text


def test_evidence_is_checked():
    rows = synthetic("s", {SOUND: (0.03, 0.5)}, n_null=5, n_alt=5, prefix=False).rows
    with pytest.raises(ValueError, match="lack the column"):
        Evidence(rows.drop(columns="sign"), {}, 0.05, "s")
    with pytest.raises(ValueError, match="truth 'maybe'"):
        Evidence(rows, {"null": {"truth": "maybe", "twin": ""}}, 0.05, "s")
    with pytest.raises(ValueError, match="are not design names: use cvRxK"):
        Evidence(rows.assign(design="10x10 cv"), {}, 0.05, "s")
    ev = Evidence(
        rows.assign(condition=pd.Categorical(rows["condition"])),
        {"null": {"truth": "null", "twin": ""}, "alt": {"truth": "A", "twin": "null"}},
        0.05,
        "s",
    )
    p = ev.prefixed("x/smoke")
    assert set(p.conditions) == {"x/smoke: null", "x/smoke: alt"} and p.source == "x/smoke"
    assert p.truths["x/smoke: alt"] == {"truth": "A", "twin": "x/smoke: null"}
    assert p.null_conditions() == ["x/smoke: null"] and p.n_experiments == 10


# -- stored runs ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    from simstudy.engine import run_study

    root = tmp_path_factory.mktemp("results")
    run_study("bouckaert1", "smoke", out=root / "bouckaert1" / "smoke", progress=False)
    return root


def test_a_stored_study_translates_its_own_rows(results):
    evidence, notes = collect_evidence(results)
    assert [e.source for e in evidence] == ["bouckaert1/smoke"]
    ev = evidence[0]
    assert ev.designs == ["cv2x5"] and ev.alpha == 0.05
    assert set(ev.rows["test"]) == {"paired_t", "sign", "sign_cdf", "sign_cdf_reversed", "signed_rank"}
    assert ev.null_conditions() == ["bouckaert1/smoke: bouckaert1"]
    assert ev.truths["bouckaert1/smoke: bouckaert3"] == {"truth": "A", "twin": "bouckaert1/smoke: bouckaert1"}
    significant = ev.rows["pvalue"] <= 0.05
    assert ev.rows.loc[~significant, "sign"].isna().all() and ev.rows.loc[significant, "sign"].abs().eq(1).all()
    assert ev.command == "simstudy run bouckaert1 --profile {profile}"
    assert len(notes) == 1 and notes[0].startswith(str(results / "bouckaert1" / "smoke"))


def test_runs_without_rows_damaged_or_moved_aside_are_skipped_with_a_note(results, tmp_path):
    root = tmp_path / "results"
    src = results / "bouckaert1" / "smoke"
    # a run that has just started: a manifest, no rows yet
    shutil.copytree(src, root / "bouckaert1" / "smoke")
    shutil.rmtree(root / "bouckaert1" / "smoke" / "chunks")
    manifest = json.loads((src / "manifest.json").read_text())
    (root / "bouckaert1" / "smoke" / "manifest.json").write_text(json.dumps({**manifest, "status": "running"}))
    # an unreadable manifest, and a run moved aside by --fresh
    (root / "bouckaert_frank" / "quick").mkdir(parents=True)
    (root / "bouckaert_frank" / "quick" / "manifest.json").write_text("{not json")
    shutil.copytree(src, root / "bouckaert1" / "smoke.replaced-20250101T000000Z")
    evidence, notes = collect_evidence(root)
    assert evidence == []
    assert any("bouckaert1/smoke: no rows stored yet" in n for n in notes)
    assert any("bouckaert_frank/quick: not used" in n for n in notes)
    assert not any("replaced" in n for n in notes)
    table, text = recommend(
        user_table([("cv2x5", "kfold_cv", "paired_t", 0.6)]), designs_for_data(["cv2x5"], Y), evidence
    )
    assert text.startswith("No recommendation")


def test_an_incomplete_run_is_used_as_far_as_stored(results, tmp_path):
    root = tmp_path / "results"
    shutil.copytree(results / "bouckaert1" / "smoke", root / "bouckaert1" / "smoke")
    chunks = sorted(p.parent for p in (root / "bouckaert1" / "smoke" / "chunks").rglob("chunk.json"))
    shutil.rmtree(chunks[-1])  # the last source's data sets are missing
    evidence, notes = collect_evidence(root)
    assert len(evidence) == 1 and "bouckaert1/smoke: bouckaert4" not in evidence[0].conditions
    assert "incomplete (6 of 8 replications stored), used as far as stored" in notes[0]


def test_a_run_with_other_settings_beside_the_profile_is_read_too(results, tmp_path):
    # simstudy proving-ground --designs stores RESULTS/STUDY/PROFILE-DESIGNS: a run of the study with other settings
    root = tmp_path / "results"
    shutil.copytree(results / "bouckaert1" / "smoke", root / "bouckaert1" / "smoke-cv2x5")
    evidence, notes = collect_evidence(root)
    assert [e.source for e in evidence] == ["bouckaert1/smoke-cv2x5"]
    assert evidence[0].conditions[0].startswith("bouckaert1/smoke-cv2x5: ")


def test_no_library_module_imports_the_studies():
    """Library code never names a study module: each study translates its own rows (Study.evidence)."""
    offenders = []
    for path in sorted((ROOT / "simstudy").rglob("*.py")):
        package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parent, base] if base else parent)
                names = [base] + [f"{base}.{a.name}" for a in node.names]
            if any(n == "simstudy.studies" or n.startswith("simstudy.studies.") for n in names):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


# -- the evidence a Conclusion rests on is chosen by its size ---------------------------------------------
@pytest.fixture(scope="module")
def proving_runs(tmp_path_factory):
    """Smoke-profile proving grounds as ``simstudy proving-ground`` stores them: every default design (9 data sets,
    6 of them null), and ``--designs cv2x2`` (the same data sets on a design the shipped evidence does not hold)."""
    from simstudy.apps.proving.study import proving_study
    from simstudy.engine import run_study

    root = tmp_path_factory.mktemp("proving")
    run_study(proving_study(), "smoke", out=root / "all" / "proving_ground" / "smoke", progress=False)
    run_study(proving_study(["cv2x2"]), "smoke", out=root / "cv2x2" / "proving_ground" / "smoke-cv2x2", progress=False)
    return root


def _assess(evidence, tmp_path, design="5x2cv"):
    from simstudy.apps.assess import assess

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2)) + np.repeat([[0.0], [1.0]], 30, axis=0)
    y = np.repeat([0, 1], 30)
    return assess(X, y, "NB", "C4.5", designs=(design,), n_repeats=2, evidence=evidence, out=tmp_path / "run")


def _shipped_named() -> str:
    """How the Conclusion names the shipped evidence, with the data sets its provenance states."""
    from simstudy.apps.shipped_evidence import load_shipped

    data_sets = load_shipped()["provenance"]["data_sets"]
    return f"Evidence: the shipped proving ground (paper profile, {data_sets:,} data sets), class '"


SHIPPED_NAMED = _shipped_named()


def _shipped_nulls() -> str:
    from simstudy.apps.shipped_evidence import load_shipped

    return f"{load_shipped()['provenance']['null_data_sets']:,}"


def test_a_smoke_proving_ground_under_results_does_not_replace_the_shipped_evidence(proving_runs, tmp_path):
    # a smoke run (3 replications of 3 scenarios) under results/ replaced the shipped paper-profile evidence, and
    # the Conclusion became 'no design can decide'
    root = proving_runs / "all"
    a = _assess(root, tmp_path)
    text = a.conclusion.text
    assert a.shipped is not None and SHIPPED_NAMED in text
    assert "No design can decide" not in text and "which controls size on the nearest evidence" in text
    passed = (
        f"a smaller local run passed over (5x2cv: 6 null data sets against the shipped {_shipped_nulls()}): the local run at "
        f"{root / 'proving_ground' / 'smoke'} (proving_ground, profile smoke, 9 data sets); evidence=LocalEvidence(root) uses it"
    )
    assert text.endswith(f"; {passed}.")
    assert passed in a.evidence_notes
    line = next(n for n in a.evidence_notes if n.startswith("shipped with simstudy"))
    assert "(the runs stored under evidence hold fewer null data sets for the designs used)" in line


def test_a_smaller_local_run_of_another_study_does_not_replace_it_either(results, tmp_path):
    # bouckaert1's smoke run holds cv2x5 only: for 5x2cv it is no evidence at all
    a = _assess(results, tmp_path)
    assert a.shipped is not None and SHIPPED_NAMED in a.conclusion.text
    assert f"(5x2cv: 0 null data sets against the shipped {_shipped_nulls()})" in a.conclusion.text


def test_a_local_run_larger_on_the_design_used_is_used_and_named(proving_runs, tmp_path):
    # the shipped evidence holds no cv2x2: the run `simstudy proving-ground --designs cv2x2` stores is the larger,
    # as the recommendation's 'not covered' line promises
    root = proving_runs / "cv2x2"
    a = _assess(root, tmp_path, design="cv2x2")
    assert a.shipped is None
    where = root / "proving_ground" / "smoke-cv2x2"
    assert a.conclusion.text.endswith(
        f"Evidence: the local run at {where} (proving_ground, profile smoke, 9 data sets)."
    )
    assert a.table.set_index("test").loc["corrected_cv_t", "size"] == "never rejects"  # 3 data sets per scenario
    assert "`corrected_cv_t` is without a size verdict on the nearest evidence (it rejects on none" in a.conclusion.text


def test_a_local_run_at_least_as_large_as_the_shipped_one_replaces_it(proving_runs, tmp_path, monkeypatch):
    from simstudy.apps import shipped_evidence as shipped_mod

    data = shipped_mod.load_shipped()
    small = {**data, "provenance": {**data["provenance"], "null_data_sets": 6}}  # as many as the local run holds
    monkeypatch.setattr(shipped_mod, "load_shipped", lambda: small)
    a = _assess(proving_runs / "all", tmp_path)
    assert a.shipped is None and "passed over" not in a.conclusion.text
    assert "Evidence: the local run at " in a.conclusion.text


def test_the_user_may_ask_for_the_smaller_local_run(proving_runs, tmp_path, capsys):
    from simstudy.apps.assess import LocalEvidence
    from simstudy.cli import main

    root = proving_runs / "all"
    named = (
        f"Evidence: the local run at {root / 'proving_ground' / 'smoke'} (proving_ground, profile smoke, 9 data sets)."
    )
    a = _assess(LocalEvidence(str(root)), tmp_path)
    assert a.shipped is None and a.conclusion.text.endswith(named)
    assert "passed over" not in a.conclusion.text
    csv = tmp_path / "d.csv"
    pd.DataFrame(a.data.X, columns=["x1", "x2"]).assign(y=a.data.y).to_csv(csv, index=False)
    argv = ["assess", csv, "--a", "NB", "--b", "C4.5", "--designs", "5x2cv", "--repeats", "2", "--quiet"]
    argv += ["--out", tmp_path / "cli", "--results", root, "--local-evidence"]
    assert main(list(map(str, argv))) == 0
    assert named in capsys.readouterr().out


def test_labelled_outcomes_declare_a_studys_evidence():
    from types import SimpleNamespace

    from simstudy.apps.evidence import LabelledOutcomes

    rows = pd.DataFrame(
        {
            "condition": ["s1", "s1", "s1", "s2", "s2", "s2"],
            "source": ["null", "null", "null", "net", "net", "net"],
            "pair": ["x-y", "x-y", "z-w", "x-y", "x-y", "x-y"],
            "n_runs": [2, 2, 2, 2, 2, 2],
            "replication": [0, 0, 0, 0, 0, 0],
            "experiment": [0, 0, 0, 0, 0, 0],
            "test": ["t", "paper's own", "t", "t", "both", "ignored"],
            "scheme": ["use_all_data", "", "use_all_data", "sorted_runs", "", ""],
            "pvalue": [0.5, 0.01, 0.2, 0.01, 0.02, 0.03],
            "decision": [0, 1, 0, 1, -1, 1],
            "alpha": [0.05] * 6,
        }
    )

    def procedures(fields):
        design = f"cv{fields['n_runs']}x10"
        return [
            ("t", design, None, "paired_t"),  # on the scheme the row names
            ("paper's own", design, "", "cv_t"),
            ("both", design, "", "cv_t"),
            ("both", "cv1x10", "kfold_cv", "paired_t"),
        ]

    declared = LabelledOutcomes("mine", procedures, null="null", alpha=0.1, by=("n_runs",), keep=("pair", "x-y"))
    ev = declared(SimpleNamespace(table=lambda name: rows))
    got = ev.rows[["condition", "design", "scheme", "test"]].assign(sign=ev.rows["sign"].map(str)).values.tolist()
    assert got == [
        ["s1", "cv2x10", "use_all_data", "paired_t", "nan"],
        ["s1", "cv2x10", "", "cv_t", "1.0"],
        ["s2", "cv2x10", "sorted_runs", "paired_t", "1.0"],
        ["s2", "cv2x10", "", "cv_t", "-1.0"],
        ["s2", "cv1x10", "kfold_cv", "paired_t", "-1.0"],
    ]  # the other pair's row and the label nobody declared are left out
    assert ev.truths == {"s1": {"truth": "null", "twin": ""}, "s2": {"truth": "A", "twin": "s1"}}
    assert ev.alpha == 0.05 and ev.source == "mine"
