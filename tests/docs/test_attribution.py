"""Every number we credit to a paper is in that paper's text.

The papers' texts are not part of the repository: they are read from ``../shared/papers`` beside the
checkout (or ``SIMSTUDY_PAPERS``), and the tests skip where they are absent.  Two kinds of credit are
checked: the published values every study declares (and the worked values of the analytic figures),
and a number written in the parenthesis of a citation on the pages and in the README ("Bouckaert and
Frank 2004 (3.0%)" credits 3.0 to them).
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAPERS = Path(os.environ.get("SIMSTUDY_PAPERS", ROOT.parent / "shared" / "papers"))
FILES = {
    "Berrar": ["berrar-replication-probability.txt"],
    "Bouckaert 2004": [
        "bouckaert2004-estimating-replicability.md",
        "bouckaert2004-estimating-replicability.alt-extraction.txt",
    ],
    "Bouckaert and Frank 2004": ["bouckaert-frank2004-replicability-of-significance-tests.stopwords-removed.txt"],
}
CITATION = re.compile(
    r"(Bouckaert and Frank 2004|Bouckaert 2004|Berrar|Dietterich 1998|Nadeau and Bengio 2003)[^()\n|]{0,40}?\(([^()\n]*)\)"
)
NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.]*\d)")

pytestmark = pytest.mark.skipif(not PAPERS.is_dir(), reason=f"the papers' texts are not at {PAPERS}")


def _text(paper: str) -> str | None:
    names = FILES.get(paper)
    if not names:
        return None
    return "\n".join((PAPERS / n).read_text(errors="replace") for n in names if (PAPERS / n).is_file())


def _printed(value: float) -> list[str]:
    """How a value may be printed: as written (a minus sign aside), without its leading zero, and a share of
    1000 as its count."""
    value = abs(value)
    text = f"{value:.6g}"
    forms = [text]
    if text.startswith("0."):
        forms.append(text[1:])
    if 0 < value < 1 and abs(value * 1000 - round(value * 1000)) < 1e-9:
        forms.append(str(round(value * 1000)))
    return forms


def _found(value: float, text: str) -> bool:
    return any(re.search(rf"(?<![\d.]){re.escape(f)}0*(?!\d)", text) for f in _printed(value))


def _paper(source: str) -> str:
    from simstudy.outputs.agreement import paper_of

    return paper_of(source)


def _declared():
    """Every (label, value, source) a study, a cross-study table or an analytic figure credits to a paper."""
    from simstudy.engine import get_study, list_studies
    from simstudy.outputs.published import cross_study_rows

    out = []
    for name in list_studies():
        for item in get_study(name).publication.values:
            if item.either or item.trials:  # Table 2's cells: counts in a table the extraction garbled
                continue
            out.append((f"{name}: {item.label}", item.value, item.source))
    for table, members in cross_study_rows().values():
        for st, row in members:
            out += [(f"{table.name}: {st.name}: {col}", v, table.source) for col, v in row.published.items()]
        out += [(f"{table.name}: average: {col}", v, table.source) for col, v in table.published_average.items()]
    return out


def test_every_declared_published_value_is_in_its_papers_text():
    missing = []
    for label, value, source in _declared():
        text = _text(_paper(source))
        if text is None or not math.isfinite(value):
            continue
        if not _found(value, text):
            missing.append(f"{label} = {value} ({source})")
    assert not missing, "not in the paper's text:\n" + "\n".join(missing)


def test_the_analytic_figures_quote_only_the_text(tmp_path):
    from simstudy.outputs.analytic import analytic_sections

    for section in analytic_sections(tmp_path / "figures", tmp_path):
        if section["cmp"] is None:
            continue
        for r in section["cmp"].itertuples():
            assert _found(float(r.published), _text(_paper(r.source))), (r.quantity, r.published)


def _credited(path: Path):
    text = path.read_text(errors="replace")
    for m in CITATION.finditer(text):
        for number in NUMBER.findall(m.group(2)):
            if re.fullmatch(r"(19|20)\d\d", number):  # a year
                continue
            yield m.group(1), number, m.group(0)


def test_pages_credit_a_paper_only_with_numbers_it_prints():
    pages = [
        ROOT / "README.md",
        ROOT / "docs" / "reproduction" / "report.md",
        *sorted((ROOT / "docs" / "reproduction").glob("proving*/*.md")),
        *sorted((ROOT / "docs").rglob("*.rst")),
    ]
    wrong = []
    for page in pages:
        if "_build" in page.parts:
            continue
        for paper, number, context in _credited(page):
            text = _text(paper)
            if text is None:  # a paper we do not hold: no number may be credited to it
                wrong.append(f"{page.relative_to(ROOT)}: {context}")
            elif not _found(float(number), text):
                wrong.append(f"{page.relative_to(ROOT)}: {context}")
    assert not wrong, "numbers credited to a paper that its text does not print:\n" + "\n".join(wrong)
