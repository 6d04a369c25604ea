"""Bouckaert 2004 further experiments: the study end to end at the smoke profile, its sources,
and the checks of the paper's claims on constructed per-data-set results."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from simstudy.engine import get_study, run_study
from simstudy.pipeline.schemes import scheme_sample
from simstudy.pipeline.sources.bayesnet import NETWORKS_DIR, load_source
from simstudy.protocols.bouckaert import FACTOR_JSON, network_source, source_info
from simstudy.statistics.significance import paired_t_test
from simstudy.studies.bouckaert2004 import bouckaert_factors as bf

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts" / "networks"  # the scripts that build the networks

TESTS = ("t", "sign", "rank sum")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return run_study("bouckaert_factors", "smoke", out=tmp_path_factory.mktemp("bf") / "smoke", progress=False)


@pytest.fixture(scope="module")
def smoke_conditions():
    st = get_study("bouckaert_factors")
    return st.conditions_for(st.profiles["smoke"])


def test_rows_per_data_set(run, smoke_conditions):
    assert len(run.failures) == 0
    out = run.table("outcomes")
    scores = run.table("scores")
    assert set(out["factor"]) == set(bf.FACTORS)
    for cond in smoke_conditions:
        rows = out[out.condition == cond.key]
        n_levels = len(list(cond.levels(np.zeros((1, cond.n_runs, cond.n_folds, len(cond.learner_names))))))
        assert rows.groupby("replication").size().eq(cond.n_experiments * n_levels * len(TESTS)).all(), cond.key
        sc = scores[scores.condition == cond.key]
        assert sc.groupby("replication").size().eq(cond.n_experiments * cond.n_runs * cond.n_folds).all()
        assert {f"acc_{n}" for n in cond.learner_names} <= set(sc.columns)
    pairs = out[out.factor == "pairs"]
    learners = pairs["learners"].iloc[0].split(",")
    assert set(pairs["level"]) == {f"{a}-{b}" for a, b in bf.pair_names(learners)}


def test_run_levels_are_nested_in_one_cv(run):
    """The sample for r runs is the first r runs of the one stored cv: its t statistic is recomputable."""
    scores = run.table("scores")
    out = run.table("outcomes")
    sel = (
        (scores.factor == "runs")
        & (scores.source == "bouckaert3")
        & (scores.replication == 0)
        & (scores.experiment == 0)
    )
    one = scores[sel].sort_values(["run", "fold"])
    n_runs, n_folds = one["run"].max() + 1, one["fold"].max() + 1
    diffs = (one["acc_C4.5"] - one["acc_NB"]).to_numpy().reshape(n_runs, n_folds)
    for r in sorted(set(out[out.factor == "runs"]["runs"])):
        t = paired_t_test(scheme_sample(diffs[:r], bf.SCHEME)).statistic
        stored = out[
            (out.factor == "runs")
            & (out.source == "bouckaert3")
            & (out.replication == 0)
            & (out.experiment == 0)
            & (out.level == str(r))
            & (out.test == "t")
        ]["statistic"].item()
        assert np.isclose(t, stored) or (np.isnan(t) and np.isnan(stored)) or (np.isinf(t) and np.isinf(stored))


def test_summary_tables(run):
    tables = get_study("bouckaert_factors").summarize(run)
    assert {"runs", "prior", "classes", "pairs", "alpha", "claims", "sources", "notes"} <= set(tables)
    for f in bf.FACTORS:
        t = tables[f]
        assert t["rate"].between(0, 100).all()
        assert (t["rate_mc_low"] <= t["rate"] + 1e-9).all() and (t["norm_r2_mc_high"] >= t["norm_r2"] - 1e-9).all()
        assert set(t["test"]) == set(TESTS)
    prior = tables["prior"]
    assert set(prior[prior.source == "bouckaert1_prior0.1"]["measure"]) == {"rejection rate (not a true null)"}
    assert set(prior[prior.source == "bouckaert1"]["measure"]) == {"Type I error"}
    assert set(tables["classes"][tables["classes"].family == "independent"]["measure"]) == {"Type I error"}
    claims = tables["claims"]
    for claim in (1, 2, 3):
        assert set(claims[claims.claim == claim]["test"]) == set(TESTS)
    assert claims["verdict"].isin(["holds", "does not hold", "not resolved at this scale", "reported only"]).all()
    assert set(tables["alpha"]["alpha"]) == {0.01, 0.025, 0.05, 0.10}


def test_factor_sources_are_stored_and_described():
    with open(NETWORKS_DIR / FACTOR_JSON, encoding="utf-8") as fh:
        meta = json.load(fh)["sources"]
    spec = importlib.util.spec_from_file_location("make_factor_sources", SCRIPTS / "make_factor_sources.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    with_prior = script.with_prior
    for fam in bf.STORED:
        for p in (0.1, 0.2, 0.3, 0.4):
            name = bf.prior_source(fam, p)
            info = source_info(name)
            assert info["prior"] == pytest.approx(p) and info["true_null"] is False
            assert network_source(name) == with_prior(load_source(fam), p)  # rebuilt exactly from the stored source
            assert np.isfinite(meta[name]["gap"])
    for k in (3, 4):
        ind, dep = bf.CLASS_SOURCES[k]
        assert network_source(ind).n_classes == k and network_source(dep).n_classes == k
        assert source_info(ind)["true_null"] and not source_info(dep)["true_null"]
        assert meta[ind]["gap"] == 0.0 and np.isfinite(meta[dep]["gap"])


def test_conditions_are_validated():
    with pytest.raises(ValueError, match="run_levels"):
        bf.RunsCondition("bouckaert1", n_runs=20, run_levels=(10, 30))
    with pytest.raises(ValueError, match="source"):
        bf.validate(bf.PriorCondition("bouckaert2", family="bouckaert2", prior=0.1))
    with pytest.raises(ValueError, match="n_classes"):
        bf.validate(bf.ClassesCondition("bouckaert1", family="independent", n_classes=3))
    with pytest.raises(ValueError, match="learners"):
        bf.validate(bf.PairsCondition("bouckaert1", learners="NB,ripper"))
    with pytest.raises(ValueError, match="unknown source"):
        source_info("no_such_source")


# -- the claim checks on constructed data ------------------------------------------------------


def _per_set(factor, source, family, level, x, norm, reject, *, true_null=False, independent=False, test="t"):
    """Rows of per_dataset for one source and level: one per data set."""
    norm, reject = np.atleast_1d(norm).astype(float), np.broadcast_to(reject, np.shape(norm)).astype(float)
    return pd.DataFrame(
        {
            "factor": factor,
            "source": source,
            "family": family,
            "level": level,
            "x": x,
            "test": test,
            "replication": np.arange(len(norm)),
            "n_experiments": 10,
            "reject": reject,
            "norm": norm,
            "true_null": true_null,
            "independent": independent,
        }
    )


def _claim(claims, claim, test="t"):
    return claims[(claims.claim == claim) & (claims.test == test)].iloc[0]


def _null_rows(rate_per_set):
    return _per_set(
        "runs",
        "bouckaert1",
        "bouckaert1",
        "10",
        10.0,
        np.full(len(rate_per_set), 100.0),
        rate_per_set,
        true_null=True,
        independent=True,
    )


def test_claim1_type1_error_within_alpha_plus_one():
    rng = np.random.default_rng(0)
    ok = _null_rows(rng.choice([0.0, 0.1], size=400, p=[0.7, 0.3]))  # about 3%, upper end below 6%
    assert _claim(bf.check_claims(ok, 0.05), 1)["verdict"] == "holds"
    bad = _null_rows(rng.choice([0.1, 0.2, 0.3], size=40))  # about 20%, tight interval
    c = _claim(bf.check_claims(bad, 0.05), 1)
    assert c["verdict"] == "does not hold" and not c["holds"]
    unclear = _null_rows(np.r_[np.zeros(3), 0.3])  # 7.5%, 4 data sets
    assert _claim(bf.check_claims(unclear, 0.05), 1)["verdict"] == "not resolved at this scale"
    # an estimate below the limit whose interval reaches above it does not hold the claim up
    near = _null_rows(np.r_[np.full(21, 0.1), np.zeros(19)])  # 5.25%, upper end about 6.9%
    c = _claim(bf.check_claims(near, 0.05), 1)
    assert c["verdict"] == "not resolved at this scale" and not c["holds"]
    assert "1 intervals reaching above it" in c["measured"]
    # a significance level of the alpha table above its limit also breaks the claim; one without an
    # interval cannot hold it
    alpha_table = pd.DataFrame({"alpha": [0.01, 0.05], "test": "t", "type1": [3.5, 4.0]})
    assert _claim(bf.check_claims(ok, 0.05, alpha_table), 1)["verdict"] == "not resolved at this scale"
    alpha_table = alpha_table.assign(type1_mc_low=[2.1, 3.0], type1_mc_high=[4.9, 5.0])
    assert _claim(bf.check_claims(ok, 0.05, alpha_table), 1)["verdict"] == "does not hold"
    # an unbalanced prior on the independent source is reported, not checked
    skewed = pd.concat(
        [
            ok,
            _per_set(
                "prior", "bouckaert1_prior0.1", "bouckaert1", "0.1", 0.1, np.full(40, 100.0), 0.5, independent=True
            ),
        ]
    )
    claims = bf.check_claims(skewed, 0.05)
    assert _claim(claims, 1)["verdict"] == "holds"
    assert _claim(claims, "1 (not a true null)")["verdict"] == "reported only"


def _runs_rows(slope, noise, n=30, seed=1):
    rng = np.random.default_rng(seed)
    base = rng.uniform(40, 60, size=n)
    parts = []
    for src in ("bouckaert2", "bouckaert3"):
        for r in (10, 20, 30):
            parts.append(_per_set("runs", src, src, str(r), float(r), base + slope * r + rng.normal(0, noise, n), 0.5))
    return pd.concat(parts, ignore_index=True)


def test_claim2_replicability_rises_with_runs():
    assert _claim(bf.check_claims(_runs_rows(1.0, 2.0), 0.05), 2)["verdict"] == "holds"
    assert _claim(bf.check_claims(_runs_rows(-1.0, 2.0), 0.05), 2)["verdict"] == "does not hold"
    c = _claim(bf.check_claims(_runs_rows(0.0, 2.0), 0.05), 2)
    assert c["verdict"] == "not resolved at this scale" and "per source" in c["measured"]


def _prior_rows(slope, n=30, seed=2):
    rng = np.random.default_rng(seed)
    parts = []
    for fam in ("bouckaert2", "bouckaert3"):
        for p in (0.1, 0.3, 0.5):
            src = bf.prior_source(fam, p)
            parts.append(_per_set("prior", src, fam, str(p), p, 80 + slope * (0.5 - p) + rng.normal(0, 5, n), 0.5))
    return pd.concat(parts, ignore_index=True)


def test_claim3_less_balanced_prior_more_replicable():
    c = _claim(bf.check_claims(_prior_rows(50.0), 0.05), 3)
    assert c["verdict"] == "holds" and c["holds"]
    assert _claim(bf.check_claims(_prior_rows(-50.0), 0.05), 3)["verdict"] == "does not hold"
    assert _claim(bf.check_claims(_prior_rows(0.0), 0.05), 3)["verdict"] == "not resolved at this scale"
    # without the factor there is nothing to check
    assert _claim(bf.check_claims(_runs_rows(1.0, 2.0), 0.05), 3)["verdict"].startswith("not run")
