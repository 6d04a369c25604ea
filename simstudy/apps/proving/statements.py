"""The papers' statements checked on the proving ground's rows: each claim, our figure and its verdict.

The qualitative claims of Bouckaert (2004), Bouckaert and Frank (2004), Nadeau and Bengio (2003) and
Dietterich (1998): which procedure controls size (answered by the size verdicts of every null scenario),
which is more powerful or more replicable (by the paired difference over data sets with its interval);
"unresolved" where the intervals do not decide.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module
from simstudy.apps.proving.levels import ALPHA

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = ["statements", "anchors"]


def _paired_power_difference(pr, a: str, b: str, alpha=ALPHA, keys=None):
    """Mean over the alternative data sets (of the scenarios ``keys``, default all) of power(a) - power(b), with
    its 95% t interval (percent)."""
    from simstudy.statistics.intervals import mean_interval

    ta, tb = pr.truth_of(a), pr.truth_of(b)
    alt = np.isfinite(ta) & (ta != 0) & np.isfinite(tb) & (tb != 0)
    if keys is not None:
        alt &= pr.units["condition"].isin(list(keys)).to_numpy()
    pa = (pr.decisions(a, alpha)[alt] == ta[alt][:, None]).mean(axis=1)
    pb = (pr.decisions(b, alpha)[alt] == tb[alt][:, None]).mean(axis=1)
    m, lo, hi = mean_interval(pa - pb)
    return 100 * float(m), 100 * float(lo), 100 * float(hi)


def _paired_r2_difference(pr, a: str, b: str, alpha=ALPHA):
    """Mean over data sets of known truth of R2(a) - R2(b) (percent), with its 95% t interval."""
    from simstudy.statistics.intervals import mean_interval
    from simstudy.statistics.replicability import r2

    known = np.isfinite(pr.truth_of(a)) & np.isfinite(pr.truth_of(b))
    ra = np.asarray(r2(pr.decisions(a, alpha)[known]), dtype=float)
    rb = np.asarray(r2(pr.decisions(b, alpha)[known]), dtype=float)
    m, lo, hi = mean_interval(ra - rb)
    return 100 * float(m), 100 * float(lo), 100 * float(hi)


def _size_claim(sizes: pd.DataFrame, proc: str, scenarios=None, *, want: str, every: bool = True) -> tuple[str, str]:
    """(ours, verdict) of a claim about a procedure's size on some null scenarios (default all it was judged on).

    ``want`` is the verdict the claim asserts (``controls size`` or ``liberal``);
    with ``every`` it must hold on every scenario, else on at least one.
    """
    from simstudy.statistics.size_control import CONTROLS, LIBERAL, UNRESOLVED

    t = sizes[sizes["procedure"] == proc]
    if scenarios is not None:
        t = t[t["scenario"].isin(list(scenarios))]
    if t.empty:
        return "not stored", "n/a"
    v = t["verdict"]
    worst = t.sort_values("type1_high", ascending=False).iloc[0]
    ours = (
        f"{len(t)} null scenario(s): {int((v == CONTROLS).sum())} control size, {int((v == LIBERAL).sum())} "
        f"liberal, {int((v == UNRESOLVED).sum())} unresolved; highest {worst['type1']:.1f}% "
        f"[{worst['type1_low']:.1f}, {worst['type1_high']:.1f}] ({worst['scenario']}, {int(worst['n'])} data sets)"
    )
    if want == CONTROLS:
        verdict = "holds" if (v == CONTROLS).all() else "does not hold" if (v == LIBERAL).any() else "unresolved"
    elif every:
        verdict = "holds" if (v == LIBERAL).all() else "does not hold" if (v == CONTROLS).any() else "unresolved"
    else:
        verdict = "holds" if (v == LIBERAL).any() else "does not hold" if (v == CONTROLS).all() else "unresolved"
    return ours, verdict


def _difference_verdict(low, high) -> str:
    """A claim that a paired difference is positive: holds, does not hold, or unresolved (the interval covers 0)."""
    if low > 0:
        return "holds"
    if high < 0:
        return "does not hold"
    return "unresolved"


def _power_claim(pr, better: str, worse: str, alpha=ALPHA, keys=None) -> tuple[str, str, tuple]:
    """(ours, verdict, (m, lo, hi)) of "better has more power than worse", from the paired raw power difference."""
    m, lo, hi = _paired_power_difference(pr, better, worse, alpha, keys)
    return (
        f"paired difference of power {m:+.1f} [{lo:+.1f}, {hi:+.1f}] points",
        _difference_verdict(lo, hi),
        (m, lo, hi),
    )


def _keys(pr, family: str, null: bool | None = None) -> list:
    from simstudy.apps.proving.scenarios import BANK

    return [
        k
        for k in pd.unique(pr.units["condition"])
        if k in BANK and BANK[k].family == family and (null is None or BANK[k].null_by_construction == null)
    ]


def statements(pr, board: pd.DataFrame, named: dict, alpha=ALPHA, sizes: pd.DataFrame | None = None) -> pd.DataFrame:
    """The papers' statements that the proving ground can check, each with our numbers and a verdict.

    Statements about size use the size verdicts (:mod:`simstudy.statistics.size_control`):
    "holds" needs every scenario's interval to decide in the statement's favour,
    "does not hold" one interval deciding against it, otherwise "unresolved".
    Statements about power and replicability use the paired interval of the
    difference over data sets.
    """
    from simstudy.apps.proving.summary import size_table

    sizes = size_table(pr) if sizes is None else sizes
    b = board.set_index("procedure")
    rows = _size_statements(sizes, b, named, alpha)
    rows += _power_statements(pr, b, named, alpha)
    if pr.n_experiments >= 2:
        rows += _replicability_statements(pr, b, named, alpha)
    out = pd.DataFrame(rows, columns=["statement", "source", "ours", "verdict"])
    return pd.concat([out, anchors(pr, named, sizes, alpha)], ignore_index=True)


def _named(named: dict, prefix: str):
    """The stored procedure of the first label of ``named`` that starts with ``prefix`` (None: none)."""
    return next((named[k] for k in named if k.startswith(prefix)), None)


def _statement(statement, source, ours, verdict) -> dict:
    return {"statement": statement, "source": source, "ours": ours, "verdict": verdict}


def _size_statements(sizes: pd.DataFrame, b: pd.DataFrame, named: dict, alpha) -> list:
    """The papers' statements that a test is liberal, or that it controls size, checked by the size verdicts."""
    from simstudy.statistics.size_control import CONTROLS, LIBERAL

    rows = []
    for prefix, src in (
        (
            "resampled t (10",
            "Nadeau and Bengio 2003; Bouckaert and Frank 2004 (the standard resampled t has a high Type I error, "
            "which the correction improves)",
        ),
        (
            "10x10 cv t, uncorrected",
            "Bouckaert and Frank 2004 (its Type I error is high, training and test sets overlapping; they correct "
            "its variance)",
        ),
        ("Welch t", "treats overlapping training sets as independent"),
    ):
        proc = _named(named, prefix)
        if proc is None or proc not in b.index:
            continue
        rows.append(
            _statement(
                f"{prefix.rstrip(' (10')}: Type I error above alpha = {alpha:g} (liberal on some null scenario)",
                src,
                *_size_claim(sizes, proc, want=LIBERAL, every=False),
            )
        )
    for prefix, src in (
        (
            "corrected resampled t (10",
            "Nadeau and Bengio 2003; Bouckaert and Frank 2004 (Type I error close to the significance level)",
        ),
        ("corrected 10x10 cv t", "Bouckaert and Frank 2004 (recommended: acceptable Type I error)"),
        ("5x2cv t", "Dietterich 1998 (acceptable Type I error)"),
        (
            "sorted runs t",
            "Bouckaert 2004 (Table 1: the t-test on sorted runs has a Type I error of 4.5% on his null source)",
        ),
    ):
        proc = _named(named, prefix)
        if proc is None or proc not in b.index:
            continue
        rows.append(
            _statement(
                f"{prefix.rstrip(' (10')}: controls size on every null scenario",
                src,
                *_size_claim(sizes, proc, want=CONTROLS),
            )
        )
    return rows


