"""The library's figures: drawn on an Axes without pyplot, saved atomically, the same as the scripts'."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from simstudy.engine import get_study, load_run, run_study
from simstudy.outputs.plots import (
    berrar_figure2,
    berrar_figure4,
    bouckaert_figure2,
    figure_is_current,
    new_figure,
    render_study_figure,
    save_figure,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def berrar3(tmp_path_factory):
    root = tmp_path_factory.mktemp("results")
    run_study("berrar3", "smoke", out=root / "berrar3" / "smoke", progress=False)
    return root


def test_declared_figure_draws_on_an_axes(berrar3):
    st = get_study("berrar3")
    (figure,) = st.publication.figures
    run = load_run(st, profile="smoke", out=berrar3 / "berrar3" / "smoke")
    fig = new_figure()
    ax = fig.add_subplot()
    figure.draw(st.summarize(run), ax, profile="smoke")
    assert ax.get_title() == "Study 3: SVM with oracle vs SVM, profile smoke"
    assert ax.get_xscale() == "log" and ax.get_ylabel() == "replication probability"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "$P_t$, line: 95% prediction interval",
        "empirical F",
        "replication probability 0.95 (dotted)",
        "p = 0.05, the significance level (dotted)",
    ]


@pytest.mark.parametrize("name", ["berrar1", "berrar2", "berrar3", "berrar4"])
def test_berrar_studies_declare_their_figures(name):
    expected = {
        "berrar1": ["figure9", "figure10"],
        "berrar2": ["figure11", "figure12"],
        "berrar3": ["figure13"],
        "berrar4": ["figure14"],
    }[name]
    st = get_study(name)
    assert [f.name for f in st.publication.figures] == expected
    assert all(f.title.startswith("Berrar, Figure") for f in st.publication.figures) and st.publication.notes


def test_analytic_figures_on_axes():
    fig = new_figure()
    ax = fig.add_subplot()
    berrar_figure2(ax, n=44)
    assert ax.get_title() == "N = 44: all 16 significant outcomes (29..44 wins)"
    fig = new_figure()
    ax = fig.add_subplot()
    berrar_figure4(ax, nu=9)
    assert ax.get_title() == r"$\nu$ = 9"
    fig = new_figure((12, 5))
    gaps = bouckaert_figure2(fig, n_sim=2000)
    assert set(gaps) == {"R1", "R2"} and len(fig.axes) == 2
    assert fig.axes[0].get_zlabel() == "var(R1)" and max(gaps.values()) < 0.5


def test_save_figure_is_atomic(tmp_path, monkeypatch):
    fig = new_figure()
    fig.add_subplot().plot([0, 1], [0, 1])
    png, pdf = save_figure(fig, tmp_path, "line")
    old = png.read_bytes()
    assert old.startswith(b"\x89PNG") and pdf.read_bytes().startswith(b"%PDF")
    fig.axes[0].set_title("changed")
    monkeypatch.setattr(os, "replace", lambda src, dst: (_ for _ in ()).throw(OSError(28, "No space left")))
    with pytest.raises(OSError):
        save_figure(fig, tmp_path, "line")
    assert png.read_bytes() == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["line.pdf", "line.png"]


def test_render_keys_the_figure_by_the_run(berrar3, tmp_path):
    st = get_study("berrar3")
    (figure,) = st.publication.figures
    run = load_run(st, profile="smoke", out=berrar3 / "berrar3" / "smoke")
    tables = st.summarize(run)
    png = render_study_figure(st, figure, tables, run, tmp_path, profile="smoke")
    from simstudy.outputs.plots import figure_key

    key = figure_key(run, figure, study="berrar3", profile="smoke")
    assert figure_is_current(tmp_path, "figure13", key)
    assert not figure_is_current(tmp_path, "figure13", "another run")
    png.write_bytes(b"")
    assert not figure_is_current(tmp_path, "figure13", key)
    render_study_figure(st, figure, tables, run, tmp_path, profile="smoke")
    assert figure_is_current(tmp_path, "figure13", key) and png.stat().st_size > 1000


def test_scripts_match_the_library(berrar3, tmp_path):
    """figures/figure13.py draws the study's declared figure: the same pixels as the library."""
    import matplotlib.image as mpimg
    import numpy as np

    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "figures" / "figure13.py"),
            "--profile",
            "smoke",
            "--results",
            str(berrar3),
            "--out",
            str(tmp_path / "script"),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    st = get_study("berrar3")
    run = load_run(st, profile="smoke", out=berrar3 / "berrar3" / "smoke")
    render_study_figure(st, st.publication.figures[0], st.summarize(run), run, tmp_path / "lib", profile="smoke")
    a = mpimg.imread(tmp_path / "script" / "figure13.png")
    b = mpimg.imread(tmp_path / "lib" / "figure13.png")
    assert a.shape == b.shape and np.array_equal(a, b)
    assert (tmp_path / "script" / "figure13.pdf").stat().st_size > 1000


def test_table1_script(berrar3, tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "figures" / "table1.py"),
            "--profile",
            "smoke",
            "--results",
            str(berrar3),
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "table1.md").read_text()
    assert text.startswith("# Berrar, Table 1 (profile smoke)") and "berrar3 (q = 7 published" in text
    import pandas as pd

    table = pd.read_csv(tmp_path / "table1.csv")
    assert list(table["study"]) == ["berrar1", "berrar2", "berrar3", "berrar4", "average"]
    assert list(table["group"][:2]) == ["not run", "not run"]
