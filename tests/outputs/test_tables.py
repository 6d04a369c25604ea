"""Tables that never mislead: one renderer for Markdown and HTML, n/a, clipped intervals, one inside rule."""

from __future__ import annotations

import math
import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from simstudy.outputs.tables import (
    NA,
    TOO_FEW,
    Published,
    compare,
    comparison_markdown,
    comparison_view,
    format_difference,
    format_interval,
    format_number,
    html_table,
    is_inside,
    markdown_table,
    possible_range,
    verdict_line,
    verdict_of,
)


def _gfm_cells(line: str) -> list[str]:
    """Split a Markdown table row as GitHub does: on every pipe not escaped by a backslash."""
    inner = line.strip()[1:-1]
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", inner)]


class _Cells(HTMLParser):
    """The text of every cell of an HTML table, row by row, with the class of each cell."""

    def __init__(self):
        super().__init__()
        self.rows, self._cell, self.classes = [], None, []

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
            self.classes.append([])
        elif tag in ("td", "th"):
            self._cell = ""
            self.classes[-1].append(dict(attrs).get("class", ""))

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.rows[-1].append(self._cell)
            self._cell = None


def _html_cells(text: str):
    parser = _Cells()
    parser.feed(text)
    return parser.rows, parser.classes


FRAME = pd.DataFrame(
    {
        "quantity": ["mean |P_w - F| over groups", "group 3: P_w", "a <b> & c"],
        "published": [0.009792, 0.73, np.nan],
        "ours": [0.1153, np.nan, 2.0],
        "note": [None, "x | y", "plain"],
    }
)


def test_pipe_in_a_cell_does_not_shift_columns():
    lines = markdown_table(FRAME).splitlines()
    header = _gfm_cells(lines[0])
    assert len(header) == 4
    for line in lines[2:]:
        assert len(_gfm_cells(line)) == len(header), line
    first = dict(zip(header, _gfm_cells(lines[2])))
    assert first["Quantity"] == "mean |P_w - F| over groups" and first["Published"] == "0.009792"
    assert first["Ours"] == "0.1153"
    second = dict(zip(header, _gfm_cells(lines[3])))
    assert second["Note"] == "x | y"


def test_html_cells_are_escaped_and_aligned_with_the_header():
    rows, classes = _html_cells(html_table(FRAME))
    assert all(len(r) == len(rows[0]) for r in rows)
    assert rows[0] == ["Quantity", "Published", "Ours", "Note"]
    assert rows[1][0] == "mean |P_w - F| over groups" and rows[3][0] == "a <b> & c"
    assert "<b>" not in html_table(FRAME).split("<tbody>")[1].replace("&lt;b&gt;", "")
    # text left, numbers right, in the header as in the body
    assert classes[0] == ["l", "r", "r", "l"] and classes[1] == ["l", "r", "r", "l"]
    md = markdown_table(FRAME).splitlines()[1]
    assert _gfm_cells(md) == [":---", "---:", "---:", ":---"]


def test_missing_values_read_n_a():
    text = markdown_table(FRAME) + html_table(FRAME)
    assert "nan" not in text.lower().replace("n/a", "") and "None" not in text
    assert _gfm_cells(markdown_table(FRAME).splitlines()[3])[2] == NA
    assert format_number(None) == format_number(float("nan")) == format_number(np.float32("nan")) == NA
    assert format_interval(np.nan, 0.5) == NA


def test_numbers_have_consistent_significant_digits():
    assert format_number(0.04139) == "0.04139" and format_number(0.7625) == "0.7625"
    assert format_number(0.99996) == "1.000" and format_number(1.0) == "1" and format_number(100.0) == "100"
    assert format_number(2.678e-05) == "2.678e-05"
    # a difference has the decimals of the finer of the two numbers it compares, at most 4 significant digits
    assert format_difference(-1.053e-05, "0.04139", "0.0414") == "-0.00001"
    assert format_difference(0.105511, "0.1153", "0.009792") == "+0.1055"
    assert format_difference(-2.7e-05, "0.6172", "0.6172") == "0.0000"
    # an integer column with a missing value stays integer
    text = markdown_table(pd.DataFrame({"k": [4.0, 3.0, np.nan]}))
    assert [_gfm_cells(x)[0] for x in text.splitlines()[2:]] == ["4", "3", NA]


