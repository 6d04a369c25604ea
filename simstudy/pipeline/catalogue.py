"""The catalogue: every registered design family, sampling scheme and test, and what a worker process needs of it.

Each kind of entry is registered once, where it belongs
(:func:`simstudy.pipeline.designs.register_design`,
:func:`simstudy.pipeline.schemes.register_scheme`,
:func:`simstudy.pipeline.outcomes.register_test`), and a procedure names one of
each (:mod:`simstudy.pipeline.procedures`).  The built-in entries are registered
when those modules are imported, in every process.  An entry a user registers
(in a study file, a script, a notebook) exists in the process that registered
it; :func:`user_entries` collects those, and the engine sends them with every
chunk of replications to the worker that computes it, where
:func:`restore` registers them before anything is looked up.  A design, scheme
or test of the user's own is thus found by name in ``run``, ``assess``,
``bench`` and the proving ground, on one worker or many.
"""

from __future__ import annotations

__all__ = ["user_entries", "restore"]


def user_entries() -> tuple:
    """``(families, schemes, tests)`` registered in this process beyond the built-in ones, each a tuple of the
    registered objects, in registration order (empty tuples when there are none)."""
    from simstudy.pipeline import designs, outcomes, schemes

    fams = tuple(f for f in designs._FAMILIES if f.pattern not in designs._BUILTIN)
    sch = tuple(s for k, s in schemes._REGISTRY.items() if k not in schemes._BUILTIN)
    tests = tuple(t for k, t in outcomes._REGISTRY.items() if k not in outcomes._BUILTIN)
    return fams, sch, tests


def restore(entries) -> None:
    """Register ``entries`` (from :func:`user_entries` of another process) here, each replacing an entry of its
    name; None or empty: nothing to do."""
    if not entries or not any(entries):
        return
    from simstudy.pipeline import designs, outcomes, schemes

    fams, sch, tests = entries
    for f in fams:
        designs.register_design(f.pattern, f.build, text=f.text, replace=True)
    for s in sch:
        schemes._REGISTRY[s.name] = s
    for t in tests:
        outcomes._REGISTRY[t.name] = t
