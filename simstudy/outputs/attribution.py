"""Which numbers a text credits to a paper, and whether the paper's text prints them.

Two kinds of credit are checked against the papers' texts (plain-text extractions kept outside the
repository, in the folder :func:`papers_folder` names):

* a number written where a page cites a paper: in the parenthesis that closes the citation's clause
  ("Bouckaert and Frank 2004 (3.0%)"), in the clause after a colon or a reporting verb
  ("Bouckaert 2004: 4.5% on his null source", "Berrar reports 0.752"), or after the citation
  inside a parenthesis ("(Bouckaert 2004, 4.5%)").  :func:`credits` finds them, and
  :func:`unprinted_credits` keeps those the paper's text does not print and the sentence does not
  mark as ours (the word "our" or "ours" before the number in the same part of the clause);
* a published value a study declares (:class:`simstudy.outputs.tables.Published`): its source
  ("Berrar, Sect. 3.1.1", "Bouckaert 2004, Table 2, last row") names the paper, and
  :func:`check_value` looks for the value as printed there, in the usual spellings of an
  extraction (``0.752``, ``.752``, ``0,752``, ``752 of 1000``, ``75.2%``; with the paper's
  ``(±0.4)`` beside it when the value declares a half-width).  Bouckaert's (2004) Table 2 prints
  its cells as one character per data set (a digit, or a dot for 0 or 10): a cell, and a mean of
  the last column, is checked in the table itself, read from the extraction that keeps its rows.

A paper whose text is not held (Dietterich 1998, Nadeau and Bengio 2003) can be credited with no
number: it cannot be checked.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

__all__ = [
    "PAPER_FILES",
    "PAPERS_ENV",
    "Credit",
    "ValueCheck",
    "papers_folder",
    "paper_text",
    "paper_key",
    "credits",
    "unprinted_credits",
    "page_credits",
    "printed_forms",
    "find_printed",
    "table2",
    "check_value",
    "declared_values",
    "check_declared_values",
]

#: The environment variable naming the folder of the papers' texts.
PAPERS_ENV = "SIMSTUDY_PAPERS"

#: Paper key -> the files of its text in the papers folder (all are searched); empty: not held.
PAPER_FILES: dict[str, tuple[str, ...]] = {
    "Berrar": ("berrar-replication-probability.txt",),
    "Bouckaert 2004": (
        "bouckaert2004-estimating-replicability.md",
        "bouckaert2004-estimating-replicability.alt-extraction.txt",
    ),
    "Bouckaert and Frank 2004": ("bouckaert-frank2004-replicability-of-significance-tests.stopwords-removed.txt",),
    "Dietterich 1998": (),
    "Nadeau and Bengio 2003": (),
    "Mooney": ("mooney-experimental-evaluation-slides.md",),
}

# A citation of each paper: the authors, optionally the year (bare or in a parenthesis).
_CITE = {
    "Bouckaert and Frank 2004": r"Bouckaert\s+(?:and|&)\s+Frank(?:\s*\(?2004\)?)?",
    "Bouckaert 2004": r"Bouckaert(?!\s+(?:and|&)\s+Frank)(?:\s*\(?2004\)?)?",
    "Berrar": r"Berrar(?:\s*\(?20\d\d\)?)?",
    "Dietterich 1998": r"Dietterich(?:\s*\(?1998\)?)?",
    "Nadeau and Bengio 2003": r"Nadeau\s+(?:and|&)\s+Bengio(?:\s*\(?2003\)?)?",
    "Mooney": r"Mooney",
}
# not followed by a letter, a possessive or a hyphen ("Bouckaert's", "Nadeau-Bengio" cite nothing)
_CITATION = re.compile("|".join(rf"(?P<p{i}>\b{pattern}(?![\w'’-]))" for i, pattern in enumerate(_CITE.values())))
_KEYS = list(_CITE)
_LOCATOR_WORDS = (
    r"Table|Tab\.|Figure|Fig\.|Sect\.|Section|Example|Lemma|Theorem|Proposition|Corollary|Definition|"
    r"Eq\.|Equation|p\.|pp\.|Appendix|Chapter"
)
# A locator between a citation and its clause: ", Table 1", ", Sect. 3.1.1", " Figure 2".
_LOCATOR = re.compile(rf"(?:,?\s*(?:{_LOCATOR_WORDS})\s*[\d.]*\d[a-z]?)*")
# The parenthesis of a citation's clause: right after it, or after a description set off by a comma
# ("Nadeau and Bengio 2003, two Gaussian classes (...)"), with no sentence's end and no other clause.
_GAP = re.compile(r"\s*\(|\s*,(?:(?!\.\s)[^()\n|;:]){0,60}?\(")
_VERB = re.compile(r"\s+(?:reports?|reported|finds?|found|shows?|showed|gives?|gave|prints?|measured|states?)\b")
_CLAUSE_END = re.compile(r";|\)|\||\n|\.(?:[\s*_]|$)")
# A number: integer or decimal (".752" too); not part of a word or a dotted section number, not a
# design name (10x10, 5x2cv, 10-fold), not an ordinal (2nd) nor a count of runs (100x).
_NUMBER = re.compile(r"(?<![\w.])(?:\d+(?:\.\d+)?|\.\d+)(?![\w.]*\d)(?![A-Za-z]|-[A-Za-z])")
# A number that locates rather than states: Table 1, Sect. 3, Figure 2, source 1, study 4, #1.
_LOCATES = re.compile(rf"(?:{_LOCATOR_WORDS}|[Ss]ources?|[Ss]et|[Ss]tudy|#)\s*$")
_YEAR = re.compile(r"(?:19|20)\d\d")
_OURS = re.compile(r"\bours?\b", re.IGNORECASE)


@dataclass(frozen=True)
class Credit:
    """A number a text credits to a paper.

    Attributes
    ----------
    paper : str
        The paper's key (:data:`PAPER_FILES`).
    number : str
        The number as written.
    context : str
        The citation with the clause that credits the number.
    line : int
        The line of the text (from 1).
    ours : bool
        The sentence marks the number as ours ("our" or "ours" before it in the same part of the clause).
    """

    paper: str
    number: str
    context: str
    line: int
    ours: bool


@dataclass(frozen=True)
class ValueCheck:
    """A declared published value looked up in its paper's text.

    Attributes
    ----------
    label : str
        Who declares it and what it is (``"berrar1: group 3: P_w"``).
    value : float
        The declared value (NaN for a cell of Bouckaert's Table 2 printed as a dot).
    source : str
        Where the declaration says the paper prints it.
    paper : str or None
        The paper's key, None when the source names no paper we know.
    found : str or None
        How the text prints it (the form found, or the Table 2 cell), None when not found.
    detail : str
        Why it was not found.
    """

    label: str
    value: float
    source: str
    paper: str | None
    found: str | None
    detail: str = ""


# -- the papers' texts -------------------------------------------------------------------------------------


def papers_folder(root: str | os.PathLike | None = None) -> Path:
    """The folder of the papers' texts: ``$SIMSTUDY_PAPERS``, else ``../shared/papers`` beside the checkout.

    ``root`` is the repository's root (default: the folder above the package).
    """
    env = os.environ.get(PAPERS_ENV)
    if env:
        return Path(env)
    root = Path(root) if root is not None else Path(__file__).resolve().parents[2]
    return root.parent / "shared" / "papers"


@lru_cache(maxsize=32)
def _read(folder: str, paper: str, stamp: tuple) -> str | None:
    names = PAPER_FILES.get(paper, ())
    parts = [(Path(folder) / n).read_text(errors="replace") for n in names if (Path(folder) / n).is_file()]
    return "\n".join(parts) if parts else None


def paper_text(paper: str, folder: str | os.PathLike | None = None) -> str | None:
    """The text of a paper (its files joined), None when the folder holds none of it."""
    folder = Path(folder) if folder is not None else papers_folder()
    files = [folder / n for n in PAPER_FILES.get(paper, ())]
    stamp = tuple(f.stat().st_mtime_ns if f.is_file() else None for f in files)
    return _read(str(folder), paper, stamp)


def paper_key(source: str) -> str | None:
    """The paper a source or citation names (``"Berrar, Sect. 3.1.1"`` -> ``"Berrar"``), None if none."""
    m = _CITATION.search(str(source))
    return None if m is None else _KEYS[int(m.lastgroup[1:])]


# -- numbers credited on a page ----------------------------------------------------------------------------


def _closing(text: str, start: int) -> int:
    """Where the parenthesis opened just before ``start`` closes (or the line or table cell ends)."""
    depth = 1
    for i in range(start, len(text)):
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        elif c in "\n|":
            return i
    return len(text)


def _clause_end(text: str, start: int) -> int:
    m = _CLAUSE_END.search(text, start)
    return m.start() if m else len(text)


def _inside_parenthesis(text: str, pos: int) -> bool:
    before = text[text.rfind("\n", 0, pos) + 1 : pos]
    return before.count("(") > before.count(")")


def _credited_span(text: str, m: re.Match) -> tuple[int, int] | None:
    """(start, end) of the clause crediting the citation ``m``; None when it credits nothing."""
    after = _LOCATOR.match(text, m.end()).end()
    rest = text[after:]
    if re.match(r"\s*:", rest):
        start = after + rest.index(":") + 1
        return start, _clause_end(text, start)
    verb = _VERB.match(text, after)
    if verb:
        return verb.end(), _clause_end(text, verb.end())
    if _inside_parenthesis(text, m.start()):
        if re.match(r"\s*,", rest):
            start = after + rest.index(",") + 1
            return start, _clause_end(text, start)
        if not re.match(r"\s*\(", rest):
            return None
    gap = _GAP.match(rest)
    if gap:
        start = after + gap.end()
        return start, _closing(text, start)
    return None


def credits(text: str) -> list[Credit]:
    """Every number ``text`` credits to a paper, with its citation's clause and line.

    A citation of a paper (:data:`PAPER_FILES`: the authors, with or without the year) credits the
    numbers of the clause after a colon or a reporting verb ("reports", "finds", "shows"...), of
    the parenthesis that closes its clause ("Bouckaert 2004, Table 1 (4.5%)"), or, when the
    citation is itself in a parenthesis, of what follows its comma.  Of several citations before
    one parenthesis ("Nadeau and Bengio 2003; Bouckaert and Frank 2004 (...)") the nearest is
    credited.  Years, locators ("Table 1", "source 1", "Sect. 3.1.1") and design names ("10x10",
    "5x2cv", "10-fold") are not numbers credited.
    """
    out = []
    for m in _CITATION.finditer(text):
        span = _credited_span(text, m)
        if span is None:
            continue
        start, end = span
        clause = text[start:end]
        paper = _KEYS[int(m.lastgroup[1:])]
        context = text[m.start() : min(end + 1, len(text))].strip()
        line = text.count("\n", 0, m.start()) + 1
        for n in _NUMBER.finditer(clause):
            number = n.group(0)
            if _YEAR.fullmatch(number) or _LOCATES.search(clause[: n.start()]):
                continue
            part = clause[clause.rfind(";", 0, n.start()) + 1 : n.start()]
            out.append(Credit(paper, number, context, line, bool(_OURS.search(part))))
    return out


def unprinted_credits(text: str, folder: str | os.PathLike | None = None) -> list[Credit]:
    """The credits of ``text`` (:func:`credits`) not marked as ours whose paper's text does not print the
    number, or whose paper's text is not held."""
    wrong = []
    for c in credits(text):
        if c.ours:
            continue
        paper = paper_text(c.paper, folder)
        if paper is None or find_printed(float(c.number), paper) is None:
            wrong.append(c)
    return wrong


def page_credits(paths, folder: str | os.PathLike | None = None, root: str | os.PathLike | None = None) -> list[str]:
    """One line per citation in the files ``paths`` that credits a paper with numbers its text does not
    print: ``path:line: paper credited with 3.0, 3.3 (not in its text): context``.

    ``root``: paths are shown relative to it.
    """
    lines = []
    for path in paths:
        path = Path(path)
        shown = path.relative_to(root) if root is not None else path
        grouped: dict[tuple, list[str]] = {}
        for c in unprinted_credits(path.read_text(errors="replace"), folder):
            numbers = grouped.setdefault((c.line, c.paper, c.context), [])
            if c.number not in numbers:
                numbers.append(c.number)
        for (line, paper, context), numbers in grouped.items():
            why = "its text is not held" if paper_text(paper, folder) is None else "not in its text"
            lines.append(f"{shown}:{line}: {paper} credited with {', '.join(numbers)} ({why}): {context}")
    return lines


# -- published values --------------------------------------------------------------------------------------


def printed_forms(value: float) -> list[str]:
    """How an extraction may print ``value``, most specific first.

    The shortest decimal that gives it back (``0.752``), without the leading zero (``.752``), with
    a decimal comma (``0,752``) or a space for the point (``0 752``, as an OCR loses it), a share
    of 1000 as its count (``752 of 1000``, ``752``), as a percentage (``75.2%``) and, for a whole
    number, without decimals.  The sign is dropped (an extraction may lose a minus sign or turn it
    into a dash).
    """
    value = abs(float(value))
    text = repr(value)
    if "e" in text:
        text = f"{value:.12f}".rstrip("0")
    forms = [text]
    if text.startswith("0."):
        forms.append(text[1:])
    if "." in text:
        forms.append(text.replace(".", ","))
    if text.startswith("0."):
        forms.append(text.replace(".", " "))  # an OCR that lost the point: "[0 501,0.795]"
    if 0 < value < 1 and abs(value * 1000 - round(value * 1000)) < 1e-9:
        forms += [f"{round(value * 1000)} of 1000", str(round(value * 1000))]
    if 0 < value < 1:
        forms.append(f"{value * 100:.10g}%")
    if value == int(value):
        forms.append(str(int(value)))
    return list(dict.fromkeys(forms))


def _form_pattern(form: str) -> str:
    """A printed form as a pattern: trailing zeros may follow (0.73 as 0.730), no digit may touch it (a comma
    may: "[0.046,0.998]")."""
    if form.endswith("%"):
        return rf"(?<![\d.]){re.escape(form[:-1])}0*\s*%"
    if any(c in form for c in "., "):
        return rf"(?<![\d.]){re.escape(form)}0*(?!\d)(?!\.\d)"
    return rf"(?<![\d.,]){re.escape(form)}(?!\d)(?![.,]\d)"  # a whole number is not part of 10,752


def find_printed(value: float, text: str, half_width: float | None = None) -> str | None:
    """The form (:func:`printed_forms`) in which ``text`` prints ``value``, None if in none.

    With ``half_width`` the value must be printed with it beside it, as ``14.8 (±0.4)`` or
    ``$14.8 \\ (\\pm 0.4)$``.
    """
    if value is None or not math.isfinite(float(value)):
        return None
    beside = ""
    if half_width is not None:
        hw = "|".join(_form_pattern(f) for f in printed_forms(half_width)[:2])
        beside = rf"[\s\\~$]*\(\s*(?:±|\\pm)\s*(?:{hw})\s*\)"
    for form in printed_forms(value):
        if re.search(_form_pattern(form) + beside, text):
            return form if half_width is None else f"{form} (±{printed_forms(half_width)[0]})"
    return None


_T2_TESTS = {"sign": "Sign test", "rank": "Rank test", "rank sum": "Rank test", "t": "T test"}
_T2_PAIRS = ("NB vs C45", "NB vs NN", "C45 vs NN")
_T2_CAPTION = "Table 2. UCI data sets"


def table2(text: str) -> dict | None:
    """Bouckaert's (2004) Table 2 as printed, from the first of its captions in ``text`` on; None when the
    extraction does not keep its rows.

    Returns ``{"datasets": [the 27 names of the table's footnote], "cells": {(test, pair): 27
    characters, a digit or "." each}, "means": {(test, pair): "78.2", (test, None): "84.4"}}``,
    ``test`` one of ``"Sign test"``, ``"Rank test"``, ``"T test"`` and ``pair`` one of
    ``"NB vs C45"``, ``"NB vs NN"``, ``"C45 vs NN"``.
    """
    start = text.find(_T2_CAPTION)
    if start < 0:
        return None
    foot = re.search(r"1:\s*anneal.*?27:\s*zoo", text[start:], re.S)
    if not foot:
        return None
    names = re.findall(r"(\d+):\s*([A-Za-z][A-Za-z \t\n-]*?)\s*(?=,|\.|$|and\s+\d+:)", foot.group(0) + ".")
    datasets = [re.sub(r"\s+", " ", n).strip() for _, n in sorted(names, key=lambda x: int(x[0]))]
    body = text[start : start + foot.start()]
    tokens = re.findall(r"Sign test|Rank test|T test|NB vs C45|NB vs NN|C45 vs NN|[.\d]+", body)
    cells: dict = {}
    means: dict = {}
    test = pair = row = None
    for tok in tokens:
        if tok in _T2_TESTS.values():
            test, pair, row = tok, None, None
        elif tok in _T2_PAIRS:
            pair, row = tok, ""
        elif test is None:
            continue
        elif pair is None:
            if re.fullmatch(r"\d+\.\d", tok) and (test, None) not in means:
                means[(test, None)] = tok
        elif row is not None and len(row) < 27:
            row += tok
            if len(row) == 27:
                cells[(test, pair)] = row
            elif len(row) > 27:
                row = None  # not 27 cells: this extraction does not keep the rows
        elif row is not None and re.fullmatch(r"\d+\.\d", tok):
            means[(test, pair)] = tok
            row = None
    if len(datasets) != 27 or len(cells) != 9:
        return None
    return {"datasets": datasets, "cells": cells, "means": means}


def _letters(name: str) -> str:
    return re.sub(r"[^a-z]", "", name.lower())


def _table2_check(item, text: str) -> tuple[str | None, str] | None:
    """(found, detail) of a declared value the printed Table 2 locates; None when it does not locate it."""
    where = dict(getattr(item, "where", ()) or ())
    test = _T2_TESTS.get(re.sub(r"\s*\(.*\)$", "", str(where.get("test", ""))))
    pair = str(where.get("pair", "")).replace("C4.5", "C45").replace("-", " vs ") or None
    if test is None:
        return None
    t = None
    for caption in re.finditer(re.escape(_T2_CAPTION), text):  # each extraction's table; the first kept
        t = table2(text[caption.start() :])
        if t is not None:
            break
    if t is None:
        return None
    if "dataset" in where:
        if (test, pair) not in t["cells"]:
            return None
        names = [_letters(d) for d in t["datasets"]]
        want = _letters(str(where["dataset"]))
        idx = next((i for i, n in enumerate(names) if n == want), None)
        if idx is None:
            idx = next((i for i, n in enumerate(names) if n.startswith(want) or want.startswith(n)), None)
        if idx is None:
            return None, f"data set {where['dataset']!r} is not in the table's footnote"
        cell = t["cells"][(test, pair)][idx]
        shown = f"Table 2, {test}, {pair}, data set {idx + 1} ({t['datasets'][idx]}): {cell!r}"
        value = getattr(item, "value", None)
        finite = value is not None and math.isfinite(float(value))
        if cell == ".":
            ok = bool(getattr(item, "either", ())) or (finite and float(value) in (0.0, 10.0))
        else:
            ok = finite and float(value) == int(cell)
        return (shown, "") if ok else (None, f"the table prints {shown}")
    if (test, pair) not in t["means"]:
        return None
    printed = t["means"][(test, pair)]
    shown = f"Table 2, {test}{', ' + pair if pair else ''}, mean norm. R2: {printed}"
    ok = math.isfinite(float(item.value)) and abs(float(printed) - float(item.value)) < 1e-9
    return (shown, "") if ok else (None, f"the table prints {shown}")


def check_value(item, label: str = "", folder: str | os.PathLike | None = None) -> ValueCheck:
    """Look a declared published value up in its paper's text.

    ``item`` is a :class:`~simstudy.outputs.tables.Published` or any object with ``value`` and
    ``source`` (optionally ``half_width``, ``where``, ``either``).
    """
    source = str(getattr(item, "source", ""))
    value = getattr(item, "value", math.nan)
    label = label or str(getattr(item, "label", ""))
    paper = paper_key(source)
    if paper is None:
        return ValueCheck(label, value, source, None, None, "the source names no paper we know")
    text = paper_text(paper, folder)
    if text is None:
        return ValueCheck(label, value, source, paper, None, "the paper's text is not held")
    if paper == "Bouckaert 2004" and "Table 2" in source:
        located = _table2_check(item, text)
        if located is not None:
            return ValueCheck(label, value, source, paper, *located)
    if value is None or not math.isfinite(float(value)):
        return ValueCheck(label, value, source, paper, None, "no finite value to look for")
    half = getattr(item, "half_width", None)
    if half is not None:
        found = find_printed(value, text, half)
        if found is None and find_printed(value, text) is not None:
            detail = f"printed, but not beside (±{printed_forms(half)[0]})"
            return ValueCheck(label, value, source, paper, None, detail)
    else:
        found = find_printed(value, text)
    detail = "" if found else f"in none of the forms {printed_forms(value)} in {', '.join(PAPER_FILES[paper])}"
    return ValueCheck(label, value, source, paper, found, detail)


def declared_values(studies=None, cross_study: bool = True) -> list[tuple[str, object]]:
    """Every ``(label, published value)`` the studies declare (default: every registered study), and with
    ``cross_study`` the published cells of the cross-study tables they contribute to."""
    from types import SimpleNamespace

    from simstudy.engine import get_study, list_studies

    names = studies if studies is not None else list_studies()
    chosen = [get_study(s) if isinstance(s, str) else s for s in names]
    out: list[tuple[str, object]] = [(f"{st.name}: {p.label}", p) for st in chosen for p in st.publication.values]
    if cross_study:
        from simstudy.outputs.published import cross_study_rows

        for table, members in cross_study_rows(chosen).values():
            cells = [(f"{st.name}: {col}", v) for st, row in members for col, v in row.published.items()]
            cells += [(f"average: {col}", v) for col, v in table.published_average.items()]
            out += [(f"{table.name}: {k}", SimpleNamespace(value=v, source=table.source)) for k, v in cells]
    return out


def check_declared_values(studies=None, folder: str | os.PathLike | None = None, cross_study: bool = True):
    """:func:`check_value` of every declared value (:func:`declared_values`): a list of :class:`ValueCheck`."""
    return [check_value(item, label, folder) for label, item in declared_values(studies, cross_study)]