def _power_statements(pr, b: pd.DataFrame, named: dict, alpha) -> list:
    """The papers' statement that the 5x2cv t has less power than the corrected tests and sorted runs."""
    label_of = {v: k for k, v in named.items()}

    def iv(proc, col):
        r = b.loc[proc]
        return f"{r[col]:.1f}% [{r[col + '_mc_low']:.1f}, {r[col + '_mc_high']:.1f}]"

    rows = []
    five = _named(named, "5x2cv t")
    others = (_named(named, "corrected 10x10 cv t"), _named(named, "corrected resampled t (10"))
    for other in (*others, _named(named, "sorted runs t")):
        if five and other and five in b.index and other in b.index:
            ours, verdict, _ = _power_claim(pr, other, five, alpha)
            rows.append(
                _statement(
                    f"5x2cv t has less power than {label_of.get(other, other)}",
                    "Bouckaert and Frank 2004 (5x2cv is conservative: low Type I, high Type II error); Dietterich 1998",
                    f"power {iv(five, 'power')} against {iv(other, 'power')}; {ours}",
                    verdict,
                )
            )
    return rows


def _replicability_statements(pr, b: pd.DataFrame, named: dict, alpha) -> list:
    """The papers' statements that one procedure is more replicable (R2) than another, by the paired interval."""
    label_of = {v: k for k, v in named.items()}
    rows = []
    for better, worse, src in (
        (
            _named(named, "corrected 10x10 cv t"),
            _named(named, "5x2cv t"),
            "Bouckaert and Frank 2004: the corrected repeated cv test is more replicable than 5x2cv",
        ),
        (
            _named(named, "sorted runs t"),
            _named(named, "10-fold cv t"),
            "Bouckaert 2004: sorted runs are more replicable than a single 10-fold cv",
        ),
    ):
        if better and worse and better in b.index and worse in b.index:
            m, lo, hi = _paired_r2_difference(pr, better, worse, alpha)
            rows.append(
                _statement(
                    f"{label_of.get(better, better)} is more replicable (R2) than {label_of.get(worse, worse)}",
                    src,
                    f"paired difference of R2 over data sets {m:+.1f} [{lo:+.1f}, {hi:+.1f}] points",
                    _difference_verdict(lo, hi),
                )
            )
    return rows


