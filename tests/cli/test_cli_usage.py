"""The command line as a newcomer meets it: one naming of the run directory, help on every option, hints
after a run, and every bad input one line on stderr with exit code 2 and nothing written."""

from __future__ import annotations

import argparse
import shlex

import pytest

from simstudy.cli import build_parser, main
from simstudy.engine import run_study

STUDY = "demo"  # two conditions of 20 replications at the smoke profile: seconds


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A directory holding ``results/demo/smoke`` (the default place) and nothing else."""
    root = tmp_path_factory.mktemp("cwd")
    run_study(STUDY, "smoke", out=root / "results" / STUDY / "smoke", progress=False)
    return root


def _tree(root):
    return {str(p.relative_to(root)): p.stat().st_mtime_ns for p in sorted(root.rglob("*"))}


def _refused(args, capsys, root, *expected):
    """``args`` exits 2 with one line on stderr holding every string of ``expected``, and writes nothing."""
    before = _tree(root)
    capsys.readouterr()
    assert main(args) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("simstudy: error: "), captured.err
    for text in expected:
        assert text in lines[0], (text, lines[0])
    assert _tree(root) == before, "a refused command wrote something"
    return lines[0]


def _subparsers():
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sub.choices


def test_every_option_of_every_command_has_help():
    missing = [
        f"{name} {action.option_strings or action.dest}"
        for name, sub in _subparsers().items()
        for action in sub._actions
        if not action.help
    ]
    assert not missing, missing


def test_the_run_directory_is_out_everywhere():
    """One study at one profile: --out DIR in every command that reads or writes one run; --results only in report."""
    for name in ("run", "status", "summarize", "compare", "bench"):
        sub = _subparsers()[name]
        shown = {o for a in sub._actions if a.help != argparse.SUPPRESS for o in a.option_strings}
        assert "--out" in shown and "--results" not in shown, name
    assert "--results" in {o for a in _subparsers()["report"]._actions for o in a.option_strings}


def test_run_dir_elsewhere_is_found_by_out_alone(tmp_path, monkeypatch, capsys):
    """Run into DIR, then every reading command finds it with --out DIR, its profile taken from the run."""
    monkeypatch.chdir(tmp_path)
    run_dir = tmp_path / "elsewhere"
    assert main(["run", STUDY, "--profile", "smoke", "--out", str(run_dir), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert f"simstudy compare {STUDY} --profile smoke --out {shlex.quote(str(run_dir))}" in out
    assert "simstudy report" not in out  # a report looks under ROOT/STUDY/PROFILE, which this is not
    for command in (["status"], ["summarize"], ["compare"], ["bench", "--test", "welch_t"]):
        assert main([command[0], STUDY, "--out", str(run_dir), *command[1:]]) == 0, command
    assert not (tmp_path / "results").exists()


def test_run_prints_the_next_commands(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["run", STUDY, "--profile", "smoke", "--quiet"]) == 0
    out = capsys.readouterr().out
    nxt = out[out.index("next:") :]
    for command in (
        f"simstudy compare {STUDY} --profile smoke",
        f"simstudy summarize {STUDY} --profile smoke --csv",
        f"simstudy bench {STUDY} --profile smoke --test all",
        "simstudy report --profile smoke",
    ):
        assert command in nxt, command
    # each suggested command works as printed
    for line in nxt.splitlines()[1:]:
        args = shlex.split(line.split("#")[0])
        assert args[0] == "simstudy" and main(args[1:]) == 0, line


def test_summarize_csv_prints_where_it_wrote(stored, monkeypatch, capsys):
    monkeypatch.chdir(stored)
    assert main(["summarize", STUDY, "--profile", "smoke", "--csv"]) == 0
    out = capsys.readouterr().out
    written = [line.strip() for line in out[out.index("wrote ") :].splitlines()[1:]]
    assert written and all((stored / path).is_file() and path.endswith(".csv") for path in written)
    assert sorted(written) == sorted(str(p.relative_to(stored)) for p in (stored / "results").rglob("summary_*.csv"))


def test_bench_after_a_smoke_run_names_the_stored_profile(stored, monkeypatch, capsys):
    """The default profile (quick) is not stored: the error names the stored one and the option to pass."""
    monkeypatch.chdir(stored)
    _refused(
        ["bench", STUDY, "--test", "welch_t"],
        capsys,
        stored,
        "'quick'",
        "stored at: smoke",
        "--profile smoke",
        f"simstudy run {STUDY} --profile quick",
    )
    assert main(["bench", STUDY, "--test", "welch_t", "--profile", "smoke"]) == 0


@pytest.mark.parametrize("command", ["status", "summarize", "compare"])
def test_reading_commands_name_the_stored_profile(stored, monkeypatch, capsys, command):
    monkeypatch.chdir(stored)
    _refused([command, STUDY], capsys, stored, "'quick'", "stored at: smoke", "--profile smoke")


@pytest.mark.parametrize(
    "command",
    [
        ["run", STUDY, "--quiet"],
        ["status", STUDY],
        ["summarize", STUDY, "--csv"],
        ["compare", STUDY],
        ["bench", STUDY, "--test", "welch_t"],
        ["replay", STUDY, "--condition", "mu0", "--replication", "0"],
        ["report"],
        ["report", "--study", STUDY],
    ],
)
def test_unknown_profile_is_named_unknown_in_every_command(stored, monkeypatch, capsys, command):
    monkeypatch.chdir(stored)
    line = _refused([*command, "--profile", "papr"], capsys, stored, "--profile", "'papr'", "smoke, quick, paper")
    assert "run it" not in line and "simstudy run" not in line  # not "run it first": it cannot be run


def test_out_holding_another_profile_says_which(stored, capsys):
    run_dir = stored / "results" / STUDY / "smoke"
    _refused(
        ["compare", STUDY, "--profile", "quick", "--out", str(run_dir)],
        capsys,
        stored,
        str(run_dir),
        "'smoke'",
        "--profile smoke",
    )


def test_out_without_a_run(stored, capsys):
    empty = stored / "empty"
    _refused(["status", STUDY, "--out", str(empty)], capsys, stored, str(empty), f"simstudy run {STUDY}")


def test_replay_out_of_range_replication(stored, monkeypatch, capsys):
    monkeypatch.chdir(stored)
    for r in ("99", "20", "-1"):
        _refused(
            ["replay", STUDY, "--profile", "smoke", "--condition", "mu0", "--replication", r],
            capsys,
            stored,
            "--replication",
            f"{r} is out of range",
            "0 to 19",
        )
    capsys.readouterr()
    assert main(["replay", STUDY, "--profile", "smoke", "--condition", "mu0", "--replication", "19"]) == 0


def test_replay_unknown_condition(stored, monkeypatch, capsys):
    monkeypatch.chdir(stored)
    _refused(
        ["replay", STUDY, "--profile", "smoke", "--condition", "mu9", "--replication", "0"],
        capsys,
        stored,
        "--condition",
        "'mu9'",
        "mu0, mu0.8",
    )


def test_report_with_nothing_stored(tmp_path, monkeypatch, capsys):
    """Nothing stored at all: say so, where it looked and how to store something; no page is written."""
    monkeypatch.chdir(tmp_path)
    _refused(
        ["report", "--profile", "smoke"],
        capsys,
        tmp_path,
        "nothing stored",
        "results/STUDY/smoke/manifest.json",
        "simstudy run STUDY --profile smoke",
        "--results",
    )
    _refused(
        ["report", "--results", str(tmp_path / "runs"), "--out", str(tmp_path / "page")],
        capsys,
        tmp_path,
        "nothing stored",
        str(tmp_path / "runs" / "STUDY" / "quick"),
    )
    assert not (tmp_path / "page").exists() and not (tmp_path / "results").exists()


def test_report_at_a_profile_not_stored_names_the_stored_one(stored, monkeypatch, capsys):
    monkeypatch.chdir(stored)
    _refused(["report"], capsys, stored, "nothing stored at profile 'quick'", "stored at smoke", "--profile smoke")


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "demo", "--profile", "smoke", "--out", ""],
        ["status", "demo", "--out", " "],
        ["summarize", "demo", "--out", ""],
        ["bench", "demo", "--test", "all", "--out", ""],
        ["report", "--results", ""],
        ["reproduce", "--profile", "smoke", "--out", ""],
        ["proving-ground", "--profile", "smoke", "--report-dir", ""],
        ["assess", "d.csv", "--a", "NB", "--b", "C4.5", "--out", ""],
        ["assess", "d.csv", "--a", "NB", "--b", "C4.5", "--results", ""],
    ],
    ids=lambda argv: " ".join(a or "''" for a in argv[:1] + argv[-2:]),
)
def test_an_empty_folder_option_is_refused_in_every_command_before_anything_is_made(
    tmp_path, capsys, monkeypatch, argv
):
    # `--out ""` (an unset shell variable, say) meant the working directory: assess stored its whole run there
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].endswith("must name a folder, got an empty string"), err
    assert list(tmp_path.iterdir()) == []
