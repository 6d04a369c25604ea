"""A minimal reader and writer for Weka's ARFF format (dense data only).

Supports nominal and numeric (``numeric``, ``real``, ``integer``) attributes,
missing values ``?``, quoted names and values, ``%`` comments.  String, date and
relational attributes and the sparse ``{...}`` data format are rejected with a
``ValueError`` naming the file and the offending line, as is every other
malformed input (see :func:`parse_arff`).  Nominal values are coded as integers
(their position in the declared category list); missing values become NaN.
"""

from __future__ import annotations

import codecs
import gzip
import math
import numbers
import os
import re
import zlib
from dataclasses import dataclass

import numpy as np

from simstudy.errors import InputError

__all__ = ["ArffData", "read_arff", "write_arff", "parse_arff"]


@dataclass(frozen=True)
class ArffData:
    """Contents of an ARFF file.

    Attributes
    ----------
    relation : str
    names : tuple of str
        Attribute names in file order, the class attribute excluded.
    categories : tuple
        For each attribute in ``names``: tuple of category labels if nominal, else ``None``.
    X : ndarray of float, shape (n, p)
        Nominal values coded 0..k-1, NaN for missing.
    y : ndarray of float, shape (n,)
        Class values (coded if nominal), NaN for missing.
    class_name : str
    class_categories : tuple of str or None
    """

    relation: str
    names: tuple
    categories: tuple
    X: np.ndarray
    y: np.ndarray
    class_name: str
    class_categories: tuple | None

    @property
    def nominal(self) -> np.ndarray:
        """Boolean mask of the nominal attributes of ``X``."""
        return np.array([c is not None for c in self.categories], dtype=bool)


class _LineError(InputError):
    """A problem found in one line; the caller adds the file and line number."""


def _tokens(line: str, sep: str = ","):
    """Split ``line`` on ``sep`` (or whitespace when ``sep`` is None) honouring quotes.

    Returns ``(value, quoted)`` pairs; unquoted values are stripped.
    """
    out: list[tuple[str, bool]] = []
    cur: list[str] = []
    quote, i, had_quote = None, 0, False
    while i < len(line):
        ch = line[i]
        if quote:
            if ch == "\\" and i + 1 < len(line):
                cur.append(line[i + 1])
                i += 2
                continue
            if ch == quote:
                quote = None
            else:
                cur.append(ch)
        elif ch in "'\"" and not "".join(cur).strip():
            cur, quote, had_quote = [], ch, True
        elif had_quote and ch.isspace() and sep is not None:
            pass
        elif (sep is None and ch.isspace()) or (sep is not None and ch == sep):
            if sep is not None or cur or had_quote:
                out.append(("".join(cur).strip() if not had_quote else "".join(cur), had_quote))
            cur, had_quote = [], False
        else:
            cur.append(ch)
        i += 1
    if quote:
        raise _LineError(f"unterminated quote ({quote}) in a value")
    if sep is not None or cur or had_quote:
        out.append(("".join(cur).strip() if not had_quote else "".join(cur), had_quote))
    return out


def _quoted(text: str):
    """The quoted string at the start of ``text`` (backslash escapes honoured) and the rest."""
    q, chars, i = text[0], [], 1
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            chars.append(text[i + 1])
            i += 2
            continue
        if ch == q:
            return "".join(chars), text[i + 1 :]
        chars.append(ch)
        i += 1
    raise _LineError(f"unterminated quote ({q}) in the attribute name")


