"""Directives that build tables of the documentation from the package itself, at build time.

``.. simstudy-published:: STUDY``
    the published numbers a study declares (its ``publication.values``),
    with where in the paper each is printed;
``.. simstudy-profiles:: STUDY``
    the study's profiles: replications, conditions, settings and the estimated
    single-core time;
``.. simstudy-tests::``
    the registry of significance tests (:mod:`simstudy.pipeline.outcomes`);
``.. simstudy-learners::``
    the registry of learners (:mod:`simstudy.pipeline.learners.registry`);
``.. simstudy-studies::``
    every registered study with its title.

Nothing is copied by hand, so the pages cannot drift from the declarations.
"""

from __future__ import annotations

import math

from docutils import nodes
from docutils.parsers.rst import Directive, directives


def _table(header, rows, widths=None, classes=()):
    """A docutils table node from a header and rows of strings."""
    ncols = len(header)
    table = nodes.table(classes=list(classes))
    group = nodes.tgroup(cols=ncols)
    table += group
    for w in widths or [1] * ncols:
        group += nodes.colspec(colwidth=w)

    def row_of(cells):
        row = nodes.row()
        for cell in cells:
            entry = nodes.entry()
            entry += nodes.paragraph(text=str(cell))
            row += entry
        return row

    head = nodes.thead()
    head += row_of(header)
    group += head
    body = nodes.tbody()
    for r in rows:
        body += row_of(r)
    group += body
    return table


def _num(v) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "n/a"
        if v != 0 and (abs(v) < 1e-3 or abs(v) >= 1e5):
            return f"{v:.3g}"
        return f"{v:.6g}"
    return str(v)


def _where(where) -> str:
    return ", ".join(f"{c} = {_num(v)}" for c, v in where) or "(the only row)"


def _duration(seconds: float) -> str:
    if seconds < 1:
        return "under 1 s"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _settings(settings: dict) -> str:
    if not settings:
        return "(defaults)"
    parts = []
    for k, v in settings.items():
        if isinstance(v, (tuple, list)):
            v = ", ".join(_num(x) for x in v)
        parts.append(f"{k}: {_num(v) if not isinstance(v, str) else v}")
    return "; ".join(parts)


class PublishedDirective(Directive):
    required_arguments = 1

    def run(self):
        from simstudy.engine import get_study
        from simstudy.engine.study import builtin_modules

        study = get_study(self.arguments[0])
        published = study.publication.values
        if not published:
            para = nodes.paragraph(
                text="This study declares no published numbers to compare with "
                "(see the text above for what is checked instead)."
            )
            return [para]
        rows = [
            (
                p.label,
                _num(float(p.value)),
                p.source,
                f"{p.table}.{p.column}" + (f" where {_where(p.where)}" if p.where else ""),
            )
            for p in published
        ]
        intro = nodes.paragraph(
            text=f"{len(published)} published numbers, read from the study's declaration "
            f"({builtin_modules().get(study.name, study.name)}) when this page was built. "
            "“Our counterpart” names the summary table, column and row that hold "
            "our number (the tables of simstudy summarize)."
        )
        return [
            intro,
            _table(
                ("quantity", "published", "where in the paper", "our counterpart"),
                rows,
                widths=(40, 10, 22, 28),
                classes=("published",),
            ),
        ]


class ProfilesDirective(Directive):
    required_arguments = 1

    def run(self):
        from simstudy.engine import get_study

        study = get_study(self.arguments[0])
        rows = []
        for name, prof in study.profiles.items():
            try:
                conds = study.conditions_for(prof)
                n_cond = str(len(conds))
                cost = _duration(study.cost_seconds(prof))
            except Exception as exc:  # a profile whose grid needs data that is not installed
                n_cond, cost = "n/a", f"n/a ({type(exc).__name__})"
            rows.append((name, str(prof.n_replications), n_cond, _settings(prof.settings), cost))
        return [
            _table(
                ("profile", "replications per condition", "conditions", "settings", "estimated single-core time"),
                rows,
                widths=(10, 14, 10, 46, 16),
            )
        ]


class TestsDirective(Directive):
    def run(self):
        from simstudy.pipeline.outcomes import get_test, test_names

        rows = []
        for name in test_names():
            spec = get_test(name)
            rows.append((name, spec.takes, "yes" if spec.sizes else "", spec.description))
        return [_table(("name", "takes", "needs sizes", "description"), rows, widths=(20, 10, 10, 60))]


class LearnersDirective(Directive):
    def run(self):
        from simstudy.pipeline.learners import learner_names, learner_spec

        rows = []
        for name in learner_names():
            spec = learner_spec(name)
            rows.append((name, ", ".join(spec.aliases) if getattr(spec, "aliases", ()) else "", spec.description))
        return [_table(("name", "aliases", "description"), rows, widths=(24, 12, 64))]


class StudiesDirective(Directive):
    def run(self):
        from simstudy.engine import get_study, list_studies

        rows = [(n, get_study(n).title) for n in list_studies()]
        return [_table(("study", "title"), rows, widths=(22, 78))]


def setup(app):
    directives.register_directive("simstudy-published", PublishedDirective)
    directives.register_directive("simstudy-profiles", ProfilesDirective)
    directives.register_directive("simstudy-tests", TestsDirective)
    directives.register_directive("simstudy-learners", LearnersDirective)
    directives.register_directive("simstudy-studies", StudiesDirective)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
