"""simstudy: Monte Carlo studies of how we compare classifiers.

The package is layered; each layer imports only the ones listed before it::

    statistics   significance tests, replicability, replication probability, intervals, size verdicts
    pipeline     sources -> designs -> learners -> paired scores -> schemes -> tests -> outcomes,
                 joined by the comparison object (simstudy.pipeline.comparison)
    engine       studies, seeds, the runner, the store, adaptive runs, solve
    outputs      stored runs, tables, published numbers, reports, figures
    protocols    the published studies' designs, shared by their studies and the applications
    apps         assess, the proving ground, bench
    cli          the simstudy command

The built-in studies live in the top-level ``studies`` folder, one folder per paper, installed
as ``simstudy.studies``.
"""

__version__ = "0.1.0"

# Before anything else is imported: source modules outside installed distributions are run from the
# bytes their fingerprint hashes, never from stale bytecode (simstudy/_codeload.py).
from simstudy import _codeload

_codeload.install()

# What a study file needs, importable from the package itself; loaded on first use, so that
# ``import simstudy`` (and the command's start) stays free of numpy, pandas and scikit-learn.
_EXPORTS = {
    "Comparison": "simstudy.pipeline.comparison",
    "ComparedLearner": "simstudy.pipeline.comparison",
    "SCHEMES": "simstudy.pipeline.schemes",
    "Study": "simstudy.engine.study",
    "Profile": "simstudy.engine.study",
    "Cost": "simstudy.engine.study",
    "Publication": "simstudy.engine.study",
    "Provides": "simstudy.engine.study",
    "settings_of": "simstudy.engine.study",
    "run_study": "simstudy.engine",
    "load_run": "simstudy.engine",
    # a practitioner's calls: one comparison on one data set, several learners on several data sets
    "assess": "simstudy.apps.assess",
    "assess_many": "simstudy.apps.assess.many",
}
# modules reached as attributes of the package (``simstudy.results`` after ``import simstudy``); each is a
# module of its own, so ``import simstudy.results`` gives the same object (``results`` is the stored runs' reader)
_MODULES = {"results": "simstudy.results"}
__all__ = ["__version__", *_EXPORTS, *_MODULES]


def __getattr__(name: str):
    import importlib

    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    if name in _MODULES:
        return importlib.import_module(_MODULES[name])
    raise AttributeError(f"module 'simstudy' has no attribute {name!r}")
