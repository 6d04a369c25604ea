import numpy as np
import pytest

from simstudy.pipeline.sources import GaussianClasses, berrar_benchmark_sources, berrar_cv_source


def test_study1_group3_matches_figure8():
    # Berrar, Figure 8: group 3 has data sets of 400..590 cases, 11..30 features,
    # positives N(0.4, 1.4^2) in the first data set and N(0.305, 1.02^2) in the last.
    sources = berrar_benchmark_sources(20, 240 + 50 * 3)
    sizes = [n for n, _ in sources]
    assert sizes[0] == 400 and sizes[-1] == 590
    first, last = sources[0][1], sources[-1][1]
    assert (first.n_features, last.n_features) == (11, 30)
    assert first.mu == pytest.approx(0.4) and first.sigma == pytest.approx(1.4)
    assert last.mu == pytest.approx(0.305) and last.sigma == pytest.approx(1.02)


def test_study2_sizes_follow_appendix_d():
    # Appendix D, group 2: the third data set has 130 cases; group 10 ends at 1000.
    assert berrar_benchmark_sources(44, 100)[2][0] == 130
    assert berrar_benchmark_sources(44, 560)[-1][0] == 1000


def test_sample_has_half_positives_with_the_right_moments():
    X, y = GaussianClasses(3, mu=0.5, sigma=2.0).sample(20001, np.random.default_rng(0))
    assert X.shape == (20001, 3) and y.sum() == 10000
    pos, neg = X[y == 1], X[y == 0]
    assert np.allclose(pos.mean(0), 0.5, atol=0.08) and np.allclose(pos.std(0), 2.0, atol=0.06)
    assert np.allclose(neg.mean(0), 0.0, atol=0.04) and np.allclose(neg.std(0), 1.0, atol=0.03)


def test_same_rng_same_data():
    src = berrar_cv_source(4)
    a = src.sample(50, np.random.default_rng(7))
    b = src.sample(50, np.random.default_rng(7))
    assert all(np.array_equal(u, v) for u, v in zip(a, b))


@pytest.mark.parametrize(
    "kwargs, name", [({"n_features": 0}, "n_features"), ({"n_features": 2, "sigma": -1.0}, "sigma")]
)
def test_invalid_source_names_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        GaussianClasses(**kwargs)
