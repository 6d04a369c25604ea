"""Demsar's critical-difference diagram: drawn on an Axes, one bar per group, names at their ranks."""

from __future__ import annotations

import numpy as np
import pytest

from simstudy.outputs.plots import critical_difference_diagram, new_figure
from simstudy.outputs.plots.critical_difference import describe_critical_difference
from simstudy.statistics.multiple import nemenyi_test

NAMES = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
# Demsar (2006), Table 6 (see tests/statistics/test_multiple.py)
AUC = np.array(
    [
        [0.763, 0.768, 0.771, 0.798],
        [0.599, 0.591, 0.590, 0.569],
        [0.954, 0.971, 0.968, 0.967],
        [0.628, 0.661, 0.654, 0.657],
        [0.882, 0.888, 0.886, 0.898],
        [0.936, 0.931, 0.916, 0.931],
        [0.661, 0.668, 0.609, 0.685],
        [0.583, 0.583, 0.563, 0.625],
        [0.775, 0.838, 0.866, 0.875],
        [1.000, 1.000, 1.000, 1.000],
        [0.940, 0.962, 0.965, 0.962],
        [0.619, 0.666, 0.614, 0.669],
        [0.972, 0.981, 0.975, 0.975],
        [0.957, 0.978, 0.946, 0.970],
    ]
)


def _group_bars(ax):
    # the group bars are the only thick lines
    return [c for c in ax.collections if np.max(c.get_linewidths()) > 3]


def test_draws_demsars_figure_on_a_given_axes():
    res = nemenyi_test(AUC, alpha=0.10)
    fig = new_figure()
    ax = fig.add_subplot()
    out = critical_difference_diagram(
        res.mean_ranks, NAMES, groups=res.groups, critical_difference=res.critical_difference, title="Table 6"
    )
    assert out is not ax  # ax=None makes its own figure
    out = critical_difference_diagram(
        res.mean_ranks, NAMES, groups=res.groups, critical_difference=res.critical_difference, ax=ax, title="Table 6"
    )
    assert out is ax and ax.get_title() == "Table 6"
    texts = [t.get_text() for t in ax.texts]
    assert "CD = 1.12" in texts
    assert "C4.5+m+cf (1.93)" in texts and "(3.14) C4.5" in texts
    assert len(_group_bars(ax)) == len(res.groups) == 2
    fig.canvas.draw()  # renders without error


def test_learners_do_not_share_a_row_and_better_ones_sit_left():
    rng = np.random.default_rng(3)
    names = [f"learner {i}" for i in range(9)]
    res = nemenyi_test(rng.normal(np.linspace(0, 1.5, 9), 0.7, (25, 9)))
    ax = critical_difference_diagram(res.mean_ranks, names, groups=res.groups)
    labels = {t.get_text(): t for t in ax.texts if "learner" in t.get_text()}
    assert len(labels) == 9
    left = [t for t in labels.values() if t.get_ha() == "right"]
    right = [t for t in labels.values() if t.get_ha() == "left"]
    assert len(left) == 5 and len(right) == 4
    for side in (left, right):
        ys = [t.get_position()[1] for t in side]
        assert len(set(ys)) == len(ys)
    best = names[int(np.argmin(res.mean_ranks))]
    assert any(t.get_text().startswith(best + " (") for t in left)


def test_without_critical_difference_or_groups():
    ax = critical_difference_diagram([1.2, 2.0, 2.8], ["a", "b", "c"])
    assert not any(t.get_text().startswith("CD") for t in ax.texts)
    assert _group_bars(ax) == []


def test_description_names_ranks_and_groups():
    res = nemenyi_test(AUC, alpha=0.10)
    text = describe_critical_difference(
        res.mean_ranks, NAMES, groups=res.groups, critical_difference=res.critical_difference
    )
    assert text.startswith("Mean ranks (1 = best): C4.5+m+cf 1.93, C4.5+m 2.00, C4.5+cf 2.93, C4.5 3.14.")
    assert "Critical difference 1.12." in text
    assert "Not significantly different: C4.5+m+cf, C4.5+m, C4.5+cf; C4.5+cf, C4.5." in text


def test_names_must_match_the_ranks():
    with pytest.raises(ValueError, match="^names:"):
        critical_difference_diagram([1.0, 2.0], ["only one"])
