"""Reproductions: summary tables, comparison reports and Berrar's Table 1 from stored results.

Everything here reads the rows stored by :mod:`simstudy.engine`; nothing is
simulated, so a report can be regenerated at any time.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .compare import Published, compare, comparison_markdown, markdown_table

__all__ = ["summary_tables", "comparison_report", "berrar_table1", "BERRAR_TABLE1"]


BERRAR_INTERVALS = (
    "Our interval is the 95% Monte Carlo interval of our estimate (Clopper-Pearson for counts and F, "
    "normal for mean statistics, the model evaluated over the mean statistic's interval for p and P, "
    "a bootstrap over replications for the mean absolute deviation)."
)


def _run(study: str, profile: str, out):
    from .engine import get_study, load_run

    return get_study(study), load_run(study, profile=profile, out=out)


def summary_tables(study: str, *, profile: str = "quick", out=None) -> dict[str, pd.DataFrame]:
    """The study's summary tables, recomputed from its stored rows."""
    st, run = _run(study, profile, out)
    return st.summarize(run)


def comparison_report(study: str, *, profile: str = "quick", out=None, write: bool = True,
                      with_tables: bool = True) -> str:
    """Markdown report: every published number of the study next to ours, saved beside the results.

    The saved file always holds every summary table too; ``with_tables=False``
    returns only the comparison (what the command line prints).
    """
    st, run = _run(study, profile, out)
    tables = st.summarize(run)
    published = st.reference.get("published", [])
    cmp = compare(tables, published)
    k = run.manifest.get("n_replications") if hasattr(run, "manifest") else None
    notes = (
        f"Profile `{profile}`"
        + (f", {k} replications per group" if k else "")
        + ". " + st.reference.get("interval_note", BERRAR_INTERVALS)
        + " At reduced profiles the intervals are wide and some groups are not run (n/a).\n\n"
    )
    appendix = "".join(f"\n## Table `{name}` (from stored rows)\n\n{markdown_table(df)}\n"
                       for name, df in tables.items())
    text = comparison_markdown(st.title, cmp, notes=notes + appendix)
    if write:
        path = Path(run.path) / "comparison.md"
        path.write_text(text)
        cmp.to_csv(path.with_suffix(".csv"), index=False)
    return text if with_tables else comparison_markdown(st.title, cmp, notes=notes)


# Berrar, Table 1: per study, the group whose empirical F is closest to 0.95.
BERRAR_TABLE1 = {
    "berrar1": ("a = 7", 0.00274, 0.96645, 0.95696),
    "berrar2": ("a = 7", 0.00160, 0.96742, 0.94394),
    "berrar3": ("q = 7", 0.00427, 0.91996, 0.96597),
    "berrar4": ("d = 24", 0.00253, 0.95612, 0.95896),
}


def berrar_table1(*, profile: str = "quick", results="results") -> tuple[pd.DataFrame, str]:
    """Table 1 of Berrar from the stored results of the four studies that exist at ``profile``."""
    rows, published = [], []
    for study, (group, p, P, F) in BERRAR_TABLE1.items():
        out = Path(results) / study / profile
        if not out.exists():
            rows.append({"study": study, "group": "not run"})
            continue
        tables = summary_tables(study, profile=profile, out=out)
        main = tables["wilcoxon"] if "wilcoxon" in tables else tables["t"]
        model = "wilcoxon" if "wilcoxon" in tables else "t"
        if f"{model}_P" not in main:
            model = "wilcoxon_s1"
        best = main.loc[(main["F"] - 0.95).abs().idxmin()]
        gcol = next(c for c in ("g", "q", "d") if c in main)
        rows.append({
            "study": study, "group": f"{'a' if gcol == 'g' else gcol} = {int(best[gcol])}",
            "p": best[f"{model}_p"], "p_mc_low": best[f"{model}_p_mc_low"], "p_mc_high": best[f"{model}_p_mc_high"],
            "P": best[f"{model}_P"], "P_mc_low": best[f"{model}_P_mc_low"], "P_mc_high": best[f"{model}_P_mc_high"],
            "F": best["F"], "F_mc_low": best["F_mc_low"], "F_mc_high": best["F_mc_high"],
            "P-F": best[f"{model}_P"] - best["F"], "k": int(best["k"]),
        })
        for col, val in (("p", p), ("P", P), ("F", F)):
            published.append(Published(f"{study} ({group} published, ours {rows[-1]['group']}): {col}",
                                        "table1", col, val, (("study", study),), "Berrar, Table 1"))
    table = pd.DataFrame(rows)
    done = table.dropna(subset=["P"]) if "P" in table else table.iloc[0:0]
    if len(done):
        avg = {"study": "average", "group": ""}
        for col in ("p", "P", "F", "P-F"):
            avg[col] = done[col].mean()
        table = pd.concat([table, pd.DataFrame([avg])], ignore_index=True)
    cmp = compare({"table1": table}, published)
    text = comparison_markdown(f"Berrar, Table 1 (profile {profile})", cmp,
                               notes="## Our Table 1 (from stored rows)\n\n" + markdown_table(table))
    return table, text
