"""The papers' analytic figures on the page: drawn, and the worked values of their text matched as printed."""

from __future__ import annotations

from simstudy.outputs.analytic import analytic_sections


def test_the_analytic_figures_and_their_worked_values(tmp_path):
    sections = analytic_sections(tmp_path / "figures", tmp_path)
    assert [s["name"] for s in sections] == ["berrar-figure2", "berrar-figure4", "bouckaert-figure2"]
    for s in sections:
        png = tmp_path / s["figure"][0]
        assert png.is_file() and png.stat().st_size > 0 and s["figure"][1]
    fig2, fig4, bouckaert = sections
    # every worked value of Examples 1 to 4 matches as printed, but the two the text computes from a
    # rounded theta, whose rounding (shown beneath, not counted) gives the printed value
    counted = fig2["cmp"][fig2["cmp"]["primary"]]
    misses = counted[counted["verdict"] != "inside"]
    assert sorted(misses["key"]) == ["P_b 24", "P_b 29"] and (misses["cause"] == "found").all()
    alternatives = fig2["cmp"][~fig2["cmp"]["primary"]]
    assert (alternatives["verdict"] == "inside").all()
    assert (fig4["cmp"]["verdict"] == "inside").all() and (fig4["cmp"]["basis"] == "exact").all()
    assert list(bouckaert["claims"]["verdict"]) == ["holds", "holds"]