def anchors(pr, named: dict, sizes: pd.DataFrame, alpha=ALPHA) -> pd.DataFrame:
    """Nadeau and Bengio's (2003) and Dietterich's (1998) qualitative claims on the worlds built in their style."""
    rows = _nadeau_bengio_anchors(pr, named, sizes) + _dietterich_anchors(pr, named, sizes, alpha)
    return pd.DataFrame(rows, columns=["statement", "source", "ours", "verdict"])


def _nadeau_bengio_anchors(pr, named: dict, sizes: pd.DataFrame) -> list:
    """Nadeau and Bengio (2003) in their own setting: the naive resampled t liberal, the corrected one in control."""
    from simstudy.statistics.size_control import CONTROLS, LIBERAL

    rows = []
    nb_nulls = _keys(pr, "nadeau_bengio", null=True)
    res, cres = named.get("resampled t (10 splits)"), named.get("corrected resampled t (10 splits)")
    src = (
        "Nadeau and Bengio 2003, classification of two Gaussian classes (their setting; ours with "
        "Sigma1 = I/2, I/6 and n = 200, 2000)"
    )
    if nb_nulls and res:
        rows.append(
            _statement(
                "Nadeau-Bengio setting: the naive resampled t is liberal on every null",
                src,
                *_size_claim(sizes, res, nb_nulls, want=LIBERAL),
            )
        )
    if nb_nulls and cres:
        rows.append(
            _statement(
                "Nadeau-Bengio setting: the corrected resampled t controls size on every null",
                src,
                *_size_claim(sizes, cres, nb_nulls, want=CONTROLS),
            )
        )
    return rows


