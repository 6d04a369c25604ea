"""Modules imported on first use, so that ``simstudy list``, ``status`` and the calculator start quickly.

pandas, scipy.stats and scikit-learn take about a second to import between
them, and most commands of the command line need none of them: listing the
studies only reads their declarations.  A module that uses pandas in its
functions binds ``pd = lazy_module("pandas")`` instead of ``import pandas as
pd``; the first attribute read (``pd.DataFrame``) imports pandas, and each
attribute is then kept on the proxy, so later reads cost what a module
attribute costs.

``tests/cli/test_startup.py`` checks that the commands which should not import
these packages do not.
"""

from __future__ import annotations

import importlib

__all__ = ["lazy_module"]


class _LazyModule:
    """Stands for a module until one of its attributes is read."""

    __slots__ = ("_name", "_module", "__dict__")

    def __init__(self, name: str):
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_module", None)

    def _load(self):
        module = self._module
        if module is None:
            module = importlib.import_module(self._name)
            object.__setattr__(self, "_module", module)
        return module

    def __getattr__(self, attr: str):
        if attr.startswith("__") and attr.endswith("__"):  # copy, pickle and inspect probe these
            raise AttributeError(attr)
        value = getattr(self._load(), attr)
        self.__dict__[attr] = value
        return value

    def __setattr__(self, attr, value):
        raise AttributeError(f"{self._name} is imported on first use; set attributes on the module itself")

    def __reduce__(self):
        return (lazy_module, (self._name,))

    def __repr__(self) -> str:
        state = "imported" if self._module is not None else "not imported yet"
        return f"<module {self._name!r} ({state}, on first use)>"


def lazy_module(name: str):
    """A stand-in for the module ``name`` that imports it when one of its attributes is first read.

    Parameters
    ----------
    name : str
        The module's full name, e.g. ``"pandas"`` or ``"scipy.stats"``.

    Returns
    -------
    object
        Reading ``proxy.attr`` returns ``importlib.import_module(name).attr``.
    """
    return _LazyModule(name)
