"""A minimal reader and writer for Weka's ARFF format (dense data only).

Supports nominal and numeric (``numeric``, ``real``, ``integer``) attributes,
missing values ``?``, quoted names and values, ``%`` comments.  String, date and
relational attributes and the sparse ``{...}`` data format are rejected with a
``ValueError`` naming the offending line.  Nominal values are coded as integers
(their position in the declared category list); missing values become NaN.
"""

from __future__ import annotations

import gzip
import math
import os
from dataclasses import dataclass

import numpy as np

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


def _tokens(line: str, sep: str = ","):
    """Split ``line`` on ``sep`` (or whitespace when ``sep`` is None) honouring quotes."""
    out, cur, quote, i, had_quote = [], [], None, 0, False
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
        raise ValueError(f"line: unterminated quote in {line!r}")
    if sep is not None or cur or had_quote:
        out.append(("".join(cur).strip() if not had_quote else "".join(cur), had_quote))
    return out


def _attribute(rest: str, lineno: int):
    rest = rest.strip()
    if rest[:1] in "'\"":
        q = rest[0]
        end = rest.index(q, 1)
        name, typ = rest[1:end], rest[end + 1:].strip()
    else:
        parts = rest.split(None, 1)
        if len(parts) != 2:
            raise ValueError(f"source: line {lineno}: malformed @attribute")
        name, typ = parts
    low = typ.lower()
    if typ.startswith("{"):
        if not typ.rstrip().endswith("}"):
            raise ValueError(f"source: line {lineno}: unterminated nominal specification")
        cats = tuple(v for v, _ in _tokens(typ.strip()[1:-1]))
        return name, cats
    if low in ("numeric", "real", "integer"):
        return name, None
    raise ValueError(f"source: line {lineno}: unsupported attribute type {typ!r} (only nominal and numeric)")


def parse_arff(text: str, class_index: int = -1) -> ArffData:
    """Parse ARFF ``text``; ``class_index`` selects the class attribute (default last)."""
    relation, attrs, rows, in_data = "", [], [], False
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("%"):
            continue
        if not in_data:
            low = line.lower()
            if low.startswith("@relation"):
                relation = line[9:].strip().strip("'\"")
            elif low.startswith("@attribute"):
                attrs.append(_attribute(line[10:], lineno))
            elif low.startswith("@data"):
                in_data = True
            else:
                raise ValueError(f"source: line {lineno}: unexpected header line {line!r}")
            continue
        if line.startswith("{"):
            raise ValueError(f"source: line {lineno}: sparse ARFF data is not supported")
        vals = _tokens(line)
        if len(vals) != len(attrs):
            raise ValueError(f"source: line {lineno}: expected {len(attrs)} values, got {len(vals)}")
        row = []
        for (v, quoted), (name, cats) in zip(vals, attrs):
            if v == "?" and not quoted:
                row.append(math.nan)
            elif cats is None:
                try:
                    row.append(float(v))
                except ValueError:
                    raise ValueError(f"source: line {lineno}: {v!r} is not numeric for {name!r}") from None
            else:
                try:
                    row.append(float(cats.index(v)))
                except ValueError:
                    raise ValueError(f"source: line {lineno}: {v!r} is not a category of {name!r}") from None
        rows.append(row)
    if not attrs:
        raise ValueError("source: no @attribute declarations")
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
    """Read an ARFF file (optionally gzipped, by its ``.gz`` suffix)."""
    path = os.fspath(path)
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return parse_arff(fh.read(), class_index)


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


def write_arff(path, X, y, *, names=None, categories=None, class_categories=None,
               class_name="class", relation="simstudy") -> None:
    """Write ``X`` (n, p) and ``y`` to an ARFF file with the class attribute last.

    ``categories[j]`` is a list of labels for a nominal column (values coded 0..k-1)
    or ``None`` for numeric; ``class_categories`` likewise for ``y`` (default: the
    sorted distinct class codes as labels).
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise ValueError(f"X: expected shape (n, p) matching y, got {X.shape} and {y.shape}")
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
