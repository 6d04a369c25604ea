"""Plug-in loading and the calling convention of user tests and schemes (no stored runs needed)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from simstudy.pipeline.plugins import PairedScores, PluginError, load_plugin, run_plugin, run_scheme
from simstudy.statistics.significance import corrected_repeated_cv_t_test


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
    fn = load_plugin("simstudy.statistics.significance:corrected_repeated_cv_t_test")
    assert fn.__simstudy_ref__ == "simstudy.statistics.significance:corrected_repeated_cv_t_test"

    def corrected(scores):
        return corrected_repeated_cv_t_test(scores.diffs, n_train=scores.n_train, n_test=scores.n_test)

    out = run_plugin(corrected, _scores(), 0.05)
    assert out["decision"].shape == (4,) and np.all(out["decision"] == 1)
    assert np.all(out["pvalue"] <= 0.05)


def test_file_reference_tuple_and_direction(tmp_path):
    f = _write(
        tmp_path,
        "import numpy as np\n"
        "def t(scores):\n"
        "    m = scores.diffs.mean(axis=(-2, -1))\n"
        "    return m, np.full(m.shape, 0.01)\n",
    )
    fn = load_plugin(f"{f}:t")
    assert np.all(run_plugin(fn, _scores(shift=0.05), 0.05)["decision"] == 1)
    assert np.all(run_plugin(fn, _scores(shift=-0.05), 0.05)["decision"] == -1)
    assert np.all(run_plugin(fn, _scores(), 0.001)["decision"] == 0)


def test_file_plugin_may_define_its_own_result_dataclass(tmp_path):
    f = _write(
        tmp_path,
        "from dataclasses import dataclass\n"
        "import numpy as np\n"
        "@dataclass(frozen=True)\n"
        "class Res:\n"
        "    statistic: np.ndarray\n"
        "    pvalue: np.ndarray\n"
        "    direction: np.ndarray\n"
        "def t(scores):\n"
        "    n = scores.diffs.shape[:-2]\n"
        "    return Res(np.zeros(n), np.zeros(n), -np.ones(n))\n",
        name="own.py",
    )
    assert np.all(run_plugin(load_plugin(f"{f}:t"), _scores(), 0.05)["decision"] == -1)


def test_decision_array_and_class_plugins(tmp_path):
    f = _write(
        tmp_path,
        "import numpy as np\n"
        "def always_b(scores):\n"
        "    return -np.ones(scores.diffs.shape[:-2], dtype=int)\n"
        "class Threshold:\n"
        "    def __init__(self):\n"
        "        self.cut = 0.02\n"
        "    def __call__(self, scores):\n"
        "        return np.where(scores.diffs.mean(axis=(-2, -1)) > self.cut, 1, 0)\n",
    )
    out = run_plugin(load_plugin(f"{f}:always_b"), _scores(), 0.05)
    assert np.all(out["decision"] == -1) and np.all(np.isnan(out["pvalue"]))
    assert np.all(run_plugin(load_plugin(f"{f}:Threshold"), _scores(), 0.05)["decision"] == 1)


def test_none_declines_the_design_and_decisions_are_flagged(tmp_path):
    """The three kinds of answer, each with the flags that tell the applications how to count it."""
    f = _write(
        tmp_path,
        "import numpy as np\n"
        "def picky(scores):\n"
        "    return None if scores.n_runs * scores.n_folds < 2 else np.ones(scores.diffs.shape[:-2], dtype=int)\n"
        "def t(scores):\n"
        "    m = scores.diffs.mean(axis=(-2, -1))\n"
        "    return m, np.full(m.shape, 0.5)\n",
    )
    picky, t = load_plugin(f"{f}:picky"), load_plugin(f"{f}:t")
    one_split = PairedScores(np.ones((4, 1, 1)), np.zeros((4, 1, 1)), n_train=67, n_test=33)
    out = run_plugin(picky, one_split, 0.05)
    assert out["declined"] and not out["decision_only"] and not out["decision"].any()
    assert np.isnan(out["pvalue"]).all() and np.isnan(out["direction"]).all()
    out = run_plugin(picky, _scores(), 0.05)
    assert out["decision_only"] and not out["declined"] and (out["direction"] == 1).all()
    out = run_plugin(t, _scores(shift=-0.05), 0.05)  # no rejection at 0.05, but the direction is known
    assert not out["decision"].any() and (out["direction"] == -1).all()
    assert not out["decision_only"] and not out["declined"]


@pytest.mark.parametrize(
    "body, message",
    [
        ("raise RuntimeError('boom')", "raised RuntimeError: boom"),
        ("return 'nonsense'", "must return"),
        ("return np.zeros(3), np.zeros(3)", "shape (4,)"),
        ("return np.zeros(4), np.full(4, np.nan)", "NaN p-values for 4 of 4"),
        ("return np.zeros(4), np.full(4, 1.5)", "[0, 1]"),
        ("return np.ones(4, dtype=bool)", "not booleans"),
        ("return np.full(4, 2)", "-1, 0 or +1"),
        ("return np.ones(3, dtype=int)", "decision array must have shape (4,)"),
    ],
)
def test_bad_returns_name_the_plugin(tmp_path, body, message):
    f = _write(tmp_path, f"import numpy as np\ndef t(scores):\n    {body}\n")
    with pytest.raises(PluginError) as info:
        run_plugin(load_plugin(f"{f}:t"), _scores(), 0.05)
    assert message in str(info.value) and "plug.py:t" in str(info.value)


def test_bad_references(tmp_path):
    with pytest.raises(PluginError, match="expected 'package.module:function'"):
        load_plugin("no_colon")
    with pytest.raises(PluginError, match="no callable 'nope'"):
        load_plugin("simstudy.statistics.significance:nope")
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
    f = _write(
        tmp_path,
        "def runs(diffs):\n    return diffs.mean(axis=-1)\ndef wrong(diffs):\n    return diffs.mean(axis=(-2, -1))\n",
    )
    diffs = _scores().diffs
    assert run_scheme(load_plugin(f"{f}:runs", "scheme"), diffs).shape == (4, 2)
    with pytest.raises(PluginError, match=r"^scheme .*plug.py:wrong.*expected an array of shape"):
        run_scheme(load_plugin(f"{f}:wrong", "scheme"), diffs)


# ---------------------------------------------------------------- misbehaving plug-ins

import signal  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

from simstudy.cli import main  # noqa: E402


def _plug(tmp_path, body, name="plug.py", head="import numpy as np\n"):
    f = _write(tmp_path, head + "def t(scores):\n" + body, name=name)
    return load_plugin(f"{f}:t")


@pytest.mark.parametrize(
    "body",
    [
        "    while True:\n        pass\n",
        "    import time\n    time.sleep(60)\n",
        # a plug-in that swallows every Exception is stopped all the same
        "    while True:\n        try:\n            sum(range(1000))\n        except Exception:\n            pass\n",
    ],
)
def test_a_plugin_that_never_returns_is_stopped_by_the_time_limit(tmp_path, body):
    fn = _plug(tmp_path, body)
    handler = signal.getsignal(signal.SIGALRM)
    threads = threading.active_count()
    start = time.monotonic()
    with pytest.raises(PluginError, match=r"^test '.*plug.py:t': did not finish within the time limit of 0.3 s"):
        run_plugin(fn, _scores(), 0.05, timeout=0.3)
    assert time.monotonic() - start < 5
    # nothing left behind: the handler is back, no timer is running, no thread was started
    assert signal.getsignal(signal.SIGALRM) is handler
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert threading.active_count() == threads


def test_time_limit_restores_a_running_timer_and_spares_fast_plugins(tmp_path):
    fn = _plug(tmp_path, "    m = scores.diffs.mean(axis=(-2, -1))\n    return m, np.full(m.shape, 0.01)\n")
    fired = []
    old = signal.signal(signal.SIGALRM, lambda *a: fired.append(1))
    try:
        signal.setitimer(signal.ITIMER_REAL, 50.0)
        assert np.all(run_plugin(fn, _scores(), 0.05, timeout=10)["decision"] == 1)
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 40 < left <= 50
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert not fired


def test_time_limit_applies_to_schemes_and_imports(tmp_path):
    f = _write(tmp_path, "def s(diffs):\n    while True:\n        pass\n", name="scheme.py")
    with pytest.raises(PluginError, match=r"^scheme .*scheme.py:s.*time limit of 0.2 s"):
        run_scheme(load_plugin(f"{f}:s", "scheme"), _scores().diffs, timeout=0.2)
    f = _write(tmp_path, "while True:\n    pass\ndef t(scores):\n    return 0\n", name="slow_import.py")
    with pytest.raises(PluginError, match=r"time limit of 0.2 s \(while importing it\)"):
        load_plugin(f"{f}:t", timeout=0.2)


def test_without_the_main_thread_the_plugin_runs_without_limit_and_says_so(tmp_path):
    fn = _plug(tmp_path, "    m = scores.diffs.mean(axis=(-2, -1))\n    return m, np.full(m.shape, 0.01)\n")
    out = {}

    def worker():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out["res"] = run_plugin(fn, _scores(), 0.05, timeout=1)
        out["warnings"] = [str(w.message) for w in caught]

    th = threading.Thread(target=worker)
    th.start()
    th.join()
    assert np.all(out["res"]["decision"] == 1)
    assert any("main thread" in w for w in out["warnings"])


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "10", True])
def test_bad_timeout_is_refused(bad):
    with pytest.raises(ValueError, match="^timeout: "):
        run_plugin(lambda s: 0, _scores(), 0.05, timeout=bad)


def test_no_time_limit_with_none(tmp_path):
    fn = _plug(tmp_path, "    m = scores.diffs.mean(axis=(-2, -1))\n    return m, np.full(m.shape, 0.01)\n")
    assert np.all(run_plugin(fn, _scores(), 0.05, timeout=None)["decision"] == 1)


@pytest.mark.parametrize(
    "body, message",
    [
        ("    return 1.0, 0.01\n", "got statistic of shape ()"),
        ("    return np.ones(4), 0.01\n", "got pvalue of shape ()"),
        ("    return np.ones((4, 1)), np.full((4, 1), 0.01)\n", "got statistic of shape (4, 1)"),
    ],
)
def test_a_scalar_is_not_spread_over_the_replications(tmp_path, body, message):
    with pytest.raises(PluginError, match=re.escape(message)):
        run_plugin(_plug(tmp_path, body), _scores(), 0.05)


def test_a_single_replication_may_return_scalars(tmp_path):
    fn = _plug(tmp_path, "    return float(scores.diffs.mean()), 0.01\n")
    s = _scores()
    one = PairedScores(s.acc_a[0], s.acc_b[0], n_train=90, n_test=10)
    assert run_plugin(fn, one, 0.05)["decision"] == 1


def test_nan_statistic_with_a_small_p_value_is_refused(tmp_path):
    fn = _plug(tmp_path, "    return np.full(4, np.nan), np.array([0.01, 0.5, 0.5, 0.5])\n")
    with pytest.raises(
        PluginError,
        match=r"statistic \(which gives the direction\) is NaN where the p-value is "
        r"<= alpha \(1 of 4 samples\)",
    ):
        run_plugin(fn, _scores(), 0.05)
    # with large p-values it is harmless: nothing rejects
    out = run_plugin(_plug(tmp_path, "    return np.full(4, np.nan), np.full(4, 0.5)\n", name="b.py"), _scores(), 0.05)
    assert np.all(out["decision"] == 0)


def test_nan_direction_with_a_small_p_value_is_refused(tmp_path):
    head = "import numpy as np\nfrom types import SimpleNamespace as R\n"
    fn = _plug(
        tmp_path,
        "    return R(statistic=np.ones(4), pvalue=np.full(4, 0.01), direction=np.full(4, np.nan))\n",
        head=head,
    )
    with pytest.raises(PluginError, match="the direction is NaN where the p-value is <= alpha"):
        run_plugin(fn, _scores(), 0.05)
    # a NaN statistic with an explicit direction is fine
    fn = _plug(
        tmp_path,
        "    return R(statistic=np.full(4, np.nan), pvalue=np.full(4, 0.01), direction=np.ones(4))\n",
        head=head,
        name="c.py",
    )
    assert np.all(run_plugin(fn, _scores(), 0.05)["decision"] == 1)


@pytest.mark.parametrize("code", ["3", "0", "'bye'", ""])
def test_sys_exit_inside_a_plugin_is_a_plugin_error(tmp_path, code):
    fn = _plug(tmp_path, f"    import sys\n    sys.exit({code})\n")
    with pytest.raises(PluginError, match=r"^test '.*plug.py:t' called sys.exit\(.*\); a plug-in must return"):
        run_plugin(fn, _scores(), 0.05)
    f = _write(tmp_path, "import sys\nsys.exit(3)\n", name="exits.py")
    with pytest.raises(PluginError, match=r"called sys.exit\(3\).*\(while importing it\)"):
        load_plugin(f"{f}:t")


def test_keyboard_interrupt_stays_an_interrupt(tmp_path):
    fn = _plug(tmp_path, "    raise KeyboardInterrupt\n")
    with pytest.raises(KeyboardInterrupt):
        run_plugin(fn, _scores(), 0.05)


@pytest.mark.parametrize(
    "body",
    [
        "    return np.ones(4), np.full(4, 0.01 + 0.5j)\n",
        "    return np.ones(4) + 1j, np.full(4, 0.01)\n",
        "    return np.ones(4, dtype=complex)\n",
    ],
)
def test_complex_results_are_refused(tmp_path, body):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning on the way
        with pytest.raises(PluginError, match="complex"):
            run_plugin(_plug(tmp_path, body), _scores(), 0.05)


def test_complex_scheme_sample_is_refused(tmp_path):
    f = _write(tmp_path, "def s(diffs):\n    return diffs.mean(axis=-1) + 0j\n", name="cs.py")
    with pytest.raises(PluginError, match="complex"):
        run_scheme(load_plugin(f"{f}:s", "scheme"), _scores().diffs)


def test_plugin_output_goes_to_stderr_with_its_name(tmp_path, capfd):
    fn = _plug(
        tmp_path,
        "    import os, sys\n"
        "    print('hello from the plug-in')\n"
        "    print('a warning', file=sys.stderr)\n"
        "    sys.stdout.flush()\n"
        "    os.write(1, b'low-level line\\n')\n"
        "    m = scores.diffs.mean(axis=(-2, -1))\n"
        "    return m, np.full(m.shape, 0.01)\n",
    )
    assert np.all(run_plugin(fn, _scores(), 0.05)["decision"] == 1)
    print("the table")
    out, err = capfd.readouterr()
    assert out == "the table\n"
    lines = err.splitlines()
    ref = fn.__simstudy_ref__
    assert f"{ref}: hello from the plug-in" in lines
    assert f"{ref}: a warning" in lines
    assert f"{ref}: low-level line" in lines


def test_plugin_output_is_passed_on_even_when_it_fails(tmp_path, capfd):
    fn = _plug(tmp_path, "    print('about to fail')\n    raise RuntimeError('boom')\n")
    with pytest.raises(PluginError, match="boom"):
        run_plugin(fn, _scores(), 0.05)
    out, err = capfd.readouterr()
    assert out == "" and f"{fn.__simstudy_ref__}: about to fail" in err


def test_cli_reports_a_plugin_error_on_one_line(tmp_path, capsys, monkeypatch):
    # the command line turns a PluginError (a ValueError) into one line and exit code 2
    f = _write(tmp_path, "import sys\nsys.exit(3)\n", name="exits.py")
    monkeypatch.chdir(tmp_path)
    code = main(["bench", "berrar3", "--test", f"{f}:t", "--results", str(tmp_path / "none")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("simstudy: error: --test") and "sys.exit(3)" in err[0]
