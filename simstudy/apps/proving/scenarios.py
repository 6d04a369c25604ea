"""The scenario bank of the proving ground: declared worlds, each with its known truth.

A :class:`Scenario` is a frozen description of one world and one pair of
learners: where a data set comes from, how many cases it has, which learner is
A and which is B.  Three families:

``bouckaert``
    Bouckaert's (2004) four Bayesian-network sources (``bouckaert1`` has
    independent attributes and a uniform class: an exact null) and four of the
    sources of his further experiments (class prior, class cardinality), with
    Weka's C4.5 (J48, A) against naive Bayes (B) on 300 cases, as in his
    Table 1 and in Bouckaert and Frank (2004).
``berrar``
    Berrar's Gaussian generators: the learning-set source of his studies 3 and 4
    (20 features, positives N(0.3, 1)) and the first benchmark source of his
    study 1 (11 features, positives N(0.4, 1.4^2)), with R's naive Bayes (A)
    against R's SVM (B), his study 1's pair, on 300 cases.
``gaussian``
    Two-view Gaussian worlds (:mod:`simstudy.apps.proving.worlds`) in the style of
    Dietterich (1998) and Nadeau and Bengio (2003): training sets of 100, 300
    and 1000 cases, four learner pairs of graded stability (the same learner
    on view A and on view B: naive Bayes and LDA, stable; an unpruned tree and
    1-nearest neighbour, unstable), within-class correlation of the views 0 or
    0.6, and a null (``delta_a = delta_b = 1.5``) with graded alternatives
    (``delta_a = 1.5 + 0.1, 0.25, 0.5, 1``).
``nadeau_bengio``
    The classification setting of Nadeau and Bengio (2003): two bivariate
    Gaussian classes, ``mu0 = (0, 0)``, ``mu1 = (1, 1)``, ``Sigma0 = I``,
    ``Sigma1 = I / 2`` or ``I / 6``, 200 and 2000 cases.  An exact null (naive
    Bayes on the first feature against naive Bayes on the second: the two
    features are exchangeable) and a pair with a measured gap (naive Bayes on
    both features, whose class variances make its boundary quadratic, against
    LDA on both, whose boundary is linear).
``mixed``
    A stable learner against an unstable one in the two-view worlds: LDA on
    view A against 1-nearest neighbour on view B, naive Bayes on view A
    against the unpruned tree on view B, and LDA on view A against 1-nearest
    neighbour on both views (``-ab``: as two algorithms compared on the same
    attributes, A's are among B's), on 100, 300 and 1000 cases.  Two
    different learners have no symmetry that makes them equally accurate, and
    the unstable one gains more from more training cases, so these nulls hold
    *by measurement*, at the training shares where the stored truth finds the
    gap within :data:`MEASURED_NULL_TOLERANCE` of 0: with ``delta_b = 1.5``,
    ``delta_a`` is the mean of the separations at which the stable learner is
    as accurate as the unstable one when both train on 90% and on 50% of the
    cases (``scripts/tune_mixed_nulls.py``, :data:`MIXED_NULL_DELTAS`).
    Alternatives (:data:`MIXED_EFFECTS`) add 0.25 and 0.5 to ``delta_a``, or,
    where B sees both views (and would gain from view A as much as A does),
    take 0.5 and 1 from ``delta_b``.

The truth of every scenario (:func:`truth`) is *measured*, once, by
``scripts/make_proving_truth.py`` and stored in ``truth.json`` beside this
module: the expected accuracy of A and of B over training sets of the size the
designs train on (90% and 50% of the cases), on the whole distribution for the
networks (exactly) and on a fresh large test set per training set otherwise.
That is the quantity the corrected tests of Nadeau and Bengio are about.  A
scenario is a *null* when it is one by construction (an exact symmetry or
independence), or, for a ``mixed`` null, at a training share where the
measured gap lies within :data:`MEASURED_NULL_TOLERANCE` of 0 with three
standard errors to spare; otherwise A (or B) is better when the
measured gap lies more than 3 standard errors from 0, and the scenario is
``unclear`` (left out of Type I error and power, reported on its own) when it
does not.  A design is judged by the truth at the share it trains on (90% or
50%); a null by measurement is ``unclear`` for a design that trains on
another share (the hold-outs of a third).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from simstudy.errors import InputError

__all__ = [
    "Scenario",
    "BANK",
    "scenario",
    "scenario_keys",
    "truth",
    "truth_table",
    "is_null",
    "TRUTH_FILE",
    "GAUSSIAN_SIZES",
    "GAUSSIAN_EFFECTS",
    "GAUSSIAN_RHOS",
    "GAUSSIAN_PAIRS",
    "STABILITY_ORDER",
    "BASE_DELTA",
    "NADEAU_BENGIO_SCALES",
    "NADEAU_BENGIO_SIZES",
    "MIXED_PAIRS",
    "MIXED_SIZES",
    "MIXED_EFFECTS",
    "MIXED_NULL_DELTAS",
    "MEASURED_NULL_TOLERANCE",
]

TRUTH_FILE = Path(__file__).with_name("truth.json")
BASE_DELTA = 1.5
GAUSSIAN_SIZES = (100, 300, 1000)
GAUSSIAN_EFFECTS = (0.0, 0.1, 0.25, 0.5, 1.0)
GAUSSIAN_RHOS = (0.0, 0.6)
GAUSSIAN_PAIRS = ("nb", "1nn", "lda", "tree")
#: The learners of the Gaussian worlds from the most stable to the least (their order in tables).
STABILITY_ORDER = ("nb", "lda", "tree", "1nn")
NADEAU_BENGIO_SCALES = (2, 6)
NADEAU_BENGIO_SIZES = (200, 2000)
NADEAU_BENGIO_PAIRS = ("null", "gap")
BOUCKAERT_SOURCES = (
    "bouckaert1",
    "bouckaert2",
    "bouckaert3",
    "bouckaert4",
    "bouckaert1_prior0.2",
    "bouckaert3_prior0.2",
    "independent_k3",
    "augmented_k3",
)
BERRAR_SOURCES = {"berrar-cv": (20, 0.3, 1.0), "berrar-benchmark1": (11, 0.4, 1.4)}
# the sources whose null holds by construction: independent attributes and a uniform class
_NULL_NETWORKS = ("bouckaert1", "independent_k3")
#: The mixed family's pairs: (stable learner on view A, unstable learner, the views the unstable one sees: ``B``, or
#: ``AB``, both, as two different algorithms on the same attributes see them).
MIXED_PAIRS = (("lda", "1nn", "B"), ("nb", "tree", "B"), ("lda", "1nn", "AB"))
MIXED_SIZES = (100, 300, 1000)
MIXED_EFFECTS = {"B": (0.25, 0.5), "AB": (0.5, 1.0)}
#: ``delta_a`` of each mixed null, ``(stable, unstable, views, n_cases) -> delta_a``, with ``delta_b`` =
#: :data:`BASE_DELTA`: the mean of the separations at which the stable learner's expected accuracy equals the
#: unstable one's when both train on 90% and on 50% of the cases, found by ``scripts/tune_mixed_nulls.py`` (the
#: stored truth measures the gaps again, independently).  Above each entry: the separation found at each share,
#: with the unstable learner's expected accuracy there (its standard error).
MIXED_NULL_DELTAS = {
    # 90%: 1.010, accuracy 68.69% (se 0.08); 50%: 1.023, accuracy 68.51% (se 0.10)
    ("lda", "1nn", "B", 100): 1.017,
    # 90%: 0.995, accuracy 68.85% (se 0.05); 50%: 0.995, accuracy 68.76% (se 0.06)
    ("lda", "1nn", "B", 300): 0.995,
    # 90%: 0.992, accuracy 68.96% (se 0.03); 50%: 0.993, accuracy 68.89% (se 0.04)
    ("lda", "1nn", "B", 1000): 0.993,
    # 90%: 1.003, accuracy 68.08% (se 0.08); 50%: 1.035, accuracy 67.81% (se 0.12)
    ("nb", "tree", "B", 100): 1.019,
    # 90%: 0.985, accuracy 68.57% (se 0.05); 50%: 0.991, accuracy 68.37% (se 0.07)
    ("nb", "tree", "B", 300): 0.988,
    # 90%: 0.976, accuracy 68.66% (se 0.04); 50%: 0.986, accuracy 68.70% (se 0.04)
    ("nb", "tree", "B", 1000): 0.981,
    # 90%: 1.671, accuracy 79.33% (se 0.07); 50%: 1.652, accuracy 78.74% (se 0.09)
    ("lda", "1nn", "AB", 100): 1.662,
    # 90%: 1.861, accuracy 82.25% (se 0.04); 50%: 1.789, accuracy 81.16% (se 0.05)
    ("lda", "1nn", "AB", 300): 1.825,
    # 90%: 2.014, accuracy 84.26% (se 0.03); 50%: 1.951, accuracy 83.45% (se 0.03)
    ("lda", "1nn", "AB", 1000): 1.982,
}
#: A null by measurement holds where the measured gap and three standard errors lie within this many accuracy
#: units of 0 (half a point).
MEASURED_NULL_TOLERANCE = 0.005


@dataclass(frozen=True)
class Scenario:
    """One world and one pair of learners.

    Attributes
    ----------
    key : str
        Stable name (the condition key of the proving ground's rows).
    family : str
        ``gaussian``, ``nadeau_bengio``, ``bouckaert`` or ``berrar``.
    n_cases : int
        Cases per data set.
    pair : str
        The learners, A first (``nb``, ``1nn``: the two-view learners; ``C4.5-NB``; ``NB-SVM``).
    source : str
        The network (bouckaert) or generator (berrar); empty for the Gaussian worlds.
    delta_a, delta_b, rho : float
        The two-view world's separations and correlation (gaussian only).
    null_by_construction : bool
        A and B have equal expected accuracy by symmetry or independence.
    scale : int
        Nadeau and Bengio's ``Sigma1 = I / scale`` (nadeau_bengio only).
    measured_null : bool
        A mixed null: a null where the stored truth measures the gap within :data:`MEASURED_NULL_TOLERANCE` of 0.
    b_views : str
        The views learner B sees (mixed only): ``B``, or ``AB`` (both, so that A's attributes are among B's).
    """

    key: str
    family: str
    n_cases: int
    pair: str
    source: str = ""
    delta_a: float = 0.0
    delta_b: float = 0.0
    rho: float = 0.0
    null_by_construction: bool = False
    scale: int = 0
    measured_null: bool = False
    b_views: str = "B"

    @property
    def null_twin(self) -> str | None:
        """The null scenario that calibrates this one's tests (same learners, size and designs), or None.

        A Gaussian alternative's twin is the same learner pair, size and
        correlation without the effect; a network source's is the null network
        with the same number of classes (C4.5 against naive Bayes on 300 cases).
        Nulls, Berrar's generators and Nadeau and Bengio's gap pair have none.
        """
        if self.null_by_construction:
            return None
        if self.family == "gaussian":
            return _gaussian_key(self.pair, self.n_cases, self.rho, 0.0)
        if self.family == "mixed":
            return None if self.measured_null else _mixed_key(*self.pair.split("-"), self.b_views, self.n_cases, "null")
        if self.family == "bouckaert":
            return "independent_k3" if self.source.endswith("_k3") else "bouckaert1"
        return None

    @property
    def effect(self) -> float:
        """``delta_a - delta_b`` (gaussian); ``delta_a`` beyond its null's, or ``delta_b`` below it where B sees
        both views (mixed); 0 elsewhere."""
        if self.family == "mixed":
            a, b = self.pair.split("-")
            if self.b_views == "AB":
                return round(BASE_DELTA - self.delta_b, 10)
            return round(self.delta_a - MIXED_NULL_DELTAS[(a, b, self.b_views, self.n_cases)], 10)
        return round(self.delta_a - self.delta_b, 10)

    @property
    def label(self) -> str:
        if self.family == "nadeau_bengio":
            what = "NB on x1 vs NB on x2" if self.pair == "null" else "NB vs LDA"
            return f"Nadeau-Bengio, Sigma1 = I/{self.scale}, n = {self.n_cases}, {what}"
        if self.family == "mixed":
            a, b = self.pair.split("-")
            what = "null by measurement" if self.measured_null else f"delta {self.delta_a:g} vs {self.delta_b:g}"
            views = "both views" if self.b_views == "AB" else "view B"
            return f"{a} on view A vs {b} on {views}, n = {self.n_cases}, {what}"
        if self.family == "gaussian":
            return (
                f"{self.pair} views, n = {self.n_cases}, rho = {self.rho:g}, delta {self.delta_a:g} vs {self.delta_b:g}"
            )
        return f"{self.source}, {self.pair}, n = {self.n_cases}"

    def data(self, rng) -> tuple[np.ndarray, np.ndarray]:
        """One data set of ``n_cases`` drawn with ``rng``: ``(X, y)``."""
        return self.sample(self.n_cases, rng)

    def sample(self, n: int, rng) -> tuple[np.ndarray, np.ndarray]:
        """``n`` cases drawn with ``rng``."""
        if self.family in ("gaussian", "nadeau_bengio", "mixed"):
            return self.world.sample(n, rng)
        if self.family == "bouckaert":
            from simstudy.protocols.bouckaert import network_source

            X, y = network_source(self.source).sample(n, rng)
            return X.astype(float), y
        from simstudy.pipeline.sources import GaussianClasses

        d, mu, sigma = BERRAR_SOURCES[self.source]
        return GaussianClasses(d, mu, sigma).sample(n, rng)

    @property
    def world(self):
        from simstudy.apps.proving.worlds import NadeauBengioWorld, TwoViewWorld

        if self.family == "nadeau_bengio":
            return NadeauBengioWorld(self.scale)
        return TwoViewWorld(self.delta_a, self.delta_b, self.rho)

    def learners(self, n_attributes: int) -> tuple:
        """Factories of learner A and learner B (zero-argument callables returning unfitted learners)."""
        if self.family == "gaussian":
            from simstudy.apps.proving.worlds import VIEW_LEARNERS

            cls = VIEW_LEARNERS[self.pair]
            m = self.world.n_view
            return (_Factory(cls, tuple(range(m))), _Factory(cls, tuple(range(m, 2 * m))))
        if self.family == "mixed":
            from simstudy.apps.proving.worlds import VIEW_LEARNERS

            a, b = self.pair.split("-")
            m = self.world.n_view
            seen = tuple(range(2 * m)) if self.b_views == "AB" else tuple(range(m, 2 * m))
            return (_Factory(VIEW_LEARNERS[a], tuple(range(m))), _Factory(VIEW_LEARNERS[b], seen))
        if self.family == "nadeau_bengio":
            from simstudy.apps.proving.worlds import ViewLDA, ViewNaiveBayes

            if self.pair == "null":
                return _Factory(ViewNaiveBayes, (0,)), _Factory(ViewNaiveBayes, (1,))
            return _Factory(ViewNaiveBayes, (0, 1)), _Factory(ViewLDA, (0, 1))
        if self.family == "bouckaert":
            from simstudy.protocols.bouckaert import nominal_learner_factories

            return nominal_learner_factories(("weka.J48", "weka.NaiveBayes"), n_attributes)
        from simstudy.pipeline.learners import learner_class

        return learner_class("e1071.naiveBayes"), learner_class("e1071.svm")


class _Factory:
    """A picklable zero-argument factory ``cls(cols)``."""

    def __init__(self, cls, cols):
        self.cls, self.cols = cls, cols

    def __call__(self):
        return self.cls(self.cols)


def _gaussian_key(pair, n, rho, effect) -> str:
    return f"gauss-{pair}-n{n}-rho{rho:g}-e{effect:g}"


def _nadeau_bengio_key(scale, n, pair) -> str:
    return f"nadeau-bengio-v{scale}-n{n}-{pair}"


def _mixed_key(a, b, views, n, what) -> str:
    return f"mixed-{a}-{b}{'-ab' if views == 'AB' else ''}-n{n}-{what}"


def _mixed(out: dict) -> None:
    for a, b, views in MIXED_PAIRS:
        for n in MIXED_SIZES:
            delta = MIXED_NULL_DELTAS.get((a, b, views, n))
            if delta is None:
                continue  # not tuned yet: scripts/tune_mixed_nulls.py
            pair, common = f"{a}-{b}", {"delta_b": BASE_DELTA, "b_views": views}
            key = _mixed_key(a, b, views, n, "null")
            out[key] = Scenario(key, "mixed", n, pair, delta_a=delta, measured_null=True, **common)
            for e in MIXED_EFFECTS[views]:
                key = _mixed_key(a, b, views, n, f"e{e:g}")
                if views == "AB":  # B's own view less informative: view A would lift both learners
                    out[key] = Scenario(key, "mixed", n, pair, delta_a=delta, delta_b=BASE_DELTA - e, b_views=views)
                else:
                    out[key] = Scenario(key, "mixed", n, pair, delta_a=round(delta + e, 4), **common)


def _bank() -> dict:
    out = {}
    for src in BOUCKAERT_SOURCES:
        out[src] = Scenario(src, "bouckaert", 300, "C4.5-NB", source=src, null_by_construction=src in _NULL_NETWORKS)
    for src in BERRAR_SOURCES:
        out[src] = Scenario(src, "berrar", 300, "NB-SVM", source=src)
    for scale in NADEAU_BENGIO_SCALES:
        for n in NADEAU_BENGIO_SIZES:
            for pair in NADEAU_BENGIO_PAIRS:
                key = _nadeau_bengio_key(scale, n, pair)
                out[key] = Scenario(key, "nadeau_bengio", n, pair, scale=scale, null_by_construction=pair == "null")
    for pair in GAUSSIAN_PAIRS:
        for n in GAUSSIAN_SIZES:
            for rho in GAUSSIAN_RHOS:
                for e in GAUSSIAN_EFFECTS:
                    key = _gaussian_key(pair, n, rho, e)
                    out[key] = Scenario(
                        key,
                        "gaussian",
                        n,
                        pair,
                        delta_a=BASE_DELTA + e,
                        delta_b=BASE_DELTA,
                        rho=rho,
                        null_by_construction=e == 0,
                    )
    _mixed(out)
    return out


#: Every scenario of the bank, by key, in declared order.
BANK: dict = _bank()


def scenario_keys(family: str | None = None) -> list[str]:
    """Keys of the bank (of one family if given), in declared order."""
    return [k for k, s in BANK.items() if family is None or s.family == family]


def scenario(key: str) -> Scenario:
    """The scenario called ``key`` (ValueError naming the known ones otherwise)."""
    try:
        return BANK[key]
    except (KeyError, TypeError):
        raise InputError(
            f"scenario: unknown scenario {key!r}; the bank has {len(BANK)}: {', '.join(list(BANK)[:12])}, ..."
        ) from None


@lru_cache(maxsize=1)
def _truth_file(path: str = str(TRUTH_FILE)) -> dict:
    p = Path(path)
    if not p.is_file():
        raise InputError(f"truth: {p} is missing; regenerate it with `python scripts/make_proving_truth.py`")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
        return data["scenarios"]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise InputError(
            f"truth: {p} is not a truth file ({type(exc).__name__}: {exc}); regenerate it with "
            "`python scripts/make_proving_truth.py`"
        ) from None


def truth(key: str, path=None) -> dict:
    """The stored truth of one scenario.

    Returns
    -------
    dict
        ``truth`` (``"null"``, ``"A"``, ``"B"`` or ``"unclear"``), ``gap`` (expected
        accuracy of A minus B, training on 90% of the cases, in accuracy units)
        with ``gap_se``, ``gap_half`` (training on 50%) with ``gap_half_se``,
        ``acc_a``, ``acc_b`` and how it was measured.
    """
    scenario(key)
    table = _truth_file(str(path or TRUTH_FILE))
    if key not in table:
        raise InputError(
            f"truth: scenario {key!r} has no stored truth; regenerate the file with "
            "`python scripts/make_proving_truth.py`"
        )
    return dict(table[key])


def is_null(key: str, path=None) -> bool:
    """Whether scenario ``key`` is a null for some design: by construction, or by measurement where its stored
    truth at 90% or at 50% of the cases is ``null``."""
    s = scenario(key)
    if s.null_by_construction:
        return True
    if not s.measured_null:
        return False
    t = truth(key, path)
    return "null" in (t.get("truth"), t.get("truth_half"))


def truth_label(null_by_construction: bool, gap: float, se: float, *, measured_null: bool = False) -> str:
    """The truth's verdict: null by construction; null by measurement for a scenario tuned to be one
    (``measured_null``) where ``|gap| + 3 se`` is at most :data:`MEASURED_NULL_TOLERANCE`; else A or B when
    ``|gap| > 3 se``, else unclear."""
    if null_by_construction:
        return "null"
    if not np.isfinite(gap) or not np.isfinite(se):
        return "unclear"
    if measured_null and abs(gap) + 3 * se <= MEASURED_NULL_TOLERANCE:
        return "null"
    if abs(gap) > 3 * se:
        return "A" if gap > 0 else "B"
    return "unclear"


def truth_table(keys=None, path=None):
    """The truth of the scenarios ``keys`` (default the whole bank) as a DataFrame, one row per scenario."""
    import pandas as pd

    rows = []
    for k in keys if keys is not None else BANK:
        s, t = scenario(k), truth(k, path)
        rows.append(
            {
                "scenario": k,
                "family": s.family,
                "pair": s.pair,
                "n_cases": s.n_cases,
                "rho": s.rho,
                "effect": s.effect,
                "truth": t["truth"],
                "gap": t["gap"],
                "gap_se": t["gap_se"],
                "gap_half": t["gap_half"],
                "acc_a": t["acc_a"],
                "acc_b": t["acc_b"],
            }
        )
    return pd.DataFrame(rows)
