"""Plots of the reproductions, each drawn on a Matplotlib Axes.

* :mod:`.core`: replication probability against p-value as Berrar draws it
  (:func:`replication_vs_p`, :func:`estimate_vs_p`, :func:`label_points`);
* :mod:`.berrar`: Berrar's Figures 9 to 14 from a study's summary tables
  (``draw(tables, ax, *, profile)``, the signature of
  :class:`simstudy.engine.study.Figure`) and the analytic Figures 2 and 4;
* :mod:`.bouckaert`: Bouckaert's Figure 2 (variance of R1 and R2);
* :mod:`.critical_difference`: Demsar's critical-difference diagram of
  several learners over several data sets (:func:`critical_difference_diagram`);
* :mod:`.output`: drawing a study's declared figures in-process and saving
  them atomically, keyed by the stored results they show;
* :mod:`.layout`: text that stays clear: :func:`text_faults` finds labels
  drawn over each other or past the figure's edge, and the helpers that wrap
  a label, fit a legend and spread point labels apart.

No function calls ``plt.show()`` or changes global settings.
"""

from simstudy.outputs.plots.berrar import (
    berrar_binomial_figure,
    berrar_figure2,
    berrar_figure4,
    berrar_t_figure,
    berrar_wilcoxon_figure,
)
from simstudy.outputs.plots.bouckaert import bouckaert_figure2, bouckaert_variance_panel, simulated_variances
from simstudy.outputs.plots.core import (
    describe_axes,
    estimate_vs_p,
    label_points,
    legend_outside,
    log_p_axis,
    reference_line,
    replication_vs_p,
)
from simstudy.outputs.plots.critical_difference import critical_difference_diagram
from simstudy.outputs.plots.layout import TextFault, describe_text_faults, text_faults
from simstudy.outputs.plots.output import (
    draw_study_figure,
    figure_description,
    figure_is_current,
    figure_key,
    new_figure,
    render_study_figure,
    run_fingerprint,
    save_figure,
)

__all__ = [
    "replication_vs_p",
    "estimate_vs_p",
    "label_points",
    "log_p_axis",
    "reference_line",
    "legend_outside",
    "describe_axes",
    "figure_description",
    "berrar_binomial_figure",
    "berrar_wilcoxon_figure",
    "berrar_t_figure",
    "berrar_figure2",
    "berrar_figure4",
    "bouckaert_figure2",
    "bouckaert_variance_panel",
    "simulated_variances",
    "critical_difference_diagram",
    "new_figure",
    "save_figure",
    "run_fingerprint",
    "figure_key",
    "figure_is_current",
    "draw_study_figure",
    "render_study_figure",
    "TextFault",
    "text_faults",
    "describe_text_faults",
]
