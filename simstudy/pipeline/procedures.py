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

__all__ = ["Procedure", "procedure_id", "as_procedure", "procedures_for", "NamedProcedure", "NAMED", "held_out_words"]


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


@dataclass(frozen=True)
class NamedProcedure:
    """A procedure the papers name: a registered test on a kind of design (on one scheme's sample for a sample
    test of an r x k cv), with the names pages give it.

    Attributes
    ----------
    kind : str
        The kind of design (:data:`simstudy.pipeline.designs.KINDS`).
    test, scheme : str
        The registered test and scheme ("" for a test of the whole design).
    short : str
        Its name in tables and in the proving ground's statements ("" where
        it has none); ``{r}``, ``{k}`` are the design's runs and folds and
        ``{held}`` says what a resampled split holds out when that is not a
        tenth (:func:`held_out_words`).
    words : str
        Its name in sentences ("" where it has none), with the same fields.
    several_runs : bool
        It needs a design of several runs (the uncorrected t on every fold, the
        same as the paired t-test on one run, and the schemes over runs); the
        others take any design of their kind.
    """

    kind: str
    test: str
    scheme: str = ""
    short: str = ""
    words: str = ""
    several_runs: bool = False

    def name(self, design, form: str = "short") -> str:
        """Its ``short`` name or its ``words`` for ``design`` (a :class:`~simstudy.pipeline.designs.DesignSpec`)."""
        text = self.short if form == "short" else self.words
        return text.format(r=design.n_runs, k=design.n_folds, held=held_out_words(design))

    def fits(self, design) -> bool:
        """Whether it names a procedure of ``design``: the kind, and several runs where it needs them."""
        return design.kind == self.kind and (design.n_runs > 1 or not self.several_runs)


def held_out_words(design) -> str:
    """``""`` for a resampled design holding out a tenth (Nadeau and Bengio's), else what it holds out
    (``", a third held out"``, ``", 20% held out"``)."""
    if design.kind not in ("resampled", "holdout") or abs(design.test_share - 0.1) < 1e-9:
        return ""
    if abs(design.test_share - 1 / 3) < 0.01:
        return ", a third held out"
    return f", {round(100 * design.test_share):g}% held out"


#: The procedures the papers name (Dietterich 1998; Nadeau and Bengio 2003; Bouckaert 2004; Bouckaert and Frank
#: 2004), in the order pages list them; the proving ground checks the papers' statements about them by these names.
NAMED = (
    NamedProcedure(
        "cv", "paired_t", "kfold_cv", "{k}-fold cv t (first run)", "the {k}-fold cv t-test (first run only)"
    ),
    NamedProcedure("cv", "cv_t", "", "{r}x{k} cv t, uncorrected", "the {r}x{k} cv t-test", several_runs=True),
    NamedProcedure("cv", "corrected_cv_t", "", "corrected {r}x{k} cv t", "the corrected {r}x{k} cv t-test"),
    NamedProcedure(
        "cv", "paired_t", "average_over_sorted_runs", "sorted runs t", "the sorted-runs t-test", several_runs=True
    ),
    NamedProcedure("cv", "signed_rank", "average_over_sorted_runs", "sorted runs rank sum", several_runs=True),
    NamedProcedure("5x2", "5x2cv_t", "", "5x2cv t", "the 5x2cv t-test"),
    NamedProcedure("5x2", "5x2cv_f", "", "5x2cv F", "the 5x2cv F-test"),
    NamedProcedure("5x2", "corrected_cv_t", "", "", "the corrected t-test on the 5x2 cv's ten splits"),
    NamedProcedure(
        "resampled", "resampled_t", "", "resampled t ({r} splits{held})", "the resampled t-test ({r} splits{held})"
    ),
    NamedProcedure(
        "resampled",
        "corrected_resampled_t",
        "",
        "corrected resampled t ({r} splits{held})",
        "the corrected resampled t-test ({r} splits{held})",
    ),
    NamedProcedure("holdout", "mcnemar", "", "McNemar (holdout)"),
    NamedProcedure("holdout", "difference_of_proportions", "", "difference of proportions (holdout)"),
    NamedProcedure("cv", "welch_t", "", "Welch t"),
)