def test_intervals_are_clipped_to_the_possible_range():
    assert possible_range("F") == (0.0, 1.0) and possible_range("wilcoxon_P") == (0.0, 1.0)
    assert possible_range("min_norm_r2") == (-100.0, 100.0) and possible_range("P-F") == (-1.0, 1.0)
    assert possible_range("accepts", {"n": 10}) == (0.0, 10.0)
    assert possible_range("mean_statistic") == (-math.inf, math.inf)
    assert format_interval(-0.25, 1.05, possible_range("P-F")) == "[-0.2500, 1]"
    assert format_interval(-195.9964, 195.9964, possible_range("min_norm_r2")) == "[-100, 100]"
    # in a comparison and in a summary table alike
    table = pd.DataFrame(
        {
            "g": [3],
            "F": [0.9],
            "F_mc_low": [0.7],
            "F_mc_high": [1.2],
            "mean_statistic": [2.0],
            "mean_statistic_mc_low": [-0.5],
            "mean_statistic_mc_high": [4.5],
        }
    )
    cmp = compare({"t": table}, [Published("F", "t", "F", 0.95, (("g", 3),))])
    assert comparison_view(cmp)["Our 95% MC interval"].tolist() == ["[0.7000, 1]"]
    cells = _gfm_cells(markdown_table(table).splitlines()[2])
    assert cells[1] == "0.9000 [0.7000, 1]" and cells[2] == "2 [-0.5000, 4.500]"


def test_inside_rule_is_closed_at_both_ends_and_uses_the_printed_ends():
    assert is_inside(2.0, 0.3162, 2.0) and is_inside(0.3162, 0.3162, 2.0)
    assert is_inside(2.0, 0.3162, 1.9999999) and is_inside(2.0, 0.3162, 2.0000001)  # printed "2"
    assert not is_inside(2.001, 0.3162, 2.0) and is_inside(1.0, 0.5, 1.0)
    assert is_inside(0.5, np.nan, 1.0) is None
    # the same rule in every row: an upper end equal to the published value is inside in both rows
    table = pd.DataFrame(
        {
            "d": ["a", "b"],
            "n": [10, 10],
            "accepts": [2, 2],
            "accepts_mc_low": [0.3162, 0.3162],
            "accepts_mc_high": [2.0, 1.9999999999],
        }
    )
    pub = [Published(f"{d}: accepts", "cells", "accepts", 2.0, (("d", d),)) for d in "ab"]
    cmp = compare({"cells": table}, pub)
    assert list(cmp["published_inside"]) == [True, True] and list(cmp["verdict"]) == ["inside", "inside"]


def test_exact_values_match_as_printed_and_wide_intervals_are_uninformative():
    # an exact value (the same in every replication) is a match or a miss, never "no verdict"
    assert verdict_of(14.8, 0.0, 0.0, 0.0, (0, 100))[:2] == ("outside", "exact")
    assert verdict_of(0.0414, 0.041389, 0.041389, 0.041389, (0, 1))[:2] == ("inside", "exact")
    assert verdict_of(0.0414, 0.1153, 0.1153, 0.1153, (0, 1))[:2] == ("outside", "exact")
    assert verdict_of(46.0, 0.0, -195.9964, 195.9964, (-100, 100))[0].startswith("uninformative")
    assert verdict_of(0.5, np.nan, np.nan, np.nan)[0] == "not computed"
    assert verdict_of(0.5, 0.4, 0.3, 0.45)[0] == "outside"


def test_reduced_profile_gives_the_flag_not_an_outside_count():
    table = pd.DataFrame({"g": [3, 7], "F": [0.5, 0.95], "F_mc_low": [0.4, 0.9], "F_mc_high": [0.6, 0.99]})
    pub = [Published("g3 F", "t", "F", 0.5365, (("g", 3),)), Published("g7 F", "t", "F", 0.80, (("g", 7),))]
    full = comparison_markdown("demo", compare({"t": table}, pub))
    assert "2 distinct published values: 1 inside, 1 outside, not investigated" in full
    cmp = compare({"t": table}, pub, reduced=True)
    assert list(cmp["verdict"]) == [TOO_FEW, TOO_FEW]
    text = comparison_markdown("demo", cmp, reduced="8 replications stored, 2000 at the paper profile")
    assert "Too few replications for a verdict (8 replications stored" in text
    assert "lie outside" not in text and "**no**" not in text
    view = comparison_view(cmp, reduced=True)
    assert view.columns[5] == "Agrees? (orientation only)" and list(view.iloc[:, 5]) == ["yes", "no"]


