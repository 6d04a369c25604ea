"""Plug-in tests and `simstudy bench` on stored smoke runs: same replications, clear errors, nothing written into runs."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from simstudy.apps.bench import TARGETS, bench
from simstudy.cli import main
from simstudy.engine import run_study
from simstudy.pipeline.plugins import PairedScores, PluginError, load_plugin, run_test

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "permutation_test.py")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    root = tmp_path_factory.mktemp("results")
    for name in ("berrar3", "bouckaert1", "bouckaert2"):
        run_study(name, "smoke", out=root / name / "smoke", progress=False)
    return root


def _digest(path):
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(Path(path).rglob("*")) if p.is_file()}


def _diff_rows(text, builtin):
    """The paired-difference rows of ``text`` for one built-in test (its label in the last-but-one cell)."""
    part = text.split("Paired differences")[1]
    return [line for line in part.splitlines() if line.startswith("|") and f"| {builtin} |" in line]


def test_builtin_test_as_plugin_reproduces_stored_decisions(results):
    """The corrected t-test as a plug-in gives exactly the stored decisions (same replications, no refit)."""
    from simstudy.statistics.significance import corrected_repeated_cv_t_test

    def corrected(scores):
        return corrected_repeated_cv_t_test(scores.diffs, n_train=scores.n_train, n_test=scores.n_test)

    text = bench("berrar3", test=corrected, profile="smoke", results=results, write=False)
    rows = _diff_rows(text, "corrected_t")
    assert len(rows) == 3 and all(line.rstrip(" |").endswith("+0.0 [+0.0, +0.0]") for line in rows)
    assert "nan" not in text.lower().replace("n/a", "")


def test_registered_test_by_name_reproduces_stored_decisions(results):
    """The registered corrected cv t-test, asked for by name, rejects exactly where the stored one did."""
    text = bench("berrar3", test="corrected_cv_t", profile="smoke", results=results, write=False)
    rows = _diff_rows(text, "corrected_t")
    assert len(rows) == 3 and all(line.rstrip(" |").endswith("+0.0 [+0.0, +0.0]") for line in rows)


def test_builtin_t_as_plugin_reproduces_table2(results):
    """The sorted-runs t-test as a plug-in rejects exactly where the stored t-test did, on every pair."""
    from simstudy.pipeline.schemes import scheme_sample
    from simstudy.statistics.significance import paired_t_test

    def t_sorted(scores):
        return paired_t_test(scheme_sample(scores.diffs, "average_over_sorted_runs"))

    text = bench("bouckaert-table2", test=t_sorted, profile="smoke", results=results, write=False)
    rows = _diff_rows(text, "t / average_over_sorted_runs")
    assert len(rows) == 6 and all(line.rstrip(" |").endswith("+0.0 [+0.0, +0.0]") for line in rows)


def test_every_study_with_paired_scores_can_be_benched(results, tmp_path):
    """No study is special: any study providing paired_scores takes any registered test, Bouckaert-Frank included."""
    from simstudy.engine import get_study, list_studies

    run_study("bouckaert_frank", "smoke", out=tmp_path / "bouckaert_frank" / "smoke", progress=False)
    text = bench("bouckaert_frank", test="all", profile="smoke", results=tmp_path, write=False)
    for name in ("5x2cv_t", "corrected_resampled_t", "corrected_cv_t", "paired_t"):
        assert f"**{name}**" in text
    assert "corrected 2x10 cv" in text
    declared = [n for n in list_studies() if get_study(n).provides.paired_scores is not None]
    assert {
        "berrar1",
        "berrar2",
        "berrar3",
        "berrar4",
        "bouckaert1",
        "bouckaert2",
        "bouckaert_factors",
        "bouckaert_frank",
        "bouckaert_frank_uci",
        "demo",
    } <= set(declared)


def test_example_on_both_targets_writes_only_beside_the_run(results, capsys):
    before = {k: v for k, v in _digest(results / "bouckaert1" / "smoke").items() if "bench" not in str(k)}
    assert (
        main(
            [
                "bench",
                "bouckaert1",
                "--test",
                f"{EXAMPLE}:sign_flip_sorted_runs",
                "--profile",
                "smoke",
                "--results",
                str(results),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "rank sum / average_over_sorted_runs" in out and "new minus built-in" in out
    after = {k: v for k, v in _digest(results / "bouckaert1" / "smoke").items() if "bench" not in str(k)}
    assert before == after
    assert list((results / "bouckaert1" / "smoke" / "bench").glob("*.md"))
    for target, fn in (("berrar3", "sign_flip"), ("bouckaert-table2", "sign_flip_sorted_runs")):
        before = _digest(results / TARGETS[target] / "smoke")
        assert (
            main(["bench", target, "--test", f"{EXAMPLE}:{fn}", "--profile", "smoke", "--results", str(results)]) == 0
        )
        after = _digest(results / TARGETS[target] / "smoke")
        assert {k: v for k, v in after.items() if "bench" not in str(k)} == before


@pytest.mark.parametrize(
    "source, message",
    [
        ("def t(scores):\n    raise RuntimeError('boom')\n", "raised RuntimeError: boom"),
        ("def t(scores):\n    return 'nonsense'\n", "must return"),
        (
            "import numpy as np\ndef t(scores):\n    return np.zeros(scores.diffs.shape[:-2]), np.full(scores.diffs.shape[:-2], np.nan)\n",
            "NaN p-values",
        ),
        ("import nosuchmodule\n", "importing it failed"),
    ],
)
def test_bad_plugins_name_themselves_and_exit_2(results, tmp_path, capsys, source, message):
    f = tmp_path / "plug.py"
    f.write_text(source)
    before = _digest(results / "berrar3" / "smoke")
    assert main(["bench", "berrar3", "--test", f"{f}:t", "--profile", "smoke", "--results", str(results)]) == 2
    err = capsys.readouterr().err
    assert message in err and "plug.py:t" in err and len(err.strip().splitlines()) == 1
    assert _digest(results / "berrar3" / "smoke") == before


def test_plugin_reference_errors():
    with pytest.raises(PluginError, match="expected"):
        load_plugin("no_colon")
    with pytest.raises(PluginError, match="no callable"):
        load_plugin("simstudy.statistics.significance:nope")
    fn = load_plugin("simstudy.statistics.significance:paired_t_test")
    scores = PairedScores(np.ones((3, 1, 5)), np.zeros((3, 1, 5)), 90, 10)
    with pytest.raises(PluginError, match="raised"):
        run_test(fn, scores, 0.05)  # paired_t_test expects an array, not PairedScores
    assert main(["bench", "no_such_study", "--test", "simstudy.statistics.significance:paired_t_test"]) == 2
    assert main(["bench", "berrar3", "--test", "no_such_test", "--results", "/nonexistent"]) == 2


@pytest.mark.parametrize("study", ["berrar3", "bouckaert1", "bouckaert2"])
def test_builtin_decisions_at_the_stored_alpha_are_the_stored_ones(results, study):
    """Re-making the built-in decisions from stored p-values changes nothing at the level they were made at."""
    from simstudy.apps.bench import _builtin_decisions
    from simstudy.engine import get_study, load_run

    out = load_run(get_study(study), profile="smoke", out=results / study / "smoke").table("outcomes")
    assert np.array_equal(_builtin_decisions(out, 0.05).to_numpy(), out["decision"].to_numpy())


def test_scheme_plugin_reaches_the_test(results, tmp_path):
    """With --scheme, the test finds the scheme's sample in scores.sample (here: the run means)."""
    f = tmp_path / "plug_scheme.py"
    f.write_text(
        "import numpy as np\n"
        "from simstudy.statistics.significance import paired_t_test\n"
        "def run_means(diffs):\n    return diffs.mean(axis=-1)\n"
        "def t_on_sample(scores):\n"
        "    assert scores.sample.shape == scores.diffs.shape[:-1]\n"
        "    return paired_t_test(scores.sample)\n"
    )
    text = bench(
        "bouckaert-table1",
        test=f"{f}:t_on_sample",
        scheme=f"{f}:run_means",
        profile="smoke",
        results=results,
        write=False,
    )
    # the built-in t-test on the same scheme ("average over folds") is reproduced exactly, on every source
    rows = _diff_rows(text, "t / average_over_folds")
    assert len(rows) == 4 and all(line.rstrip(" |").endswith("+0.0 [+0.0, +0.0]") for line in rows)


