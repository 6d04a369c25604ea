"""The study registry: built-in studies, entry points of other packages, and study files run by path.

A study file lives outside the repository and is not importable by name, yet
loky and dask workers must run it; the wheel installs the built-in studies as
``simstudy.studies`` and no top-level ``studies`` package.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from simstudy.cli import main
from simstudy.engine import Study, get_study, list_studies, load_run, study_origins
from simstudy.engine.study import ENTRY_POINT_GROUP

ROOT = Path(__file__).resolve().parents[2]

STUDY_FILE = '''\
"""A study written outside the repository: a one-sample t-test of a normal mean."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simstudy.engine import Cost, Profile, Study


@dataclass(frozen=True)
class Shift:
    mu: float
    n_cases: int = 20

    @property
    def key(self) -> str:
        return f"mu{self.mu:g}"


def _t(x):
    return float(np.mean(x) / (np.std(x, ddof=1) / np.sqrt(len(x))))


def replicate(condition: Shift, rng):
    t = _t(rng.normal(condition.mu, 1.0, condition.n_cases))
    decision = int(np.sign(t)) if abs(t) > 2.093 else 0  # two-sided 5% with 19 degrees of freedom
    return {"outcomes": [{"scheme": "plain", "test": "t", "statistic": t, "decision": decision}]}


def conditions(profile: Profile):
    return [Shift(mu) for mu in profile.settings.get("mu", (0.0, 0.8))]


