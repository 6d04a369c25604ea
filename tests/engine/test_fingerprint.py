"""A run's provenance covers all the code that makes its rows, and names what changed.

The fingerprint (``simstudy.engine.fingerprint.code_sources``) covers the simstudy
package, the study's own file, every module of the user's or of the built-in
studies that the study imports (at any depth, also inside functions) or holds
(an assessment's ``module:Class`` learners), and the versions of the
distributions that code imports.  A resume with any of them changed is
refused, naming the module or distribution; an unchanged one resumes.  The set
is decided from the study and the files on disk, so a worker and a fresh
process find the same fingerprint as the process that started the run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from simstudy.engine import fingerprint as fingerprint_mod
from simstudy.engine import get_study, load_run, run_study
from simstudy.engine.fingerprint import code_sources, provenance, provenance_changes
from simstudy.engine.store import ConfigMismatch

HELPER = """
SHIFT = 0.0


def shift():
    import {sub}  # imported where it is used, not at the top
    return SHIFT + {sub}.OFFSET


def unused():
    import threadpoolctl  # a distribution of no fixed list: its version is recorded
    import tqdm  # a progress bar cannot change numbers: not recorded
    return threadpoolctl, tqdm
"""

STUDY = """
from simstudy.engine import Profile, Study

import {helper}


def replicate(condition, rng):
    return {{"outcomes": [{{"x": float(rng.normal()) + condition["mu"] + {helper}.shift()}}]}}


STUDY = Study(name="fp_{tag}", title="fingerprint test", conditions=[{{"mu": 0}}, {{"mu": 1}}],
              replicate=replicate, profiles={{"smoke": Profile("smoke", n_replications=4)}}, chunk_size=2)
"""


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text))
    return path


def drop_a_chunk(out: Path):
    shutil.rmtree(sorted(out.glob("chunks/*/*"))[0])


def computed(run) -> int:
    return run.manifest["runs"][-1]["chunks_computed"]


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A study file beside a helper module of the user's, importable as if on PYTHONPATH.

    Module names are unique per test: modules stay in ``sys.modules`` (and in
    reused workers) after a test.
    """
    tag = uuid.uuid4().hex[:8]
    names = SimpleNamespace(helper=f"fp_helper_{tag}", sub=f"fp_sub_{tag}", tag=tag)
    monkeypatch.syspath_prepend(str(tmp_path))
    p = SimpleNamespace(dir=tmp_path, out=tmp_path / "run", **vars(names))
    p.helper_file = write(tmp_path / f"{p.helper}.py", HELPER.format(**vars(names)))
    p.sub_file = write(tmp_path / f"{p.sub}.py", "OFFSET = 0.0\n")
    p.study_file = write(tmp_path / f"study_{tag}.py", STUDY.format(**vars(names)))
    p.env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    return p


# -- what is covered ---------------------------------------------------------------------------
def test_record_names_every_module_and_the_distributions_the_code_imports(project):
    study = get_study(str(project.study_file))
    src = code_sources(study)
    assert set(src["modules"]) == {"simstudy", "study file", project.helper, project.sub}
    assert src["paths"]["study file"] == str(project.study_file.resolve())
    assert src["paths"][project.helper] == str(project.helper_file.resolve())
    prov = provenance(study)
    assert prov["modules"] == src["modules"] and prov["code"] == src["code"]
    assert {"python", "numpy", "scikit-learn", "threadpoolctl"} <= set(prov["versions"])
    assert "tqdm" not in prov["versions"] and "simstudy" not in prov["versions"]


def test_builtin_studies_cover_the_study_modules_they_import():
    matched = code_sources(get_study("bouckaert1_matched"))
    assert "simstudy.studies.bouckaert2004.bouckaert1" in matched["modules"]
    assert Path(matched["paths"]["simstudy.studies.bouckaert2004.bouckaert1"]).name == "bouckaert1.py"
    assert Path(matched["paths"]["study file"]).name == "bouckaert1_matched.py"
    for name in ("berrar1", "berrar2", "berrar3", "berrar4"):
        assert "simstudy.studies.berrar._table1" in code_sources(get_study(name))["modules"], name
    # no more than it imports: bouckaert1 does not import its matched variant
    assert not any("matched" in k for k in code_sources(get_study("bouckaert1"))["modules"])


