"""Hostile plug-ins and user learners are contained: worker processes with hard limits, real processes.

Every command is run as a real ``simstudy`` process, so that exit codes, signals and leftover processes are
the ones a user sees.  A plug-in given by reference runs in a worker process that is killed at its time limit or
reported when it ends; a user learner's fit under ``--fit-timeout`` likewise.  Limits are 1 s, so each test is
fast; afterwards no process started for the command may remain (every process carries a tag in its environment).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import uuid

import numpy as np
import pandas as pd
import pytest

from simstudy._worker import OUTPUT_CAP
from simstudy.cli import main
from simstudy.pipeline.plugins import PairedScores, PluginError, load_plugin, open_plugin, run_plugin, run_scheme

psutil = pytest.importorskip("psutil")

HOSTILE = """\
import os, signal, sys, time
import numpy as np

def swallow(scores):
    while True:
        try:
            time.sleep(0.01)
        except BaseException:
            pass

def no_alarm(scores):
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(60)

def exit0(scores):
    os._exit(0)

def exit3(scores):
    os._exit(3)

def crash(scores):
    os.kill(os.getpid(), signal.SIGKILL)

def p7(scores):
    n = scores.diffs.shape[:-2]
    return np.zeros(n), np.full(n, 7.0)

def talks(scores):
    print("to stdout")
    print("to stderr", file=sys.stderr)
    os.write(1, b"below python\\n")
    from simstudy.statistics.significance import corrected_repeated_cv_t_test
    return corrected_repeated_cv_t_test(scores.diffs, n_train=scores.n_train, n_test=scores.n_test)

def corrected(scores):
    from simstudy.statistics.significance import corrected_repeated_cv_t_test
    return corrected_repeated_cv_t_test(scores.diffs, n_train=scores.n_train, n_test=scores.n_test)

def run_means(diffs):
    return diffs.mean(axis=-1)
