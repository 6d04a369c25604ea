"""The names users import, as README.md and docs/ show them: a move or a rename must keep each of these.

The list is short on purpose: the package's top level (``import simstudy`` and what it exports),
the reader of stored runs, the practitioner's calls, a study's declaration and its parts, and the
statistics the documents call.  Everything else may move between releases.
"""

import importlib

import pytest

# (module, names imported from it); an empty tuple: the module itself is imported.
PUBLIC = (
    ("simstudy", ()),
    # the package's own exports (simstudy.__all__)
    ("simstudy", ("assess", "assess_many", "results")),
    ("simstudy", ("Study", "Profile", "Cost", "Publication", "Provides", "settings_of")),
    ("simstudy", ("Comparison", "ComparedLearner", "SCHEMES", "run_study", "load_run")),
    # a study's parts where studies/ and examples/ import them
    ("simstudy.engine", ("Study", "Profile", "Knob", "run_study", "load_run")),
    # the statistics the README and the how-to pages call on plain arrays
    (
        "simstudy.statistics.significance",
        ("corrected_repeated_cv_t_test", "paired_t_test", "SignificanceResult"),
    ),
    # the pipeline pieces the how-to pages use to plug in tests and learners
    ("simstudy.pipeline.outcomes", ("register_test", "outcome_rows")),
    ("simstudy.pipeline.learners", ("as_learner_factory", "make_learner", "register_learner")),
    ("simstudy.pipeline.designs", ("RepeatedKFold",)),
    ("simstudy.pipeline.scores", ("cv_accuracies",)),
    ("simstudy.engine.solve", ("solve",)),
)

# simstudy.results: the functions the README and docs/howto/results.rst call on it
RESULTS = ("load", "tables", "paired_scores", "baycomp_arrays", "correctr_frame", "export")


@pytest.mark.parametrize(("module", "names"), PUBLIC, ids=[f"{m}:{','.join(n) or '(module)'}" for m, n in PUBLIC])
def test_a_public_name_imports(module, names):
    imported = importlib.import_module(module)
    missing = [name for name in names if not hasattr(imported, name)]
    assert not missing, f"from {module} import {', '.join(missing)}: no such name"


def test_simstudy_exports_only_what_it_lists():
    import simstudy

    for name in simstudy.__all__:
        assert getattr(simstudy, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'resultz'"):
        simstudy.resultz  # noqa: B018 - the attribute access is the test


def test_simstudy_results_reads_stored_runs():
    import simstudy
    from simstudy import results

    assert simstudy.results is results
    missing = [name for name in RESULTS if not callable(getattr(results, name, None))]
    assert not missing, f"simstudy.results lacks {missing}"


def test_assess_and_assess_many_are_the_calls():
    from simstudy import assess, assess_many

    assert callable(assess)
    assert callable(assess_many)


def test_import_simstudy_results_gives_the_same_module():
    import importlib
    import subprocess
    import sys

    from simstudy.outputs import runs

    assert importlib.import_module("simstudy.results") is runs
    # in a fresh interpreter, the plain import form first
    code = "import simstudy.results, simstudy.outputs.runs as r; assert simstudy.results is r; print('ok')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"