STUDY = Study(
    name="NAME",
    title="TITLE",
    conditions=conditions,
    replicate=replicate,
    profiles={"smoke": Profile("smoke", 6)},
    cost=Cost(seconds_per_replication=0.001),
    chunk_size=2,
)
'''


def write_study(
    folder: Path, name: str = "file_study", title: str = "A study in a file", filename: str = "my_study.py"
) -> Path:
    path = folder / filename
    path.write_text(STUDY_FILE.replace('"NAME"', repr(name)).replace('"TITLE"', repr(title)))
    return path


def one_line_error(capsys, argv) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("simstudy: error: ") and "\n" not in err, err
    return err


def outcome_rows(study, out) -> pd.DataFrame:
    rows = load_run(study, out=out).table("outcomes")
    return rows.sort_values(["condition", "replication"]).reset_index(drop=True)


# ---------------------------------------------------------------------------------------------- built-in


def test_builtin_studies_come_from_simstudy_studies():
    import simstudy.studies

    assert {"demo", "berrar1", "bouckaert1"} <= set(list_studies())
    assert all(study_origins()[n] == "built-in" for n in ("demo", "berrar1"))
    demo = get_study("demo")
    assert isinstance(demo, Study) and demo.name == "demo"
    assert (
        sys.modules[type(demo.conditions_for(demo.profiles["smoke"])[0]).__module__].__name__ == "simstudy.studies.demo"
    )
    assert Path(simstudy.studies.__file__).parent.name == "studies"
    assert get_study(demo) is demo


def test_builtin_studies_are_grouped_by_paper_and_named_by_module():
    from simstudy.engine.study import builtin_modules

    mods = builtin_modules()
    assert mods["berrar3"] == "simstudy.studies.berrar.berrar3"
    assert mods["bouckaert1"] == "simstudy.studies.bouckaert2004.bouckaert1"
    assert mods["bouckaert_frank_uci"] == "simstudy.studies.bouckaert_frank2004.bouckaert_frank_uci"
    assert mods["demo"] == "simstudy.studies.demo"
    assert not any(name.startswith("_") for name in mods), "helpers such as berrar/_table1 are not studies"
    assert get_study("berrar3").name == "berrar3"


def test_two_builtin_modules_of_one_name_are_refused(monkeypatch, tmp_path):
    import simstudy.studies
    from simstudy.engine.study import builtin_modules

    for folder in ("paper_a", "paper_b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("")
        (tmp_path / folder / "same.py").write_text("")
    monkeypatch.setattr(simstudy.studies, "__path__", [str(tmp_path)])
    with pytest.raises(ValueError, match=r"study 'same': several built-in modules .*paper_a\.same.*paper_b\.same"):
        builtin_modules()


# ---------------------------------------------------------------------------------------------- study files


def test_study_file_runs_through_the_cli_on_one_and_two_workers(tmp_path, monkeypatch, capsys):
    (tmp_path / "elsewhere").mkdir()
    path = write_study(tmp_path / "elsewhere")
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(path), "--profile", "smoke", "--jobs", "1", "--quiet"]) == 0
    default = tmp_path / "results" / "file_study" / "smoke"  # results/<STUDY.name>/<profile>
    assert (default / "manifest.json").exists()
    assert main(["run", str(path), "--profile", "smoke", "--jobs", "2", "--quiet", "--out", "two"]) == 0
    capsys.readouterr()

    study = get_study(path)
    one, two = outcome_rows(study, default), outcome_rows(study, tmp_path / "two")
    assert len(one) == 12 and set(one["condition"]) == {"mu0", "mu0.8"}
    pd.testing.assert_frame_equal(one, two)  # the loky workers ran the file's own code

    assert main(["status", str(path), "--profile", "smoke"]) == 0
    assert "12/12 replications stored" in capsys.readouterr().out
    assert main(["summarize", str(path), "--profile", "smoke"]) == 0
    out = capsys.readouterr().out
    assert "== rejections ==" in out and "mu0.8" in out
    assert main(["compare", str(path), "--profile", "smoke"]) == 0
    assert "A study in a file" in capsys.readouterr().out
    assert (default / "comparison.md").exists()

    stored = one[(one["condition"] == "mu0.8") & (one["replication"] == 3)].iloc[0]
    assert main(["replay", str(path), "--profile", "smoke", "--condition", "mu0.8", "--replication", "3"]) == 0
    assert f"{stored['statistic']:.6f}"[:8] in capsys.readouterr().out


def test_study_file_given_relative_to_the_working_directory(tmp_path, monkeypatch, capsys):
    write_study(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "my_study.py", "--profile", "smoke", "--quiet"]) == 0
    assert main(["status", "./my_study.py", "--profile", "smoke"]) == 0
    assert "file_study/smoke" in capsys.readouterr().out


def test_study_file_on_dask_workers(tmp_path):
    pytest.importorskip("distributed")
    from simstudy.engine import run_study

    path = write_study(tmp_path)
    ref = run_study(str(path), "smoke", out=tmp_path / "one", jobs=1, progress=False)
    run = run_study(str(path), "smoke", out=tmp_path / "dask", jobs=2, backend="dask", progress=False)
    assert run.manifest["status"] == "complete"
    study = get_study(path)
    pd.testing.assert_frame_equal(outcome_rows(study, ref.path), outcome_rows(study, run.path))


def test_study_file_is_loaded_once_and_again_when_it_changes(tmp_path):
    import cloudpickle

    path = write_study(tmp_path)
    first = get_study(path)
    assert get_study(str(path)) is first
    # out of sys.modules (workers could not import it by name), marked for pickling by value
    module = first.replicate.__module__
    assert module.startswith("_simstudy_study_file_") and module not in sys.modules
    assert module in cloudpickle.list_registry_pickle_by_value()
    clone = cloudpickle.loads(cloudpickle.dumps(first))
    assert clone.name == "file_study"

    stamp = path.stat().st_mtime_ns + 10**9  # a later modification time, however coarse the clock
    write_study(tmp_path, title="Edited title")
    os.utime(path, ns=(stamp, stamp))
    assert get_study(path).title == "Edited title"


def test_two_files_of_the_same_name_do_not_collide(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = get_study(write_study(tmp_path / "a", name="study_a"))
    b = get_study(write_study(tmp_path / "b", name="study_b"))
    assert (a.name, b.name) == ("study_a", "study_b")
    assert a.replicate.__module__ != b.replicate.__module__


# ---------------------------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "no such file"),
        ("import numpy as np\n", "defines no STUDY"),
        ("STUDY = 42\n", "STUDY in"),
        ("raise RuntimeError('no data here')\n", "cannot import"),
        ("def broken(:\n", "SyntaxError"),
        ("import not_a_module_anywhere\n", "ModuleNotFoundError"),
        ("import sys\nsys.exit(3)\n", "SystemExit"),
        (
            "from simstudy.engine import Study\n"
            "STUDY = Study(name='old', title='t', conditions=[1], replicate=print, seconds_per_replication=1.0)\n",
            "unexpected keyword argument 'seconds_per_replication'",
        ),
    ],
)
def test_study_file_errors_are_one_line(tmp_path, capsys, content, message):
    path = tmp_path / "bad_study.py"
    if content is not None:
        path.write_text(content)
    before = set(sys.modules)
    with pytest.raises(ValueError, match=message) as info:
        get_study(path)
    assert "\n" not in str(info.value)
    assert not [m for m in set(sys.modules) - before if m.startswith("_simstudy_study_file_")]
    err = one_line_error(capsys, ["run", str(path), "--profile", "smoke", "--out", str(tmp_path / "out")])
    assert message in err
    assert not (tmp_path / "out").exists()


def test_import_error_names_the_exception(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text("raise RuntimeError('no data here')\n")
    with pytest.raises(ValueError, match=r"cannot import .*bad\.py: RuntimeError: no data here"):
        get_study(path)


def test_not_a_python_file(tmp_path):
    (tmp_path / "notes.txt").write_text("STUDY = 1\n")
    with pytest.raises(ValueError, match="not a Python file"):
        get_study(tmp_path / "notes.txt")
    with pytest.raises(ValueError, match="not a Python file"):
        get_study(str(tmp_path) + "/")


def test_unknown_name_lists_the_known_studies(capsys):
    with pytest.raises(ValueError, match=r"unknown study 'nope'; known studies: .*berrar1.*demo"):
        get_study("nope")
    with pytest.raises(ValueError, match="expected a study name"):
        get_study(3)
    err = one_line_error(capsys, ["status", "nope"])
    assert "known studies" in err


def test_list_takes_study_files_and_names(tmp_path, capsys):
    path = write_study(tmp_path)
    assert main(["list", str(path), "demo"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("study ") and lines[-1].startswith("est. wall")
    rows = lines[1:-1]
    assert [r.split()[:3] for r in rows] == [["file_study", "file", "smoke"]] + [
        ["demo", "built-in", p] for p in get_study("demo").profiles
    ]
    assert f"A study in a file [file {path}]" in rows[0]
    # a study that cannot be listed is one line and exit 2, with nothing printed before it
    assert main(["list", "demo", str(tmp_path / "missing.py")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.strip().splitlines() == [
        f"simstudy: error: study: no such file '{tmp_path / 'missing.py'}'"
    ]


# ---------------------------------------------------------------------------------------------- entry points


@pytest.fixture
def plugin_package(tmp_path, monkeypatch):
    """An importable package ``ext_simstudy_pkg`` with studies, and a way to register entry points for it."""
    pkg = tmp_path / "site" / "ext_simstudy_pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    write_study(pkg, name="ext_study", title="A study of another package", filename="good.py")
    write_study(pkg, name="demo", title="Claims a built-in name", filename="clash.py")
    write_study(pkg, name="other_name", title="Named otherwise", filename="renamed.py")
    (pkg / "empty.py").write_text("X = 1\n")
    (pkg / "broken.py").write_text("raise ImportError('needs a package that is not installed')\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    for name in [m for m in sys.modules if m.startswith("ext_simstudy_pkg")]:
        monkeypatch.delitem(sys.modules, name)

    def register(*pairs, **entries):
        eps = [
            importlib.metadata.EntryPoint(name=n, value=v, group=ENTRY_POINT_GROUP)
            for n, v in [*pairs, *entries.items()]
        ]
        real = importlib.metadata.entry_points

        def entry_points(**params):
            if params.get("group") == ENTRY_POINT_GROUP:
                return importlib.metadata.EntryPoints(eps)
            return real(**params)

        monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)

    yield register
    for name in [m for m in sys.modules if m.startswith("ext_simstudy_pkg")]:
        sys.modules.pop(name, None)


def test_entry_point_studies_are_listed_and_loaded_lazily(plugin_package, capsys):
    plugin_package(
        ext_study="ext_simstudy_pkg.good:STUDY",
        ext_module="ext_simstudy_pkg.good",
        ext_broken="ext_simstudy_pkg.broken:STUDY",
    )
    names = list_studies()
    assert {"ext_study", "ext_module", "ext_broken", "demo"} <= set(names)
    assert "ext_simstudy_pkg.good" not in sys.modules  # listing imports nothing
    assert study_origins()["ext_study"] == "entry point ext_study = ext_simstudy_pkg.good:STUDY"
    st = get_study("ext_study")
    assert st.name == "ext_study" and st.title == "A study of another package"
    with pytest.raises(ValueError, match="loads a study named 'ext_study'"):
        get_study("ext_module")  # a module value works, but the entry point must carry the study's name
    with pytest.raises(ValueError, match="cannot load the entry point ext_broken .*ImportError: needs a package"):
        get_study("ext_broken")

    assert main(["list"]) == 0
    out = capsys.readouterr().out
    ext = [line for line in out.splitlines() if line.startswith("ext_study")]
    assert ext and "entry point" in ext[0] and "[entry point ext_study = ext_simstudy_pkg.good:STUDY]" in ext[0]
    assert any(line.startswith("ext_broken") and "unavailable here" in line for line in out.splitlines())
    assert any(line.startswith("demo ") and "built-in" in line for line in out.splitlines())


def test_entry_point_to_a_module_with_a_study(plugin_package, tmp_path, monkeypatch, capsys):
    plugin_package(ext_study="ext_simstudy_pkg.good")
    assert get_study("ext_study").title == "A study of another package"
    monkeypatch.chdir(tmp_path)
    assert main(["run", "ext_study", "--profile", "smoke", "--quiet"]) == 0
    assert (tmp_path / "results" / "ext_study" / "smoke" / "manifest.json").exists()


@pytest.mark.parametrize(
    "value, message",
    [
        ("ext_simstudy_pkg.empty", "defines no STUDY"),
        ("ext_simstudy_pkg.empty:X", "is a int, not a simstudy.engine.Study"),
        ("ext_simstudy_pkg.renamed:STUDY", "loads a study named 'other_name'"),
        ("ext_simstudy_pkg.missing:STUDY", "ModuleNotFoundError"),
    ],
)
def test_entry_point_errors(plugin_package, value, message):
    plugin_package(ext_bad=value)
    with pytest.raises(ValueError, match=message) as info:
        get_study("ext_bad")
    assert "\n" not in str(info.value)


def test_entry_point_clashing_with_a_builtin_study(plugin_package, capsys):
    plugin_package(demo="ext_simstudy_pkg.clash:STUDY")
    assert list_studies().count("demo") == 1
    assert study_origins()["demo"].startswith("clash: built-in; entry point demo = ext_simstudy_pkg.clash:STUDY")
    with pytest.raises(ValueError, match="clashes with the built-in study"):
        get_study("demo")
    assert "clashes with the built-in study" in one_line_error(capsys, ["run", "demo", "--profile", "smoke"])
    assert main(["list"]) == 0  # the other studies are still listed
    out = capsys.readouterr().out
    assert any(line.startswith("demo ") and "clash" in line for line in out.splitlines())
    assert any(line.startswith("berrar1 ") for line in out.splitlines())


def test_entry_points_of_two_packages_under_one_name(plugin_package):
    plugin_package(
        ("ext_study", "ext_simstudy_pkg.good:STUDY"),
        ("ext_study", "ext_simstudy_pkg.renamed:STUDY"),
        ("ext_same", "ext_simstudy_pkg.good:STUDY"),
        ("ext_same", "ext_simstudy_pkg.good:STUDY"),
    )
    assert list_studies().count("ext_study") == 1
    with pytest.raises(ValueError, match="registered by several entry points"):
        get_study("ext_study")
    # one distribution seen twice on sys.path is one registration
    with pytest.raises(ValueError, match="loads a study named 'ext_study'"):
        get_study("ext_same")


# ---------------------------------------------------------------------------------------------- packaging


def test_pyproject_lists_every_package():
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    assert config["package-dir"] == {"simstudy.studies": "studies"}
    assert not [p for p in listed if p == "studies" or p.startswith("studies.")]
    on_disk = {
        ".".join(d.relative_to(ROOT).parts)
        for d in (ROOT / "simstudy").rglob("*")
        if d.is_dir() and "__pycache__" not in d.parts and any(d.glob("*.py"))
    }
    on_disk |= {"simstudy", "simstudy.studies"}
    missing = sorted(on_disk - listed)
    assert not missing, f"add {missing} to [tool.setuptools] packages in pyproject.toml: the wheel would miss them"


def _source_copy(dest: Path) -> Path:
    """The repository's sources without environments, build leftovers or results."""
    skip = {
        ".venv",
        ".git",
        "build",
        "dist",
        "results",
        "__pycache__",
        ".pytest_cache",
        ".hypothesis",
        "dask-worker-space",
    }
    return Path(
        shutil.copytree(
            ROOT,
            dest,
            ignore=lambda d, names: [
                n for n in names if n in skip or n.endswith(".egg-info") or n.startswith("results")
            ],
        )
    )


def _build_wheel(tmp_path) -> Path:
    src = _source_copy(tmp_path / "src")
    out = tmp_path / "wheel"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", str(src), "-w", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode:
        pytest.skip(f"cannot build the wheel here (no build backend available?): {proc.stderr[-500:]}")
    (wheel,) = out.glob("simstudy-*.whl")
    return wheel


@pytest.mark.slow
def test_wheel_has_no_top_level_studies_package(tmp_path):
    wheel = _build_wheel(tmp_path)
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        top_level = [n for n in names if n.endswith("top_level.txt")]
        tops = z.read(top_level[0]).decode().split() if top_level else []
    assert not [n for n in names if n.startswith("studies/")]
    assert tops in ([], ["simstudy"])
    assert {n.split("/")[0] for n in names} <= {
        "simstudy",
        wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1] + ".dist-info",
    }
    builtin = {f"simstudy/studies/{p.name}" for p in (ROOT / "studies").glob("*.py")}
    assert builtin <= set(names)
    assert "simstudy/pipeline/sources/networks/bouckaert1.xml" in names


# ---------------------------------------------------------------------------------------------- end to end


@pytest.mark.slow
def test_installed_copy_runs_from_another_directory(tmp_path):
    """A fresh environment (dependencies borrowed through a .pth file) with a plain, non-editable install."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = venv / ("Scripts" if os.name == "nt" else "bin") / "python"
    site = Path(
        subprocess.run(
            [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    (site / "zz_borrowed_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    src = _source_copy(tmp_path / "src")
    proc = subprocess.run(
        [str(py), "-m", "pip", "install", "--no-deps", "-q", str(src)], capture_output=True, text=True, timeout=600
    )
    if proc.returncode:
        pytest.skip(f"cannot install here (no build backend available?): {proc.stderr[-500:]}")
    shutil.rmtree(src)  # the installed copy must not need the sources
    work = tmp_path / "work"
    work.mkdir()
    exe = py.parent / "simstudy"

    def simstudy(*args):
        return subprocess.run([str(exe), *args], cwd=work, capture_output=True, text=True, timeout=900)

    where = subprocess.run(
        [
            str(py),
            "-c",
            textwrap.dedent("""
        import importlib.util, simstudy.studies
        print(simstudy.studies.__file__)
        print(importlib.util.find_spec("studies"))
    """),
        ],
        cwd=work,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert Path(where[0]).is_relative_to(site) and where[1] == "None"

    listing = simstudy("list")
    assert listing.returncode == 0, listing.stderr
    assert "berrar1" in listing.stdout and "built-in" in listing.stdout
    run = simstudy("run", "berrar1", "--profile", "smoke", "--quiet")
    assert run.returncode == 0, run.stderr
    assert (work / "results" / "berrar1" / "smoke" / "manifest.json").exists()
    cmp = simstudy("compare", "berrar1", "--profile", "smoke")
    assert cmp.returncode == 0, cmp.stderr
    report = simstudy("report", "--profile", "smoke")
    assert report.returncode == 0, report.stderr
    assert (work / "results" / "report" / "smoke" / "report.html").exists()
