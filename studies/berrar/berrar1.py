"""Berrar, study 1: NB vs SVM over N = 20 benchmark data sets, 21 groups (Algorithm 2).

Group g has start size a_g = 240 + 50 g (data set i has a_g + 10 i cases in its
training set and in its test set): SPEC section 4 explains why the text and
figures, not Algorithm 2's line 2, give the sizes.  See
:mod:`simstudy.protocols.berrar` for what a replication does.
"""

from __future__ import annotations

from functools import partial

from simstudy.engine import Profile, Publication, Study
from simstudy.engine.study import Figure
from simstudy.outputs.plots import berrar_binomial_figure, berrar_wilcoxon_figure
from simstudy.outputs.tables import Published
from simstudy.protocols import berrar

from ._table1 import row as table1_row

N_DATASETS = 20
STARTS = {g: 240 + 50 * g for g in range(1, 22)}


S1 = "Berrar, Sect. 3.1.1"
# What was measured on the values outside our paper-scale intervals (benchmarks/berrar_outside.py s1).
NOTE_G7_P = (
    "Without Eq. 10's continuity correction the mean Z_w rises by 0.020 (p 0.00288), "
    "the tie correction changes nothing, zeros ranked or split add 0.007, R's exact p where defined adds 0.105 "
    "(p 0.00218); the paper prints the correction, so we keep it. 0.00274 is 1.4 standard errors of the "
    "difference of two such runs from ours."
)
NOTE_G7_PW = (
    "s* is bootstrapped from one initial experiment (ours 0.638) and varies between initial "
    "experiments (5 drawn: 0.42 to 0.61, P_w 0.948 to 0.992), which our interval (the mean Z_w's error and the "
    "bootstrap error of this one s*) leaves out; 0.9665 needs s* = 0.546."
)
# The paper does not say how a tied data set (NB and SVM with the same test accuracy, about one in twenty)
# enters its binomial model. Our study fixes the convention of Algorithm 2 as we read it: theta = wins / N,
# a tie counting as a loss of NB; that is the primary comparison, counted. With ties left out
# (wins / (N - ties), the sign-test convention) the published group-3 numbers are matched: that convention is
# shown beneath each, never counted, and it is why the misses of the primary convention are "cause found"
# (an inference from the match, not a statement of the paper).
NOTE_TIES = (
    "Cause: the published value is the one the tie convention beneath gives (ties left out); with a tie "
    "counted as a loss of NB, as our study fixes it, group 3 has 14 wins of 20 on average, not 15."
)
K = 1000  # replications per group behind each published Monte Carlo estimate (k_max, Algorithm 2)
PUBLISHED = [
    Published(
        "group 3: mean success rate of NB (a tie counts as a loss of NB)",
        "binomial",
        "mean_statistic",
        0.752,
        (("g", 3),),
        S1,
        key="g3 success rate",
        replications=K,
        note=NOTE_TIES,
        cause="found",
    ),
    Published(
        "group 3: mean success rate of NB, ties left out (wins / (20 - ties))",
        "binomial",
        "success_ties_left_out",
        0.752,
        (("g", 3),),
        S1,
        key="g3 success rate",
        primary=False,
        replications=K,
    ),
    Published(
        "group 3: binomial p-value (15 of 20)",
        "binomial",
        "binomial_p",
        0.0414,
        (("g", 3),),
        S1,
        key="g3 binomial p",
        note=NOTE_TIES,
        cause="found",
    ),
    Published(
        "group 3: binomial p-value, ties left out",
        "binomial",
        "binomial_p_ties_left_out",
        0.0414,
        (("g", 3),),
        S1,
        key="g3 binomial p",
        primary=False,
    ),
    Published(
        "group 3: share of replications significant, binomial (537 of 1000)",
        "binomial",
        "share_significant",
        0.537,
        (("g", 3),),
        S1,
        key="g3 share significant, binomial",
        replications=K,
        note=NOTE_TIES,
        cause="found",
    ),
    Published(
        "group 3: share significant, binomial with ties left out",
        "binomial",
        "share_significant_ties_left_out",
        0.537,
        (("g", 3),),
        S1,
        key="g3 share significant, binomial",
        primary=False,
        replications=K,
    ),
    Published(
        "group 3: P_b (binomial model)",
        "binomial",
        "binomial_P",
        0.6172,
        (("g", 3),),
        S1,
        key="g3 P_b",
        note=NOTE_TIES,
        cause="found",
    ),
    Published(
        "group 3: P_b (binomial model), ties left out",
        "binomial",
        "binomial_P_ties_left_out",
        0.6172,
        (("g", 3),),
        S1,
        key="g3 P_b",
        primary=False,
    ),
    Published(
        "group 3: empirical F (binomial)",
        "binomial",
        "F",
        0.5365,
        (("g", 3),),
        S1,
        replications=K,
        note="Cause: F follows the share significant (537 of 1000 gives 0.5365), which follows the tie convention.",
        cause="found",
    ),
    Published(
        "group 3: P_B (Bayesian model)", "binomial", "bayes_P", 0.5246, (("g", 3),), S1, note=NOTE_TIES, cause="found"
    ),
    Published(
        "group 3: share of replications significant, Wilcoxon (778 of 1000)",
        "wilcoxon",
        "share_significant",
        0.778,
        (("g", 3),),
        S1,
        replications=K,
    ),
    Published("group 3: empirical F (Wilcoxon)", "wilcoxon", "F", 0.778, (("g", 3),), S1, replications=K),
    Published("group 3: mean Z_w", "wilcoxon", "mean_statistic", 2.437, (("g", 3),), S1, replications=K),
    Published("group 3: bootstrapped s*", "wilcoxon", "s_star", 0.779, (("g", 3),), S1),
    Published("group 3: P_w", "wilcoxon", "wilcoxon_P", 0.730, (("g", 3),), S1),
    Published(
        "group 7: Wilcoxon p-value",
        "wilcoxon",
        "wilcoxon_p",
        0.00274,
        (("g", 7),),
        S1 + ", Fig. 10",
        note=NOTE_G7_P,
        replications=K,
        cause="not found",
    ),
    Published(
        "group 7: empirical F (Wilcoxon)", "wilcoxon", "F", 0.9570, (("g", 7),), S1 + ", Table 1", replications=K
    ),
    Published(
        "group 7: P_w", "wilcoxon", "wilcoxon_P", 0.9665, (("g", 7),), S1 + ", Table 1", note=NOTE_G7_PW, cause="found"
    ),
    Published("mean |P_w - F| over groups", "study", "mad", 0.009792, (), S1, replications=K),
    Published("mean |P_w - F| with s* = 1", "study", "mad_s1", 0.07318, (), S1, replications=K),
    Published("largest |P_w - F| over groups", "study", "mad_max", 0.04810, (), S1, replications=K),
    Published("smallest |P_w - F| with s* = 1", "study", "mad_s1_min", 0.02496, (), S1, replications=K),
    Published("largest |P_w - F| with s* = 1", "study", "mad_s1_max", 0.10708, (), S1, replications=K),
]

