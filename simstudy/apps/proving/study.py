"""The proving ground as a :class:`~simstudy.engine.Study`: every test, every scenario, every design, shared fits.

One condition per scenario.  A replication draws one data set from the
scenario, then repeats every design ``n_experiments`` times on it with new
random partitions (replicability is the agreement of these repeats), fits
learner A and learner B once per split, and applies every registered test the
design allows to those fits:

* an r x k cross-validation (``cvRxK``): the sample tests on each of
  Bouckaert's six sampling schemes, and the whole-design tests (``cv_t``,
  ``corrected_cv_t``, ``welch_t``);
* ``5x2cv``: the sample tests on its 10 differences, the 5 x 2 tests, the cv
  t-tests and Welch's;
* ``resampledR`` (90/10 splits) and ``resampledR-TT`` (TT percent held out):
  the sample tests on its R differences, the (corrected) resampled t-tests and
  Welch's;
* ``holdoutTT`` (one split): Dietterich's McNemar test and difference of two
  proportions, from the split's discordant cases and error rates.

All designs of a replication share its data set and all tests of a design its
fits (common random numbers), so every difference between two tests, within
or across designs, is a paired difference over data sets.

Stored tables: ``scores`` (per design, experiment, run and fold, the
accuracies of A and B, the split's training and test sizes and its discordant
cases ``n01``, ``n10``; a :class:`~simstudy.pipeline.scores.ScoreLayout` lets ``simstudy
bench`` and plug-ins use them) and ``outcomes`` (per design, experiment, scheme
and test: statistic, p-value, ``sign`` = the direction a rejection at any
level up to :data:`ALPHA_MAX` points to, and ``decision`` at 0.05).  Every
decision at another level is re-made from the stored p-value and sign.

``simstudy proving-ground`` runs it adaptively (:func:`adaptive_rule`): null
scenarios get data sets until every procedure's size verdict is decided or
precise enough, up to a cap, so that a verdict never rests on too few data sets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module
from simstudy.apps.proving.levels import ALPHA, ALPHA_MAX
from simstudy.apps.proving.scenarios import BANK, scenario
from simstudy.errors import InputError
from simstudy.pipeline.comparison import Comparison, stored_sizes
from simstudy.pipeline.designs import DesignSpec, parse_designs

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = [
    "DesignSpec",
    "parse_designs",
    "ProvingCondition",
    "Settings",
    "proving_study",
    "DEFAULT_DESIGNS",
    "ALPHA",
    "ALPHA_MAX",
    "STUDY_NAME",
    "QUICK_SCENARIOS",
    "SMOKE_SCENARIOS",
    "adaptive_rule",
    "null_targets",
    "null_scenario_count",
]

STUDY_NAME = "proving_ground"
#: The designs of every data set: Bouckaert's 10 x 10 cv with its sampling schemes, Dietterich's 5 x 2 cv, Nadeau
#: and Bengio's ten 90/10 subsamples, and Dietterich's 30 subsamples and one holdout with a third held out.
DEFAULT_DESIGNS = ("cv10x10", "5x2cv", "resampled10", "resampled30-33", "holdout33")

SMOKE_SCENARIOS = ("gauss-nb-n100-rho0-e0", "gauss-nb-n100-rho0-e1", "bouckaert1")
# quick: every null and alternative family at a scale that runs in minutes on two cores; the stability axis (LDA and
# the unpruned tree) and Nadeau and Bengio's setting on a coarser grid
QUICK_SCENARIOS = tuple(
    [
        f"gauss-{p}-n{n}-rho{r:g}-e{e:g}"
        for p in ("nb", "1nn")
        for n in (100, 300)
        for r in (0.0, 0.6)
        for e in (0.0, 0.1, 0.25, 0.5, 1.0)
    ]
    + ["bouckaert1", "bouckaert2", "bouckaert3", "bouckaert4", "independent_k3", "berrar-cv"]
    + [
        f"gauss-{p}-n{n}-rho{r:g}-e{e:g}"
        for p in ("lda", "tree")
        for n in (100, 300)
        for r in (0.0, 0.6)
        for e in (0.0, 0.25, 1.0)
    ]
    + [f"nadeau-bengio-v{v}-n200-{p}" for v in (2, 6) for p in ("null", "gap")]
    + [f"mixed-{p}-n300-{e}" for p in ("lda-1nn", "nb-tree") for e in ("null", "e0.5")]
    + ["mixed-lda-1nn-ab-n300-null", "mixed-lda-1nn-ab-n300-e1"]
)


@dataclass(frozen=True)
class ProvingCondition:
    """One scenario of the bank, every design repeated ``n_experiments`` times on each data set."""

    scenario: str
    n_experiments: int
    designs: tuple
    n_replications: int | None = None

    def __post_init__(self):
        scenario(self.scenario)
        if self.n_experiments < 2:
            raise InputError(f"n_experiments: replicability needs at least 2 repeats, got {self.n_experiments}")
        parse_designs(self.designs)

    @property
    def key(self) -> str:
        return self.scenario


@dataclass(frozen=True)
class Settings:
    """Profile settings.

    Attributes
    ----------
    scenarios : tuple of str
        The scenarios (empty: the whole bank).
    designs : tuple of str
        The designs of every data set.
    n_experiments : int
        Repeats of every design on one data set.
    svm_replications : int
        Replications of the SVM scenarios (Berrar's generators, the slowest; 0: the profile's).
    null_half_width : float
        ``simstudy proving-ground`` adds data sets to a null scenario until every procedure's Type I error is
        either decided (controls size or liberal) or known to within this half-width (a share; 0: no data sets are
        added); see :func:`adaptive_rule`.
    null_cap : int
        The most data sets a null scenario gets (0: ten times the profile's).
    """

    scenarios: tuple = ()
    designs: tuple = DEFAULT_DESIGNS
    n_experiments: int = 10
    svm_replications: int = 0
    null_half_width: float = 0.0
    null_cap: int = 0

    def __post_init__(self):
        for k in self.scenarios:
            scenario(k)
        parse_designs(self.designs)
        if not 0.0 <= self.null_half_width < 0.5:
            raise InputError(f"null_half_width: must lie in [0, 0.5), got {self.null_half_width!r}")
        if self.null_cap < 0:
            raise InputError(f"null_cap: must be >= 0, got {self.null_cap!r}")


def _conditions(profile):
    from simstudy.engine.study import settings_of

    s = settings_of(profile, Settings, study=STUDY_NAME)
    keys = s.scenarios or tuple(BANK)
    return [
        ProvingCondition(
            k, s.n_experiments, tuple(s.designs), s.svm_replications or None if BANK[k].family == "berrar" else None
        )
        for k in keys
    ]


def comparison(cond: ProvingCondition, n_attributes: int) -> Comparison:
    """The scenario's learners A and B on every design, every test, decisions at :data:`ALPHA` with their sign."""
    from simstudy.pipeline.schemes import scheme_names

    return Comparison(
        scenario(cond.scenario).learners(n_attributes),
        designs=cond.designs,
        n_experiments=cond.n_experiments,
        alpha=ALPHA,
        sign_alpha=ALPHA_MAX,
        schemes=scheme_names(),  # Bouckaert's six, and any a user registered
        counts=True,
        split_sizes=True,
        design_column=True,
        index_dtype=np.int16,
    )


def replicate(cond: ProvingCondition, rng):
    """One data set of the scenario; every design repeated on it; every test on the same fits."""
    X, y = scenario(cond.scenario).data(rng)
    return comparison(cond, X.shape[1]).run(X, y, rng)


def null_scenario_count() -> int:
    """The null scenarios of the bank (by construction, or by measurement at a training share: :func:`is_null`):
    the number the stopping rule's intervals are simultaneous over."""
    from simstudy.apps.proving.scenarios import is_null

    return sum(1 for k in BANK if is_null(k))


def _page(run, out, results) -> dict:
    """The proving ground's own report, written for the reproduction page (see :func:`.report.study_page`)."""
    from simstudy.apps.proving.report import study_page

    return study_page(run, out, results)


def _normal_quantile(p: float) -> float:
    """The standard normal quantile to 12 decimals: the standard library's, since ``simstudy list`` reads the rule
    for its estimates and should not import scipy; scipy's where a module of the user's shadows the standard
    library's ``statistics``.  The two can differ in the last bit of a double, and the value enters a run's
    configuration, so it is rounded (a test checks that they agree at the level used)."""
    import statistics

    inverse = getattr(statistics, "NormalDist", None)
    if inverse is None:
        return round(float(lazy_module("scipy.special").ndtri(p)), 12)
    return round(inverse().inv_cdf(p), 12)


def adaptive_rule(profile) -> dict | None:
    """The adaptive rule of ``simstudy proving-ground`` at ``profile`` (None: a fixed number of data sets).

    Null scenarios grow until every procedure's size verdict is decided or the
    half-width of its simultaneous interval (:func:`null_targets`) is at most
    the profile's ``null_half_width``, up to ``null_cap`` data sets;
    alternatives keep the profile's count.

    Returns
    -------
    dict or None
        ``target_mcse`` (the half-width over the interval's normal quantile) and
        ``max_replications``, the arguments of :func:`simstudy.engine.run_study`.
    """
    from simstudy.engine.study import settings_of
    from simstudy.statistics.size_control import SizeRule

    s = settings_of(profile, Settings, study=STUDY_NAME)
    if not s.null_half_width:
        return None
    z = _normal_quantile(0.5 + SizeRule(alpha=ALPHA).scenario_level(null_scenario_count()) / 2)
    return {"target_mcse": s.null_half_width / z, "max_replications": s.null_cap or 10 * profile.n_replications}


def null_targets(rows: pd.DataFrame) -> pd.DataFrame:
    """The quantities an adaptive proving-ground run makes precise: the Type I errors of a null scenario.

    Per procedure: its Type I error at :data:`ALPHA` over the condition's data
    sets, ``mcse`` the half-width of its interval (simultaneous over the
    bank's null scenarios, as the report judges them) over the interval's
    normal quantile, and ``done`` when the interval already decides the size
    verdict.  Alternatives have no targets (their count is fixed).
    """
    from simstudy.pipeline.procedures import procedure_id
    from simstudy.statistics.size_control import UNRESOLVED, SizeRule, rate_intervals

    empty = pd.DataFrame(columns=["quantity", "estimate", "mcse", "done"])
    if not len(rows) or "condition" not in rows:
        return empty
    key = rows["condition"].iloc[0]
    if key not in BANK or not (BANK[key].null_by_construction or BANK[key].measured_null):
        return empty
    if BANK[key].measured_null:  # only the designs that train on a share where the measured gap makes it a null
        at = _null_designs(key, rows["design"].astype(str).unique())
        rows = rows[rows["design"].astype(str).isin(at)]
        if not len(rows):
            return empty
    rule = SizeRule(alpha=ALPHA)
    level = rule.scenario_level(null_scenario_count())
    rows = rows.assign(scheme=rows["scheme"].fillna("").astype(str), _reject=(rows["decision"] != 0).astype(float))
    per = rows.groupby(["design", "scheme", "test", "replication"], sort=False)["_reject"].agg(["mean", "size"])
    per = per.reset_index()
    per["procedure"] = [procedure_id(d, s_, t) for d, s_, t in zip(per["design"], per["scheme"], per["test"])]
    n_rep = int(per["size"].max())
    t = rate_intervals(per["mean"].to_numpy(), per["procedure"].to_numpy(), n_repeats=n_rep, level=level)
    z = float(lazy_module("scipy.stats").norm.ppf(0.5 + level / 2))
    verdict = rule.verdict(t["low"].to_numpy(), t["high"].to_numpy())
    return pd.DataFrame(
        {
            "quantity": "Type I error: " + t["group"].astype(str),
            "estimate": t["rate"],
            "mcse": (t["high"] - t["low"]) / (2 * z),
            "done": verdict != UNRESOLVED,
        }
    )


def _null_designs(key: str, designs) -> list:
    """Of ``designs``, those a null by measurement is a null for: the ones that train on 90% or 50% of the cases
    where the stored truth at that share is ``null``."""
    from simstudy.apps.proving.scenarios import truth

    t = truth(key)
    nulls = [share for share, col in ((0.9, "truth"), (0.5, "truth_half")) if t.get(col) == "null"]
    return [d for d in designs if any(abs(parse_designs([d])[0].train_share - s) < 0.01 for s in nulls)]


def _work(cond: ProvingCondition) -> dict:
    """One replication's work (:class:`simstudy.engine.Cost`): its splits, and in the Gaussian, mixed and
    Nadeau-Bengio worlds its learner pair's splits times the thousands of cases they are drawn from (a pair's
    cost grows about in proportion to the data set's size; a mixed pair counts half a pair of each kind)."""
    sc = scenario(cond.scenario)
    splits = sum(d.n_runs * d.n_folds for d in parse_designs(cond.designs)) * cond.n_experiments
    if sc.family in ("gaussian", "nadeau_bengio"):
        return {"replication": 1, "split": splits, f"split x 1000 cases:{sc.pair}": splits * sc.n_cases / 1000}
    if sc.family == "mixed":  # a pair's cost is two learners of its kind; here one of each
        a, b = sc.pair.split("-")
        half = splits * sc.n_cases / 2000
        return {"replication": 1, "split": splits, f"split x 1000 cases:{a}": half, f"split x 1000 cases:{b}": half}
    return {"replication": 1, f"split:{sc.family}": splits}


def layout(designs=DEFAULT_DESIGNS):
    """Where the paired scores are, for ``simstudy bench`` (a test's input kind -> the design it reads)."""
    from simstudy.pipeline.scores import ScoreLayout

    specs = parse_designs(designs)
    cv = next((d.key for d in specs if d.kind == "cv"), None) or next(
        (d.key for d in specs if d.kind == "5x2"), specs[0].key
    )
    mapping = {"sample": cv, "cv": cv}
    mapping["splits"] = next((d.key for d in specs if d.kind == "resampled"), cv)
    mapping["5x2"] = next((d.key for d in specs if d.kind == "5x2"), cv)
    return ScoreLayout(
        groups=("scenario",),
        unit="replication",
        experiment="experiment",
        axes=("run", "fold"),
        pairs={"A-B": ("acc_a", "acc_b")},
        variants=("design", "test", "scheme"),
        design_column="design",
        designs=mapping,
        sizes=stored_sizes,
    )


def evidence(run):
    """The stored rows as evidence for applications such as ``simstudy assess`` (:mod:`simstudy.apps.evidence`).

    The outcome rows as stored (their ``sign`` holds for every level up to
    :data:`ALPHA_MAX`); the truth of every scenario and its null twin from the
    bank (:func:`~simstudy.apps.proving.scenarios.truth`; ``unclear`` where none is
    stored).  More of it: ``simstudy proving-ground`` with the run's designs.
    """
    from simstudy.apps.evidence import Evidence
    from simstudy.apps.proving.scenarios import truth
    from simstudy.apps.proving.summary import load_outcomes

    rows = load_outcomes(run)
    truths = {}
    for k in pd.unique(rows["condition"].astype(object)):
        k = str(k)
        try:
            truths[k] = {**truth(k), "twin": BANK[k].null_twin or ""}
        except (ValueError, KeyError):
            truths[k] = {"truth": "unclear", "twin": ""}
    designs = tuple((run.manifest.get("config") or {}).get("settings", {}).get("designs") or DEFAULT_DESIGNS)
    command = "simstudy proving-ground --profile {profile}"
    if designs != DEFAULT_DESIGNS:
        command += " --designs " + " ".join(designs)
    return Evidence(rows, truths, ALPHA_MAX, STUDY_NAME, command=command)


def proving_study(designs=None, scenarios=None):
    """The proving ground's Study; ``designs`` (names) replace every profile's designs when given, and
    ``scenarios`` (keys of the bank) every profile's scenarios."""
    from simstudy.apps.proving.summary import summarize
    from simstudy.engine import Cost, Profile, Provides, Publication, Study

    profiles = {
        "smoke": Profile("smoke", n_replications=3, settings={"scenarios": SMOKE_SCENARIOS, "n_experiments": 2}),
        "quick": Profile(
            "quick",
            n_replications=50,
            settings={
                "scenarios": QUICK_SCENARIOS,
                "n_experiments": 4,
                "svm_replications": 20,
                "null_half_width": 0.025,
                "null_cap": 150,
            },
        ),
        "paper": Profile(
            "paper",
            n_replications=200,
            settings={"n_experiments": 10, "svm_replications": 100, "null_half_width": 0.01, "null_cap": 1000},
        ),
    }
    if designs is not None:
        chosen = tuple(d.key for d in parse_designs(designs))
        profiles = {
            k: Profile(p.name, p.n_replications, {**p.settings, "designs": chosen}) for k, p in profiles.items()
        }
    if scenarios is not None:
        keys = tuple(scenario(k).key for k in scenarios)
        profiles = {
            k: Profile(p.name, p.n_replications, {**p.settings, "scenarios": keys}) for k, p in profiles.items()
        }
    used = designs if designs is not None else DEFAULT_DESIGNS
    return Study(
        name=STUDY_NAME,
        title="Proving ground: every test on a bank of null and alternative scenarios, with shared fits",
        conditions=_conditions,
        replicate=replicate,
        summarize=summarize,
        settings=Settings,
        profiles=profiles,
        targets=null_targets,
        adaptive=adaptive_rule,
        chunk_size=5,
        cost=Cost(work=_work),
        provides=Provides(paired_scores=layout(used), evidence=evidence),
        publication=Publication(
            notes="No published numbers: the proving ground scores tests against the stored truth of each scenario "
            "(simstudy/apps/proving/truth.json). The table is its leaderboard (size verdict, size-adjusted and raw "
            "power); `simstudy proving-ground` writes the whole report, with the size verdicts per null scenario, "
            "the diagnostics and the papers' statements checked (at the paper profile: "
            "docs/reproduction/proving-ground/proving-ground.md).",
            page=_page,
            page_folder="proving-ground",
        ),
    )