"""

LEARNERS = '''\
import time
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

N_FULL = 40

class HangsInSplits(ClassifierMixin, BaseEstimator):
    """Learns from the whole data (the trial fit), hangs on any split, swallowing every exception."""

    def fit(self, X, y):
        while len(y) < N_FULL:
            try:
                time.sleep(0.01)
            except BaseException:
                pass
        self.classes_ = np.unique(y)
        self.majority_ = np.bincount(y).argmax()
        return self

    def predict(self, X):
        return np.full(len(X), self.majority_)

class AlwaysHangs(HangsInSplits):
    def fit(self, X, y):
        while True:
            try:
                time.sleep(0.01)
            except BaseException:
                pass
'''


@pytest.fixture(scope="module")
def place(tmp_path_factory):
    """A folder with a stored smoke run of berrar3, the hostile plug-ins, two learners and a small CSV."""
    from simstudy.engine import run_study

    root = tmp_path_factory.mktemp("containment")
    run_study("berrar3", "smoke", out=root / "results" / "berrar3" / "smoke", progress=False)
    (root / "hostile.py").write_text(HOSTILE)
    (root / "slow_learners.py").write_text(LEARNERS)
    rng = np.random.default_rng(0)
    lines = ["x1,x2,label"] + [f"{rng.normal(i % 2, 1):.4f},{rng.normal():.4f},{'ny'[i % 2]}" for i in range(40)]
    (root / "d.csv").write_text("\n".join(lines) + "\n")
    return root


def _simstudy(place, *argv, timeout=120):
    """Run ``simstudy ARGV`` in ``place`` as a process of its own; (exit code, stdout, stderr lines, seconds).

    Afterwards no process started by it may be left (they carry a tag in their environment).
    """
    tag = uuid.uuid4().hex
    env = dict(os.environ, SIMSTUDY_CONTAINMENT_TAG=tag, PYTHONPATH=str(place))
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "simstudy.cli", *map(str, argv)],
        cwd=place,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    seconds = time.monotonic() - start
    assert _tagged(tag) == [], "a process of the command is still running"
    return done.returncode, done.stdout, done.stderr.strip().splitlines(), seconds


def _tagged(tag: str) -> list[int]:
    """Processes (still running, not zombies) whose environment carries ``tag``."""
    found = []
    for proc in psutil.process_iter(["pid"]):
        try:
            if proc.environ().get("SIMSTUDY_CONTAINMENT_TAG") == tag and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc.pid)
        except (psutil.Error, OSError):
            continue
    return found


def _children():
    """This process's children, but for the pool helpers that other tests' process pools leave for the life of
    the interpreter (multiprocessing's and loky's resource trackers and workers), which no worker starts."""
    out = []
    for child in psutil.Process().children(recursive=True):
        try:
            line = " ".join(child.cmdline())
        except psutil.Error:
            line = ""
        if "resource_tracker" not in line and "joblib.externals.loky" not in line:
            out.append(child)
    return out


def _no_children():
    """No child process of this (test) process is left, zombies included (they would be unreaped)."""
    deadline = time.monotonic() + 2
    while _children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _children() == []


def _bench(place, name, *extra):
    return _simstudy(
        place, "bench", "berrar3", "--test", f"hostile.py:{name}", "--profile", "smoke", "--results", "results", *extra
    )


def _assess_bench(place, name, *extra):
    return _simstudy(
        place,
        "assess",
        "d.csv",
        "--a",
        "NB",
        "--b",
        "C4.5",
        "--designs",
        "cv2x2",
        "--repeats",
        "2",
        "--quiet",
        "--results",
        "none",
        "--out",
        f"run-{uuid.uuid4().hex[:8]}",
        "--bench",
        f"hostile.py:{name}",
        *extra,
    )


STOPPED = {
    "swallow": "did not finish within the time limit of 1 s",
    "no_alarm": "did not finish within the time limit of 1 s",
    "exit0": "ended its process with exit status 0",
    "exit3": "ended its process with exit status 3",
    "crash": "its process was ended by SIGKILL",
}


@pytest.mark.parametrize("name", sorted(STOPPED))
def test_bench_stops_a_hostile_plugin_on_one_line(place, name):
    code, out, err, seconds = _bench(place, name, "--timeout", "1")
    assert code == 2 and out == "" and len(err) == 1, err
    assert err[0].startswith(f"simstudy: error: --test 'hostile.py:{name}': ") and STOPPED[name] in err[0]
    assert seconds < 30


@pytest.mark.parametrize("name", ["swallow", "no_alarm", "exit0", "exit3"])
def test_assess_bench_takes_a_timeout_and_stops_a_hostile_plugin(place, name):
    code, out, err, _ = _assess_bench(place, name, "--timeout", "1")
    assert code == 2 and len(err) == 1, err
    assert err[0].startswith(f"simstudy: error: --test 'hostile.py:{name}': ") and STOPPED[name] in err[0]


def test_a_p_value_of_7_is_one_line_and_exit_2_every_time(place):
    for _ in range(4):
        code, out, err, _ = _bench(place, "p7", "--timeout", "1")
        assert (
            code == 2 and out == "" and err == ["simstudy: error: --test 'hostile.py:p7': p-values must lie in [0, 1]"]
        )
    code, _, err, _ = _assess_bench(place, "p7")
    assert code == 2 and len(err) == 1 and "p-values must lie in [0, 1]" in err[0]


def test_plugin_output_goes_to_stderr_with_its_reference(place):
    code, out, err, _ = _bench(place, "talks")
    assert code == 0
    assert "to stdout" not in out and "below python" not in out and "corrected_t" in out
    for line in ("to stdout", "to stderr", "below python"):
        assert f"hostile.py:talks: {line}" in err
    assert all(line.startswith("hostile.py:talks: ") for line in err)


@pytest.mark.parametrize(
    "argv, option",
    [
        (["bench", "berrar3", "--test", "hostile.py:p7", "--timeout", "0"], "--timeout"),
        (["bench", "berrar3", "--test", "hostile.py:p7", "--timeout", "-1"], "--timeout"),
        (["bench", "berrar3", "--test", "hostile.py:p7", "--timeout", "abc"], "--timeout"),
        (["assess", "d.csv", "--a", "NB", "--b", "NB", "--bench", "welch_t", "--timeout", "0"], "--timeout"),
        (["assess", "d.csv", "--a", "NB", "--b", "NB", "--bench", "welch_t", "--timeout", "-1"], "--timeout"),
        (["assess", "d.csv", "--a", "NB", "--b", "NB", "--fit-timeout", "abc"], "--fit-timeout"),
        (["assess", "d.csv", "--a", "NB", "--b", "NB", "--fit-timeout", "0"], "--fit-timeout"),
        (["assess", "d.csv", "--a", "NB", "--b", "NB", "--fit-timeout", "none"], "--fit-timeout"),
    ],
)
def test_bad_limits_are_one_line_naming_the_option(place, capsys, monkeypatch, argv, option):
    monkeypatch.chdir(place)
    assert main(argv + (["--results", "results"] if argv[0] == "bench" else ["--out", "never"])) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"simstudy: error: {option}: "), err
    assert not (place / "never").exists()


# ------------------------------------------------------------------ in this process: the library's entry points


def _scores(n_reps=6, r=2, k=5, seed=0):
    rng = np.random.default_rng(seed)
    b = rng.uniform(0.6, 0.8, size=(n_reps, r, k))
    return PairedScores(b + rng.normal(0.01, 0.02, size=b.shape), b, n_train=90, n_test=10)


def _stored_scores(n_reps=5, r=2, k=5):
    """A frame of stored scores as the proving ground keeps them (two scenarios, one design)."""
    rows = []
    rng = np.random.default_rng(1)
    for cond in ("null", "alt"):
        for rep in range(n_reps):
            for run in range(r):
                for fold in range(k):
                    b = rng.uniform(0.6, 0.8)
                    rows.append(
                        {
                            "condition": cond,
                            "design": "cv2x5",
                            "replication": rep,
                            "experiment": 0,
                            "run": run,
                            "fold": fold,
                            "acc_a": b + (0.05 if cond == "alt" else 0.0),
                            "acc_b": b,
                            "n_train": 90,
                            "n_test": 10,
                        }
                    )
    return pd.DataFrame(rows)


@pytest.mark.parametrize("name", sorted(STOPPED))
def test_proving_ground_rows_stop_a_hostile_plugin(place, name):
    from simstudy.apps.proving.report import plugin_rows

    ref = f"{place / 'hostile.py'}:{name}"
    start = time.monotonic()
    with pytest.raises(PluginError) as info:
        plugin_rows(_stored_scores(), ref, ref, timeout=1)
    assert time.monotonic() - start < 20
    message = str(info.value)
    assert message.startswith(f"test {ref!r}: ") and STOPPED[name] in message and "\n" not in message
    _no_children()


def test_proving_ground_rows_refuse_a_p_value_of_7_and_pass_output_on(place, capfd):
    from simstudy.apps.proving.report import plugin_rows

    ref = f"{place / 'hostile.py'}:p7"
    with pytest.raises(PluginError, match=r"p-values must lie in \[0, 1\]"):
        plugin_rows(_stored_scores(), ref, ref, timeout=1)
    ref = f"{place / 'hostile.py'}:talks"
    rows = plugin_rows(_stored_scores(), ref, ref, timeout=5)
    assert len(rows) == 10
    out, err = capfd.readouterr()
    assert out == "" and f"{ref}: to stdout" in err.splitlines() and f"{ref}: below python" in err.splitlines()
    _no_children()


def test_results_in_the_worker_are_those_of_this_process(place):
    """Same statistics, p-values and decisions, for a test, a scheme and the proving ground's rows."""
    from simstudy.apps.proving.report import plugin_rows

    ref = f"{place / 'hostile.py'}:corrected"
    scores = _scores()
    here = run_plugin(load_plugin(ref), scores, 0.05)
    with open_plugin(ref) as proc:
        for _ in range(3):  # one warm worker for every call
            there = run_plugin(proc, scores, 0.05)
            for key in ("statistic", "pvalue", "decision"):
                np.testing.assert_array_equal(here[key], there[key])
                assert here[key].dtype == there[key].dtype
    sref = f"{place / 'hostile.py'}:run_means"
    with open_plugin(sref, "scheme") as proc:
        np.testing.assert_array_equal(
            run_scheme(proc, scores.diffs), run_scheme(load_plugin(sref, "scheme"), scores.diffs)
        )
    frame = _stored_scores()
    pd.testing.assert_frame_equal(plugin_rows(frame, ref, ref), plugin_rows(frame, load_plugin(ref), ref))
    _no_children()