def test_unrelated_imports_do_not_change_the_fingerprint(project):
    study = get_study(str(project.study_file))
    before = provenance(study)
    write(project.dir / f"fp_unrelated_{project.tag}.py", "import xml.dom.minidom\nVALUE = 1\n")
    __import__(f"fp_unrelated_{project.tag}")
    import xml.dom.minidom  # noqa: F401

    assert provenance(study) == before


# -- a changed module is named, an unchanged one resumes ---------------------------------------
def test_edited_helper_module_refuses_resume_naming_it(project):
    first = run_study(str(project.study_file), "smoke", out=project.out, progress=False)
    original = project.helper_file.read_text()
    drop_a_chunk(project.out)
    project.helper_file.write_text(original.replace("SHIFT = 0.0", "SHIFT = 0.5"))
    with pytest.raises(ConfigMismatch, match=rf"code: module {project.helper} \(\S*{project.helper}\.py\) changed"):
        run_study(str(project.study_file), "smoke", out=project.out, progress=False)
    project.helper_file.write_text(original)  # the same code again: resumable
    again = run_study(str(project.study_file), "smoke", out=project.out, progress=False)
    assert computed(again) == 1 and again.complete
    assert again.table("outcomes").equals(first.table("outcomes"))


def test_module_imported_inside_a_function_is_covered(project):
    study = get_study(str(project.study_file))
    before = provenance(study)
    project.sub_file.write_text("OFFSET = 1.0\n")
    assert provenance_changes(before, provenance(study)) == [
        f"code: module {project.sub} ({project.sub_file.resolve()}) changed"
    ]


def test_study_importing_another_study_file(tmp_path, monkeypatch):
    # bouckaert1_matched imports bouckaert1, the Berrar studies berrar._table1: the same, with two files of ours
    tag = uuid.uuid4().hex[:8]
    monkeypatch.syspath_prepend(str(tmp_path))
    base = write(
        tmp_path / f"fp_base_{tag}.py",
        f"""
        from simstudy.engine import Profile, Study

        SCALE = 1.0


        def draw(mu, rng):
            return SCALE * float(rng.normal()) + mu


        def replicate(condition, rng):
            return {{"outcomes": [{{"x": draw(condition["mu"], rng)}}]}}


        STUDY = Study(name="fp_base_{tag}", title="base", conditions=[{{"mu": 0}}, {{"mu": 1}}], replicate=replicate,
                      profiles={{"smoke": Profile("smoke", n_replications=4)}}, chunk_size=2)
        """,
    )
    matched = write(
        tmp_path / f"fp_matched_{tag}.py",
        f"""
        import dataclasses

        import fp_base_{tag} as base


        def replicate(condition, rng):
            return {{"outcomes": [{{"x": base.draw(condition["mu"] + 0.5, rng)}}]}}


        STUDY = dataclasses.replace(base.STUDY, name="fp_matched_{tag}", replicate=replicate)
        """,
    )
    out = tmp_path / "run"
    run = run_study(str(matched), "smoke", out=out, progress=False)
    assert {"study file", f"fp_base_{tag}"} <= set(run.manifest["provenance"]["modules"])
    drop_a_chunk(out)
    base.write_text(base.read_text().replace("SCALE = 1.0", "SCALE = 2.0"))
    named = rf"changed: code: module fp_base_{tag} \(\S*fp_base_{tag}\.py\) changed\)"
    with pytest.raises(ConfigMismatch, match=named):
        run_study(str(matched), "smoke", out=out, progress=False)


def test_unchanged_code_resumes_and_a_complete_run_computes_nothing(project):
    first = run_study(str(project.study_file), "smoke", out=project.out, progress=False)
    again = run_study(str(project.study_file), "smoke", out=project.out, progress=False)
    assert computed(again) == 0 and again.complete
    drop_a_chunk(project.out)
    resumed = run_study(str(project.study_file), "smoke", out=project.out, progress=False)
    assert computed(resumed) == 1 and resumed.complete
    assert resumed.table("outcomes").equals(first.table("outcomes"))


