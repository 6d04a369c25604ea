"""Berrar, Figure 13: replication probability against the p-value of the corrected t-test.

P_t (Equation 13) as squares with 95% prediction intervals (Equation 14) and the
empirical replication probability F (red crosses), for the groups of study
3 with q >= 3, in 10-fold stratified cross-validation.
"""

from _common import parse, t_figure


def main():
    args = parse(__doc__.splitlines()[0])
    t_figure("berrar3", "figure13", "Study 3: SVM with oracle vs SVM", "q", 3, args)


if __name__ == "__main__":
    main()