def test_bench_by_reference_equals_bench_of_the_callable(place):
    from simstudy.apps.bench import bench

    ref = f"{place / 'hostile.py'}:corrected"
    kw = dict(profile="smoke", results=place / "results", write=False)
    by_ref = bench("berrar3", test=ref, **kw)
    fn = load_plugin(ref)
    fn.__simstudy_ref__ = ref
    assert bench("berrar3", test=fn, **kw) == by_ref
    _no_children()


def test_a_worker_error_keeps_the_messages_of_this_process(place, tmp_path):
    f = tmp_path / "bad.py"
    f.write_text("import sys\ndef t(scores):\n    sys.exit(3)\ndef r(scores):\n    raise RuntimeError('boom')\n")
    for name, message in (("t", "called sys.exit(3)"), ("r", "raised RuntimeError: boom")):
        with pytest.raises(PluginError, match=rf"^test '.*bad.py:{name}'.*{re.escape(message)}"):
            with open_plugin(f"{f}:{name}") as proc:
                run_plugin(proc, _scores(), 0.05, timeout=5)
    f.write_text("import nosuchmodule\n")
    with pytest.raises(PluginError, match="importing it failed: ModuleNotFoundError"):
        with open_plugin(f"{f}:t"):
            pass
    _no_children()


# ------------------------------------------------------------------ user learners under --fit-timeout


