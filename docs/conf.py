"""Sphinx configuration of the simstudy documentation (``make docs``)."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

import simstudy  # noqa: E402

project = "simstudy"
author = "the simstudy developers"
copyright = "the simstudy developers"
release = version = simstudy.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.viewcode",
    "numpydoc",
    "simstudy_docs",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "images/report-*"]
root_doc = "index"
language = "en"

# API reference: one page per module, generated from the docstrings at build time.
autosummary_generate = True
autosummary_imported_members = False
# scikit-learn adds set_*_request methods to every estimator class; they are not ours to document
autodoc_default_options = {"members": True, "exclude-members": "set_fit_request,set_score_request,set_predict_request"}
autodoc_typehints = "none"  # the numpydoc Parameters sections say the types
autodoc_member_order = "bysource"
autoclass_content = "class"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = set()

# The build and the pages work offline: no intersphinx, no MathJax (formulas are written as text).

html_theme = "furo"
html_title = f"simstudy {release}"
html_static_path = []
html_show_sourcelink = False
html_theme_options = {"navigation_with_keys": True}

nitpicky = False
suppress_warnings = []