def test_a_plugin_gives_outcome_rows_as_a_study_stores_them(results, tmp_path):
    """A plug-in runs through the one test contract: its rows are the stored test's, p-values and all."""
    import shutil

    import pandas as pd

    from simstudy.engine import load_run
    from simstudy.statistics.significance import corrected_repeated_cv_t_test

    def corrected(scores):
        return corrected_repeated_cv_t_test(scores.diffs, n_train=scores.n_train, n_test=scores.n_test)

    shutil.copytree(results / "berrar3", tmp_path / "berrar3")
    bench("berrar3", test=corrected, profile="smoke", results=tmp_path, write=True)
    (path,) = (tmp_path / "berrar3" / "smoke" / "bench").glob("*corrected.parquet")  # earlier tests bench here too
    new = pd.read_parquet(path)
    stored = load_run("berrar3", "smoke", out=tmp_path / "berrar3" / "smoke").table("outcomes")
    stored = stored[stored["test"] == "corrected_t"]
    assert len(new) == len(stored) > 0 and set(new["test"]) == {"corrected"}
    merged = new.merge(stored, on=["q", "replication"], suffixes=("", "_stored"))  # berrar3's groups: q
    assert len(merged) == len(new)
    np.testing.assert_allclose(merged["pvalue"], merged["pvalue_stored"], rtol=1e-12)
    np.testing.assert_array_equal(merged["decision"], merged["decision_stored"])