# -- the same fingerprint in every process -----------------------------------------------------
def test_workers_and_a_fresh_process_find_the_same_fingerprint(project):
    from joblib.externals.loky import get_reusable_executor

    # workers started by earlier tests lack this test's directory on sys.path: start new ones
    get_reusable_executor().shutdown(wait=True)
    run = run_study(str(project.study_file), "smoke", out=project.out, jobs=2, progress=False)
    metas = [json.loads(p.read_text()) for p in project.out.glob("chunks/*/*/chunk.json")]
    assert len(metas) == 4 and all(m["provenance"] == run.manifest["provenance"] for m in metas)
    script = (
        "import json, sys\nfrom simstudy.engine import get_study\nfrom simstudy.engine.fingerprint import provenance\n"
        "print(json.dumps(provenance(get_study(sys.argv[1]))))"
    )
    fresh = subprocess.run(
        [sys.executable, "-c", script, str(project.study_file)],
        env=project.env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(fresh.stdout) == run.manifest["provenance"]


def test_cli_resume_in_a_fresh_process(project):
    """The case of the report: ``simstudy run study.py`` resumed after the study's helper module changed."""
    cmd = [
        sys.executable,
        "-m",
        "simstudy.cli",
        "run",
        str(project.study_file),
        "--profile",
        "smoke",
        "--quiet",
        "--out",
        str(project.out),
    ]
    run_study(str(project.study_file), "smoke", out=project.out, progress=False)
    drop_a_chunk(project.out)
    same = subprocess.run(cmd, env=project.env, capture_output=True, text=True)
    assert same.returncode == 0, same.stderr  # the same code in a new process: resumed
    assert computed(load_run(get_study(str(project.study_file)), "smoke", out=project.out)) == 1
    drop_a_chunk(project.out)
    project.helper_file.write_text(project.helper_file.read_text() + "\n# an edit\n")
    edited = subprocess.run(cmd, env=project.env, capture_output=True, text=True)
    assert edited.returncode == 2
    assert f"code: module {project.helper} ({project.helper_file.resolve()}) changed" in edited.stderr
    assert "--fresh" in edited.stderr and "Traceback" not in edited.stderr


# -- distributions -----------------------------------------------------------------------------
def test_changed_version_of_an_imported_distribution_is_named(project, monkeypatch):
    run_study(str(project.study_file), "smoke", out=project.out, progress=False)
    drop_a_chunk(project.out)
    real = fingerprint_mod.metadata.version
    monkeypatch.setattr(fingerprint_mod.metadata, "version", lambda d: "9.9.9" if d == "threadpoolctl" else real(d))
    with pytest.raises(ConfigMismatch, match=r"changed: threadpoolctl \S+ -> 9\.9\.9\)"):
        run_study(str(project.study_file), "smoke", out=project.out, progress=False)


# -- assessments: the learners' modules --------------------------------------------------------
def test_assess_with_a_learner_of_a_user_module(tmp_path, monkeypatch):
    from sklearn.datasets import load_breast_cancer

    from simstudy.apps.assess import assess

    tag = uuid.uuid4().hex[:8]
    monkeypatch.syspath_prepend(str(tmp_path))
    module = write(
        tmp_path / f"fp_learner_{tag}.py",
        '''
        from sklearn.naive_bayes import GaussianNB


        class Clf(GaussianNB):
            """Naive Bayes of our own."""
        ''',
    )
    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[::6], y[::6]
    out = tmp_path / "assess"
    kw = dict(designs=("cv2x5",), n_repeats=2, evidence=None, out=out)
    first = assess(X, y, f"fp_learner_{tag}:Clf", "NB", **kw)
    assert f"fp_learner_{tag}" in first.run.manifest["provenance"]["modules"]
    drop_a_chunk(out)
    module.write_text(module.read_text() + "\n# an edit\n")
    with pytest.raises(ConfigMismatch, match=rf"code: module fp_learner_{tag} \(\S+\) changed"):
        assess(X, y, f"fp_learner_{tag}:Clf", "NB", **kw)


def test_learners_named_by_strings_the_study_holds_are_covered(project, monkeypatch):
    """A learner registered through the ``simstudy.pipeline.learners`` entry points, or a ``module:Class`` reference."""
    import dataclasses

    from simstudy.engine import Profile

    lib = write(project.dir / f"fp_lab_{project.tag}.py", "class Ripper:\n    pass\n")
    eps = {"simstudy.pipeline.learners": {"lab.Ripper": f"fp_lab_{project.tag}"}}
    monkeypatch.setattr(fingerprint_mod, "_entry_point_modules", lambda group: eps.get(group, {}))
    study = get_study(str(project.study_file))
    named = dataclasses.replace(study, profiles={"smoke": Profile("smoke", 4, settings={"learners": ("lab.Ripper",)})})
    src = code_sources(named)
    assert src["paths"][f"fp_lab_{project.tag}"] == str(lib.resolve())
    assert f"fp_lab_{project.tag}" not in code_sources(study)["modules"]
    # a "module:Class" reference, as an assessment's settings name its learners
    settings = {"a": f"fp_lab_{project.tag}:Ripper"}
    ref = dataclasses.replace(study, profiles={"smoke": Profile("smoke", 4, settings=settings)})
    assert f"fp_lab_{project.tag}" in code_sources(ref)["modules"]


# -- the record and its messages ---------------------------------------------------------------
def test_changes_are_named_one_by_one():
    new = provenance(get_study("bouckaert1_matched"))
    old = json.loads(json.dumps(new))
    old["modules"]["simstudy.studies.bouckaert2004.bouckaert1"] = "0" * 16
    old["modules"]["fp_gone"] = "1" * 16
    del old["modules"]["simstudy.studies"]
    old["code"] = "0" * 64
    old["versions"]["scikit-learn"] = "1.0.0"
    changes = provenance_changes(old, new)
    assert len(changes) == 4, changes
    assert any(
        c.startswith("code: built-in study module simstudy.studies.bouckaert2004.bouckaert1 (")
        and c.endswith("bouckaert1.py) changed")
        for c in changes
    )
    assert "code: module fp_gone is no longer imported" in changes
    assert any(c.startswith("code: module simstudy.studies (") and c.endswith("is now imported") for c in changes)
    assert changes[-1] == f"scikit-learn 1.0.0 -> {new['versions']['scikit-learn']}"
    assert provenance_changes(new, json.loads(json.dumps(new))) == []


def test_records_of_an_older_simstudy_still_compare():
    new = provenance(get_study("demo"))
    older = {"code": "f" * 64, "versions": dict(new["versions"])}  # before modules were recorded one by one
    assert provenance_changes(older, new) == [
        "code fingerprint (recorded by an older simstudy, which did not name the modules)"
    ]
    assert provenance_changes(None, new) == [
        "code fingerprint and versions (not recorded: written by an older simstudy)"
    ]


def test_function_without_a_source_file_is_covered_by_its_code(project):
    import dataclasses

    study = get_study(str(project.study_file))
    namespace: dict = {"np": np}
    exec("def replicate(condition, rng):\n    return {'outcomes': [{'x': 1.0}]}\n", namespace)
    one = dataclasses.replace(study, replicate=namespace["replicate"])
    exec("def replicate(condition, rng):\n    return {'outcomes': [{'x': 2.0}]}\n", namespace)
    two = dataclasses.replace(study, replicate=namespace["replicate"])
    assert code_sources(one)["code"] != code_sources(two)["code"]
    assert code_sources(one)["code"] == code_sources(dataclasses.replace(one))["code"]


def test_assess_with_a_learner_of_a_user_file(tmp_path):
    """A file.py:NAME learner is fitted in its worker only: its file is covered all the same, and an edit refused."""
    from sklearn.datasets import load_breast_cancer

    from simstudy.apps.assess import assess

    models = write(
        tmp_path / "my_models.py",
        """
        from sklearn.naive_bayes import GaussianNB


        def nb():
            return GaussianNB()
        """,
    )
    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[::6], y[::6]
    out = tmp_path / "assess"
    kw = dict(designs=("cv2x5",), n_repeats=2, evidence=None, out=out)
    first = assess(X, y, f"{models}:nb", "NB", **kw)
    assert "file my_models.py" in first.run.manifest["provenance"]["modules"]
    drop_a_chunk(out)
    models.write_text(models.read_text() + "\n# an edit\n")
    with pytest.raises(ConfigMismatch, match=r"code: my_models.py \(\S+my_models.py\) changed"):
        assess(X, y, f"{models}:nb", "NB", **kw)


def test_code_a_helper_process_ran_is_checked_with_the_chunk(tmp_path):
    """A chunk whose helper process (a fit worker) reports other code for a file of the run is not stored."""
    from simstudy.engine import codecheck
    from simstudy.engine.codecheck import expected_code
    from simstudy.engine.runner import _run_chunk

    study_file = write(
        tmp_path / "helper_study.py",
        """
        import dataclasses
        from simstudy.engine import get_study

        STUDY = dataclasses.replace(get_study("demo"), name="helper_study")
        """,
    )
    study = get_study(str(study_file))
    expect = expected_code(study, provenance(study))
    expect["pid"] = -1  # as a worker process sees it
    cond = study.conditions_for(study.profile("smoke"))[0]
    reported = {str(study_file.resolve()): "0" * 64}

    def reporter():
        return reported

    codecheck.register_code_reporter(reporter)
    try:
        *_, tables, _, _, info = _run_chunk(study, cond, 0, 1, 1, expect)
        assert tables is None and any("helper_study.py" in d for d in info["differs"])
        reported.clear()
        *_, tables, _, _, info = _run_chunk(study, cond, 0, 1, 1, expect)
        assert tables is not None and "differs" not in info
    finally:
        codecheck._REPORTERS.remove(reporter)


# -- modules no regular file holds: a zip archive on PYTHONPATH, an import hook of the user's -------------
def _zip_project(tmp_path, shift: str):
    """A study file whose helper module (and the helper's own import) lives in a zip archive on PYTHONPATH."""
    import zipfile

    tag = uuid.uuid4().hex[:8]
    names = SimpleNamespace(helper=f"fpz_helper_{tag}", sub=f"fpz_sub_{tag}", tag=tag)
    archive = tmp_path / "helpers.zip"

    def pack(shift: str) -> None:
        with zipfile.ZipFile(archive, "w") as z:
            z.writestr(f"{names.helper}.py", textwrap.dedent(HELPER.format(**vars(names))).replace("0.0", shift, 1))
            z.writestr(f"{names.sub}.py", "OFFSET = 0.0\n")

    pack(shift)
    study_file = write(tmp_path / f"study_{tag}.py", STUDY.format(**vars(names)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(archive), os.environ.get("PYTHONPATH", "")])}
    return SimpleNamespace(names=names, pack=pack, study_file=study_file, env=env, out=tmp_path / "run")


