"""Berrar's four studies end to end at the smoke profile: run, compare, figures, Table 1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from simstudy.engine import get_study, list_studies, run_study
from simstudy.outputs.published import berrar_table1, comparison_report

ROOT = Path(__file__).resolve().parents[2]
STUDIES = ("berrar1", "berrar2", "berrar3", "berrar4")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    root = tmp_path_factory.mktemp("results")
    for name in STUDIES:
        run_study(name, "smoke", out=root / name / "smoke", jobs=1, progress=False)
    return root


def test_registry_lists_every_study():
    assert set(STUDIES) | {"demo"} <= set(list_studies())
    for name in STUDIES:
        st = get_study(name)
        assert {"smoke", "quick", "paper"} <= set(st.profiles)
        assert st.profiles["paper"].n_replications == 1000


@pytest.mark.parametrize("name", STUDIES)
def test_comparison_report_from_stored_rows(results, name):
    text = comparison_report(name, profile="smoke", out=results / name / "smoke")
    assert (results / name / "smoke" / "comparison.md").exists()
    st = get_study(name)
    for item in st.publication.values:
        label = item.label.replace("|", "\\|")
        assert label in text  # a | in a Markdown cell is escaped
        if item.note:  # the measured cause or the search, in the row of its value (or one row names it)
            row = next(line for line in text.splitlines() if line.startswith("| " + label + " |"))
            assert item.note.replace("|", "\\|") in row or "as in row " in row
    # a smoke run is too small to count values outside its intervals: the page says so instead
    assert "distinct published value" in text


def test_study1_rows_and_bootstrap(results):
    from simstudy.engine import load_run

    run = load_run("berrar1", profile="smoke", out=results / "berrar1" / "smoke")
    scores = run.table("scores")
    assert scores.groupby(["g", "replication"]).size().eq(20).all()  # N = 20 data sets per replication
    boot = run.table("bootstrap")
    assert set(boot["g"]) == {3, 7} and boot.groupby("g").size().eq(4).all()
    tables = get_study("berrar1").summarize(run)
    assert np.isfinite(tables["wilcoxon"]["s_star"]).all()


def test_study3_oracle_never_hurts(results):
    from simstudy.engine import load_run

    scores = load_run("berrar3", profile="smoke", out=results / "berrar3" / "smoke").table("scores")
    assert (scores["acc_a"] >= scores["acc_b"]).all()  # revealing labels can only fix predictions
    mean_gain = scores.assign(g=scores.acc_a - scores.acc_b).groupby("q")["g"].mean()
    assert mean_gain.is_monotonic_increasing


def test_table1_from_stored_results(results):
    table, text = berrar_table1(profile="smoke", results=results)
    assert list(table["study"][:4]) == list(STUDIES)
    assert "average" in set(table["study"])
    assert "Berrar, Table 1" in text


@pytest.mark.parametrize("script", ["figure9", "figure10", "figure11", "figure12", "figure13", "figure14", "table1"])
def test_figure_scripts_write_png_and_pdf(results, tmp_path, script):
    out = tmp_path / "fig"
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "figures" / f"{script}.py"),
            "--profile",
            "smoke",
            "--results",
            str(results),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    if script != "table1":
        assert (out / f"{script}.png").stat().st_size > 1000 and (out / f"{script}.pdf").exists()


@pytest.mark.parametrize("script", ["figure2", "figure4"])
def test_analytic_figures(tmp_path, script):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "figures" / f"{script}.py"), "--out", str(tmp_path)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / f"{script}.png").exists()
