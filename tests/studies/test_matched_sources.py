"""The sources of Bouckaert's Table 1 matched on the gap and the standardised gap, and their study."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from simstudy.engine import get_study
from simstudy.pipeline.sources.bayesnet import NETWORKS_DIR, read_source

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts" / "networks"  # the scripts that build the networks


def _script():
    spec = importlib.util.spec_from_file_location("make_matched_sources", SCRIPTS / "make_matched_sources.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _record():
    with open(NETWORKS_DIR / "matched_sources.json", encoding="utf-8") as fh:
        return json.load(fh)


def test_standardised_gap_is_mean_difference_over_mean_fold_sd():
    m = _script()
    diffs = np.array([[1.0, 3.0, 5.0], [2.0, 2.0, 8.0]])  # means 3 and 4, sds 2 and sqrt(12)
    got = m.standardised_gap(diffs)
    assert got["cv_gap"] == pytest.approx(3.5)
    assert got["sd_within_set"] == pytest.approx((2.0 + np.sqrt(12.0)) / 2)
    assert got["std_gap"] == pytest.approx(3.5 / ((2.0 + np.sqrt(12.0)) / 2))
    assert got["sd_between_sets"] == pytest.approx(np.std([3.0, 4.0], ddof=1))
    assert got["n_sets"] == 2


def test_record_matches_the_script_and_the_networks():
    m = _script()
    doc = _record()
    assert doc["seed"] == m.SEED
    assert set(doc["sources"]) == set(m.PAPER_GAPS)
    for name, rec in doc["sources"].items():
        assert rec["paper_gap"] == m.PAPER_GAPS[name]
        assert rec["target_std_gap"] == m.TARGET_STD_GAP[name]
        src = read_source(NETWORKS_DIR / rec["file"])
        assert src.n_attributes == 10 and src.n_classes == 2
        assert rec["bayes_accuracy"] == pytest.approx(src.bayes_accuracy())
        # the disagreement of the two learners bounds the gap from above
        assert rec["disagreement"] * 100 >= rec["gap"] - 3 * rec["gap_se"]


def test_study_uses_bouckaert1_protocol_on_matched_sources():
    st = get_study("bouckaert1_matched")
    base = get_study("bouckaert1")
    assert st.publication.values == base.publication.values
    conds = st.conditions_for(st.profiles["smoke"])
    assert [c.source for c in conds] == ["bouckaert1", "matched2", "matched3", "matched4"]
    from simstudy.studies.bouckaert2004 import bouckaert1_matched as mod

    rows = mod.replicate(conds[1], np.random.default_rng(0))
    assert set(rows) == {"scores", "outcomes"}
    assert len(rows["scores"]) == conds[1].n_experiments * conds[1].n_runs * conds[1].n_folds
    with pytest.raises(ValueError, match="unknown source"):
        mod.validate(type(conds[0])("bouckaert9"))
