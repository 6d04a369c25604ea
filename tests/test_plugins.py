"""Plug-in loading and the calling convention of user tests and schemes (no stored runs needed)."""

from __future__ import annotations

import numpy as np
import pytest

from simstudy.hypothesis import corrected_repeated_cv_t_test
from simstudy.plugins import PairedScores, PluginError, load_plugin, run_scheme, run_test


def _scores(n_reps=4, r=2, k=5, shift=0.05, seed=0):
    rng = np.random.default_rng(seed)
    b = rng.uniform(0.6, 0.8, size=(n_reps, r, k))
    return PairedScores(b + shift + rng.normal(0, 0.01, size=b.shape), b, n_train=90, n_test=10)


def _write(tmp_path, source, name="plug.py"):
    f = tmp_path / name
    f.write_text(source)
    return f


def test_paired_scores_is_frozen_and_shaped():
    s = _scores()
    assert s.diffs.shape == (4, 2, 5) and (s.n_runs, s.n_folds) == (2, 5)
    with pytest.raises(AttributeError):
        s.n_train = 10


def test_module_reference_and_result_object():
    fn = load_plugin("simstudy.hypothesis:corrected_repeated_cv_t_test")
    assert fn.__simstudy_ref__ == "simstudy.hypothesis:corrected_repeated_cv_t_test"

    def corrected(scores):
        return corrected_repeated_cv_t_test(scores.diffs, n_train=scores.n_train, n_test=scores.n_test)

    out = run_test(corrected, _scores(), 0.05)
    assert out["decision"].shape == (4,) and np.all(out["decision"] == 1)
    assert np.all(out["pvalue"] <= 0.05)


def test_file_reference_tuple_and_direction(tmp_path):
    f = _write(tmp_path, "import numpy as np\n"
                         "def t(scores):\n"
                         "    m = scores.diffs.mean(axis=(-2, -1))\n"
                         "    return m, np.full(m.shape, 0.01)\n")
    fn = load_plugin(f"{f}:t")
    assert np.all(run_test(fn, _scores(shift=0.05), 0.05)["decision"] == 1)
    assert np.all(run_test(fn, _scores(shift=-0.05), 0.05)["decision"] == -1)
    assert np.all(run_test(fn, _scores(), 0.001)["decision"] == 0)


def test_file_plugin_may_define_its_own_result_dataclass(tmp_path):
    f = _write(tmp_path, "from dataclasses import dataclass\n"
                         "import numpy as np\n"
                         "@dataclass(frozen=True)\n"
                         "class Res:\n"
                         "    statistic: np.ndarray\n"
                         "    pvalue: np.ndarray\n"
                         "    direction: np.ndarray\n"
                         "def t(scores):\n"
                         "    n = scores.diffs.shape[:-2]\n"
                         "    return Res(np.zeros(n), np.zeros(n), -np.ones(n))\n", name="own.py")
    assert np.all(run_test(load_plugin(f"{f}:t"), _scores(), 0.05)["decision"] == -1)


def test_decision_array_and_class_plugins(tmp_path):
    f = _write(tmp_path, "import numpy as np\n"
                         "def always_b(scores):\n"
                         "    return -np.ones(scores.diffs.shape[:-2], dtype=int)\n"
                         "class Threshold:\n"
                         "    def __init__(self):\n"
                         "        self.cut = 0.02\n"
                         "    def __call__(self, scores):\n"
                         "        return np.where(scores.diffs.mean(axis=(-2, -1)) > self.cut, 1, 0)\n")
    out = run_test(load_plugin(f"{f}:always_b"), _scores(), 0.05)
    assert np.all(out["decision"] == -1) and np.all(np.isnan(out["pvalue"]))
    assert np.all(run_test(load_plugin(f"{f}:Threshold"), _scores(), 0.05)["decision"] == 1)


@pytest.mark.parametrize("body, message", [
    ("raise RuntimeError('boom')", "raised RuntimeError: boom"),
    ("return 'nonsense'", "must return"),
    ("return np.zeros(3), np.zeros(3)", "shape (4,)"),
    ("return np.zeros(4), np.full(4, np.nan)", "NaN p-values for 4 of 4"),
    ("return np.zeros(4), np.full(4, 1.5)", "[0, 1]"),
    ("return np.ones(4, dtype=bool)", "not booleans"),
    ("return np.full(4, 2)", "-1, 0 or +1"),
    ("return np.ones(3, dtype=int)", "decision array must have shape (4,)"),
])
def test_bad_returns_name_the_plugin(tmp_path, body, message):
    f = _write(tmp_path, f"import numpy as np\ndef t(scores):\n    {body}\n")
    with pytest.raises(PluginError) as info:
        run_test(load_plugin(f"{f}:t"), _scores(), 0.05)
    assert message in str(info.value) and "plug.py:t" in str(info.value)


def test_bad_references(tmp_path):
    with pytest.raises(PluginError, match="expected 'package.module:function'"):
        load_plugin("no_colon")
    with pytest.raises(PluginError, match="no callable 'nope'"):
        load_plugin("simstudy.hypothesis:nope")
    with pytest.raises(PluginError, match="importing it failed: ModuleNotFoundError"):
        load_plugin("no_such_package_xyz.tests:t")
    with pytest.raises(PluginError, match="no such file"):
        load_plugin(str(tmp_path / "missing.py") + ":t")
    f = _write(tmp_path, "def t(scores):\n    return 0, 1\nraise SystemError('at import')\n")
    with pytest.raises(PluginError, match="importing it failed: SystemError: at import"):
        load_plugin(f"{f}:t")
    f = _write(tmp_path, "class T:\n    def __init__(self, needed):\n        pass\n", name="cls.py")
    with pytest.raises(PluginError, match="creating an instance failed"):
        load_plugin(f"{f}:T")


def test_scheme_plugin(tmp_path):
    f = _write(tmp_path, "def runs(diffs):\n    return diffs.mean(axis=-1)\n"
                         "def wrong(diffs):\n    return diffs.mean(axis=(-2, -1))\n")
    diffs = _scores().diffs
    assert run_scheme(load_plugin(f"{f}:runs", "scheme"), diffs).shape == (4, 2)
    with pytest.raises(PluginError, match=r"--scheme .*plug.py:wrong.*expected an array of shape"):
        run_scheme(load_plugin(f"{f}:wrong", "scheme"), diffs)