def test_a_helper_imported_from_a_zip_archive_is_fingerprinted(tmp_path):
    # replacing the zip and resuming was accepted, and the run folder held rows of both versions
    z = _zip_project(tmp_path, "0.0")
    cmd = [sys.executable, "-m", "simstudy.cli", "run", str(z.study_file), "--profile", "smoke", "--quiet"]
    cmd += ["--out", str(z.out)]
    first = subprocess.run(cmd, env=z.env, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    manifest = json.loads((z.out / "manifest.json").read_text())
    modules = manifest["provenance"]["modules"] if "provenance" in manifest else json.dumps(manifest)
    assert z.names.helper in str(modules) and z.names.sub in str(modules), modules
    drop_a_chunk(z.out)
    z.pack("0.5")  # the archive replaced by one whose helper shifts every value
    edited = subprocess.run(cmd, env=z.env, capture_output=True, text=True)
    assert edited.returncode == 2, edited.stderr
    err = edited.stderr.strip().splitlines()
    assert len(err) == 1 and f"code: module {z.names.helper} (" in err[0] and "helpers.zip" in err[0], err
    assert len(list(z.out.glob("chunks/*/*/chunk.json"))) == 3  # nothing of the new version was stored
    z.pack("0.0")  # the same code again: resumable
    again = subprocess.run(cmd, env=z.env, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr


class _StringFinder:
    """A meta-path finder of the user's that makes a module from a string (no file, no archive)."""

    def __init__(self, name: str, source: str, give_source: bool = True):
        self.name, self.source, self.give_source = name, source, give_source

    def find_spec(self, fullname, path=None, target=None):
        import importlib.util

        return importlib.util.spec_from_loader(fullname, self) if fullname == self.name else None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        exec(compile(self.source, f"<{self.name}>", "exec"), module.__dict__)

    def get_source(self, fullname):
        if not self.give_source:
            raise ImportError("no source here")
        return self.source


def test_a_module_an_import_hook_makes_is_fingerprinted_or_refused(tmp_path, monkeypatch):
    tag = uuid.uuid4().hex[:8]
    hooked = f"fph_hooked_{tag}"
    monkeypatch.syspath_prepend(str(tmp_path))
    study_file = write(tmp_path / f"study_{tag}.py", STUDY.format(helper=hooked, tag=tag).replace("shift()", "SHIFT"))
    finder = _StringFinder(hooked, "SHIFT = 0.0\n")
    monkeypatch.setattr(sys, "meta_path", [finder, *sys.meta_path])
    study = get_study(str(study_file))
    before = code_sources(study)
    assert hooked in before["modules"]
    finder.source = "SHIFT = 0.5\n"
    assert code_sources(study)["modules"][hooked] != before["modules"][hooked]
    finder.give_source = False  # a loader that gives neither source nor code: refused, never left out
    with pytest.raises(ValueError, match=rf"module {hooked} \(loaded by _StringFinder.*gives neither its source"):
        code_sources(study)


def test_a_sourceless_bytecode_helper_and_what_it_imports_are_fingerprinted(project):
    # the helper shipped as a .pyc alone (no .py beside it): its bytes are hashed, and the module its code
    # imports inside a function is followed from its instructions
    import py_compile

    py_compile.compile(str(project.helper_file), cfile=str(project.dir / f"{project.helper}.pyc"), doraise=True)
    project.helper_file.unlink()
    study = get_study(str(project.study_file))
    before = code_sources(study)
    assert {project.helper, project.sub} <= set(before["modules"]), before["modules"]
    project.sub_file.write_text("OFFSET = 1.0\n")
    after = code_sources(study)["modules"]
    assert (
        after[project.sub] != before["modules"][project.sub]
        and after[project.helper] == before["modules"][project.helper]
    )


def test_a_namespace_package_portion_is_fingerprinted_module_by_module(tmp_path, monkeypatch):
    tag = uuid.uuid4().hex[:8]
    space = f"fpns_{tag}"
    monkeypatch.syspath_prepend(str(tmp_path / "one"))
    monkeypatch.syspath_prepend(str(tmp_path / "two"))
    (tmp_path / "one" / space).mkdir(parents=True)
    (tmp_path / "two" / space).mkdir(parents=True)
    write(tmp_path / "one" / space / "left.py", "SHIFT = 0.0\n")
    right = write(tmp_path / "two" / space / "right.py", "OFFSET = 0.0\n")
    study_file = write(
        tmp_path / f"study_{tag}.py",
        STUDY.format(helper=f"{space}.left", tag=tag).replace("shift()", "SHIFT")
        + f"\nfrom {space} import right  # the other portion\n",
    )
    import hashlib

    modules = code_sources(get_study(str(study_file)))["modules"]
    assert {f"{space}.left", f"{space}.right"} <= set(modules), modules
    assert modules[f"{space}.right"] == hashlib.sha256(right.read_bytes()).hexdigest()[:16]


def test_a_helper_edited_during_a_run_is_named_as_the_cause_not_the_workers_environment(project):
    # on a dask cluster a helper edited mid-run was refused with "start the workers from this environment"
    from simstudy.engine.codecheck import edited_since, expected_code
    from simstudy.engine.runner import _worker_refusal

    study = get_study(str(project.study_file))
    expect = expected_code(study, provenance(study))
    assert edited_since(expect) == []
    project.helper_file.write_text(project.helper_file.read_text() + "\n# edited while the run goes on\n")
    edited = edited_since(expect)
    assert edited == [f"module {project.helper} ({project.helper_file})"]
    info = {"worker": {"host": "node1", "pid": 7}, "differs": edited}
    text = str(_worker_refusal(info, edited=edited))
    assert text.startswith("the code changed during the run: module " + project.helper), text
    assert "edited since it started" in text and "(fresh=True)" in text and "this environment" not in text
    # a worker whose own files differ while this machine's are the run's: its environment is named
    assert "start the workers from this environment" in str(_worker_refusal(info))
