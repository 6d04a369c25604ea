"""The code blocks of README.md and docs/, found the way a reader meets them.

Markdown: fenced blocks (```LANG), indented or not.  reStructuredText: ``.. code-block:: LANG``
(and ``code``/``sourcecode``), literal blocks after a paragraph ending in ``::`` (language
``text``, or ``pycon`` when it is a ``>>>`` session), and ``.. literalinclude::``.  A block is
skipped by the test, visibly and with its reason, by the line before it: ``<!-- skip-test: REASON -->``
in Markdown, the comment ``.. skip-test: REASON`` in reStructuredText.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The documents whose blocks run: the README, the pages of the site, and the examples' README.
DOCUMENTS = ("README.md", "examples/README.md", "docs/**/*.rst")

# What a block's language says about it: run as Python, as shell commands, as a shell session with
# its output, or shown only (output, synopses, diagrams, configuration of another tool).
PYTHON = {"python", "python3", "py", "pycon"}
SHELL = {"sh", "bash", "shell"}
CONSOLE = {"console"}
SHOWN = {"text", "none", "toml", "r", "ini", "cfg", "json", "yaml", "markdown", "md", "rst"}

_SKIP_MD = re.compile(r"^\s*<!--\s*skip-test:\s*(?P<reason>.+?)\s*-->\s*$")
_SKIP_RST = re.compile(r"^\s*\.\. skip-test:\s*(?P<reason>.+?)\s*$")
_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>```+|~~~+)\s*(?P<lang>[\w+-]*)\s*$")
_CODE_DIRECTIVE = re.compile(r"^(?P<indent>\s*)\.\. (?:code-block|code|sourcecode)::\s*(?P<lang>\S*)\s*$")
_INCLUDE = re.compile(r"^(?P<indent>\s*)\.\. literalinclude::\s*(?P<path>\S+)\s*$")
_DIRECTIVE = re.compile(r"^\s*\.\. [\w:-]+::")
_SESSION = re.compile(r"^\s*>>>( |$)")


def _language(named: str, code: str) -> str:
    """The language a block names, ``pycon`` for an unnamed ``>>>`` session."""
    named = named.lower()
    return "pycon" if named in {"", "python", "py"} and _SESSION.match(code) else named


@dataclass(frozen=True)
class Block:
    """One code block: where it is (document and the line of its first code line), its language and text."""

    document: str
    line: int
    language: str
    code: str
    skipped: str | None = None  # the reason a skip-test marker before the block gives
    include: str | None = None  # the file a literalinclude shows (its code is that file's text)

    @property
    def where(self) -> str:
        return f"{self.document}:{self.line}"

    @property
    def python(self) -> str:
        """The Python a reader would run: the code, or a ``>>>`` session's input lines (its output left out)."""
        if not _SESSION.match(self.code):
            return self.code
        lines = [
            line[4:] for line in self.code.splitlines() if line.startswith((">>> ", "... ")) or line in {">>>", "..."}
        ]
        return "\n".join(lines) + "\n"

    @property
    def runs_as(self) -> str:
        """``python``, ``shell``, ``console``, ``include`` or ``shown`` (never run)."""
        if self.include is not None:
            return "include"
        if self.language in PYTHON:
            return "python"
        if self.language in SHELL:
            return "shell"
        if self.language in CONSOLE:
            return "console"
        return "shown"


def documents(root: Path = ROOT) -> list[Path]:
    found: list[Path] = []
    for pattern in DOCUMENTS:
        found.extend(sorted(p for p in root.glob(pattern) if "_build" not in p.parts and "_templates" not in p.parts))
    return found


def blocks(path: Path, root: Path = ROOT) -> list[Block]:
    """Every code block of one document, in the order of the text."""
    name = path.relative_to(root).as_posix()
    lines = path.read_text(encoding="utf-8").splitlines()
    return _markdown(name, lines) if path.suffix == ".md" else _rst(name, lines)


