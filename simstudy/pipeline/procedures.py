"""Procedures: a test on a design (and, for a sample test on an r x k cv, a sampling scheme), with a stable id.

A procedure is what a size or power verdict is about: "the corrected t-test on
a 10 x 10 cv", "the paired t-test on the sorted-runs sample of a 10 x 10 cv".
Its id, ``test [design]`` or ``test [design, scheme]``, is the name every table
of the proving ground, ``assess`` and ``bench`` gives it; stored outcome rows
carry its parts (``design``, ``scheme``, ``test``), from which the id is made
again.  The design, the scheme and the test are each registered once
(:func:`simstudy.pipeline.designs.register_design`,
:func:`simstudy.pipeline.schemes.register_scheme`,
:func:`simstudy.pipeline.outcomes.register_test`); a procedure names them.
"""

from __future__ import annotations

from dataclasses import dataclass

from simstudy.errors import InputError

__all__ = ["Procedure", "procedure_id", "as_procedure", "procedures_for"]


def procedure_id(design: str, scheme: str, test: str) -> str:
    """``test [design]``, or ``test [design, scheme]`` for a sample test on a scheme: a procedure's id."""
    where = design + (f", {scheme}" if scheme else "")
    return f"{test} [{where}]"


@dataclass(frozen=True)
class Procedure:
    """A registered test on a named design, on a registered scheme's sample for a sample test of an r x k cv.

    Attributes
    ----------
    design : str
        A design name (:func:`~simstudy.pipeline.designs.parse_designs`).
    test : str
        A registered test.
    scheme : str
        A registered scheme, for a sample test on an r x k cv design ("" otherwise).
    """

    design: str
    test: str
    scheme: str = ""

    def __post_init__(self):
        from simstudy.pipeline.designs import parse_design
        from simstudy.pipeline.outcomes import get_test
        from simstudy.pipeline.schemes import get_scheme

        spec, d = get_test(self.test), parse_design(self.design)
        if not spec.runs_on(d):
            made = f"; it is made for {', '.join(spec.designs)} designs" if spec.designs is not None else ""
            raise InputError(f"procedure: test {self.test!r} does not run on design {self.design!r}{made}")
        if self.scheme:
            get_scheme(self.scheme)
            if spec.takes != "sample" or d.kind != "cv":
                raise InputError(
                    f"procedure: a scheme is for a sample test on an r x k cv design, not {self.test!r} on {self.design!r}"
                )

    @property
    def id(self) -> str:
        """The stable id (:func:`procedure_id`)."""
        return procedure_id(self.design, self.scheme, self.test)


def as_procedure(value) -> Procedure:
    """A :class:`Procedure` from itself or a ``(design, test)`` / ``(design, test, scheme)`` tuple."""
    if isinstance(value, Procedure):
        return value
    if isinstance(value, (tuple, list)) and len(value) in (2, 3) and all(isinstance(v, str) for v in value):
        return Procedure(*value)
    raise InputError(f"procedures: a Procedure or a (design, test[, scheme]) tuple, got {value!r}")


def procedures_for(design: str, tests=None, schemes=None) -> list[Procedure]:
    """Every procedure a design gives: each test (default: every test in "all" of it) that runs on it, a
    sample test on an r x k cv once per scheme whose sample has two values or more there (default: every
    registered scheme)."""
    from simstudy.pipeline.designs import parse_design
    from simstudy.pipeline.outcomes import all_tests, get_test
    from simstudy.pipeline.schemes import get_scheme, scheme_names

    d = parse_design(design)
    names = list(all_tests(d)) if tests is None else [t for t in tests if get_test(t).runs_on(d)]
    usable = [
        s for s in (scheme_names() if schemes is None else schemes) if get_scheme(s).size(d.n_runs, d.n_folds) >= 2
    ]
    out = []
    for t in names:
        if get_test(t).takes == "sample" and d.kind == "cv":
            out += [Procedure(d.key, t, s) for s in usable]
        else:
            out.append(Procedure(d.key, t))
    return out
