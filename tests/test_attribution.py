"""Every number we credit to a paper is in that paper's text (:mod:`simstudy.outputs.attribution`).

The papers' texts are not part of the repository: they are read from ``../shared/papers`` beside the
checkout, or from the folder ``SIMSTUDY_PAPERS`` names, and the tests that read them skip where the
folder is absent.  Three kinds of credit are checked: every number a page, the README or docs/
writes in a citation's clause ("Bouckaert and Frank 2004 (3.0%)" credits 3.0 to them), every
published value the studies declare (with the cross-study tables and the analytic figures' worked
values), and the sources of the proving ground's statements table.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path

import pytest

from simstudy.outputs import attribution as at

ROOT = Path(__file__).resolve().parents[1]
PAPERS = at.papers_folder(ROOT)
needs_papers = pytest.mark.skipif(not PAPERS.is_dir(), reason=f"the papers' texts are not at {PAPERS}")


# -- the extraction of credits, on text of our own ----------------------------------------------------------


def _credited(text):
    return [(c.paper, c.number, c.ours) for c in at.credits(text)]


def test_a_parenthesis_after_a_citation_credits_its_numbers_to_the_nearest_citation():
    text = "| Nadeau and Bengio 2003; Bouckaert and Frank 2004 (3.0%) | 2.9% |"
    assert _credited(text) == [("Bouckaert and Frank 2004", "3.0", False)]
    assert _credited("Bouckaert 2004, Table 1 (4.5% on source 1)") == [("Bouckaert 2004", "4.5", False)]
    assert _credited("Berrar (0.752, or .537 of them)") == [("Berrar", "0.752", False), ("Berrar", ".537", False)]
    assert _credited("as Dietterich 1998 found (a Type I error of 10%)") == [("Dietterich 1998", "10", False)]


def test_a_colon_a_verb_or_a_comma_inside_a_parenthesis_credit_the_clause_that_follows():
    assert _credited("Bouckaert 2004: 4.5% on his null source; ours 4.3%") == [("Bouckaert 2004", "4.5", False)]
    assert _credited("Berrar reports 0.752. We find 0.716.") == [("Berrar", "0.752", False)]
    assert _credited("(Bouckaert and Frank 2004, 59% uncorrected)") == [("Bouckaert and Frank 2004", "59", False)]


def test_years_locators_and_design_names_are_not_credited():
    for text in (
        "(Bouckaert 2004; Bouckaert and Frank 2004)",
        "Bouckaert and Frank (2004) (the 10x10 cv and 5x2cv tests, Table 3, a 10-fold cv)",
        "Berrar, Sect. 3.1.1 (Study 2, Figure 4)",
        "Bouckaert's Table 1 (14.8)",  # a possessive is not a citation
        "Nadeau-Bengio setting (n = 200)",
        "| Berrar, Sect. 3.1.1 | 0.752 |",  # a table's source cell credits nothing beside it
    ):
        assert _credited(text) == [], text


def test_a_number_after_ours_in_the_same_part_of_the_clause_is_ours():
    got = _credited("Bouckaert and Frank 2004 (Type I error near alpha; ours 3.0% and 3.3%)")
    assert got == [("Bouckaert and Frank 2004", "3.0", True), ("Bouckaert and Frank 2004", "3.3", True)]
    got = _credited("Bouckaert 2004 (4.5%, against our 4.3%)")
    assert got == [("Bouckaert 2004", "4.5", False), ("Bouckaert 2004", "4.3", True)]


def test_line_numbers_and_context():
    (c,) = at.credits("first line\nsecond, Berrar (0.73)\n")
    assert (c.line, c.context) == (2, "Berrar (0.73)")


def test_printed_forms_and_their_search():
    assert at.printed_forms(0.752)[:3] == ["0.752", ".752", "0,752"]
    assert "752 of 1000" in at.printed_forms(0.752) and "75.2%" in at.printed_forms(0.752)
    assert at.printed_forms(-0.04601)[0] == "0.04601"
    assert at.find_printed(0.752, "is 0,7520 here") == "0,752"
    assert at.find_printed(0.752, "is 0.7521 here") is None  # another number
    assert at.find_printed(0.752, "in 10.752 cases") is None
    assert at.find_printed(0.752, "in 10,752 cases") is None
    assert at.find_printed(0.998, "the interval [0.046,0.998]") == "0.998"
    assert at.find_printed(0.501, "the interval [0 501,0.795]") == "0 501"
    assert at.find_printed(14.8, "| 14.8 (±0.4) |", half_width=0.4) == "14.8 (±0.4)"
    assert at.find_printed(14.8, r"$14.8 \ (\pm 0.4)$", half_width=0.4) == "14.8 (±0.4)"
    assert at.find_printed(14.8, "14.8 (±0.3)", half_width=0.4) is None
    assert at.find_printed(float("nan"), "nan") is None


def test_paper_keys_of_sources():
    assert at.paper_key("Berrar, Sect. 3.1.1") == "Berrar"
    assert at.paper_key("Bouckaert 2004, Table 2, last row") == "Bouckaert 2004"
    assert at.paper_key("Bouckaert and Frank 2004, Table 3") == "Bouckaert and Frank 2004"
    assert at.paper_key("our own run") is None


def test_the_papers_folder_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv(at.PAPERS_ENV, raising=False)
    assert at.papers_folder(tmp_path / "repo") == tmp_path / "shared" / "papers"
    monkeypatch.setenv(at.PAPERS_ENV, str(tmp_path / "elsewhere"))
    assert at.papers_folder(tmp_path / "repo") == tmp_path / "elsewhere"
    assert at.paper_text("Berrar") is None  # no text there: nothing to check against


def test_a_paper_we_do_not_hold_can_be_credited_with_no_number(tmp_path):
    (tmp_path / at.PAPER_FILES["Berrar"][0]).write_text("the mean success rate is 0.752\n")
    text = "Berrar (0.752); Berrar (0.716); Dietterich 1998 (10%); Dietterich 1998 (ours 12%)"
    wrong = [(c.paper, c.number) for c in at.unprinted_credits(text, tmp_path)]
    assert wrong == [("Berrar", "0.716"), ("Dietterich 1998", "10")]


def test_a_table2_cell_is_looked_up_in_the_table(tmp_path):
    """Bouckaert's Table 2 as an extraction keeps it (the cells here are made up): one character per data set."""
    from types import SimpleNamespace

    rows = {
        "Sign test": ("50.0", [".1" + "." * 25, "." * 27, "." * 26 + "9"]),
        "Rank test": ("60.0", ["." * 27] * 3),
        "T test": ("70.0", ["." * 27] * 3),
    }
    lines = ["Table 2. UCI data sets. Nr of draws", "123456789 01234567890 01234567 Mean norm."]
    for test, (mean, cells) in rows.items():
        lines += [test, mean]
        for pair, row in zip(("NB vs C45", "NB vs NN", "C45 vs NN"), cells, strict=True):
            lines += [f"{pair} {row[:9]} {row[9:19]}", row[19:], "40.0"]
    names = ", ".join(f"{i}: set{chr(96 + i)}" for i in range(1, 27))
    lines += ["footnote", f"1: anneal, {names[names.index('2:') :]}, and 27: zoo."]
    lines[-1] = lines[-1].replace("1: anneal, ", "1: anneal, ", 1)
    text = "\n".join(lines).replace("1: seta, ", "")
    (tmp_path / at.PAPER_FILES["Bouckaert 2004"][0]).write_text(text)
    t = at.table2(text)
    assert t is not None and t["datasets"][0] == "anneal" and t["datasets"][-1] == "zoo"
    assert t["cells"][("Sign test", "NB vs C45")][1] == "1" and t["means"][("Sign test", None)] == "50.0"

    def cell(dataset, value, either=()):
        where = (("dataset", dataset), ("test", "sign (cdf rule)"), ("pair", "NB-C4.5"))
        return SimpleNamespace(value=value, source="Bouckaert 2004, Table 2", where=where, either=either)

    assert at.check_value(cell("setb", 1.0), folder=tmp_path).found
    assert not at.check_value(cell("setb", 2.0), folder=tmp_path).found
    assert at.check_value(cell("anneal", math.nan, (0.0, 10.0)), folder=tmp_path).found
    assert not at.check_value(cell("setc", 3.0), folder=tmp_path).found  # a dot printed
    mean = SimpleNamespace(value=50.0, source="Bouckaert 2004, Table 2", where=(("test", "sign"),))
    assert at.check_value(mean, folder=tmp_path).found == "Table 2, Sign test, mean norm. R2: 50.0"


