"""Berrar, Figure 13: replication probability against the p-value of the corrected t-test.

P_t (Equation 13) as squares with 95% prediction intervals (Equation 14) and the
empirical replication probability F (red crosses), for the groups of study
3 with q >= 3, in 10-fold stratified cross-validation.
"""

from _common import parse, study_figure


def main():
    args = parse(__doc__.splitlines()[0])
    study_figure("berrar3", "figure13", args)


if __name__ == "__main__":
    main()