def _dietterich_anchors(pr, named: dict, sizes: pd.DataFrame, alpha) -> list:
    """Dietterich's (1998) five tests on the two-view Gaussian worlds: their Type I errors, then their power."""
    from simstudy.statistics.size_control import CONTROLS, LIBERAL

    rows = []
    g_nulls, g_alts = _keys(pr, "gaussian", null=True), _keys(pr, "gaussian", null=False)
    d = {
        k: named.get(k)
        for k in (
            "McNemar (holdout)",
            "difference of proportions (holdout)",
            "resampled t (30 splits, a third held out)",
            "10-fold cv t (first run)",
            "5x2cv t",
        )
    }
    src = "Dietterich 1998 (two-view Gaussian worlds in the style of his simulation)"
    if g_nulls:
        for label, want, every, text in (
            ("McNemar (holdout)", CONTROLS, True, "McNemar's test has low Type I error"),
            (
                "difference of proportions (holdout)",
                LIBERAL,
                False,
                "the difference-of-proportions test has high Type I error in some settings",
            ),
            (
                "resampled t (30 splits, a third held out)",
                LIBERAL,
                False,
                "the resampled t-test (30 splits) has high Type I error",
            ),
            ("10-fold cv t (first run)", LIBERAL, False, "the 10-fold cv t-test has somewhat elevated Type I error"),
            ("5x2cv t", CONTROLS, True, "the 5x2cv t-test has acceptable Type I error"),
        ):
            if d.get(label):
                rows.append(_statement(text, src, *_size_claim(sizes, d[label], g_nulls, want=want, every=every)))
    if g_alts and d.get("10-fold cv t (first run)"):
        rows += _cv_t_most_powerful(pr, d, g_alts, alpha, src)
    if g_alts and d.get("5x2cv t") and d.get("McNemar (holdout)"):
        ours, verdict, _ = _power_claim(pr, d["5x2cv t"], d["McNemar (holdout)"], alpha, g_alts)
        rows.append(_statement("the 5x2cv t-test is slightly more powerful than McNemar's test", src, ours, verdict))
    return rows


def _cv_t_most_powerful(pr, d: dict, g_alts, alpha, src: str) -> list:
    """Dietterich's statement that the 10-fold cv t-test is the most powerful of his five: holds when it beats
    each rival, does not hold when a rival beats it."""
    cv = d["10-fold cv t (first run)"]
    parts, verdicts = [], []
    # Dietterich rules the resampled t out for its Type I error before comparing power; its raw
    # power, bought with a Type I error of 30% and more, is no rival of the cv t.
    for label in ("McNemar (holdout)", "difference of proportions (holdout)", "5x2cv t"):
        if d.get(label):
            ours, verdict, _ = _power_claim(pr, cv, d[label], alpha, g_alts)
            parts.append(f"against {label}: {ours.replace('paired difference of power ', '')}")
            verdicts.append(verdict)
    if not verdicts:
        return []
    overall = (
        "holds"
        if all(v == "holds" for v in verdicts)
        else "does not hold"
        if any(v == "does not hold" for v in verdicts)
        else "unresolved"
    )
    return [
        _statement(
            "the 10-fold cv t-test is the most powerful of the five (the resampled t, ruled out for its "
            "Type I error, aside)",
            src,
            "paired differences of power over the alternative data sets: " + "; ".join(parts),
            overall,
        )
    ]
