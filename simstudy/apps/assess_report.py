"""The former place of :mod:`simstudy.apps.assess.report`, kept so that
``from simstudy.apps.assess_report import write_assessment``, which the documentation showed, still works: the
module is now part of the package :mod:`simstudy.apps.assess`.  Every other name of the module is looked up
there too, so older code that imported it from here keeps working."""

from simstudy.apps.assess import report as _report
from simstudy.apps.assess.report import (
    assessment_html,
    assessment_markdown,
    assessment_text,
    compact_table,
    draw_pvalues,
    lucky_line,
    md_text,
    write_assessment,
)

__all__ = [
    "assessment_text",
    "lucky_line",
    "assessment_markdown",
    "assessment_html",
    "draw_pvalues",
    "write_assessment",
    "compact_table",
    "md_text",
]


def __getattr__(name: str):
    """Any other name of :mod:`simstudy.apps.assess.report`, taken from there."""
    return getattr(_report, name)