def test_a_learner_hanging_in_its_fits_is_stopped_and_the_rows_are_kept(place):
    out = place / "hang-run"
    code, _, err, seconds = _simstudy(
        place,
        "assess",
        "d.csv",
        "--a",
        "NB",
        "--b",
        "slow_learners:HangsInSplits",
        "--designs",
        "cv2x2",
        "--repeats",
        "2",
        "--quiet",
        "--results",
        "none",
        "--out",
        out,
        "--fit-timeout",
        "1",
    )
    assert code == 2 and len(err) == 1, err
    assert err[0].startswith("simstudy: error: --b: slow_learners:HangsInSplits failed in 2 of 2 repeats")
    assert "--fit-timeout 1 s" in err[0] and "did not finish within the time limit of 1 s" in err[0]
    assert list(out.glob("chunks/*/*/failures.parquet"))  # the failure rows are stored
    assert seconds < 60  # the limit is paid once, not once per fit


def test_a_learner_that_never_learns_is_refused_before_anything_is_stored(place):
    out = place / "never-run"
    code, _, err, _ = _simstudy(
        place,
        "assess",
        "d.csv",
        "--a",
        "slow_learners:AlwaysHangs",
        "--b",
        "NB",
        "--designs",
        "cv2x2",
        "--repeats",
        "2",
        "--quiet",
        "--results",
        "none",
        "--out",
        out,
        "--fit-timeout",
        "1",
    )
    assert code == 2 and len(err) == 1, err
    assert (
        err[0].startswith(
            "simstudy: error: --a: slow_learners:AlwaysHangs: a fit did not finish within the time limit of 1 s"
        )
        and "--fit-timeout 1 s" in err[0]
    )
    assert not out.exists()


def test_a_fit_limit_changes_no_number(place, monkeypatch):
    from simstudy.apps.assess import assess

    monkeypatch.syspath_prepend(str(place))
    from sklearn.naive_bayes import GaussianNB  # noqa: F401  (a user learner by module:Class)

    kw = dict(designs=("cv2x2",), n_repeats=2, evidence=None, a="NB", b="sklearn.naive_bayes:GaussianNB")
    free = assess(place / "d.csv", out=place / "free", **kw)
    limited = assess(place / "d.csv", out=place / "limited", fit_timeout=30, **kw)
    for table in ("scores", "outcomes"):
        a, b = free.run.table(table), limited.run.table(table)
        pd.testing.assert_frame_equal(
            a.drop(columns=[c for c in a if c == "seconds"]), b.drop(columns=[c for c in b if c == "seconds"])
        )
    _no_children()


# ------------------------------------------------------------------ hostile learners and plug-ins, every form

# What each misbehaviour does; in a learner only on the splits (the trial fit on the whole data goes through),
# so that the failure comes from inside a running assessment and its rows are stored.
MISBEHAVE = """\
import os, subprocess, sys, time


def misbehave(mode):
    if mode == "hang":
        time.sleep(3600)
    elif mode == "swallow":
        while True:
            try:
                time.sleep(0.01)
            except BaseException:
                pass
    elif mode == "exit":
        os._exit(0)
    elif mode == "children":
        for _ in range(3):
            subprocess.Popen(["sleep", "300"])
        here = os.path.dirname(os.path.abspath(__file__))
        subprocess.Popen(
            ["setsid", "sh", "-c", f"while true; do echo x >> {here}/setsid-{os.getpid()}.out; sleep 0.05; done"]
        )
        time.sleep(3600)
    elif mode == "flood":
        line = "y" * 99 + "\\n"
        while True:
            sys.stdout.write(line)


def _test(mode):
    def test(scores):
        misbehave(mode)
    return test


for _mode in ("hang", "swallow", "exit", "children", "flood"):
    globals()[f"test_{_mode}"] = _test(_mode)
"""

