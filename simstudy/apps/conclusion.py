"""The Conclusion of an assessment: the practitioners' decision rules applied to its numbers.

``docs/howto/practitioners.rst`` ("Decide") states the rules; this module applies
them, so that every assessment opens with what they give and why.

One data set (:func:`conclude`), per design:

* the decision rests on the design's deciding test (:func:`decision_test`: the
  first registered test marked ``decides`` that runs on the design; built in,
  the Nadeau-Bengio corrected t-test of the r x k cv, of the 5x2 cv's ten
  splits, of the resampled splits), and only if that test controls size on the nearest
  evidence (the stored or shipped simulations of learners as stable as the
  user's); otherwise the design is left out of the decision, saying why;
* **A better** (or B): the corrected interval of A - B lies above (below) 0 in
  most repeats *and* the Bayesian correlated t-test gives that side a
  probability of at least 0.95 beyond the ROPE;
* **equivalent within the ROPE**: the Bayesian probability of the ROPE is at
  least 0.95;
* anything else is **not settled**, and so is a disagreement between designs.

Several data sets (:func:`conclude_many`), per pair of learners: with three or
more learners Friedman's test must reject first; then a side is better when the
Wilcoxon signed-rank test over the data sets rejects after Holm's adjustment for
the pairs compared *and* the Bayesian signed-rank test gives it at least 0.95;
equivalent when the ROPE gets 0.95; otherwise not settled.

Both name the tests that must not decide: those liberal on the evidence (most
of them uncorrected: they treat splits that share training cases as
independent) or without evidence, and across data sets the unadjusted pairwise
p-values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module
from simstudy.errors import option

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = [
    "decision_test",
    "CERTAIN",
    "VERDICTS",
    "test_kind",
    "DesignDecision",
    "Conclusion",
    "conclude",
    "conclude_many",
]

#: The posterior probability a Bayesian verdict needs (the common rule, Benavoli et al. 2017).
CERTAIN = 0.95
#: The verdicts a Conclusion can reach.
VERDICTS = ("A better", "B better", "equivalent within the ROPE", "not settled")
_SHOW = 4


def test_kind(test: str) -> str:
    """How a registered test treats the dependence of splits that share training cases: its registered
    :attr:`~simstudy.pipeline.outcomes.TestSpec.correction` (``corrected``, ``5x2cv``, ``calibrated``,
    ``one split`` or ``uncorrected``)."""
    from simstudy.pipeline.outcomes import get_test

    return get_test(test).correction


def decision_test(design) -> str | None:
    """The registered test a design decides by (a :class:`~simstudy.apps.assess.DesignChoice` or a
    :class:`~simstudy.pipeline.designs.DesignSpec`): the one whose interval the effect table shows."""
    from simstudy.pipeline.outcomes import deciding_test

    spec = deciding_test(getattr(design, "spec", None) or design)
    return spec.name if spec is not None else None


def class_procedure(design: str, n_repeats: int, klass: str | None, *, alpha: float = 0.05) -> dict | None:
    """The procedure a design is decided by for learners of the stability class ``klass``, from the shipped
    calibration (:func:`simstudy.pipeline.inflation.pooled_evidence`): of the corrected t over all
    ``n_repeats`` repeats pooled and over the first repeat alone (each with the class's factor), those that
    control size on the class's null scenarios, the one with the most power on its alternatives.

    None (the Conclusion then decides by the design's deciding test over the repeats, :func:`decision_test`) when
    the class is unknown (local evidence, or instability not measured), ``alpha`` is not the calibration's,
    or no calibrated procedure of the design controls size for the class.
    """
    from simstudy.pipeline.inflation import load_inflation, pooled_evidence

    if not klass or abs(float(alpha) - float(load_inflation()["alpha"])) > 1e-12:
        return None
    found = (pooled_evidence(design, r, klass) for r in dict.fromkeys((int(n_repeats), 1)))
    usable = [e for e in found if e is not None and e["size"] == "controls size"]
    return max(usable, key=lambda e: (e["power"], e["repeats"])) if usable else None


def _procedure_how(proc: dict) -> str:
    over = f" over {proc['repeats']} repeats pooled" if proc["repeats"] > 1 else " on the first repeat"
    factor = "" if float(proc["factor"]) == 1 else f" with its term n_test/n_train x{float(proc['factor']):g}"
    return over + factor


def _procedure_size(proc: dict) -> str:
    return (
        f"{proc['size']} on the {int(proc['null_scenarios'])} null scenarios of the class, judged on "
        f"{proc['judged_on']}: Type I error {proc['deciding_type1']:.1f}% [{proc['deciding_low']:.1f}, "
        f"{proc['deciding_high']:.1f}] on {proc['deciding_scenario']}, {int(proc['deciding_n'])} data sets; power "
        f"{proc['power']:.1f}% on its alternatives"
    )


@dataclass(frozen=True)
class DesignDecision:
    """What the rules give on one design: its numbers, whether it may decide, its verdict and why."""

    design: str
    test: str
    size: str
    size_text: str
    repeats: int
    above: int
    below: int
    mean: float
    low: float
    high: float
    p_a: float
    p_rope: float
    p_b: float
    usable: bool
    verdict: str
    reason: str
    power: float = float("nan")
    how: str = ""


@dataclass(frozen=True)
class Conclusion:
    """The Conclusion: ``verdict`` (one of :data:`VERDICTS`), the short ``headline`` a page shows in bold (who
    is better, by how much, with its interval), the paragraph ``text`` with the reasons, and what it rests on."""

    verdict: str
    text: str
    designs: tuple = ()
    not_for_decision: str = ""
    headline: str = ""
    pairs: tuple = ()


def _names(rows: pd.DataFrame) -> str:
    names = [f"`{p}`" for p in rows["procedure"].head(_SHOW)]
    more = len(rows) - len(names)
    return ", ".join(names) + (f" and {more} more" if more > 0 else "")


def _size_text(r) -> str:
    size = r.get("size", "no evidence") or "no evidence"
    t1 = r.get("Type I error %", np.nan)
    if size == "no evidence" or t1 is None or not np.isfinite(t1):
        return size
    return (
        f"{size}: Type I error {t1:.1f}% [{r['Type I low %']:.1f}, {r['Type I high %']:.1f}] on "
        f"{r['deciding null scenario']}, {int(r['null data sets'])} data sets"
    )


def _count(text) -> int:
    return int(str(text).split("/", 1)[0])


def _pooled_decision(d, e, proc: dict, rope: float) -> DesignDecision:
    """The decision of a design by a calibrated procedure (:func:`class_procedure`): its interval excludes 0
    and the Bayesian correlated t-test on the same splits, with the same correlation term, gives that side
    at least 0.95 beyond the ROPE."""
    mean, low, high = float(e["decision: A - B"]), float(e["decision low"]), float(e["decision high"])
    p_a, p_rope, p_b = (float(e[f"decision P({k})"]) for k in ("A better", "equivalent", "B better"))
    repeats = int(str(e["interval above 0"]).split("/", 1)[1])
    above, below = _count(e["interval above 0"]), _count(e["interval below 0"])
    where = f"over {proc['repeats']} repeats pooled" if proc["repeats"] > 1 else "in the first repeat"
    if low > 0 and p_a >= CERTAIN:
        verdict, reason = "A better", f"the interval {where} lies above 0 and P(A better) reaches 0.95"
    elif high < 0 and p_b >= CERTAIN:
        verdict, reason = "B better", f"the interval {where} lies below 0 and P(B better) reaches 0.95"
    elif p_rope >= CERTAIN:
        verdict, reason = "equivalent within the ROPE", f"P(equivalent) reaches 0.95 (ROPE ±{rope:g})"
    elif low > 0 or high < 0:
        who, p = ("A", p_a) if low > 0 else ("B", p_b)
        verdict = "not settled"
        reason = (
            f"the interval {where} excludes 0, but P({who} better) beyond the ROPE ±{rope:g} is {p:.2f}, short of 0.95"
        )
    else:
        verdict = "not settled"
        reason = f"the interval {where} covers 0 and no Bayesian probability reaches 0.95"
    return DesignDecision(
        d.key, "corrected_cv_t", proc["size"], _procedure_size(proc), repeats, above, below, mean, low, high,
        p_a, p_rope, p_b, True, verdict, reason, float(proc["power"]), _procedure_how(proc),
    )  # fmt: skip


def _calibration_short(design: str, repeats: int, klass: str | None) -> str:
    """Why no calibrated procedure of ``design`` decides for the class (none calibrated: ``""``)."""
    from simstudy.pipeline.inflation import pooled_evidence

    if not klass:
        return ""
    found = [e for r in dict.fromkeys((int(repeats), 1)) if (e := pooled_evidence(design, r, klass)) is not None]
    if not found:
        return ""
    e = min(found, key=lambda e: e["deciding_high"])
    how = _procedure_how(e).strip()
    return (
        f", and its calibrated form for {klass} learners ({how}) is {e['size']} on {e['judged_on']} "
        f"({e['deciding_type1']:.1f}% [{e['deciding_low']:.1f}, {e['deciding_high']:.1f}] on {e['deciding_scenario']})"
    )


def _design_decision(
    d, table: pd.DataFrame, effect: pd.DataFrame, rope: float, klass: str | None = None
) -> DesignDecision | None:
    e = effect[effect["design"] == d.key]
    if e.empty or "first: A - B" not in e:
        return None
    e = e.iloc[0]
    if "decided on" in e and isinstance(e["decided on"], str) and e["decided on"]:
        repeats = int(str(e["interval above 0"]).split("/", 1)[1])
        proc = class_procedure(d.key, repeats, klass)
        if proc is not None:
            return _pooled_decision(d, e, proc, rope)
    test = decision_test(d)
    if test is None:
        return None
    row = table[(table["design"] == d.key) & (table["test"] == test) & (table["scheme"] == "")]
    r = row.iloc[0] if len(row) else {}
    size = (r.get("size", "no evidence") if len(row) else "not run") or "no evidence"
    repeats = int(str(e["interval above 0"]).split("/", 1)[1])
    above, below = _count(e["interval above 0"]), _count(e["interval below 0"])
    p_a, p_rope, p_b = float(e["P(A better)"]), float(e["P(equivalent)"]), float(e["P(B better)"])
    usable = size == "controls size"
    if not usable:
        why = {
            "liberal": "liberal on the nearest evidence",
            "unresolved": "unresolved on the nearest evidence (too few null data sets to tell)",
            "no evidence": "without evidence on its size",
            "not run": f"not among the tests run ({option('tests')})",
            "never rejects": "without a size verdict on the nearest evidence (it rejects on none of its data sets)",
            "declined": "without a size verdict on the nearest evidence (declined on every data set)",
        }.get(size, size)
        verdict, reason = "not settled", f"`{test}` is {why}{_calibration_short(d.key, repeats, klass)}"
    elif above * 2 > repeats and p_a >= CERTAIN:
        verdict, reason = "A better", "the interval lies above 0 in most repeats and P(A better) reaches 0.95"
    elif below * 2 > repeats and p_b >= CERTAIN:
        verdict, reason = "B better", "the interval lies below 0 in most repeats and P(B better) reaches 0.95"
    elif p_rope >= CERTAIN:
        verdict, reason = "equivalent within the ROPE", f"P(equivalent) reaches 0.95 (ROPE ±{rope:g})"
    else:
        side = max((p_a, "A better"), (p_b, "B better"), (p_rope, "equivalent"))
        verdict = "not settled"
        if above * 2 > repeats or below * 2 > repeats:
            who, p = ("A", p_a) if above * 2 > repeats else ("B", p_b)
            where = "above" if who == "A" else "below"
            reason = (
                f"the interval lies {where} 0 in most repeats ({max(above, below)} of {repeats}), but P({who} better) "
                f"beyond the ROPE ±{rope:g} is {p:.2f}, short of 0.95"
            )
        elif side[0] >= CERTAIN:
            reason = (
                f"P({side[1]}) reaches {side[0]:.2f}, but the interval lies above 0 in {above} and below 0 in "
                f"{below} of {repeats} repeats, where most repeats must agree"
            )
        else:
            reason = (
                f"the interval lies above 0 in {above}, below 0 in {below} of {repeats} repeats and no Bayesian "
                f"probability reaches 0.95 (the largest: {side[1]} {side[0]:.2f})"
            )
    power = float(r.get("power %", np.nan)) if len(row) else np.nan
    return DesignDecision(
        d.key, test, size, _size_text(r) if len(row) else size, repeats, above, below,
        float(e["first: A - B"]), float(e["low"]), float(e["high"]), p_a, p_rope, p_b, usable, verdict, reason,
        power if np.isfinite(power) else np.nan,
    )  # fmt: skip


def _numbers(x: DesignDecision, rope: float) -> str:
    where = x.how.strip().split(" with ")[0] if x.how else "first repeat"
    return (
        f"{x.design}: A - B = {x.mean:+.4f} [{x.low:+.4f}, {x.high:+.4f}] ({where}, corrected 95% interval), "
        f"each repeat's interval above 0 in {x.above} and below 0 in {x.below} of {x.repeats}; Bayesian correlated "
        "t-test with "
        f"ROPE ±{rope:g}: P(A better) {x.p_a:.2f}, P(equivalent) {x.p_rope:.2f}, P(B better) {x.p_b:.2f}"
    )


def not_for_decision(table: pd.DataFrame, deciding: set) -> str:
    """The sentence naming the tests that must not decide and why: liberal on the evidence, or without evidence.

    Liberal ones come worst first (by the lower end of their Type I error's
    interval), with how many of them are uncorrected.
    """
    rows = table.assign(_kind=[test_kind(t) for t in table["test"]])
    if "procedure" not in rows:
        from simstudy.pipeline.procedures import procedure_id

        rows = rows.assign(procedure=[procedure_id(r["design"], r["scheme"], r["test"]) for _, r in rows.iterrows()])
    rows = rows[~rows["procedure"].isin(deciding)]
    if "size" not in rows:
        rows = rows.assign(size="no evidence")
    parts = []
    lib = rows[rows["size"] == "liberal"]
    if "Type I low %" in lib:
        lib = lib.sort_values("Type I low %", ascending=False, kind="stable")
    if len(lib):
        unc = int((lib["_kind"] == "uncorrected").sum())
        why = f", {unc} of them uncorrected (they take splits that share training cases as independent)" if unc else ""
        parts.append(f"{len(lib)} test(s) liberal on the nearest evidence{why}: {_names(lib)}")
    none = rows[rows["size"].isin(["no evidence", "unresolved", "no null scenario", "never rejects", "declined"])]
    if len(none):
        parts.append(f"{len(none)} without evidence that they control size: {_names(none)}")
    return ("Not for the decision: " + "; ".join(parts) + ".") if parts else ""


def conclude(
    table: pd.DataFrame, effect: pd.DataFrame, designs, *, rope: float, a: str, b: str, evidence: str, klass=None
):
    """The Conclusion of one data set's assessment.

    Parameters
    ----------
    table : DataFrame
        The assessment table with the evidence columns (:func:`simstudy.apps.assess.recommend`).
    effect : DataFrame
        :func:`simstudy.apps.assess.effect_table`.
    designs : sequence of DesignChoice
    rope : float
        The ROPE's half-width, in score units.
    a, b : str
        How the learners are named.
    evidence : str
        What "the nearest evidence" is (for the text).
    klass : str, optional
        The learners' stability class on the shipped evidence: where the shipped
        calibration holds a procedure for it (:func:`class_procedure`), a design
        is decided by that procedure (the numbers of ``effect``'s ``decision``
        columns); otherwise by its deciding test over the repeats.

    Returns
    -------
    Conclusion
    """
    decisions = [x for d in designs if (x := _design_decision(d, table, effect, rope, klass)) is not None]
    used = [x for x in decisions if x.usable]
    # the design whose deciding test has the most power on the nearest evidence decides (chosen by the evidence,
    # never by the outcomes, so the decision keeps that test's size); another design may only veto it
    lead = max(used, key=lambda x: (np.nan_to_num(x.power, nan=-1.0), -used.index(x))) if used else None
    contrary = [
        x
        for x in used
        if x is not lead and x.verdict != "not settled" and lead is not None and x.verdict != lead.verdict
    ]
    verdict = lead.verdict if lead is not None and not contrary else "not settled"
    if verdict in ("A better", "B better"):
        who, other = (a, b) if verdict == "A better" else (b, a)
        gap = abs(lead.mean)
        low, high = (lead.low, lead.high) if verdict == "A better" else (-lead.high, -lead.low)
        headline = f"{who} is better than {other} by {gap:.3f} [{low:+.3f}, {high:+.3f}] on this data ({lead.design})."
    elif verdict == "equivalent within the ROPE":
        headline = f"{a} and {b} are practically equivalent (within ±{rope:g}) on this data ({lead.design})."
    else:
        shown = lead or (decisions[0] if decisions else None)
        headline = (
            f"Not settled: {a} - {b} = {shown.mean:+.3f} [{shown.low:+.3f}, {shown.high:+.3f}] on this data "
            f"({shown.design})."
            if shown is not None and np.isfinite(shown.mean)
            else f"Not settled: {a} against {b} on this data."
        )
    head = {
        "A better": f"A ({a}) is better than B ({b}) on this data.",
        "B better": f"B ({b}) is better than A ({a}) on this data.",
        "equivalent within the ROPE": f"A ({a}) and B ({b}) are practically equivalent on this data: equivalent "
        f"within the ROPE of ±{rope:g}.",
        "not settled": "Not settled.",
    }[verdict]
    body = []
    for x in sorted(used, key=lambda x: x is not lead):
        role = "decided by" if x is lead else "checked by"
        why = (
            f"; it decides since it has the most power of the designs that may ({x.power:.1f}% on the evidence)"
            if (x is lead and len(used) > 1 and np.isfinite(x.power))
            else ""
        )
        body.append(
            f"{_numbers(x, rope)}: {x.verdict}, since {x.reason}; {role} `{x.test}`{x.how} on {x.design}, which "
            f"controls size on the nearest evidence ({x.size_text}){why}."
        )
    if verdict == "not settled":
        if not decisions:
            body.append("No design has the corrected interval this rule needs.")
        elif not used:
            body.append(
                "No design can decide: its corrected test must control size on the nearest evidence ("
                + "; ".join(f"on {x.design} {x.reason} ({x.size_text})" for x in decisions)
                + ")."
            )
        elif contrary:
            body.append(
                "The designs contradict each other ("
                + ", ".join(f"{x.design}: {x.verdict}" for x in used)
                + "); more data settles it, more repeats of the same data do not."
            )
        else:
            body.append("More data settles it; more repeats of the same data do not." + _equivalence_hint(lead, rope))
    left = [x for x in decisions if not x.usable]
    if used and left:
        body.append(
            "Left out of the decision: "
            + "; ".join(f"{x.design}, since {x.reason} ({x.size_text})" for x in left)
            + "."
        )
    deciding = {f"{x.test} [{x.design}]" for x in used}
    nfd = not_for_decision(table, deciding)
    text = f"{head} {' '.join(body)} {nfd} Evidence: {evidence}.".replace("  ", " ")
    return Conclusion(verdict, text.strip(), tuple(decisions), nfd, headline)


def _equivalence_hint(x: DesignDecision | None, rope: float) -> str:
    """When the interval is wider than the ROPE: about how many times more cases would let it fit inside.

    The corrected interval's half-width shrinks roughly as one over the square root of the number of cases
    (the test share stays the same), so at the observed variance an interval of half-width ``w`` around a
    difference ``m`` with ``|m| < rope`` fits in the ROPE with about ``(w / (rope - |m|))^2`` times the cases."""
    if x is None or not np.isfinite(x.low) or not np.isfinite(x.high):
        return ""
    half, m = (x.high - x.low) / 2, abs(x.mean)
    if half <= rope or m >= rope:
        if m >= rope:
            return (
                f" The difference ({x.mean:+.4f}) lies outside the ROPE ±{rope:g}: unless it shrinks, more data "
                "settles which is better rather than equivalence."
            )
        return ""
    times = (half / (rope - m)) ** 2
    return (
        f" Equivalence within ±{rope:g} needs an interval inside the ROPE: at the observed variance, about "
        f"{times:.0f} times as many cases (the interval's half-width {half:.4f} against a margin of "
        f"{rope - m:.4f} left by the difference)."
    )


def least_data_sets(learners: int, alpha: float, pairs: int | None = None) -> int:
    """The fewest data sets with which the several-data-set rule can reach ``alpha`` at all (learners that rank
    the same way on every data set).

    Two learners: the exact two-sided Wilcoxon signed-rank test's smallest p, ``2 / 2**N``.  Three or more:
    Friedman's test (Iman-Davenport F) must reject and Holm's step-down on mean ranks must reject its first
    pair, whose p is compared with ``alpha / m`` for ``m`` pairs (``pairs``; default all of them): the largest
    mean-rank difference, ``k - 1``, gives ``z = (k - 1) / sqrt(k (k + 1) / (6 N))``.
    """
    from scipy import stats

    k = int(learners)
    if k < 3:
        return next(n for n in range(2, 64) if 2.0 / 2**n <= alpha)
    m = pairs if pairs is not None else k * (k - 1) // 2
    z = stats.norm.isf(alpha / m / 2)
    for n in range(2, 10_000):
        # perfect agreement: ranks 1..k on every data set
        chi2 = 12 * n / (k * (k + 1)) * sum((j - (k + 1) / 2) ** 2 for j in range(1, k + 1))
        f = (n - 1) * chi2 / (n * (k - 1) - chi2) if n * (k - 1) > chi2 else np.inf
        p_f = stats.f.sf(f, k - 1, (k - 1) * (n - 1)) if np.isfinite(f) else 0.0
        if p_f <= alpha and (k - 1) / np.sqrt(k * (k + 1) / (6 * n)) >= z:
            return n
    return 10_000


def _pair_holm(tables: dict, a: str, b: str):
    """The row of the page's Holm table (post-hoc on mean ranks) for the pair ``a``, ``b`` in either order."""
    holm = tables.get("holm")
    if holm is None or not len(holm):
        return None
    hit = holm[((holm["A"] == a) & (holm["B"] == b)) | ((holm["A"] == b) & (holm["B"] == a))]
    return hit.iloc[0] if len(hit) else None


def conclude_many(tables: dict, *, alpha: float, rope: float, control: str | None = None) -> Conclusion:
    """The Conclusion of several learners on several data sets, per pair (see the module docstring).

    ``tables`` are :func:`simstudy.apps.assess.many.many_tables`.  Two learners: the Wilcoxon signed-rank
    test over the data sets decides the side.  Three or more: Friedman's test must reject, then the side of
    a pair is decided by Holm's step-down post-hoc on mean ranks, the table the same page shows beneath (so
    the Conclusion never contradicts it; Demsar 2006 recommends it after Friedman, where pairwise Wilcoxon
    tests adjusted by Holm for every pair cannot reach 0.05 with few data sets: 6 pairs need p <= 0.05/6 and
    7 data sets give at best 1/64).  Either way the Bayesian signed-rank test must give that side 0.95.
    """
    across = tables["across"]
    n_sets = int(across["data sets"].max()) if len(across) else 0
    learners = len(set(across["A"]) | set(across["B"])) if len(across) else 0
    if "Wilcoxon p" not in across:  # fewer than two data sets: no test across them can be made
        return _too_few_data_sets(n_sets, alpha)
    several = "friedman" in tables
    m = len(across)
    least = least_data_sets(learners if several else 2, alpha, m if several else None)
    short = (
        f" With {n_sets} data sets no pair can be decided whatever the scores: the rule needs at least {least} "
        f"({'Friedman and Holm on mean ranks over ' + str(m) + ' pairs' if several else 'the Wilcoxon test'}, "
        "learners ranked the same on every data set)."
        if n_sets < least
        else ""
    )
    if several and not tables["friedman"].iloc[0]["p (F)"] <= alpha:
        return _ranks_alike(tables["friedman"].iloc[0], n_sets, alpha, short)
    decided = [_pair_decision(r, tables, several=several, alpha=alpha, rope=rope) for _, r in across.iterrows()]
    verdicts = [v for v, _, _ in decided]
    lines = [line for _, line, _ in decided]
    pairs = [pair for _, _, pair in decided]
    named = [p["verdict"] for p in pairs if p["verdict"] != "not settled"]  # the pairs settled, in words
    verdict = verdicts[0] if len(verdicts) == 1 else ("not settled" if not named else "per pair")
    scope = f" against the control {control}" if control else ""
    head = (
        f"Over the {n_sets} data sets (each data set's mean score one observation; the answer is about data sets "
        f"like these, not any one of them), per pair{scope}: "
    )
    nfd = (
        "Not for the decision: "
        + (
            f"the pairwise Wilcoxon p-values, raw or Holm-adjusted for the {m} comparisons (the ranks' post-hoc "
            "decides); "
            if several
            else ""
        )
        + "each data set's own tests (they speak for that data set alone)."
    )
    headline = (
        "; ".join(named) + f" ({len(named)} of {len(pairs)} pairs settled)."
        if named
        else (
            f"Not settled: no pair of the {len(pairs)} is decided over these {n_sets} data sets."
            if len(pairs) > 1
            else f"Not settled over these {n_sets} data sets."
        )
    )
    text = head + "; ".join(lines) + "." + short + " " + nfd
    return Conclusion(verdict, text, (), nfd, headline, tuple(pairs))


def _too_few_data_sets(n_sets: int, alpha: float) -> Conclusion:
    """The Conclusion with fewer than two data sets completely assessed: no test across data sets can be made."""
    least = least_data_sets(2, alpha)
    text = (
        f"Not settled: {n_sets} data set{'s' if n_sets != 1 else ''} completely assessed, and the tests across data "
        f"sets (each data set's mean score one observation) need several: the Wilcoxon signed-rank test can "
        f"reach p <= {alpha:g} from {least} data sets on (before Holm's adjustment for several pairs). For one "
        f"data set, compare two learners with {option('a')} and {option('b')}: that Conclusion is about this data set."
    )
    nfd = "Not for the decision: each data set's own tests (they speak for that data set alone)."
    return Conclusion("not settled", f"{text} {nfd}", (), nfd, "Not settled: too few data sets.")


def _ranks_alike(friedman, n_sets: int, alpha: float, short: str) -> Conclusion:
    """The Conclusion when Friedman's test does not reject: no pair is compared further (Demsar 2006)."""
    text = (
        f"Not settled: Friedman's test does not reject that the learners rank alike over the {n_sets} data "
        f"sets (Iman-Davenport F = {friedman['Iman-Davenport F']:.2f}, p = {friedman['p (F)']:.3g} > {alpha:g}), so no "
        f"pair is compared further (Demsar 2006). More data sets settle it.{short}"
    )
    nfd = (
        "Not for the decision: the pairwise Wilcoxon p-values (raw or Holm-adjusted), and each data set's "
        "own tests (they speak for that data set alone)."
    )
    return Conclusion("not settled", f"{text} {nfd}", (), nfd, "Not settled: the learners rank alike.")


def _pair_decision(r, tables: dict, *, several: bool, alpha: float, rope: float) -> tuple[str, str, dict]:
    """One pair's verdict over the data sets, its sentence and its row of the per-pair table.

    The side is decided by the post-hoc on mean ranks (three learners or more) or the Wilcoxon test (two),
    and the Bayesian signed-rank test must give that side :data:`CERTAIN`; equivalence needs the ROPE's
    probability to reach it.
    """
    p_a, p_rope, p_b = r.get("P(A better)", np.nan), r.get("P(equivalent)", np.nan), r.get("P(B better)", np.nan)
    if several:
        h = _pair_holm(tables, r["A"], r["B"])
        p_dec = float(h["Holm p"]) if h is not None else np.nan
        sig = bool(h["significant"]) if h is not None else False
        test = "Holm on mean ranks"
    else:
        p_dec = float(r.get("Wilcoxon p", np.nan))
        sig = np.isfinite(p_dec) and p_dec <= alpha
        test = "Wilcoxon"
    side = "A" if r["mean A - B"] > 0 else "B" if r["mean A - B"] < 0 else ""
    if sig and side == "A" and p_a >= CERTAIN:
        v = "A better"
    elif sig and side == "B" and p_b >= CERTAIN:
        v = "B better"
    elif p_rope >= CERTAIN:
        v = "equivalent within the ROPE"
    else:
        v = "not settled"
    name = {
        "A better": f"{r['A']} is better than {r['B']}",
        "B better": f"{r['B']} is better than {r['A']}",
        "equivalent within the ROPE": f"{r['A']} and {r['B']} are equivalent within the ROPE",
        "not settled": f"{r['A']} against {r['B']}: not settled",
    }[v]
    why = ""
    if v == "not settled":
        if not sig:
            why = f", since {test} does not reject (p {p_dec:.3g} > {alpha:g})"
        else:
            why = f", since {test} rejects but the Bayesian signed-rank test gives no side 0.95"
    wilcoxon = f"; Wilcoxon p {r['Wilcoxon p']:.3g}" if several else ""
    line = (
        f"{name}{why} ({test} p {p_dec:.3g}{wilcoxon}; Bayesian signed-rank with ROPE "
        f"±{rope:g}: P({r['A']} better) {p_a:.2f}, P(equivalent) {p_rope:.2f}, P({r['B']} better) {p_b:.2f})"
    )
    pair = {
        "pair": f"{r['A']} vs {r['B']}",
        "verdict": name if v != "not settled" else "not settled",
        "mean A - B": float(r["mean A - B"]),
        "wins A/B": f"{int(r['wins A'])}/{int(r['wins B'])}",
        f"{test} p": p_dec,
        "P(A better)": float(p_a),
        "P(B better)": float(p_b),
    }
    return v, line, pair
