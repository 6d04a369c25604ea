"""Plug-in tests and `simstudy bench` on stored smoke runs: same replications, clear errors, nothing written into runs."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from simstudy.apps.bench import bench
from simstudy.cli import main
from simstudy.engine import run_study
from simstudy.pipeline.plugins import PairedScores, PluginError, load_plugin, run_plugin

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


def _diff_cells(text, builtin):
    """The paired differences of ``text`` against one built-in test: one cell per group (the table has a row per
    new and built-in test and a column per group)."""
    part = text.split("Paired differences")[1]
    cells = []
    for line in part.splitlines():
        if line.startswith("|") and f"| {builtin} |" in line:
            cells += line.strip(" |").split(" | ")[2:]
    return cells


def test_builtin_test_as_plugin_reproduces_stored_decisions(results):
    """The corrected t-test as a plug-in gives exactly the stored decisions (same replications, no refit)."""
    from simstudy.statistics.significance import corrected_repeated_cv_t_test

    def corrected(scores):
        return corrected_repeated_cv_t_test(scores.diffs, n_train=scores.n_train, n_test=scores.n_test)

    text = bench("berrar3", test=corrected, profile="smoke", results=results, write=False)
    cells = _diff_cells(text, "corrected_t")
    assert cells == ["+0.0 [+0.0, +0.0]"] * 3
    assert "nan" not in text.lower().replace("n/a", "")


def test_registered_test_by_name_reproduces_stored_decisions(results):
    """The registered corrected cv t-test, asked for by name, rejects exactly where the stored one did."""
    text = bench("berrar3", test="corrected_cv_t", profile="smoke", results=results, write=False)
    cells = _diff_cells(text, "corrected_t")
    assert cells == ["+0.0 [+0.0, +0.0]"] * 3


def test_builtin_t_as_plugin_reproduces_table2(results):
    """The sorted-runs t-test as a plug-in rejects exactly where the stored t-test did, on every pair."""
    from simstudy.pipeline.schemes import scheme_sample
    from simstudy.statistics.significance import paired_t_test

    def t_sorted(scores):
        return paired_t_test(scheme_sample(scores.diffs, "average_over_sorted_runs"))

    text = bench("bouckaert2", test=t_sorted, profile="smoke", results=results, write=False)
    cells = _diff_cells(text, "t / average_over_sorted_runs")
    assert cells == ["+0.0 [+0.0, +0.0]"] * 6


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
    for target, fn in (("berrar3", "sign_flip"), ("bouckaert2", "sign_flip_sorted_runs")):
        before = _digest(results / target / "smoke")
        assert (
            main(["bench", target, "--test", f"{EXAMPLE}:{fn}", "--profile", "smoke", "--results", str(results)]) == 0
        )
        after = _digest(results / target / "smoke")
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
        run_plugin(fn, scores, 0.05)  # paired_t_test expects an array, not PairedScores
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
        "bouckaert1",
        test=f"{f}:t_on_sample",
        scheme=f"{f}:run_means",
        profile="smoke",
        results=results,
        write=False,
    )
    # the built-in t-test on the same scheme ("average over folds") is reproduced exactly, on every source
    cells = _diff_cells(text, "t / average_over_folds")
    assert cells == ["+0.0 [+0.0, +0.0]"] * 4


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
    # earlier tests bench here too; the name holds alpha
    (path,) = (tmp_path / "berrar3" / "smoke" / "bench").glob("*corrected__alpha0.05.parquet")
    new = pd.read_parquet(path)
    stored = load_run("berrar3", "smoke", out=tmp_path / "berrar3" / "smoke").table("outcomes")
    stored = stored[stored["test"] == "corrected_t"]
    assert len(new) == len(stored) > 0 and set(new["test"]) == {"corrected"}
    merged = new.merge(stored, on=["q", "replication"], suffixes=("", "_stored"))  # berrar3's groups: q
    assert len(merged) == len(new)
    np.testing.assert_allclose(merged["pvalue"], merged["pvalue_stored"], rtol=1e-12)
    np.testing.assert_array_equal(merged["decision"], merged["decision_stored"])


# -- the plug-in contract in bench: decisions only, declined designs, the published table's form ------------------

BAYES = str(ROOT / "examples" / "bayes_correlated_t.py")


def _table1_row(text, label):
    """The cells of the new test's row in the Table 1 section (after its name, scheme and "ours")."""
    part = text.split("in its own form")[1].split("###")[0]
    (line,) = [x for x in part.splitlines() if x.startswith(f"| **{label}** |")]
    return line.strip(" |").split(" | ")[3:]


