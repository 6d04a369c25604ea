"""Commands that only read declarations or a manifest import none of the slow packages.

``simstudy list`` and ``simstudy status`` start in a fraction of a second
because pandas, scipy.stats, scikit-learn, oneDAL, Matplotlib and pyarrow are
imported on first use (:mod:`simstudy._lazy`).  This checks which modules a
fresh interpreter holds after the command, not how long it took: the time is
in BENCHMARKS.md ("Command start-up").
"""

import json
import subprocess
import sys

import pytest

from simstudy._lazy import lazy_module

SLOW = ("pandas", "scipy.stats", "sklearn", "sklearnex", "matplotlib", "pyarrow", "numba")


def _modules_after(argv, cwd):
    code = (
        "import io, json, sys, contextlib\n"
        "from simstudy.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    rc = main({argv!r})\n"
        "print(json.dumps({'rc': rc, 'modules': sorted(sys.modules)}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def _slow_loaded(modules):
    return sorted(m for m in SLOW if m in modules)


def test_list_imports_no_slow_package(tmp_path):
    got = _modules_after(["list"], tmp_path)
    assert got["rc"] == 0
    assert _slow_loaded(got["modules"]) == []


def test_status_imports_no_slow_package(tmp_path):
    from simstudy.engine import run_study

    run_study("demo", "smoke", out=tmp_path / "run", progress=False)
    got = _modules_after(["status", "demo", "--out", str(tmp_path / "run")], tmp_path)
    assert got["rc"] == 0
    assert _slow_loaded(got["modules"]) == []


def test_status_counts_failures_as_the_failures_table(tmp_path):
    from simstudy.engine import load_run, run_study

    run_study("demo", "smoke", out=tmp_path / "run", progress=False)
    run = load_run("demo", out=tmp_path / "run")
    assert run.n_failures() == len(run.failures)
    assert [r["done"] for r in run.progress_rows()] == list(run.progress()["done"])


def test_lazy_module_imports_on_first_attribute_and_pickles():
    import pickle

    proxy = lazy_module("json")
    assert proxy.dumps([1]) == json.dumps([1])
    assert "dumps" in proxy.__dict__  # kept after the first read
    again = pickle.loads(pickle.dumps(proxy))
    assert again.loads("[2]") == [2]
    with pytest.raises(AttributeError):
        proxy.not_an_attribute_of_json
    with pytest.raises(AttributeError):
        proxy.dumps = None


@pytest.mark.parametrize(
    "argv",
    [
        ["--model", "t", "--statistic", "2.262", "--df", "9"],
        ["--model", "t", "--p", "1e-300", "--df", "9", "--json"],
        ["--model", "binomial", "--wins", "29", "--n", "44"],
        ["--model", "bayes", "--wins", "29", "--n", "44"],
        ["--model", "wilcoxon", "--p", "0.05", "--s-star", "0.779"],
    ],
)
def test_calculator_imports_no_slow_package(tmp_path, argv):
    got = _modules_after(["replication-probability", *argv], tmp_path)
    assert got["rc"] == 0
    assert _slow_loaded(got["modules"]) == []