# the learners: the same misbehaviour (the plug-ins' module imports nothing slow: its loading is timed too)
MISCHIEF = (
    MISBEHAVE
    + """
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

N_FULL = 40


class _Base(ClassifierMixin, BaseEstimator):
    mode = "hang"

    def fit(self, X, y):
        if len(y) < N_FULL:
            misbehave(self.mode)
        self.classes_ = np.unique(y)
        self.majority_ = np.bincount(y).argmax()
        return self

    def predict(self, X):
        return np.full(len(X), self.majority_)


for _mode in ("hang", "swallow", "exit", "children", "flood"):
    _cls = type(f"Learner_{_mode}", (_Base,), {"mode": _mode})
    globals()[_cls.__name__] = _cls
    globals()[f"instance_{_mode}"] = _cls()
    globals()[f"factory_{_mode}"] = (lambda c: lambda: c())(_cls)
"""
)

MODES = ("hang", "swallow", "exit", "children", "flood", "import")
LEARNER_FORMS = {
    "module:NAME": "mischief:Learner_{mode}",
    "file.py:NAME instance": "mischief.py:instance_{mode}",
    "file.py:NAME class": "mischief.py:Learner_{mode}",
    "file.py:NAME factory": "mischief.py:factory_{mode}",
}
PLUGIN_FORMS = {
    "plug-in module:NAME": "misbehave:test_{mode}",
    "plug-in file.py:NAME": "misbehave.py:test_{mode}",
}
SAYS = {
    "hang": "did not finish within the time limit of 2 s",
    "swallow": "did not finish within the time limit of 2 s",
    "exit": "ended its process with exit status 0",
    "children": "did not finish within the time limit of 2 s",
    "flood": "did not finish within the time limit of 2 s",
    "import": "did not finish within the time limit of 2 s",
}


@pytest.fixture(scope="module")
def den(place):
    """``place`` with the hostile learners (mischief), plug-ins (misbehave) and a module that hangs on import."""
    (place / "mischief.py").write_text(MISCHIEF)
    (place / "misbehave.py").write_text(MISBEHAVE)
    (place / "hangs_on_import.py").write_text("import time\ntime.sleep(3600)\n")
    return place


def _ref(form: str, mode: str) -> str:
    if mode == "import":
        return ("hangs_on_import.py" if ".py" in form else "hangs_on_import") + ":anything"
    return {**LEARNER_FORMS, **PLUGIN_FORMS}[form].format(mode=mode)


def _hostile_run(den, form: str, mode: str):
    """One hostile case as a real command; (exit code, stderr lines, the run folder or None, seconds)."""
    ref = _ref(form, mode)
    if form.startswith("plug-in"):
        code, _, err, seconds = _simstudy(
            den, "bench", "berrar3", "--test", ref, "--profile", "smoke", "--results", "results", "--timeout", "2"
        )
        return code, err, None, seconds
    out = den / f"run-{uuid.uuid4().hex[:8]}"
    code, _, err, seconds = _simstudy(
        den, "assess", "d.csv", "--a", "NB", "--b", ref, *TINY_RUN, "--out", out, "--fit-timeout", "2"
    )
    return code, err, out, seconds


TINY_RUN = ("--designs", "cv2x2", "--repeats", "2", "--quiet", "--results", "none")


