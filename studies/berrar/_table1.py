"""Berrar, Table 1: from each of the four studies, the group whose empirical F is closest to 0.95.

The table is declared here once; each of the studies ``berrar1`` to ``berrar4``
declares its row (the published group, p, P and F, and where our numbers live)
under ``publication.cross_study``, and :func:`simstudy.outputs.published.cross_study_table`
assembles the rows of the studies that are stored.
"""

from simstudy.outputs.published import CrossStudyRow, CrossStudyTable

__all__ = ["TABLE1", "row"]

TABLE1 = CrossStudyTable(
    name="berrar_table1",
    title="Berrar, Table 1",
    short="Table 1",
    caption="the group of each study closest to F = 0.95",
    columns=(("p", "{model}_p"), ("P", "{model}_P"), ("F", "F")),
    closest=("F", 0.95),
    differences=(("P-F", "P", "F"),),
    count="k",
    average=True,
    source="Berrar, Table 1",
    published_average={"p": 0.00279, "P": 0.95249, "F": 0.95646, "P-F": -0.00397},
    replications=1000,
    counted_in="{study}'s section",
)


def row(
    group: str,
    p: float,
    P: float,
    F: float,
    P_F: float,
    *,
    summary: str,
    models: tuple,
    group_column: str,
    group_label: str = "",
) -> CrossStudyRow:
    """A study's row of Table 1: the published group, p, P and F, and where our numbers are.

    Parameters
    ----------
    group : str
        The group as the paper names it (``"a = 7"``).
    p, P, F, P_F : float
        The published p-value, replication probability, empirical replication probability and P - F.
    summary : str
        The study's summary table holding our numbers.
    models : tuple of str
        Model prefixes of the columns (the first present is used).
    group_column, group_label : str
        The column identifying a group and how our group is named.
    """
    return CrossStudyRow(
        TABLE1,
        group,
        {"p": p, "P": P, "F": F, "P-F": P_F},
        summary=summary,
        models=models,
        group_column=group_column,
        group_label=group_label,
    )
