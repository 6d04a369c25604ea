"""The text checker finds labels over each other and past the edge, and only those; the placing helpers keep text clear."""

from __future__ import annotations

import numpy as np
import pytest

from simstudy.outputs.plots import new_figure, text_faults
from simstudy.outputs.plots.layout import fit_legend, spread_labels, wrap_text


def _kinds(faults):
    return sorted(f.kind for f in faults)


def test_a_plain_matplotlib_figure_has_no_fault():
    fig = new_figure()
    ax = fig.add_subplot()
    ax.plot(np.linspace(0, 1000, 50), np.linspace(0, 1, 50) ** 2, label="a curve")
    ax.set(xlabel="x", ylabel="y", title="a title")
    ax.legend()
    fig.suptitle("a suptitle")
    assert text_faults(fig) == []


def test_texts_over_each_other_and_past_the_edge():
    fig = new_figure(layout=None)
    ax = fig.add_subplot()
    ax.text(0.5, 0.5, "first label", transform=ax.transAxes)
    ax.text(0.52, 0.51, "second label", transform=ax.transAxes)
    fig.text(0.98, 0.5, "runs off the right edge")
    faults = text_faults(fig)
    assert _kinds(faults) == ["outside", "overlap"]
    overlap = next(f for f in faults if f.kind == "overlap")
    assert {overlap.first, overlap.second} == {
        "annotation of axes 0 'first label'",
        "annotation of axes 0 'second label'",
    }
    assert overlap.width > 10 and overlap.height > 5
    assert "overlaps" in str(overlap) and "past the edge" in str(next(f for f in faults if f.kind == "outside"))


def test_the_two_leaderboard_labels_side_by_side_are_found():
    # the fault the proving ground's leaderboard had: two long axis labels of neighbouring panels
    fig = new_figure((8, 3), layout=None)
    ax1, ax2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [3, 2]})
    ax1.set_xlabel("power, % (alternatives; dots size-adjusted, crosses raw)", fontsize=8)
    ax2.set_xlabel("Type I error of the deciding null scenario, % (simultaneous intervals)", fontsize=8)
    faults = text_faults(fig)
    assert any(
        f.kind == "overlap" and "x label of axes 0" in f.first and "x label of axes 1" in f.second for f in faults
    )


def test_a_multi_line_text_is_seen():
    fig = new_figure(layout=None)
    ax = fig.add_subplot()
    ax.text(0.5, 0.5, "two\nlines", transform=ax.transAxes)
    ax.text(0.5, 0.5, "over them", transform=ax.transAxes)
    assert _kinds(text_faults(fig)) == ["overlap"]


def test_what_is_not_drawn_is_not_counted():
    fig = new_figure(layout=None)
    ax, hidden = fig.subplots(1, 2)
    ax.text(0.5, 0.5, "shown", transform=ax.transAxes)
    hidden.text(0.5, 0.5, "hidden", transform=ax.transAxes)  # over the shown one, in an Axes not drawn
    hidden.set_visible(False)
    ax.text(0.5, 0.5, "", transform=ax.transAxes)  # empty
    ax.set_xlim(0.2, 0.3)  # the ticks outside the view limits draw no label
    assert text_faults(fig) == []


def test_rotated_texts_are_compared_by_their_own_boxes():
    fig = new_figure(layout=None)
    ax = fig.add_subplot()
    # two parallel diagonal labels: their upright boxes overlap, the texts do not
    ax.text(0.3, 0.3, "a diagonal label", rotation=45, transform=ax.transAxes, ha="center", va="center")
    ax.text(0.38, 0.26, "another diagonal", rotation=45, transform=ax.transAxes, ha="center", va="center")
    assert text_faults(fig) == []
    ax.text(0.3, 0.3, "across the first", rotation=-45, transform=ax.transAxes, ha="center", va="center")
    assert "overlap" in _kinds(text_faults(fig))


def test_an_annotations_arrow_is_not_its_text():
    fig = new_figure(layout=None)
    ax = fig.add_subplot()
    ax.text(0.5, 0.5, "in the way", transform=ax.transAxes, ha="center")
    ax.annotate("label", (0.9, 0.9), xytext=(0.1, 0.1), xycoords="axes fraction", arrowprops={"arrowstyle": "-"})
    assert text_faults(fig) == []


def test_tolerance_and_bad_input():
    fig = new_figure(layout=None)
    ax = fig.add_subplot()
    a = ax.text(0.2, 0.5, "left", transform=ax.transAxes)
    fig.draw_without_rendering()
    box = a.get_window_extent()
    # a second text overlapping by one pixel: inside the default tolerance, a fault without one
    ax.text(box.x1 - 1, box.y0, "right", transform=None)
    assert text_faults(fig) == []
    assert _kinds(text_faults(fig, tolerance=0)) == ["overlap"]
    with pytest.raises(ValueError, match="^tolerance:"):
        text_faults(fig, tolerance=-1)


def test_the_check_changes_nothing():
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.text import Text

    fig = new_figure()
    ax = fig.add_subplot()
    ax.set_title("title")
    text_faults(fig)
    assert all("draw" not in vars(t) for t in fig.findobj(Text))
    renderer = fig.canvas.get_renderer()
    assert "draw_text" not in vars(renderer) and type(renderer) is RendererAgg


# -- the helpers -----------------------------------------------------------------------------------------


def test_wrap_text_breaks_only_the_lines_that_do_not_fit():
    fig = new_figure((4, 3), layout=None)
    ax = fig.add_subplot()
    short = ax.text(0, 0, "short\nkept as it is")
    wrap_text(short, 200)
    assert short.get_text() == "short\nkept as it is"
    long = ax.text(0, 0, "a first line that is much too wide for two hundred pixels of width\nshort")
    wrap_text(long, 200)
    lines = long.get_text().split("\n")
    assert len(lines) >= 3 and lines[-1] == "short"
    assert " ".join(lines[:-1]) == "a first line that is much too wide for two hundred pixels of width"
    fig.draw_without_rendering()
    assert long.get_window_extent().width <= 200


def test_fit_legend_takes_as_many_columns_as_fit():
    fig = new_figure((6, 4))
    ax = fig.add_subplot()
    for i in range(6):
        ax.plot([0, 1], [i, i], label=f"a rather long label number {i}")
    legend = fit_legend(lambda n: ax.legend(ncols=n), ncols=6)
    assert legend is ax.get_legend()
    assert legend.get_window_extent(fig.canvas.get_renderer()).width <= 0.98 * fig.bbox.width
    assert legend._ncols in (2, 3)
    assert text_faults(fig) == []


def test_spread_labels_stacks_labels_of_one_point():
    def draw():
        fig = new_figure((5, 4))
        ax = fig.add_subplot()
        ax.plot([0, 10], [0, 10], "o")
        labels = [
            ax.annotate(
                f"procedure {i}", (10, 0), xytext=(3, 2), textcoords="offset points", arrowprops={"arrowstyle": "-"}
            )
            for i in range(12)
        ]
        spread_labels(labels)
        return fig, labels

    (fig, labels), (_, again) = draw(), draw()
    assert text_faults(fig) == []
    assert [a.xyann for a in labels] == [a.xyann for a in again]  # a function of the figure alone
    r = fig.canvas.get_renderer()
    frame = fig.axes[0].get_window_extent(r)
    assert all(frame.contains(*a.get_window_extent(r).get_points().mean(axis=0)) for a in labels)
    # the labels that had to move away from their point are joined to it by a line
    assert any(a.arrow_patch.get_visible() for a in labels)