def _check_hostile(den, form, mode):
    code, err, out, _ = _hostile_run(den, form, mode)  # no process of the command left: checked inside
    errors = [line for line in err if line.startswith("simstudy: error:")]
    assert code == 2 and len(errors) == 1 and errors[0] == err[-1], err[-3:]
    ref = _ref(form, mode)
    assert ref in errors[0] and SAYS[mode] in errors[0], errors[0]
    # everything else on stderr is what the user code printed, prefixed, and at most the cap (plus a note)
    others = err[:-1]
    assert all(line.startswith(ref) for line in others), others[:3]
    assert sum(len(line) + 1 for line in others) < 2 * OUTPUT_CAP
    if mode == "flood":
        assert "bytes of output left out" in others[0]
    if out is not None and mode != "import":  # failed inside the run: its rows are kept for replay
        assert "failed in 2 of 2 repeats" in errors[0] and list(out.glob("chunks/*/*/failures.parquet"))
    if out is not None and mode == "import":  # loading it is checked before anything is written
        assert "loading it" in errors[0] and not out.exists()
    if mode == "children":  # the setsid child wrote to its file until it was killed, and writes no more
        written = {p: p.stat().st_size for p in den.glob("setsid-*.out")}
        time.sleep(0.3)
        assert written == {p: p.stat().st_size for p in den.glob("setsid-*.out")}


# one form per misbehaviour and every form once: the full table is the slow test below
FAST = [
    ("file.py:NAME class", "hang"),
    ("module:NAME", "swallow"),
    ("file.py:NAME factory", "exit"),
    ("file.py:NAME instance", "children"),
    ("file.py:NAME class", "flood"),
    ("file.py:NAME factory", "import"),
    ("plug-in file.py:NAME", "children"),
    ("plug-in module:NAME", "flood"),
]


@pytest.mark.parametrize("form, mode", FAST)
def test_a_hostile_learner_or_plugin_is_one_line_exit_2_and_leaves_no_process(den, form, mode):
    _check_hostile(den, form, mode)


@pytest.mark.slow
@pytest.mark.parametrize("form", [*LEARNER_FORMS, *PLUGIN_FORMS])
@pytest.mark.parametrize("mode", MODES)
def test_every_hostile_learner_and_plugin_in_every_form(den, form, mode):
    if (form, mode) in FAST:
        pytest.skip("in the fast tests")
    _check_hostile(den, form, mode)


def test_children_a_learner_leaves_running_are_killed_when_the_command_ends(den):
    """A learner that starts processes and returns: the assessment goes through, and none of them is left."""
    (den / "leaves.py").write_text(
        "import subprocess\n"
        "from sklearn.naive_bayes import GaussianNB\n"
        "class Leaves(GaussianNB):\n"
        "    def fit(self, X, y):\n"
        "        subprocess.Popen(['sleep', '300'])\n"
        "        subprocess.Popen(['setsid', 'sleep', '300'])\n"
        "        return super().fit(X, y)\n"
    )
    code, _, err, _ = _simstudy(den, "assess", "d.csv", "--a", "NB", "--b", "leaves.py:Leaves", *TINY_RUN, "--out",
                                den / "leaves-run")  # fmt: skip
    assert code == 0, err[-3:]


def test_a_file_learner_by_class_or_factory_takes_a_fit_timeout_and_changes_no_number(den, tmp_path):
    """The README's own form (a factory in a file) and a class in a file work under a limit, with the same rows."""
    from simstudy.apps.assess import assess

    (tmp_path / "my_models.py").write_text(
        "from sklearn.linear_model import LogisticRegression\n"
        "from sklearn.pipeline import make_pipeline\n"
        "from sklearn.preprocessing import StandardScaler\n"
        "def scaled_logreg():\n"
        "    return make_pipeline(StandardScaler(), LogisticRegression())\n"
        "class Forest:\n"
        "    pass\n"
    )
    kw = dict(designs=("cv2x2",), n_repeats=2, evidence=None)
    ref = f"{tmp_path / 'my_models.py'}:scaled_logreg"
    free = assess(den / "d.csv", a="NB", b=ref, out=tmp_path / "free", in_process=True, **kw)
    limited = assess(den / "d.csv", a="NB", b=ref, out=tmp_path / "limited", fit_timeout=30, **kw)
    default = assess(den / "d.csv", a="NB", b="sklearn.ensemble:RandomForestClassifier", out=tmp_path / "rf", **kw)
    rf_here = assess(
        den / "d.csv", a="NB", b="sklearn.ensemble:RandomForestClassifier", out=tmp_path / "rf-here", in_process=True,
        **kw,
    )  # fmt: skip
    for x, y in ((free, limited), (default, rf_here)):
        for table in ("scores", "outcomes"):
            a, b = x.run.table(table), y.run.table(table)
            drop = [c for c in a if c == "seconds"]
            pd.testing.assert_frame_equal(a.drop(columns=drop), b.drop(columns=drop))
    _no_children()