def _attribute(rest: str):
    """``(name, categories or None)`` of an ``@attribute`` line (without the keyword)."""
    rest = rest.strip()
    if rest[:1] in ("'", '"'):
        name, typ = _quoted(rest)
        typ = typ.strip()
        if not typ:
            raise _LineError(f"attribute {name!r}: no type")
    else:
        parts = rest.split(None, 1)
        if len(parts) != 2:
            raise _LineError("malformed @attribute (expected a name and a type)")
        name, typ = parts
    if not name:
        raise _LineError("empty attribute name")
    low = typ.lower()
    if typ.startswith("{"):
        if not typ.rstrip().endswith("}"):
            raise _LineError(f"attribute {name!r}: unterminated nominal specification")
        body = typ.strip()[1:-1]
        if not body.strip():
            raise _LineError(f"attribute {name!r}: empty nominal specification {{}} (no categories)")
        cats, seen = [], set()
        for v, quoted in _tokens(body):
            if not v and not quoted:
                raise _LineError(f"attribute {name!r}: empty nominal value in {typ!r}")
            if v in seen:
                raise _LineError(f"attribute {name!r}: duplicate nominal value {v!r}")
            seen.add(v)
            cats.append(v)
        return name, tuple(cats)
    if low in ("numeric", "real", "integer"):
        return name, None
    raise _LineError(f"attribute {name!r}: unsupported attribute type {typ!r} (only nominal and numeric)")


# An ARFF number: decimal, optional exponent.  Python's float() also takes "nan", "inf",
# "infinity" and "1_000", none of which is a number in an ARFF file.
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _number(v: str) -> float:
    """A finite number written as ARFF writes numbers (quoted or not, as Weka reads them)."""
    if not _NUMBER.fullmatch(v.strip()):
        raise _LineError(f"{v!r} is not a number")
    x = float(v)
    if not math.isfinite(x):
        raise _LineError(f"{v!r} is too large for a double-precision number")
    return x


def parse_arff(text: str, class_index: int = -1, *, source: str = "text") -> ArffData:
    """Parse ARFF ``text``.

    Parameters
    ----------
    text : str
        Contents of an ARFF file.  A leading byte-order mark is skipped.
    class_index : int
        Position of the class attribute among all attributes, Python-style
        (default -1, the last); it must name an attribute, it does not wrap.
    source : str
        How error messages name the text, e.g. the file's path.

    Raises
    ------
    ValueError
        ``"<source>: line L: ..."`` for a malformed line (with ``column C
        (attribute 'name')`` for a bad value): an unsupported or empty
        attribute type, a duplicate attribute name or nominal value, an
        unterminated quote, a value that is not a category or not a finite
        number (``nan``, ``inf`` and ``1e400`` are refused), a wrong number of
        values; ``"<source>: ..."`` for a file without ``@attribute``
        declarations or without ``@data``; ``"class_index: ..."`` when it is
        not the position of an attribute.
    """
    if isinstance(class_index, bool) or not isinstance(class_index, numbers.Integral):
        raise InputError(f"class_index: must be an integer, got {class_index!r}")
    if text.startswith("\ufeff"):
        text = text[1:]
    relation, attrs, rows, in_data = "", [], [], False
    declared = {}  # attribute name -> line of its declaration
    lineno = 0
    try:
        for lineno, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line or line.startswith("%"):
                continue
            if not in_data:
                low = line.lower()
                if low.startswith("@relation"):
                    relation = line[9:].strip().strip("'\"")
                elif low.startswith("@attribute"):
                    name, cats = _attribute(line[10:])
                    if name in declared:
                        raise _LineError(f"duplicate attribute name {name!r} (first declared on line {declared[name]})")
                    declared[name] = lineno
                    attrs.append((name, cats))
                elif low.startswith("@data"):
                    in_data = True
                else:
                    raise _LineError(f"unexpected header line {line!r}")
                continue
            if line.startswith("{"):
                raise _LineError("sparse ARFF data is not supported")
            vals = _tokens(line)
            if len(vals) != len(attrs):
                raise _LineError(f"expected {len(attrs)} values, got {len(vals)}")
            row = []
            for col, ((v, quoted), (name, cats)) in enumerate(zip(vals, attrs), 1):
                try:
                    if v == "?" and not quoted:
                        row.append(math.nan)
                    elif cats is None:
                        row.append(_number(v))
                    else:
                        try:
                            row.append(float(cats.index(v)))
                        except ValueError:
                            raise _LineError(f"{v!r} is not a category of {name!r}") from None
                except _LineError as exc:
                    raise _LineError(f"column {col} (attribute {name!r}): {exc}") from None
            rows.append(row)
    except _LineError as exc:
        raise InputError(f"{source}: line {lineno}: {exc}") from None
    if not attrs:
        raise InputError(f"{source}: no @attribute declarations")
    if not in_data:
        raise InputError(
            f"{source}: no @data line after the {len(attrs)} @attribute declarations (the file ends at line {lineno})"
        )
    if not -len(attrs) <= class_index < len(attrs):
        raise InputError(
            f"class_index: {class_index} is not the position of an attribute of {source} "
            f"({len(attrs)} attributes: -{len(attrs)} to {len(attrs) - 1})"
        )
    data = np.array(rows, dtype=float).reshape(len(rows), len(attrs))
    k = class_index % len(attrs)
    keep = [j for j in range(len(attrs)) if j != k]
    return ArffData(
        relation=relation,
        names=tuple(attrs[j][0] for j in keep),
        categories=tuple(attrs[j][1] for j in keep),
        X=data[:, keep],
        y=data[:, k],
        class_name=attrs[k][0],
        class_categories=attrs[k][1],
    )


