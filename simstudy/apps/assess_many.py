"""The former place of :mod:`simstudy.apps.assess.many`, kept so that ``simstudy.apps.assess_many.assess_many``,
which the documentation showed, still imports: the module is now part of the package :mod:`simstudy.apps.assess`.
Every other name of the module is looked up there too, so older code that imported it from here keeps working."""

from simstudy.apps.assess import many as _many
from simstudy.apps.assess.many import (
    DEFAULT_ROPE,
    ManyAssessment,
    as_datasets,
    assess_many,
    many_study,
    many_tables,
    write_many,
)

__all__ = ["assess_many", "as_datasets", "ManyAssessment", "many_study", "many_tables", "DEFAULT_ROPE", "write_many"]


def __getattr__(name: str):
    """Any other name of :mod:`simstudy.apps.assess.many`, taken from there."""
    return getattr(_many, name)