def test_simstudy_never_imports_a_contained_learner(den, tmp_path):
    """Loading happens in the worker: a file that would print on import prints there, prefixed, and its module
    is not in this process afterwards; a learner given in-process is imported here."""
    import sys as _sys

    from simstudy.apps.assess import parse_learner
    from simstudy.apps.assess.limits import _close_fit_workers, _fit_limit

    (tmp_path / "noisy.py").write_text("print('imported')\nfrom sklearn.naive_bayes import GaussianNB as G\n")
    before = set(_sys.modules)
    choice = parse_learner(f"{tmp_path / 'noisy.py'}:G", option="--b", contained=True)
    try:
        limit = _fit_limit(choice, "--b", 30)
        assert limit.profile["classifier"] is True and limit.profile["takes_seed"] is False
    finally:
        _close_fit_workers()
    assert not [m for m in set(_sys.modules) - before if m.startswith("simstudy_learners_")]
    _no_children()


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["--b", "nosuch.py:X"], "--b: learner 'nosuch.py:X': no such file"),
        (
            ["--b", "mischief.py:nothing_here"],
            "--b: learner 'mischief.py:nothing_here': mischief.py has no 'nothing_here'",
        ),
        (["--b", "mischief.py:Learner_hang", "--b-params", '{"nope": 1}'], "--b-params: mischief.py:Learner_hang"),
        (["--b", "mischief.py:instance_hang", "--b-params", '{"mode": 1}'], "parameters are not allowed"),
        (["--b", "no_such_module:X"], "cannot import module 'no_such_module'"),
        (["--b", "sklearn.linear_model:LinearRegression"], "is a regressor, not a classifier"),
        (["--b", "mischief.py:Learner_hang", "--in-process", "--fit-timeout", "5"], "--in-process: "),
    ],
)
def test_a_contained_learner_that_cannot_be_loaded_is_one_line_before_anything_is_written(den, capsys, monkeypatch,
                                                                                         argv, needle):  # fmt: skip
    monkeypatch.chdir(den)
    monkeypatch.syspath_prepend(str(den))
    out = den / f"never-{uuid.uuid4().hex[:6]}"
    assert main(["assess", "d.csv", "--a", "NB", *argv, *TINY_RUN, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0], err
    assert not out.exists()
    _no_children()


def test_worker_output_is_capped_and_says_how_much_was_left_out():
    from simstudy._worker import OutputTail

    tail = OutputTail(cap=50)
    for i in range(100):
        tail.add(f"line {i:03d}\n".encode())
    text = tail.text()
    lines = text.splitlines()
    assert lines[0].startswith("[") and "bytes of output left out" in lines[0]
    left_out = int(lines[0][1:].split(" ")[0].replace(",", ""))
    assert left_out + sum(len(x) + 1 for x in lines[1:]) == 900  # every byte is shown or counted
    assert lines[-1] == "line 099" and all(x.startswith("line ") for x in lines[1:])
    assert tail.text() == ""  # emptied
    small = OutputTail(cap=50)
    small.add(b"a\nb\n")
    assert small.text() == "a\nb\n"


def test_a_worker_is_killed_with_every_process_it_started(tmp_path):
    """The worker, its children, a setsid grandchild and an orphan of a child that ended: all gone at close."""
    from simstudy._worker import Worker

    w = Worker(prefix="t")
    w.start(timeout=60)
    pids = w.call(_spawn_family, str(tmp_path), timeout=30)
    procs = [psutil.Process(p) for p in pids]
    assert all(p.is_running() for p in procs)
    w.close()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(_alive(p) for p in procs):
        time.sleep(0.05)
    assert not any(_alive(p) for p in procs)
    _no_children()


def _alive(p) -> bool:
    try:
        return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _spawn_family(folder):
    import subprocess as sp

    plain = sp.Popen(["sleep", "300"])
    detached = sp.Popen(["setsid", "sleep", "300"])
    # an orphan: its parent ends at once, so it is adopted (by the worker, a subreaper on Linux)
    sp.run(["sh", "-c", f"sleep 300 & echo $! > {folder}/orphan.pid"], check=True)
    time.sleep(0.2)
    orphan = int(open(f"{folder}/orphan.pid").read())
    return [plain.pid, detached.pid, orphan]
