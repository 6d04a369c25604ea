"""Berrar, study 2: NB vs SVM over N = 44 benchmark data sets, 10 groups (Appendix D).

Sizes from Appendix D: data set i of group g has a_g + 10 i cases with
a_g in (70, 100, 140, 190, 200, 240, 260, 360, 460, 560).  The paper says the rest
is "essentially the same" as study 1; Algorithm 2 writes the number of features and
the class-conditional moments in N (d_i = i + 10, mu_i = 0.3 + (N + 1 - i)/200,
sigma_i = 1 + (N + 1 - i)/50), so we use those formulas with N = 44.
"""

from __future__ import annotations

from functools import partial

from simstudy.engine import Profile, Publication, Study
from simstudy.engine.study import Figure
from simstudy.outputs.plots import berrar_binomial_figure, berrar_wilcoxon_figure
from simstudy.outputs.tables import Published
from simstudy.protocols import berrar

from ._table1 import row as table1_row

N_DATASETS = 44
STARTS = dict(zip(range(1, 11), (70, 100, 140, 190, 200, 240, 260, 360, 460, 560)))


S2 = "Berrar, Sect. 3.1.2"
# What was measured on the value outside our paper-scale interval (benchmarks/berrar_outside.py s2).
NOTE_G7_PW = (
    "Tried: s* of 4 initial experiments is 0.77 to 0.95 (ours 0.837), P_w 0.897 to 0.941; the SD of Z_w over "
    "replications (0.756) gives 0.945. 0.96742 needs s* = 0.65. Bootstrapping the test sets without refitting "
    "gives s* 0.58 to 0.69 (P_w 0.961 to 0.981), but Algorithm 1 refits on bootstrapped training sets, so "
    "that is not the paper's procedure either."
)
NOTE_MAD = (
    "Over the 10 groups ours is smaller than the published value. The paper does not state how d, mu and sigma "
    "extend to N = 44 (ours: Algorithm 2's formulas), and each group's |P_w - F| depends on them through F; "
    "no other extension was run, so this is untested."
)
K = 1000  # replications per group behind each published Monte Carlo estimate
PUBLISHED = [
    Published("group 7: Wilcoxon p-value", "wilcoxon", "wilcoxon_p", 0.0016, (("g", 7),), S2, replications=K),
    Published(
        "group 7: empirical F (Wilcoxon)", "wilcoxon", "F", 0.94394, (("g", 7),), S2 + ", Table 1", replications=K
    ),
    Published(
        "group 7: P_w",
        "wilcoxon",
        "wilcoxon_P",
        0.96742,
        (("g", 7),),
        S2 + ", Table 1",
        note=NOTE_G7_PW,
        cause="not found",
    ),
    Published(
        "mean |P_w - F| over groups", "study", "mad", 0.0162, (), S2, replications=K, note=NOTE_MAD, cause="not found"
    ),
    Published("smallest |P_w - F| over groups", "study", "mad_min", 0.00022, (), S2, replications=K),
    Published(
        "largest |P_w - F| over groups",
        "study",
        "mad_max",
        0.04494,
        (),
        S2,
        replications=K,
        note=NOTE_MAD,
        cause="not found",
    ),
]

STUDY = Study(
    name="berrar2",
    title="Berrar study 2: NB vs SVM over 44 data sets (Appendix D)",
    **berrar.benchmark_declaration(STARTS, N_DATASETS),
    profiles={
        "smoke": Profile("smoke", n_replications=3, settings={"groups": (2, 7), "n_boot": 3}),
        "quick": Profile("quick", n_replications=50, settings={"groups": tuple(STARTS), "n_boot": 30}),
        "paper": Profile("paper", n_replications=1000, settings={"groups": tuple(STARTS), "n_boot": 300}),
    },
    chunk_size=5,
    publication=Publication(
        figures=(
            Figure(
                "figure11",
                partial(berrar_binomial_figure, title="Study 2: NB vs SVM over 44 data sets"),
                "Berrar, Figure 11: replication probability against the binomial p-value, N = 44 data sets (our "
                "tie convention, a tie a loss of NB: the labelled groups follow from it and need not be the "
                "paper's)",
            ),
            Figure(
                "figure12",
                partial(berrar_wilcoxon_figure, title="Study 2: NB vs SVM over 44 data sets"),
                "Berrar, Figure 12: replication probability against the Wilcoxon p-value, N = 44 data sets",
            ),
        ),
        notes="How d, mu and sigma extend to N = 44 is not stated in the paper; we use Algorithm 2's formulas.",
        values=PUBLISHED,
        cross_study=(
            table1_row(
                "a = 7",
                0.00160,
                0.96742,
                0.94394,
                0.02348,
                summary="wilcoxon",
                models=("wilcoxon", "wilcoxon_s1"),
                group_column="g",
                group_label="a",
            ),
        ),
    ),
)