# -- against the papers' texts ------------------------------------------------------------------------------


@needs_papers
def test_every_declared_published_value_is_in_its_papers_text():
    checks = at.check_declared_values(folder=PAPERS)
    assert len(checks) > 400  # every study's values, Table 2's cells among them
    missing = [f"{c.label} = {c.value} ({c.source}): {c.detail}" for c in checks if c.found is None]
    assert not missing, "declared published values not in the paper's text:\n" + "\n".join(missing)


@needs_papers
def test_the_analytic_figures_quote_only_the_text(tmp_path):
    from types import SimpleNamespace

    from simstudy.outputs.analytic import analytic_sections

    missing = []
    for section in analytic_sections(tmp_path / "figures", tmp_path):
        if section["cmp"] is None:
            continue
        for r in section["cmp"].itertuples():
            item = SimpleNamespace(value=float(r.published), source=r.source)
            check = at.check_value(item, f"{section['name']}: {r.quantity}", PAPERS)
            if check.found is None:
                missing.append(f"{check.label} = {check.value} ({check.source}): {check.detail}")
    assert not missing, "\n".join(missing)


def _pages():
    docs = ROOT / "docs"
    return [
        ROOT / "README.md",
        docs / "reproduction" / "report.md",
        *sorted((docs / "reproduction" / "proving-ground").glob("*.md")),
        *sorted((docs / "reproduction" / "proving_ground").glob("*.md")),
        *sorted(p for p in docs.rglob("*.rst") if "_build" not in p.relative_to(docs).parts),
    ]


@needs_papers
def test_pages_credit_only_printed_numbers():
    """The README, docs/ and the committed pages (generated: they follow statements.py when regenerated)."""
    pages = [p for p in _pages() if p.is_file()]
    assert ROOT / "README.md" in pages
    wrong = at.page_credits(pages, PAPERS, ROOT)
    assert not wrong, "page lines crediting a paper with a number its text does not print:\n" + "\n".join(wrong)


def _string_constants(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text())
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


@needs_papers
def test_the_statements_sources_credit_only_printed_numbers():
    """Every string of statements.py (its sources among them) credits a paper only with what its text prints."""
    path = ROOT / "simstudy" / "apps" / "proving" / "statements.py"
    cited = [(line, s) for line, s in _string_constants(path) if at.paper_key(s)]
    assert len(cited) >= 10  # the sources are found
    assert any(c.number == "4.5" for _, s in cited for c in at.credits(s))  # Bouckaert's Table 1, credited
    wrong = [
        f"statements.py:{line}: {c.paper} credited with {c.number}: {c.context}"
        for line, s in cited
        for c in at.unprinted_credits(s, PAPERS)
    ]
    assert not wrong, "\n".join(wrong)