def test_a_decision_only_test_against_table1_and_its_p_value_form(results):
    """Bouckaert's Table 1 in its own form: the new test's row beside every published test's, ours and the
    paper's; the decision rule and its p-value form decide alike, only the latter has a size-adjusted power."""
    decide = bench("bouckaert1", test=f"{BAYES}:decide", profile="smoke", results=results, write=False)
    post = bench("bouckaert1", test=f"{BAYES}:posterior", profile="smoke", results=results, write=False)
    row = _table1_row(decide, f"{BAYES}:decide")
    assert len(row) == 5 and row == _table1_row(post, f"{BAYES}:posterior")
    # Bouckaert 2004, Table 1: the sorted-runs t-test, 4.5% Type I error, power 21.1 / 51.7 / 99.6, R2 81.6
    assert "| t | average_over_sorted_runs | paper | 4.5 | 21.1 | 51.7 | 99.6 | 81.6 |" in decide
    assert "| t | average_over_sorted_runs | ours |" in decide
    size = decide.split("### Size and power")[1].split("###")[0]
    (line,) = [x for x in size.splitlines() if f"**{BAYES}:decide**" in x]
    assert line.rstrip(" |").endswith("n/a: no p-values") and "gives decisions only" in decide
    (line,) = [
        x for x in post.split("### Size and power")[1].split("###")[0].splitlines() if f"**{BAYES}:posterior**" in x
    ]
    assert "n/a" not in line.split(" | ")[-1]
    # the published row is shown once, in the table's form, not repeated in every source's block
    assert decide.count("| paper |") == 10 and "Published" not in decide.split("### Per source")[1]


def test_paired_differences_are_cut_to_the_published_tests_and_the_nearest(results):
    text = bench("bouckaert1", test=f"{BAYES}:posterior", profile="smoke", results=results, write=False)
    part = text.split("Paired differences")[1]
    rows = [x for x in part.splitlines() if x.startswith(f"| {BAYES}:posterior |")]
    assert 10 <= len(rows) <= 11 and "(1" in part.splitlines()[0] and "of 30 built-in tests" in part
    header = [x for x in part.splitlines() if x.startswith("| New test |")][0]
    assert all(f"| {s}" in header for s in ("bouckaert1", "bouckaert2", "bouckaert3", "bouckaert4"))


def test_the_saved_copy_is_keyed_by_alpha(results, tmp_path):
    import shutil

    shutil.copytree(results / "bouckaert1", tmp_path / "bouckaert1")
    for alpha in (0.05, 0.10):
        bench("bouckaert1", test=f"{BAYES}:posterior", profile="smoke", results=tmp_path, alpha=alpha, write=True)
    saved = sorted(p.name for p in (tmp_path / "bouckaert1" / "smoke" / "bench").glob("*.md"))
    assert [n.endswith(f"posterior__alpha{a}.md") for n, a in zip(saved, ("0.05", "0.1"))] == [True, True]
    texts = [(tmp_path / "bouckaert1" / "smoke" / "bench" / n).read_text() for n in saved]
    assert "alpha 0.05;" in texts[0] and "alpha 0.1;" in texts[1]
    csvs = {p.name for p in (tmp_path / "bouckaert1" / "smoke" / "bench").glob("*.csv")}
    assert any(n.endswith("alpha0.1__differences.csv") for n in csvs) and any(n.endswith("__size.csv") for n in csvs)


PICKY = """
import numpy as np


def declines(scores):
    return None


def silent(scores):
    return np.zeros(scores.diffs.shape[:-2], dtype=int)
"""


def test_declined_and_never_rejecting_plugins_say_so(results, tmp_path, capsys):
    f = tmp_path / "picky.py"
    f.write_text(PICKY)
    text = bench("bouckaert1", test=f"{f}:declines", profile="smoke", results=results, write=False)
    assert "declined every design" in text and "Paired differences" not in text
    assert _table1_row(text, f"{f}:declines") == ["declined"] * 5
    per = text.split("### Per source")[1]
    assert per.count("| declined | declined | declined |") == 4
    text = bench("bouckaert1", test=f"{f}:silent", profile="smoke", results=results, write=False)
    assert f"`{f}:silent` never rejects" in text
    (line,) = [x for x in text.split("### Size and power")[1].split("###")[0].splitlines() if f"**{f}:silent**" in x]
    assert "| never rejects |" in line and line.startswith("|  |")  # flagged and not ranked
    assert (
        main(["bench", "bouckaert1", "--test", f"{f}:declines", "--profile", "smoke", "--results", str(results)]) == 0
    )


def test_bench_help_lists_the_registered_tests(capsys):
    from simstudy.pipeline.outcomes import test_names

    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    out = capsys.readouterr().out
    assert "registered tests" in out
    for name in test_names():
        assert f"  {name}" in out, name