def read_arff(path, class_index: int = -1) -> ArffData:
    """Read an ARFF file (optionally gzipped, by its ``.gz`` suffix).

    The file must be UTF-8 (a byte-order mark is skipped); other bytes are a
    ``ValueError`` naming the file, line and column.  Every error message
    starts with the path; see :func:`parse_arff`.
    """
    path = os.fspath(path)
    try:
        if path.endswith(".gz"):
            with gzip.open(path, "rb") as fh:
                data = fh.read()
        else:
            with open(path, "rb") as fh:
                data = fh.read()
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise InputError(f"{path}: not a readable gzip file ({exc})") from None
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError(
            f"{path}: line {line}, byte {column} of the line: not UTF-8 "
            f"(byte 0x{data[exc.start]:02x}); save the file as UTF-8"
        ) from None
    return parse_arff(text, class_index, source=path)


def _quote(s: str) -> str:
    if s and all(c.isalnum() or c in "_-." for c in s):
        return s
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _fmt(v: float, cats) -> str:
    if math.isnan(v):
        return "?"
    if cats is not None:
        return _quote(cats[int(v)])
    return repr(float(v)) if v != int(v) or abs(v) > 1e15 else str(int(v))


def write_arff(
    path, X, y, *, names=None, categories=None, class_categories=None, class_name="class", relation="simstudy"
) -> None:
    """Write ``X`` (n, p) and ``y`` to an ARFF file with the class attribute last.

    ``categories[j]`` is a list of labels for a nominal column (values coded 0..k-1)
    or ``None`` for numeric; ``class_categories`` likewise for ``y`` (default: the
    sorted distinct class codes as labels).
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise InputError(f"X: expected shape (n, p) matching y, got {X.shape} and {y.shape}")
    p = X.shape[1]
    names = [f"a{j}" for j in range(p)] if names is None else list(names)
    categories = [None] * p if categories is None else list(categories)
    if class_categories is None:
        class_categories = [str(int(c)) for c in range(int(np.nanmax(y)) + 1)]
    lines = [f"@relation {_quote(relation)}", ""]
    for name, cats in zip(names, categories):
        typ = "numeric" if cats is None else "{" + ",".join(_quote(str(c)) for c in cats) + "}"
        lines.append(f"@attribute {_quote(name)} {typ}")
    lines.append(f"@attribute {_quote(class_name)} {{" + ",".join(_quote(str(c)) for c in class_categories) + "}")
    lines += ["", "@data"]
    allcats = list(categories) + [list(class_categories)]
    for row, cls in zip(X, y):
        lines.append(",".join(_fmt(v, c) for v, c in zip(list(row) + [cls], allcats)))
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
