import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from simstudy.pipeline.schemes import SCHEMES, scheme_sample, scheme_samples

# Bouckaert (2004), Figure 1: a 3x3 cv in percentage points.  The figure prints
# every number cut (not rounded) to two decimals: 6.66 is 20/3, 5.55 is 50/9.
FIGURE_1 = np.array(
    [
        [10 / 3, 10.0, -20 / 3],
        [20 / 3, 10 / 3, 0.0],
        [20 / 3, -10.0, -10 / 3],
    ]
)
FIGURE_1_PRINTED = {
    "resampling": [3.33, 6.66, 6.66],  # first column
    "kfold_cv": [3.33, 10, -6.66],  # first row
    "use_all_data": [3.33, 10, -6.66, 6.66, 3.33, 0, 6.66, -10, -3.33],
    "average_over_folds": [2.22, 3.33, -2.22],  # the row means at the right of the box
    "average_over_runs": [5.55, 1.11, -3.33],  # the column means below the box
    "average_over_sorted_runs": [-5.55, 1.11, 7.77],  # the column means of the sorted table
}
FIGURE_1_SORTED = [[-6.66, 3.33, 10], [0, 3.33, 6.66], [-10, -3.33, 6.66]]


def _as_printed(v):
    return np.trunc(np.asarray(v) * 100 + np.sign(v) * 1e-9) / 100


@pytest.mark.parametrize("scheme", SCHEMES)
def test_figure_1_of_bouckaert(scheme):
    got = scheme_sample(FIGURE_1, scheme)
    np.testing.assert_allclose(_as_printed(got), FIGURE_1_PRINTED[scheme], atol=1e-12)


def test_figure_1_sorted_table():
    np.testing.assert_allclose(_as_printed(np.sort(FIGURE_1, axis=-1)), FIGURE_1_SORTED, atol=1e-12)


def test_figure_1_exact_values():
    s = scheme_samples(FIGURE_1)
    np.testing.assert_allclose(s["average_over_folds"], [20 / 9, 10 / 3, -20 / 9])
    np.testing.assert_allclose(s["average_over_runs"], [50 / 9, 10 / 9, -10 / 3])
    np.testing.assert_allclose(s["average_over_sorted_runs"], [-50 / 9, 10 / 9, 70 / 9])


def test_scheme_samples_has_all_schemes_in_order():
    s = scheme_samples(FIGURE_1)
    assert tuple(s) == SCHEMES
    for name, value in s.items():
        np.testing.assert_array_equal(value, scheme_sample(FIGURE_1, name))


def test_rectangular_matrix_sizes():
    x = np.arange(2 * 4 * 3 * 5, dtype=float).reshape(2, 4, 3, 5)  # 3 runs, 5 folds
    sizes = {name: v.shape for name, v in scheme_samples(x).items()}
    assert sizes == {
        "resampling": (2, 4, 3),
        "kfold_cv": (2, 4, 5),
        "use_all_data": (2, 4, 15),
        "average_over_folds": (2, 4, 3),
        "average_over_runs": (2, 4, 5),
        "average_over_sorted_runs": (2, 4, 5),
    }


def test_samples_do_not_alias_the_input():
    x = FIGURE_1.copy()
    for value in scheme_samples(x).values():
        value[...] = 99.0
    np.testing.assert_array_equal(x, FIGURE_1)


def test_unknown_scheme_names_scheme_and_lists_the_valid_ones():
    with pytest.raises(ValueError, match=r"^scheme: .*sorted_runs") as info:
        scheme_sample(FIGURE_1, "sorted")
    for name in SCHEMES:
        assert name in str(info.value)
    with pytest.raises(ValueError, match="^scheme"):
        scheme_sample(FIGURE_1, 3)


@pytest.mark.parametrize("bad", [[1.0, 2.0], [[1.0, np.nan]], np.zeros((3, 0)), "abc"])
def test_bad_diffs_name_the_argument(bad):
    with pytest.raises(ValueError, match="^diffs"):
        scheme_sample(bad, "kfold_cv")
    with pytest.raises(ValueError, match="^diffs"):
        scheme_samples(bad)


matrices = hnp.arrays(
    float,
    hnp.array_shapes(min_dims=2, max_dims=4, min_side=1, max_side=6),
    elements=st.floats(-1, 1, allow_nan=False),
)


@settings(max_examples=80, deadline=None)
@given(matrices)
def test_scheme_shapes_and_invariants(x):
    r, k = x.shape[-2:]
    lead = x.shape[:-2]
    s = scheme_samples(x)
    expected_n = {
        "resampling": r,
        "kfold_cv": k,
        "use_all_data": r * k,
        "average_over_folds": r,
        "average_over_runs": k,
        "average_over_sorted_runs": k,
    }
    for name, n in expected_n.items():
        assert s[name].shape == lead + (n,)
    # every averaging scheme keeps the grand mean of the matrix
    grand = x.mean(axis=(-2, -1))
    for name in ("use_all_data", "average_over_folds", "average_over_runs", "average_over_sorted_runs"):
        np.testing.assert_allclose(s[name].mean(axis=-1), grand, atol=1e-12)
    # sorted-run averages are increasing and bracketed by the runs' extremes
    srt = s["average_over_sorted_runs"]
    assert np.all(np.diff(srt, axis=-1) >= -1e-12)
    np.testing.assert_allclose(srt[..., 0], x.min(axis=-1).mean(axis=-1), atol=1e-12)
    # negating the matrix negates every scheme's sample (as a multiset)
    neg = scheme_samples(-x)
    for name in SCHEMES:
        np.testing.assert_allclose(np.sort(neg[name], axis=-1), np.sort(-s[name], axis=-1), atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(matrices)
def test_vectorised_equals_loop(x):
    flat = x.reshape((-1,) + x.shape[-2:])
    for name in SCHEMES:
        vec = scheme_sample(x, name).reshape(flat.shape[0], -1)
        for i in range(flat.shape[0]):
            np.testing.assert_array_equal(vec[i], scheme_sample(flat[i], name))
