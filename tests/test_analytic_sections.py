"""The page's sections of the papers' analytic figures: drawn, described, and their worked values as the text prints them.

The papers' texts are read from ``../shared/papers`` beside the checkout (or ``SIMSTUDY_PAPERS``); the
check that every published value is quoted from them skips where they are absent.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pandas as pd
import pytest

from simstudy.outputs.analytic import analytic_sections

ROOT = Path(__file__).resolve().parents[1]
PAPERS = Path(os.environ.get("SIMSTUDY_PAPERS", ROOT.parent / "shared" / "papers"))
TEXT = {"berrar-figure2": "berrar-replication-probability.txt", "berrar-figure4": "berrar-replication-probability.txt"}
NAMES = ["berrar-figure2", "berrar-figure4", "bouckaert-figure2"]
# the two values the text computes from a rounded theta: ours uses Lemma 1's exact theta, the rounding
# (an alternative row) gives the printed value
ROUNDED_THETA = {"P_b 29", "P_b 24"}


@pytest.fixture(scope="module")
def drawn(tmp_path_factory):
    out = tmp_path_factory.mktemp("page")
    return out, analytic_sections(out / "figures", out)


def _decimals(printed: str) -> int:
    return len(printed.split(".")[1]) if "." in printed else 0


def test_three_sections_with_their_figures(drawn):
    out, sections = drawn
    assert [s["name"] for s in sections] == NAMES
    for s in sections:
        assert {"name", "title", "intro", "figure", "comparison"} <= set(s)
        assert s["title"] and s["intro"] and isinstance(s["comparison"], pd.DataFrame) and len(s["comparison"])
        path, description = s["figure"]
        png = out / path
        assert not Path(path).is_absolute() and png.suffix == ".png"
        assert png.read_bytes().startswith(b"\x89PNG") and png.stat().st_size > 1000
        # the description lands beside the figure, as the studies' figures have it, and is the caption
        meta = json.loads(png.with_suffix(".json").read_text())
        assert meta["description"] == description and "Horizontal axis" in description
        assert set(meta["files"]) == {png.name, png.with_suffix(".pdf").name}
    assert sorted(p.name for p in (out / "figures").glob("*.png")) == [f"{n}.png" for n in NAMES]
    titles = [s["title"] for s in sections]
    assert titles[0].startswith("Berrar, Figure 2") and "N = 44" in titles[0]
    assert titles[1].startswith("Berrar, Figure 4") and titles[2].startswith("Bouckaert 2004, Figure 2")
    # the 3-D panels are described with their three axes
    caption = sections[2]["figure"][1]
    assert "depth axis: experiments n" in caption and "vertical axis: var(R2)" in caption


def test_exact_values_have_a_zero_width_interval(drawn):
    for s in drawn[1][:2]:
        cmp = s["comparison"]
        assert s["cmp"] is cmp and s["claims"] is None
        assert (cmp["mc_low"] == cmp["ours"]).all() and (cmp["mc_high"] == cmp["ours"]).all()
        assert (cmp["basis"] == "exact").all()
        assert [float(p) for p in cmp["printed"]] == cmp["published"].tolist()


@pytest.mark.skipif(not PAPERS.is_dir(), reason=f"the papers' texts are not at {PAPERS}")
def test_every_published_value_is_printed_in_the_paper(drawn):
    for s in drawn[1][:2]:
        text = (PAPERS / TEXT[s["name"]]).read_text(errors="replace")
        for r in s["comparison"].itertuples():
            assert r.source.startswith("Berrar")
            assert re.search(rf"(?<![\d.]){re.escape(r.printed)}(?!\d)", text), (s["name"], r.quantity, r.printed)


def test_exact_values_match_as_printed(drawn):
    for s in drawn[1][:2]:
        cmp = s["comparison"]
        for r in cmp.itertuples():
            matches = round(r.ours, _decimals(r.printed)) == float(r.printed)
            # every value matches to the decimals the text prints (1.000 to three), but the two the
            # text computes from a rounded theta; their rounding, shown beneath, matches
            assert matches == (not (r.primary and r.key in ROUNDED_THETA)), (r.quantity, r.printed, r.ours)
            assert r.verdict == ("inside" if matches else "outside")
        misses = cmp[cmp["verdict"] != "inside"]
        assert (misses["cause"] == "found").all() and set(misses["key"]) == (
            ROUNDED_THETA if s["name"] == "berrar-figure2" else set()
        )
    fig2, fig4 = (drawn[1][0]["comparison"].set_index("quantity"), drawn[1][1]["comparison"].set_index("quantity"))
    assert round(fig2.loc["29 of 44 wins: P_b (Lemma 1, theta = 29/44)", "ours"], 4) == 0.5696
    assert fig2.loc["significant outcomes in A's favour (p < 0.05) of 44 data sets", "ours"] == 16
    assert fig2.loc["wins of that p-value", "ours"] == 35
    assert f"{fig4.loc['p = 0.00281: P_t', 'ours']:.2f}" == "0.95"
    assert f"{fig4.loc['p = 0.00281: lower limit of P_t', 'ours']:.3f}" == "0.417"
    assert f"{fig4.loc['p = 0.00281: upper limit of P_t', 'ours']:.3f}" == "1.000"
    assert f"{fig4.loc['Example 4: P_t', 'ours']:.4f}" == "0.5235"


def test_bouckaert_claims_hold(drawn):
    s = drawn[1][2]
    claims = s["comparison"]
    assert s["cmp"] is None and s["claims"] is claims
    assert list(claims.columns) == ["claim", "checked on", "worst case", "verdict"]
    assert list(claims["verdict"]) == ["holds", "holds"]
    assert "var(R2)/var(R1)" in claims["worst case"].iloc[0]


def test_the_figures_are_drawn_the_same_every_time(drawn, tmp_path):
    out, _ = drawn
    again = analytic_sections(tmp_path / "figures", tmp_path)
    for name, (path, description) in zip(NAMES, (s["figure"] for s in again)):
        assert (tmp_path / path).read_bytes() == (out / path).read_bytes(), name
        assert description == json.loads((out / path).with_suffix(".json").read_text())["description"]