SCALED_STUDY = '''
"""Two profiles of the same size: a run is at the published scale whatever its profile is called."""
from dataclasses import dataclass

from simstudy.engine import Profile, Study


@dataclass(frozen=True)
class Shift:
    mu: float

    @property
    def key(self):
        return f"mu{self.mu:g}"


def replicate(condition, rng):
    return {"draws": [{"mean": float(rng.normal(condition.mu, 1.0, 5).mean())}]}


STUDY = Study(
    name="scaled_means",
    title="Means of normal draws",
    conditions=[Shift(0.0)],
    replicate=replicate,
    profiles={"smoke": Profile("smoke", n_replications=2), "small": Profile("small", n_replications=3),
              "paper": Profile("paper", n_replications=3)},
    chunk_size=3,
)
'''


def test_reduced_scale_is_decided_by_the_replications_stored(tmp_path):
    from simstudy.engine import load_run, run_study
    from simstudy.engine.study import load_study_file
    from simstudy.outputs.published import reduced_scale

    path = tmp_path / "scaled_means.py"
    path.write_text(SCALED_STUDY)
    st = load_study_file(path)
    for profile, expected in (
        ("smoke", "2 replications stored in 1 condition, 3 in 1 at the paper profile"),
        ("small", None),
    ):
        out = tmp_path / "results" / profile
        run_study(st, profile, out=out, progress=False)
        assert reduced_scale(st, load_run(st, profile=profile, out=out)) == expected


def test_table_headers_are_words():
    cmp = compare({"t": pd.DataFrame({"F": [0.5]})}, [Published("F", "t", "F", 0.5)])
    header = _gfm_cells(comparison_markdown("demo", cmp).split("\n\n")[2].splitlines()[0])
    assert header == [
        "Quantity",
        "Published",
        "Ours",
        "Our 95% MC interval",
        "Ours - published",
        "Agrees?",
        "Source",
    ]
    assert "published_inside" not in markdown_table(cmp.drop(columns=["verdict"]))


@pytest.mark.parametrize("value", [np.int64(3), 3, 3.0])
def test_whole_numbers_print_as_integers(value):
    assert format_number(value) == "3"


def test_the_one_clopper_pearson_is_scipys():
    from scipy.stats import binomtest

    from simstudy.statistics.intervals import clopper_pearson

    k, n = np.array([0, 1, 7, 20, 3]), np.array([20, 20, 20, 20, 4])
    lo, hi = clopper_pearson(k, n)
    for i in range(len(k)):
        ci = binomtest(int(k[i]), int(n[i])).proportion_ci(0.95, method="exact")
        assert lo[i] == pytest.approx(ci.low, abs=1e-12) and hi[i] == pytest.approx(ci.high, abs=1e-12)


def test_a_note_is_rendered_beside_its_value():
    table = pd.DataFrame({"g": [3, 7], "F": [0.5, 0.9], "F_mc_low": [0.4, 0.85], "F_mc_high": [0.6, 0.95]})
    note = "s* varies with the initial experiment | measured: 0.55 to 0.70"
    pub = [Published("g3 F", "t", "F", 0.5365, (("g", 3),)), Published("g7 F", "t", "F", 0.99, (("g", 7),), note=note)]
    view = comparison_view(compare({"t": table}, pub))
    assert list(view.columns).index("Note") == list(view.columns).index("Agrees?") + 1
    assert view["Note"].tolist() == ["", note]
    # Markdown: the note in the row of its value, next to the verdict, the pipe escaped
    lines = markdown_table(view, merge_intervals=False).splitlines()
    header = _gfm_cells(lines[0])
    rows = {cells[0]: cells for cells in map(_gfm_cells, lines[2:])}
    assert rows["g7 F"][header.index("Published")] == "0.99" and rows["g7 F"][header.index("Note")] == note
    assert rows["g7 F"][header.index("Agrees?")] == "**no**" and rows["g3 F"][header.index("Note")] == ""
    # HTML: the same cell, escaped, in the row of its value
    page = html_table(view, merge_intervals=False)
    row = next(r for r in page.split("<tr>") if "g7 F" in r)
    assert '<td class="l">s* varies with the initial experiment | measured: 0.55 to 0.70</td>' in row
    # without any note the table keeps its columns
    plain = comparison_view(compare({"t": table}, pub[:1]))
    assert "Note" not in plain.columns


