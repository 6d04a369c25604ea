"""simstudy report: one page from stored smoke runs, figures drawn in-process and kept current, files written whole."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import textwrap

import pandas as pd
import pytest

from simstudy.cli import main
from simstudy.engine import get_study, run_study
from simstudy.outputs.report import build_report

OUTSIDE_STUDY = '''
"""A study declared outside the repository: means of normal draws."""
from dataclasses import dataclass

import pandas as pd

from simstudy.engine import Profile, Publication, Study
from simstudy.engine.study import Figure


@dataclass(frozen=True)
class Shift:
    mu: float

    @property
    def key(self):
        return f"mu{self.mu:g}"


def replicate(condition, rng):
    return {"draws": [{"mean": float(rng.normal(condition.mu, 1.0, 20).mean())}]}


def summarize(run):
    return {"means": run.table("draws").groupby("mu", as_index=False)["mean"].mean()}


def draw(tables, ax, *, profile):
    t = tables["means"]
    ax.plot(t["mu"], t["mean"], "o")
    ax.set_title(f"mean of the draws, profile {profile}")


STUDY = Study(
    name="outside_means",
    title="Outside study: means of normal draws",
    publication=Publication(
        figures=(Figure("means", draw, "Mean of the draws per shift"),), notes="Declared in a file outside the repository."
    ),
    conditions=[Shift(0.0), Shift(1.0)],
    replicate=replicate,
    summarize=summarize,
    profiles={"smoke": Profile("smoke", n_replications=4)},
    chunk_size=2,
)
'''


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    root = tmp_path_factory.mktemp("results")
    run_study("berrar3", "smoke", out=root / "berrar3" / "smoke", progress=False)
    run_study("bouckaert_frank", "smoke", out=root / "bouckaert_frank" / "smoke", progress=False)
    return root


@pytest.fixture(scope="module")
def report(stored):
    out = stored / "report"
    assert main(["report", "--profile", "smoke", "--results", str(stored), "--out", str(out)]) == 0
    return out


@pytest.fixture
def berrar3_only(stored, tmp_path):
    """A private copy of the stored berrar3 run (tests may change it)."""
    root = tmp_path / "results"
    shutil.copytree(stored / "berrar3", root / "berrar3")
    return root


def test_sections_and_verdicts(report):
    text = (report / "report.md").read_text()
    assert "Berrar study 3" in text and "too few replications for a verdict" in text.lower()
    assert " lie outside" not in text, "a smoke run counts no published value outside"
    assert "Bouckaert and Frank" in text and "Nothing published to compare" in text
    assert "Not run at this profile" in text and "berrar1" in text
    assert "Berrar, Table 1" in text


def test_no_raw_python_values_and_no_misaligned_rows(report):
    from html.parser import HTMLParser

    for name in ("report.md", "report.html"):
        text = (report / name).read_text()
        for raw in (
            r"\bnan\b",
            r"\bNone\b",
            r"\bTrue\b",
            r"\bFalse\b",
            r"published_inside",
            r"_mc_low",
            r"\d\.\d+e-0[1-4]\b",
        ):
            assert not re.search(raw, text, flags=re.IGNORECASE if raw == r"\bnan\b" else 0), (name, raw)
    md = (report / "report.md").read_text().splitlines()
    for i, line in enumerate(md):
        if line.startswith("|") and i + 1 < len(md) and set(md[i + 1]) <= set("|:-"):
            width = len(re.split(r"(?<!\\)\|", line))
            j = i + 1
            while j < len(md) and md[j].startswith("|"):
                assert len(re.split(r"(?<!\\)\|", md[j])) == width, md[j]
                j += 1

    class Rows(HTMLParser):
        def __init__(self):
            super().__init__()
            self.tables = []

        def handle_starttag(self, tag, attrs):
            if tag == "table":
                self.tables.append([])
            elif tag == "tr":
                self.tables[-1].append(0)
            elif tag in ("td", "th"):
                self.tables[-1][-1] += 1

    rows = Rows()
    rows.feed((report / "report.html").read_text())
    assert rows.tables and all(len(set(t)) == 1 for t in rows.tables)


def test_figures_have_descriptions_not_paths(report):
    page = (report / "report.html").read_text()
    alts = re.findall(r'<img src="[^"]+" alt="([^"]+)"', page)
    assert alts
    for alt in alts:
        assert not alt.endswith((".png", ".pdf")) and "Horizontal axis" in alt
        assert "dotted" in alt or "surface" in alt  # every 2-D figure names its reference lines
    assert page.count("<figcaption>") == len(alts)


def test_declared_figures_and_notes(report):
    text = (report / "report.md").read_text()
    for name in ("berrar3", "bouckaert_frank"):
        st = get_study(name)
        assert st.publication.notes and st.publication.notes in text
        for fig in st.publication.figures:
            png = report / "figures" / f"{name}-{fig.name}.png"
            assert f"({png.relative_to(report).as_posix()})" in text
            assert png.stat().st_size > 1000 and (png.with_suffix(".pdf")).stat().st_size > 1000
            meta = json.loads(png.with_suffix(".json").read_text())
            assert meta["study"] == name and meta["figure"] == fig.name and meta["profile"] == "smoke"
    assert get_study("berrar3").publication.figures, "berrar3 declares Figure 13"


def test_no_broken_images_or_links(report):
    page = (report / "report.html").read_text()
    srcs = re.findall(r'<img src="([^"]+)"', page)
    assert srcs, "the study 3 figure is embedded"
    for src in srcs:
        assert (report / src).is_file() and (report / src).stat().st_size > 1000
    for href in re.findall(r'<a href="([^"]+)"', page):
        assert href.startswith("#") and f'id="{href[1:]}"' in page


def test_draws_in_process(berrar3_only, tmp_path, monkeypatch):
    # the figures are drawn in this process; the one process the page may start is git's status of the checkout
    # (whether the code that wrote it is its commit's)
    popen = subprocess.Popen

    def refuse(*args, **kwargs):
        if args and list(args[0])[:1] == ["git"]:
            return popen(*args, **kwargs)
        raise AssertionError("the report must not start a process")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    html_path, _ = build_report("smoke", berrar3_only, tmp_path / "out")
    assert (tmp_path / "out" / "figures" / "berrar3-figure13.png").stat().st_size > 1000
    assert "berrar3-figure13.png" in html_path.read_text()


def test_works_from_another_directory(berrar3_only, tmp_path, monkeypatch):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    _, md_path = build_report("smoke", os.path.relpath(berrar3_only, elsewhere), "out")
    assert md_path.resolve() == (elsewhere / "out" / "report.md").resolve()
    assert (elsewhere / "out" / "figures" / "berrar3-figure13.png").stat().st_size > 1000


def _new_run(root, seed=12345):
    """Replace the stored berrar3 run by a new one (another root seed): the results a figure shows change."""
    shutil.rmtree(root / "berrar3" / "smoke")
    run_study("berrar3", "smoke", out=root / "berrar3" / "smoke", seed=seed, progress=False)


def _figure(out):
    png = out / "figures" / "berrar3-figure13.png"
    return png, json.loads(png.with_suffix(".json").read_text())


def test_figure_reused_then_redrawn_when_results_change(berrar3_only, tmp_path):
    out = tmp_path / "out"
    build_report("smoke", berrar3_only, out)
    png, meta = _figure(out)
    first = png.read_bytes()
    stamp = png.stat().st_mtime_ns
    build_report("smoke", berrar3_only, out)
    assert png.stat().st_mtime_ns == stamp, "an up-to-date figure is not drawn again"
    _new_run(berrar3_only)
    build_report("smoke", berrar3_only, out)
    png, new_meta = _figure(out)
    assert new_meta["key"] != meta["key"] and new_meta["run"] != meta["run"]
    assert png.read_bytes() != first


def test_empty_or_damaged_png_is_redrawn(berrar3_only, tmp_path):
    out = tmp_path / "out"
    build_report("smoke", berrar3_only, out)
    png, _ = _figure(out)
    png.write_bytes(b"")  # e.g. a disk that filled up under an older version
    build_report("smoke", berrar3_only, out)
    assert png.read_bytes().startswith(b"\x89PNG") and png.stat().st_size > 1000
    png.with_suffix(".pdf").write_bytes(b"")
    build_report("smoke", berrar3_only, out)
    assert png.with_suffix(".pdf").stat().st_size > 1000


def test_report_files_replaced_atomically(berrar3_only, tmp_path, monkeypatch):
    out = tmp_path / "out"
    build_report("smoke", berrar3_only, out)
    before = {p.name: p.read_bytes() for p in (out / "report.md", out / "report.html")}
    listing = sorted(p.name for p in out.rglob("*"))

    def fail(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError):
        build_report("smoke", berrar3_only, out)
    for name, data in before.items():
        assert (out / name).read_bytes() == data, f"{name} left as it was"
    assert sorted(p.name for p in out.rglob("*")) == listing, "no temporary file left behind"


def test_figure_files_replaced_atomically(berrar3_only, tmp_path, monkeypatch):
    out = tmp_path / "out"
    build_report("smoke", berrar3_only, out)
    png, _ = _figure(out)
    old = png.read_bytes()
    _new_run(berrar3_only)  # forces a redraw
    monkeypatch.setattr(os, "replace", lambda src, dst: (_ for _ in ()).throw(OSError(28, "No space left")))
    with pytest.raises(OSError):
        build_report("smoke", berrar3_only, out)
    assert png.read_bytes() == old
    assert not png.with_suffix(".json").exists(), "the old figure no longer claims to be current"
    assert not [p for p in (out / "figures").iterdir() if p.name.endswith(".tmp")]
    monkeypatch.undo()
    build_report("smoke", berrar3_only, out)  # the next report draws it again
    assert png.read_bytes() != old and png.with_suffix(".json").exists()


def test_unwritable_output_is_one_clear_error(berrar3_only, tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    with pytest.raises(ValueError, match=re.escape(str(blocker / "report"))):
        build_report("smoke", berrar3_only, blocker / "report")
    assert main(["report", "--profile", "smoke", "--results", str(berrar3_only), "--out", str(blocker / "r")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and str(blocker / "r") in err and "Traceback" not in err


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs POSIX permissions and a non-root user")
def test_read_only_results(berrar3_only, capsys):
    run_dir = berrar3_only / "berrar3" / "smoke"
    (run_dir / "comparison.md").unlink(missing_ok=True)
    for d in (berrar3_only, berrar3_only / "berrar3", run_dir):
        d.chmod(0o555)
    try:
        assert main(["compare", "berrar3", "--profile", "smoke", "--out", str(run_dir)]) == 0
        captured = capsys.readouterr()
        assert "distinct published values" in captured.out
        assert "not saved" in captured.err and captured.err.strip().count("\n") == 0
        assert main(["report", "--profile", "smoke", "--results", str(berrar3_only)]) == 2
        assert str(berrar3_only / "report" / "smoke") in capsys.readouterr().err
    finally:
        for d in (berrar3_only, berrar3_only / "berrar3", run_dir):
            d.chmod(0o755)


def test_compare_prints_when_results_cannot_be_written(berrar3_only, monkeypatch, capsys):
    import simstudy.outputs.published as reproduce

    def denied(path, data):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(reproduce, "write_atomic", denied)
    run_dir = berrar3_only / "berrar3" / "smoke"
    assert main(["compare", "berrar3", "--profile", "smoke", "--out", str(run_dir)]) == 0
    captured = capsys.readouterr()
    assert "distinct published values" in captured.out
    assert "not saved" in captured.err and str(run_dir) in captured.err
    assert captured.err.strip().count("\n") == 0


def test_comparison_files_replaced_atomically(berrar3_only, monkeypatch):
    from simstudy.outputs.published import comparison_report

    run_dir = berrar3_only / "berrar3" / "smoke"
    comparison_report("berrar3", profile="smoke", out=run_dir)
    before = (run_dir / "comparison.md").read_bytes()
    (run_dir / "comparison.md").write_bytes(before + b"<!-- earlier -->")
    monkeypatch.setattr(os, "replace", lambda src, dst: (_ for _ in ()).throw(OSError(28, "No space left")))
    comparison_report("berrar3", profile="smoke", out=run_dir)  # not saved: noted on stderr
    assert (run_dir / "comparison.md").read_bytes() == before + b"<!-- earlier -->"
    assert not list(run_dir.glob(".*.tmp"))


def test_study_file_outside_the_repository(tmp_path):
    path = tmp_path / "elsewhere" / "outside_means.py"
    path.parent.mkdir()
    path.write_text(textwrap.dedent(OUTSIDE_STUDY))
    from simstudy.outputs.report import resolve_studies

    (study,) = resolve_studies([path])
    results = tmp_path / "results"
    run_study(study, "smoke", out=results / study.name / "smoke", progress=False)
    html_path, md_path = build_report("smoke", results, tmp_path / "out", studies=[str(path)])
    text = md_path.read_text()
    assert "Outside study: means of normal draws" in text and "Declared in a file outside the repository." in text
    assert (tmp_path / "out" / "figures" / "outside_means-means.png").stat().st_size > 1000
    assert "Not run at this profile" not in text and "Berrar, Table 1" not in text
    assert (
        main(
            [
                "report",
                "--profile",
                "smoke",
                "--results",
                str(results),
                "--out",
                str(tmp_path / "cli"),
                "--study",
                str(path),
                "--study",
                "berrar3",
            ]
        )
        == 0
    )
    text = (tmp_path / "cli" / "report.md").read_text()
    assert "Outside study" in text and "Not run at this profile" in text and "berrar3" in text


def test_unknown_study_is_refused(tmp_path):
    with pytest.raises(ValueError, match="no_such_study"):
        build_report("smoke", tmp_path, tmp_path / "out", studies=["no_such_study"])


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_renders_in_headless_chromium(report, tmp_path):
    shot = tmp_path / "report.png"
    subprocess.run(
        [
            "chromium",
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            f"--screenshot={shot}",
            "--window-size=1280,1600",
            (report / "report.html").resolve().as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=True,
    )
    import matplotlib.image as mpimg

    img = mpimg.imread(shot)
    non_white = (img[..., :3].mean(axis=-1) < 0.95).mean()
    assert non_white > 0.05, f"screenshot nearly blank ({non_white:.1%} non-white pixels)"


def test_largest_profile_page(stored, tmp_path):
    """The reproduction page: each study at its largest stored profile, with provenance and one CSV per study."""
    from simstudy.engine import load_study_file
    from simstudy.outputs.report import largest_stored_profile

    root = tmp_path / "results"
    shutil.copytree(stored / "berrar3", root / "berrar3")
    path = tmp_path / "outside_means.py"
    path.write_text(
        OUTSIDE_STUDY.replace(
            'profiles={"smoke": Profile("smoke", n_replications=4)}',
            'profiles={"smoke": Profile("smoke", n_replications=4), "quick": Profile("quick", n_replications=6)}',
        )
    )
    study = load_study_file(path)
    for prof in ("smoke", "quick"):
        run_study(study, prof, out=root / study.name / prof, progress=False)
    assert largest_stored_profile(study, root) == "quick"
    assert largest_stored_profile(get_study("berrar3"), root) == "smoke"
    assert largest_stored_profile(get_study("berrar1"), root) is None
    out = tmp_path / "page"
    assert (
        main(
            [
                "report",
                "--profile",
                "largest",
                "--results",
                str(root),
                "--out",
                str(out),
                "--study",
                "berrar3",
                "--study",
                str(path),
                "--study",
                "berrar1",
            ]
        )
        == 0
    )
    text = (out / "report.md").read_text()
    assert text.startswith("# simstudy: reproductions at the largest stored profile of each study")
    assert "commit " in text and "cores" in text
    assert "profile quick; 12 of 12 replications" in text and "profile smoke" in text
    assert "## Not run" in text and "berrar1" in text
    # every comparison, every summary table of each study, the cross-study table and the tally, as CSV
    names = sorted(p.name for p in (out / "csv").iterdir())
    assert names == [
        "berrar-figure2.csv",
        "berrar-figure4.csv",
        "berrar3",
        "berrar3.csv",
        "berrar_table1.csv",
        "bouckaert-figure2.csv",
        "outside_means",
        "outside_means.csv",
        "tally.csv",
    ]
    assert (out / "csv" / "berrar3" / "t.csv").is_file()
    # the tally of distinct published values heads the page: a smoke run computes none at the published scale
    assert "## Tally of distinct published values" in text
    tally = pd.read_csv(out / "csv" / "tally.csv")
    # (the analytic figures' worked values are exact: they agree or not at any profile)
    assert tally["Paper"].iloc[-1] == "all" and tally["not computed"].iloc[-1] > 0
    assert "/tmp/" not in text and str(root) not in text, "no machine-local path on the page"
    # an unfinished larger run gives way to a finished smaller one
    manifest = root / study.name / "quick" / "manifest.json"
    record = json.loads(manifest.read_text())
    record["status"] = "running"
    manifest.write_text(json.dumps(record))
    assert largest_stored_profile(study, root) == "smoke"
    # ... and the page says how far the larger run got, beside the smaller one it shows
    shutil.rmtree(root / study.name / "quick" / "chunks" / "mu1")
    assert (
        main(["report", "--profile", "largest", "--results", str(root), "--out", str(out), "--study", str(path)]) == 0
    )
    text = (out / "report.md").read_text()
    assert "profile smoke; 8 of 8 replications" in text
    assert (
        "A quick-profile run stopped before it finished: 6 of 12 replications stored, 1 of 2 conditions complete "
        "(mu0); this section shows the finished smoke run until it finishes" in text
    )
    assert "A quick-profile run stopped before it finished" in (out / "report.html").read_text()
    # while a process holds the run's lock, the line says it was running when the page was written, and by what
    import fcntl

    with open(root / study.name / "quick" / ".lock", "w") as lock:
        lock.write(json.dumps({"pid": os.getpid(), "command": "/venv/bin/simstudy run outside_means --profile quick"}))
        lock.flush()
        fcntl.flock(lock, fcntl.LOCK_EX)
        assert (
            main(["report", "--profile", "largest", "--results", str(root), "--out", str(out), "--study", str(path)])
            == 0
        )
    text = (out / "report.md").read_text()
    assert "A quick-profile run was still running when this page was written: 6 of 12 replications stored" in text
    assert "(computed by `simstudy run outside_means --profile quick`)" in text


def test_largest_profile_with_nothing_stored(tmp_path, capsys):
    assert main(["report", "--profile", "largest", "--results", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "nothing stored" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_run_with_no_rows_yet_is_listed_not_fatal(berrar3_only, tmp_path):
    """A run that has just started (a manifest, no chunk yet) is named on the page, not a crash."""
    for chunk in (berrar3_only / "berrar3" / "smoke" / "chunks").glob("*/*"):
        shutil.rmtree(chunk)
    out = tmp_path / "page"
    assert (
        main(
            ["report", "--profile", "largest", "--results", str(berrar3_only), "--out", str(out), "--study", "berrar3"]
        )
        == 0
    )
    text = (out / "report.md").read_text()
    assert "## Stored but not summarised" in text and "berrar3 (smoke)" in text


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_page_names_the_commit_of_a_checkout_and_of_a_linked_worktree(tmp_path):
    from simstudy.engine.fingerprint import git_commit as _git_commit

    def git(*args, cwd=tmp_path / "repo"):
        out = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
        return out.stdout.strip()

    (tmp_path / "repo").mkdir()
    git("init", "-q", "-b", "main")
    (tmp_path / "repo" / "a.txt").write_text("a\n")
    git("add", "a.txt")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "a")
    first = git("rev-parse", "HEAD")
    assert _git_commit(tmp_path / "repo") == first[:12]
    git("worktree", "add", "-q", "--detach", str(tmp_path / "detached"), "HEAD")
    git("worktree", "add", "-q", "-b", "side", str(tmp_path / "branch"), "HEAD")
    assert _git_commit(tmp_path / "detached") == first[:12]
    assert _git_commit(tmp_path / "branch") == first[:12]
    git("pack-refs", "--all")  # branches only in the repository's packed-refs
    assert _git_commit(tmp_path / "branch") == first[:12]
    assert _git_commit(tmp_path / "not-a-checkout") is None


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_run_from_a_modified_checkout_is_recorded_as_such(tmp_path, monkeypatch):
    # with --keep, a run made from a modified working tree was reported as "computed at commit X", no word more
    from simstudy.engine import fingerprint

    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True, text=True)

    git("init", "-q", "-b", "main")
    (tmp_path / "simstudy").mkdir()
    (tmp_path / "simstudy" / "m.py").write_text("X = 1\n")
    (tmp_path / "notes.txt").write_text("n\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "a")
    assert fingerprint.tree_modified(tmp_path) is False
    (tmp_path / "notes.txt").write_text("not the package\n")
    assert fingerprint.tree_modified(tmp_path) is False
    (tmp_path / "simstudy" / "new.py").write_text("Y = 2\n")  # a file added to the package counts too
    assert fingerprint.tree_modified(tmp_path) is True
    assert fingerprint.tree_modified(tmp_path / "nowhere") is None
    monkeypatch.setattr(fingerprint, "tree_modified", lambda tree: True)
    commit = fingerprint.source_commit()
    if commit is not None:  # run from a checkout: the record says the code was not the commit's
        assert commit.endswith(" with uncommitted changes")
        run = run_study("demo", "smoke", out=tmp_path / "run", progress=False)
        assert run.manifest["runs"][-1]["commit"] == commit


def test_a_run_moved_aside_is_not_a_profile(tmp_path):
    from simstudy.outputs.report import largest_stored_profile

    root = tmp_path / "results"
    run_study("demo", "smoke", out=root / "demo" / "smoke", progress=False)
    shutil.copytree(root / "demo" / "smoke", root / "demo" / "quick.replaced-20261205T053631Z")
    assert largest_stored_profile(get_study("demo"), root) == "smoke"
    out = tmp_path / "page"
    assert main(["report", "--profile", "largest", "--results", str(root), "--out", str(out), "--study", "demo"]) == 0


def test_a_section_whose_rows_are_not_stored_is_carried_from_the_earlier_page(tmp_path):
    root = tmp_path / "results"
    run_study("berrar3", "smoke", out=root / "berrar3" / "smoke", progress=False)
    run_study("demo", "smoke", out=root / "demo" / "smoke", progress=False)
    first = tmp_path / "first"
    build_report("largest", root, first, studies=["berrar3", "demo"])
    shutil.rmtree(root / "berrar3")  # the rows are gone: a page written elsewhere
    second = tmp_path / "second"
    assert (
        main(
            [
                "report",
                "--profile",
                "largest",
                "--results",
                str(root),
                "--out",
                str(second),
                "--study",
                "berrar3",
                "--study",
                "demo",
                "--carry-from",
                str(first),
            ]
        )
        == 0
    )
    text = (second / "report.md").read_text()
    part = text.split("## Berrar study 3", 1)[1].split("\n## ", 1)[0]
    assert "*Carried over from the page written by commit" in part and "profile smoke" in part
    assert "Too few replications for a verdict" in part  # judged again, by this page's rules
    old = pd.read_csv(first / "csv" / "berrar3.csv", dtype=str, keep_default_na=False)
    new = pd.read_csv(second / "csv" / "berrar3.csv", dtype=str, keep_default_na=False)
    assert new["Ours"].tolist() == old["Ours"].tolist()
    assert (second / "figures" / "berrar3-figure13.png").is_file()
    # without it, the study is not run; a folder without a page is refused
    assert (
        main(
            [
                "report",
                "--profile",
                "largest",
                "--results",
                str(root),
                "--out",
                str(tmp_path / "third"),
                "--study",
                "berrar3",
                "--study",
                "demo",
                "--carry-from",
                str(tmp_path),
            ]
        )
        == 2
    )


def test_a_larger_section_of_the_earlier_page_wins_over_a_smaller_run_stored_here(tmp_path):
    root = tmp_path / "results"
    run_study("demo", "quick", out=root / "demo" / "quick", progress=False)
    first = tmp_path / "first"
    build_report("largest", root, first, studies=["demo"])
    shutil.rmtree(root / "demo")
    run_study("demo", "smoke", out=root / "demo" / "smoke", progress=False)
    second = tmp_path / "second"
    build_report("largest", root, second, studies=["demo"], carry_from=first)
    text = (second / "report.md").read_text()
    assert "*Carried over from the page written by commit" in text and "*profile quick;" in text
    # the other way round, the stored run is shown
    third = tmp_path / "third"
    build_report("largest", tmp_path / "empty", third, studies=["demo"], carry_from=second)
    build_report("largest", root, tmp_path / "fourth", studies=["demo"], carry_from=tmp_path / "fifth")
    assert "*profile smoke;" in (tmp_path / "fourth" / "report.md").read_text()
    # a run at the same profile that has not finished gives way to the earlier page's finished section
    run_study("demo", "quick", out=root / "demo" / "quick", progress=False)
    manifest = root / "demo" / "quick" / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"status": "complete"', '"status": "running"'))
    build_report("largest", root, tmp_path / "sixth", studies=["demo"], carry_from=first)
    assert "*Carried over from the page written by commit" in (tmp_path / "sixth" / "report.md").read_text()


def test_no_absolute_path_survives_on_the_page(tmp_path):
    from simstudy.outputs.report import _local

    # a study file read from another checkout than the package's, the results folder, a URL kept
    line = (
        f"the study file /elsewhere/checkout/studies/berrar/berrar1.py changed; rows in {tmp_path}/demo; "
        "data /opt/data/set.csv; https://doi.org/10.1007/978-3-540 and figures/x.png and 1/2"
    )
    shown = _local(line, tmp_path)
    assert shown == (
        "the study file studies/berrar/berrar1.py changed; rows in the results folder/demo; "
        "data set.csv; https://doi.org/10.1007/978-3-540 and figures/x.png and 1/2"
    )