STUDY = Study(
    name="berrar1",
    title="Berrar study 1: NB vs SVM over 20 data sets (Algorithm 2)",
    **berrar.benchmark_declaration(STARTS, N_DATASETS),
    profiles={
        "smoke": Profile("smoke", n_replications=4, settings={"groups": (3, 7), "n_boot": 4}),
        "quick": Profile("quick", n_replications=80, settings={"groups": tuple(range(1, 13)), "n_boot": 40}),
        "paper": Profile("paper", n_replications=1000, settings={"groups": tuple(range(1, 22)), "n_boot": 300}),
    },
    chunk_size=5,
    knobs=(berrar.start_size_knob(low=100, high=1500, interval=(290, 790)),),
    publication=Publication(
        figures=(
            Figure(
                "figure9",
                partial(berrar_binomial_figure, title="Study 1: NB vs SVM over 20 data sets"),
                "Berrar, Figure 9: replication probability against the binomial p-value, N = 20 data sets (our "
                "tie convention, a tie a loss of NB: the labelled groups follow from it and need not be the "
                "paper's)",
            ),
            Figure(
                "figure10",
                partial(berrar_wilcoxon_figure, title="Study 1: NB vs SVM over 20 data sets"),
                "Berrar, Figure 10: replication probability against the Wilcoxon p-value, N = 20 data sets",
            ),
        ),
        notes="Primary convention, fixed before comparing: a tied data set (NB and SVM with the same test "
        "accuracy, about one in twenty) counts as a loss of NB, theta = wins / 20. The paper does not say how it "
        "treats ties; its group-3 numbers (0.752, 15 wins, p = 0.0414, P_b = 0.6172) are those of ties left out, "
        "wins / (20 - ties), shown beneath each and not counted: an inference from the match. Figures 9 and 10 "
        "use the primary convention. "
        "At reduced profiles the mean |P - F| is inflated by the Monte Carlo error of F itself; only the "
        "paper profile (1000 replications per group) can check the published 0.0098.",
        values=PUBLISHED,
        cross_study=(
            table1_row(
                "a = 7",
                0.00274,
                0.96645,
                0.95696,
                0.00949,
                summary="wilcoxon",
                models=("wilcoxon", "wilcoxon_s1"),
                group_column="g",
                group_label="a",
            ),
        ),
    ),
)
