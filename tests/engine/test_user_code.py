"""The user's own code, dask clusters and writers outside the store, with real processes.

Each test is one trial of a case of ``scripts/fault_injection.py`` (the same
code: :class:`UserCode` there), run on a copy of the package with bytecode
writing on and edits that keep a file's size and modification time, the old
bytecode left stamped as valid for the new text.  A trial passes when it is
"identical" (the rows equal those of an uninterrupted run of the code on disk)
or "refused" (one line, exit code 2, nothing mixed or written outside);
``WRONG`` fails the test with the trial's log.
"""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "fault_injection.py"
PASS = ("identical", "refused")


def _load_script():
    spec = importlib.util.spec_from_file_location("fault_injection_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fi = _load_script()


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    """The trials, on a copy of the package taken now, at the small size (10 replications per condition)."""
    root = tmp_path_factory.mktemp("user-code")
    fi.PROFILES = fi.small_profiles(fi.SMALL_REPLICATIONS)
    code = fi.copy_package(root / "code")
    trials = fi.UserCode(root / "trials", random.Random(46), code)
    yield trials
    trials.close()  # the dask cluster, when a test started it


def check(cases, trial, *args) -> str:
    cases.messages.clear()
    verdict = trial(*args)
    assert verdict in PASS, "\n".join(cases.messages)
    return verdict


def known(label: str, strict: bool = True):
    """Expected to fail while the script lists the trial in KNOWN (a fault not fixed yet); an ordinary test after."""
    return pytest.mark.xfail(label in fi.KNOWN, reason=fi.KNOWN.get(label, "fixed"), strict=strict)


# -- stale bytecode: same size, mtime kept, the old .pyc left beside it ------------------------------


@pytest.mark.parametrize(
    "variant",
    ["helper module", "study file", pytest.param("built-in study", marks=pytest.mark.slow)],
)
def test_an_edit_python_would_not_see_is_refused_on_resume_and_computed_afresh(cases, variant):
    """Resume refused naming the module; a new folder and --fresh equal a run of the edited code."""
    assert check(cases, cases.stale_bytecode, variant) == "refused"
    if variant == "helper module":  # the fault is real: Python's own import runs the old code
        assert "plain Python imports fault_helper.tag() -> v1 (the file says 'v2')" in cases.messages


@known("stale-bytecode helper imported first")
def test_a_module_imported_before_simstudy_runs_the_code_its_fingerprint_names(cases):
    assert check(cases, cases.stale_bytecode, "helper imported first") == "refused"


# -- modules named like the standard library's or installed code ---------------------------------------


@pytest.mark.parametrize(
    "variant",
    ["statistics.py", "site-packages", pytest.param("pip --target", marks=pytest.mark.slow)],
)
def test_a_user_module_that_looks_installed_is_fingerprinted(cases, variant):
    assert check(cases, cases.shadowed, variant) == "refused"


# -- a long-lived dask cluster (dask scheduler, dask worker) ------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("variant", fi.DASK_VARIANTS)
def test_dask_workers_prove_their_code(cases, variant):
    pytest.importorskip("distributed")
    expected = "refused" if variant in ("worker restarted", "other environment") else "identical"
    assert check(cases, cases.dask, variant) == expected


# -- every replication failed, then fixed --------------------------------------------------------------


def test_an_all_failed_run_exits_1_and_is_recomputed_after_the_fix(cases):
    assert check(cases, cases.all_failed) == "identical"


# -- writers outside the store ------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["--out ''", "long study name", "long condition key", "os._exit at import"])
def test_refusals_leave_nothing_behind(cases, variant):
    assert check(cases, cases.writer, variant) == "refused"


@pytest.mark.parametrize(
    "variant",
    [
        pytest.param(v, marks=known(f"writer {v}"))
        for v in ("os._exit in replicate, --jobs 1", "os._exit in replicate, --jobs 2")
    ],
)
def test_a_replication_that_ends_its_process_gives_one_line(cases, variant):
    assert check(cases, cases.writer, variant) == "refused"


@pytest.mark.slow
def test_the_proving_ground_refuses_a_linked_figures_folder(cases):
    assert check(cases, cases.writer, "figures link") == "refused"


@pytest.mark.skipif(not Path("/dev/shm").is_dir(), reason="no /dev/shm")
def test_what_a_killed_process_group_left_in_shared_memory_is_removed(cases):
    assert check(cases, cases.writer, "/dev/shm") == "identical"


@pytest.mark.skipif(not Path("/dev/shm").is_dir(), reason="no /dev/shm")
@known("writer /dev/shm, nothing to compute", strict=False)  # another run with local workers may remove them
def test_a_run_with_nothing_to_compute_removes_what_a_killed_run_left(cases):
    assert check(cases, cases.writer, "/dev/shm, nothing to compute") == "identical"


@known("writer bench link")
def test_bench_refuses_a_linked_bench_folder(cases):
    assert check(cases, cases.writer, "bench link") == "refused"