def _marker(lines: list[str], start: int, pattern: re.Pattern) -> str | None:
    """The reason of a skip-test marker on the nearest non-blank line before ``start``."""
    i = start - 1
    while i >= 0 and not lines[i].strip():
        i -= 1
    match = pattern.match(lines[i]) if i >= 0 else None
    return match["reason"] if match else None


def _markdown(name: str, lines: list[str]) -> list[Block]:
    found = []
    i = 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        fence, indent = opening["fence"], len(opening["indent"])
        end = i + 1
        while end < len(lines) and not (
            lines[end].strip().startswith(fence) and lines[end].strip().strip(fence[0]) == ""
        ):
            end += 1
        if end == len(lines):
            raise ValueError(f"{name}:{i + 1}: a code fence that is never closed")
        body = [line[indent:] if line[:indent].strip() == "" else line for line in lines[i + 1 : end]]
        found.append(
            Block(
                document=name,
                line=i + 2,
                language=_language(opening["lang"] or "", "\n".join(body)),
                code="\n".join(body) + "\n",
                skipped=_marker(lines, i, _SKIP_MD),
            )
        )
        i = end + 1
    return found


def _indented_body(lines: list[str], start: int, indent: int) -> tuple[int, int, str]:
    """The block indented deeper than ``indent`` from line ``start``: (first line, end, dedented text)."""
    i = start
    while i < len(lines) and lines[i].strip() and lines[i].lstrip().startswith(":"):
        i += 1  # the directive's options
    while i < len(lines) and not lines[i].strip():
        i += 1
    first = i
    end = i
    while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent):
        end += 1
    while end > first and not lines[end - 1].strip():
        end -= 1
    return first, end, textwrap.dedent("\n".join(lines[first:end])) + "\n"


def _rst(name: str, lines: list[str]) -> list[Block]:
    found = []
    i = 0
    while i < len(lines):
        line = lines[i]
        directive = _CODE_DIRECTIVE.match(line)
        include = _INCLUDE.match(line)
        if directive or include:
            match = directive or include
            indent = len(match["indent"])
            opts_start = i + 1
            options = []
            j = opts_start
            while j < len(lines) and lines[j].strip().startswith(":"):
                options.append(lines[j].strip())
                j += 1
            first, end, code = _indented_body(lines, i + 1, indent)
            if include:
                language = next((o.split(None, 1)[1] for o in options if o.startswith(":language:")), "text")
                target = (ROOT / Path(name).parent / include["path"]).resolve()
                code, first, end = target.read_text(encoding="utf-8"), i, i + 1 + len(options)
                found.append(
                    Block(
                        document=name,
                        line=i + 1,
                        language=language,
                        code=code,
                        include=target.relative_to(ROOT).as_posix(),
                        skipped=_marker(lines, i, _SKIP_RST),
                    )
                )
            else:
                found.append(
                    Block(
                        document=name,
                        line=first + 1,
                        language=_language(match["lang"] or "text", code),
                        code=code,
                        skipped=_marker(lines, i, _SKIP_RST),
                    )
                )
            i = max(end, i + 1)
            continue
        if line.rstrip().endswith("::") and not _DIRECTIVE.match(line) and not line.lstrip().startswith(".."):
            indent = len(line) - len(line.lstrip())
            first, end, code = _indented_body(lines, i + 1, indent)
            if end > first:
                found.append(Block(document=name, line=first + 1, language=_language("", code), code=code))
                i = end
                continue
        i += 1
    return found


# A block without a language (a bare fence, or a literal block after "::") that a reader would take
# for code to type: it should say its language, ``text`` when it is not to be run.
_LOOKS_LIKE_CODE = re.compile(r"^\s*(\$ |simstudy |python |pip |import |from \w[\w.]* import )", re.MULTILINE)


def looks_like_code(block: Block) -> bool:
    return block.runs_as == "shown" and block.language == "" and bool(_LOOKS_LIKE_CODE.search(block.code))
