"""A study that declares every field: the power of two tests for a shift between two samples.

Two samples of ``n_cases`` cases each are drawn from two normal populations,
the second shifted by ``d`` standard deviations; Welch's t-test and the
Wilcoxon rank-sum test (two-sided, alpha = 0.05) decide whether they differ.
Cohen (1988, Table 2.4.1) gives n = 64 per group for a power of 0.80 at
d = 0.5, which ``simstudy compare`` sets beside ours; ``simstudy solve`` finds
the n that gives a power of 0.80 (the docs page "Write a study" goes through
every field)::

    simstudy run examples/power_study.py --profile smoke
    simstudy compare examples/power_study.py --profile smoke
    simstudy run examples/power_study.py --profile quick --target-mcse 0.01 --step 200
    simstudy solve examples/power_study.py --knob n_cases --target power=0.8 --profile smoke --tolerance 10
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from simstudy import Cost, Profile, Provides, Publication, Study, settings_of
from simstudy.engine import Knob
from simstudy.engine.solve import replication_values
from simstudy.engine.study import Figure
from simstudy.outputs.tables import Published
from simstudy.statistics.intervals import clopper_pearson

TESTS = ("welch_t", "wilcoxon")
POPULATION = 100_000  # cases of each population, drawn once per condition


@dataclass(frozen=True)
class Settings:
    """What a profile may change (a misspelt setting is an error naming it)."""

    shifts: tuple = (0.0, 0.5)
    n_cases: int = 64


@dataclass(frozen=True)
class Shift:
    """One condition: its scalar fields are copied into every stored row."""

    d: float
    n_cases: int = 64
    alpha: float = 0.05

    @property
    def key(self) -> str:
        return f"d{self.d:g}-n{self.n_cases}"


def conditions(profile):
    s = settings_of(profile, Settings)
    return [Shift(d, s.n_cases) for d in s.shifts]


def validate(cond):
    """Refuse a condition the tests cannot decide, naming the field (also every value ``solve`` tries)."""
    if cond.n_cases < 3:
        raise ValueError(f"n_cases: the tests need at least 3 cases per sample, got {cond.n_cases}")


def setup(cond, rng):
    """Work shared by every replication of a condition: the two populations, drawn once."""
    return rng.normal(0.0, 1.0, POPULATION), rng.normal(cond.d, 1.0, POPULATION)


def replicate(cond, rng, populations):
    a_pop, b_pop = populations
    a, b = rng.choice(a_pop, cond.n_cases), rng.choice(b_pop, cond.n_cases)
    rows = []
    for test, res in zip(
        TESTS, (stats.ttest_ind(a, b, equal_var=False), stats.mannwhitneyu(a, b, alternative="two-sided"))
    ):
        # decision: +1 when the first sample is significantly larger, -1 the second, 0 not significant
        decision = int(np.sign(a.mean() - b.mean())) if res.pvalue <= cond.alpha else 0
        rows.append(
            {"test": test, "statistic": float(res.statistic), "pvalue": float(res.pvalue), "decision": decision}
        )
    return {"outcomes": rows}


def summarize(run):
    """The power table, from the stored rows alone: per condition and test, the share rejecting, with its interval."""
    rows = run.table("outcomes")
    g = rows.groupby(["condition", "d", "n_cases", "test"], sort=True)["decision"]
    out = g.agg(n="size", rejections=lambda v: int((v != 0).sum())).reset_index()
    out["power"] = out["rejections"] / out["n"]
    out["power_mc_low"], out["power_mc_high"] = clopper_pearson(out["rejections"], out["n"], 0.95)
    return {"power": out}


def targets(rows):
    """What ``--target-mcse`` makes precise: the t-test's power only (one condition's outcome rows)."""
    t = rows[rows["test"] == "welch_t"]
    per = (t["decision"] != 0).astype(float).groupby(t["replication"]).mean()
    return pd.DataFrame({"quantity": ["power: welch_t"], "estimate": [per.mean()], "mcse": [per.sem()]})


def both_reject(rows):
    """The quantities ``solve`` can target: the defaults, and the share of replications where both tests reject."""
    both = (rows["decision"] != 0).groupby(rows["replication"]).all().astype(float)
    extra = pd.DataFrame({"quantity": "rejection rate: both", "replication": both.index, "value": both.to_numpy()})
    return pd.concat([replication_values(rows), extra], ignore_index=True)


def draw_power(tables, ax, *, profile):
    power = tables["power"]
    for test, rows in power.groupby("test"):
        ax.errorbar(
            rows["d"],
            rows["power"],
            yerr=[rows["power"] - rows["power_mc_low"], rows["power_mc_high"] - rows["power"]],
            marker="o",
            label=test,
        )
    ax.set(xlabel="shift d (standard deviations)", ylabel="power", title=f"Power at n = 64 ({profile})")
    ax.legend()


STUDY = Study(
    name="power_study",
    title="Power of Welch's t-test and the Wilcoxon rank-sum test for a normal shift (every field declared)",
    conditions=conditions,
    replicate=replicate,
    summarize=summarize,
    profiles={
        "smoke": Profile("smoke", n_replications=100, settings={"shifts": (0.5,)}),
        "quick": Profile("quick", n_replications=1000),
        "paper": Profile("paper", n_replications=10_000, settings={"shifts": (0.0, 0.2, 0.5, 0.8)}),
    },
    setup=setup,
    validate=validate,
    chunk_size=100,
    settings=Settings,
    targets=targets,
    adaptive=None,  # no rule of its own: a fixed count per profile (--target-mcse still works)
    knobs=(
        Knob(
            "n_cases",
            "int",
            3,
            5000,
            "cases per sample",
            base=lambda conds: next(c for c in conds if c.d > 0),
            quantities=both_reject,
            aliases={"power": "rejection rate: welch_t", "power_wilcoxon": "rejection rate: wilcoxon"},
            notes="power is the share of replications in which Welch's t-test rejects",
            interval=(10, 200),
        ),
    ),
    cost=Cost(seconds_per_replication=lambda c: 0.002 + 1e-6 * c.n_cases),
    publication=Publication(
        values=(
            Published(
                "power of the t-test, d = 0.5, n = 64 per group",
                table="power",
                column="power",
                value=0.80,
                where=(("condition", "d0.5-n64"), ("test", "welch_t")),
                source="Cohen (1988), Table 2.4.1",
            ),
        ),
        figures=(Figure("power", draw_power, "Power by shift, both tests"),),
        notes="Cohen's table is for Student's t-test; Welch's test at equal sample sizes is compared with it.",
        interval_note="Our interval is Clopper-Pearson's 95% interval of the share of replications that reject.",
    ),
    provides=Provides(),  # no learners, so no paired scores for bench and no evidence for assess
)