def test_a_value_under_two_conventions_is_counted_once_under_the_primary():
    table = pd.DataFrame(
        {
            "g": [3],
            "a": [0.716],
            "a_mc_low": [0.71],
            "a_mc_high": [0.722],
            "b": [0.785],
            "b_mc_low": [0.779],
            "b_mc_high": [0.791],
        }
    )
    pub = [  # neither convention agrees: the declared search stands
        Published("alt: ties left out", "t", "b", 0.752, (("g", 3),), key="rate", primary=False),
        Published("rate", "t", "a", 0.752, (("g", 3),), key="rate", cause="not found", note="tried x"),
    ]
    cmp = compare({"t": table}, pub)
    assert list(cmp["primary"]) == [True, False]  # the alternative beneath its primary row
    assert verdict_line(cmp).startswith("1 distinct published value: 1 outside, cause not found (1 row beneath")
    view = comparison_view(cmp)
    assert view["Agrees?"].tolist() == [False, "no; alternative convention, not counted"]
    assert view["Quantity"].iloc[1].startswith("(alternative)") and view["Note"].iloc[0] == "Cause not found: tried x"


def test_the_published_error_enters_the_comparison():
    # Bouckaert's Table 1 prints a half-width: 5.5 (+-0.5) agrees with our 6.2 [5.6, 6.8] only with it
    table = pd.DataFrame({"type1": [6.2], "type1_mc_low": [5.6], "type1_mc_high": [6.8]})
    plain = compare({"t": table}, [Published("x", "t", "type1", 5.0)])
    both = compare({"t": table}, [Published("x", "t", "type1", 5.0, half_width=0.5)])
    assert plain["verdict"][0] == "outside" and both["verdict"][0] == "outside"
    wider = compare({"t": table}, [Published("x", "t", "type1", 5.5, half_width=0.5)])
    assert wider["verdict"][0] == "inside" and wider["basis"][0] == "difference"
    assert compare({"t": table}, [Published("x", "t", "type1", 5.5)])["verdict"][0] == "outside"
    # a Monte Carlo estimate over as many replications as ours: the difference's error is sqrt(2) times ours
    reps = compare({"t": table}, [Published("x", "t", "type1", 5.4, replications=1000)], replications=1000)
    assert reps["verdict"][0] == "inside" and reps["diff_high"][0] - reps["diff_low"][0] == pytest.approx(1.2 * 2**0.5)


def test_counts_of_ten_are_compared_as_proportions_and_a_dot_as_either_value():
    table = pd.DataFrame(
        {
            "d": [1, 2, 3],
            "n": [10, 10, 10],
            "accepts": [0.0, 4.0, 6.0],
            "accepts_mc_low": [0.0, 1.2, 2.6],
            "accepts_mc_high": [3.1, 7.4, 8.8],
        }
    )
    pub = [
        Published("nine of ten", "t", "accepts", 9, (("d", 1),), trials=10),
        Published("five of ten", "t", "accepts", 5, (("d", 2),), trials=10, resolution=3),
        Published("a dot", "t", "accepts", float("nan"), (("d", 3),), trials=10, either=(0, 10)),
    ]
    cmp = compare({"t": table}, pub)
    assert cmp["verdict"][0] == "outside" and cmp["basis"][0] == "counts"
    assert cmp["verdict"][1].startswith("uninformative")  # 10 repetitions each cannot tell 4 from 5
    assert cmp["verdict"][2] == "outside"  # 6 of 10 is neither 0 nor 10 at 10 repetitions each
    assert comparison_view(cmp)["Published"].tolist()[2] == "0 or 10"


def test_a_cause_is_shown_beside_a_miss_once_and_named_after():
    table = pd.DataFrame({"g": [1, 2, 3], "F": [0.5, 0.5, 0.5], "F_mc_low": [0.45] * 3, "F_mc_high": [0.55] * 3})
    why = "the networks are not the paper's"
    pub = [
        Published(f"g{g}", "t", "F", v, (("g", g),), note=why, cause="not found")
        for g, v in ((1, 0.9), (2, 0.5), (3, 0.8))
    ]
    notes = comparison_view(compare({"t": table}, pub))["Note"].tolist()
    assert notes == [f"Cause not found: {why}", "", "Cause not found: as in row 1 above."]


def test_a_miss_that_another_convention_explains_has_that_cause():
    table = pd.DataFrame(
        {
            "g": [1],
            "a": [0.5],
            "a_mc_low": [0.45],
            "a_mc_high": [0.55],
            "b": [0.9],
            "b_mc_low": [0.85],
            "b_mc_high": [0.95],
        }
    )
    pub = [
        Published("rate", "t", "a", 0.9, (("g", 1),), key="r"),
        Published("rate, other rule", "t", "b", 0.9, (("g", 1),), key="r", primary=False),
    ]
    cmp = compare({"t": table}, pub)
    assert cmp["cause"][0] == "found" and "rate, other rule" in cmp["note"][0]
    assert verdict_line(cmp).startswith("1 distinct published value: 1 outside, cause found")
