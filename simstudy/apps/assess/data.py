"""The data of an assessment: a file, a shipped data set, a DataFrame or arrays read into a :class:`Dataset`.

What cannot be learnt from is refused here, on one line, before anything is fitted: a file that is not a
regular one or would not fit in memory, a table wider than :data:`MAX_COLUMNS` (counted from the header and the
first data line before anything is parsed), a first data line longer than the header, a column of lists, sets,
records or mappings (in any row), a CSV header that is data, a column of numbers with a few other cells,
infinite values, fewer than two classes or ten cases, and a scorer that does not score classifiers on the data
(:func:`check_metric_for`).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module
from simstudy.apps.assess.errors import _listed, _one_line
from simstudy.engine.capacity import available_memory, bytes_text
from simstudy.errors import InputError
from simstudy.errors import option as _option

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")


@dataclass(frozen=True)
class Dataset:
    """A data set ready for learning.

    Attributes
    ----------
    name : str
        Where it came from (a file path or a shipped data set's name).
    X : ndarray of float, shape (n, p)
        Numeric attributes; nominal ones coded 0..k-1; NaN for missing.
    y : ndarray of int, shape (n,)
        Class codes 0..c-1.
    columns : tuple of str
        Attribute names.
    nominal : tuple of bool
        Which attributes are nominal.
    n_categories : tuple of int
        Categories of each nominal attribute (0 for numeric ones).
    classes : tuple of str
        Class labels, in code order.
    n_dropped : int
        Rows of the source left out because their class is missing.
    class_column : str
        The class column or attribute as the source names it ('' for arrays).
    """

    name: str
    X: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    columns: tuple
    nominal: tuple
    n_categories: tuple
    classes: tuple
    n_dropped: int = 0
    class_column: str = ""

    @property
    def digest(self) -> str:
        """SHA-256 of the data as learnt from (values, types and labels), to tie stored rows to it."""
        h = hashlib.sha256()
        h.update(np.ascontiguousarray(self.X, dtype=float).tobytes())
        h.update(np.ascontiguousarray(self.y, dtype=np.int64).tobytes())
        h.update(json.dumps([self.columns, self.nominal, self.n_categories, self.classes]).encode())
        return h.hexdigest()

    @property
    def has_missing(self) -> bool:
        """Whether any attribute value is missing (NaN)."""
        return bool(np.isnan(self.X).any())

    @property
    def dropped_note(self) -> str:
        """One sentence on the rows left out for a missing class ('' when none were)."""
        if not self.n_dropped:
            return ""
        where = f" in {self.class_column!r}" if self.class_column else ""
        return (
            f"{self.n_dropped} row(s) without a class (an empty or missing value{where}) were left out, as "
            f"Weka does; the {self.y.size} cases are the rows that have one"
        )


def _finish(name, X, y_labels, columns, nominal, n_categories, *, where="", class_column="") -> Dataset:
    y_labels = np.asarray(y_labels)
    X = np.asarray(X, dtype=float)
    keep = np.asarray(pd.notna(y_labels), dtype=bool)
    _check_finite(name, X, keep, columns)
    n_dropped = int((~keep).sum())
    if n_dropped:  # as Weka does: cases without a class are left out (and the reports say so)
        X, y_labels = X[keep], y_labels[keep]
    classes, y = np.unique(y_labels.astype(str), return_inverse=True)
    if classes.size < 2:
        raise InputError(
            f"DATA: {name}: the class{where} has {classes.size} distinct value(s); "
            "a comparison of classifiers needs at least two classes"
        )
    if y.size < 10:
        raise InputError(f"DATA: {name}: {y.size} cases with a class; an assessment needs at least 10")
    if X.shape[1] == 0:
        raise InputError(f"DATA: {name}: no attributes besides the class")
    return Dataset(
        str(name),
        np.asarray(X, dtype=float),
        y.astype(np.int64),
        tuple(map(str, columns)),
        tuple(bool(v) for v in nominal),
        tuple(int(v) for v in n_categories),
        tuple(str(c) for c in classes),
        n_dropped,
        str(class_column),
    )


def _check_finite(name, X, keep, columns):
    """Refuse infinite attribute values (inf, -inf, or a number too large for a float, e.g. 1e400).

    Missing values (NaN, empty cells) stay allowed: the learners that handle
    them do, and the others are refused later with their own message.  Only
    the rows with a class are checked (the others are not learnt from).
    """
    bad = np.isinf(X) & keep[:, None]
    if not bad.any():
        return
    cols = [str(columns[j]) for j in np.flatnonzero(bad.any(axis=0))]
    rows, cells = np.nonzero(bad)
    shown = ", ".join(map(repr, cols[:5])) + (f" and {len(cols) - 5} more" if len(cols) > 5 else "")
    raise InputError(
        f"DATA: {name}: column(s) {shown} hold {int(bad.sum())} infinite value(s) (inf, -inf, or "
        f"a number too large for a float such as 1e400; first in data row {int(rows[0]) + 1}, "
        f"column {str(columns[int(cells[0])])!r}); only finite numbers can be learnt from: "
        "correct or remove them (an empty cell is a missing value)"
    )


def _mostly_numbers(s: pd.Series, name: str, column) -> None:
    """Refuse a column of text cells of which most are numbers (a typo would make it nominal); one line."""
    present = s.notna().to_numpy()
    numbers = pd.to_numeric(s.astype("string").str.strip(), errors="coerce").notna().to_numpy()
    bad = np.flatnonzero(present & ~numbers)
    if bad.size == 0 or numbers.sum() < present.sum() / 2:
        return
    shown = ", ".join(f"{int(i) + 1} ({str(s.iloc[i])[:20]!r})" for i in bad[:5]) + (
        f" and {bad.size - 5} more" if bad.size > 5 else ""
    )
    raise InputError(
        f"DATA: {name}: column {str(column)!r} holds numbers but for {bad.size} cell(s), in data row(s) {shown}; "
        f"correct them (an empty cell is a missing value), or declare the column nominal with {_listed('nominal', [column])}"
    )


def _from_frame(df: pd.DataFrame, name: str, class_column, as_nominal=()) -> Dataset:
    if df.shape[1] < 2:
        raise InputError(f"DATA: {name}: needs at least two columns (attributes and a class), found {df.shape[1]}")
    if df.shape[1] > MAX_COLUMNS:
        raise _too_wide(f"DATA: {name}", f"{df.shape[1]:,} columns")
    _check_flat(df, name)
    if class_column is None:
        class_column = df.columns[-1]
    elif class_column not in df.columns:
        raise InputError(
            f"{_option('class_column', flag='class')}: {name} has no column {class_column!r}; "
            f"its columns: {', '.join(map(str, df.columns))}"
        )
    unknown = [c for c in as_nominal if c not in df.columns]
    if unknown:
        raise InputError(
            f"{_option('nominal')}: {name} has no column {unknown[0]!r}; its columns: {', '.join(map(str, df.columns))}"
        )
    y = df[class_column].to_numpy(dtype=object)
    y = np.array([None if (v is None or (isinstance(v, float) and math.isnan(v))) else v for v in y], dtype=object)
    X_cols, nominal, n_cat, cols = [], [], [], []
    for c in df.columns:
        if c == class_column:
            continue
        s = df[c]
        if pd.api.types.is_bool_dtype(s):
            s = s.astype(float)
        declared = c in as_nominal
        if not declared and not pd.api.types.is_numeric_dtype(s):
            _mostly_numbers(s, name, c)
        if pd.api.types.is_numeric_dtype(s) and not declared:
            X_cols.append(s.to_numpy(dtype=float))
            nominal.append(False)
            n_cat.append(0)
        else:
            values = s.astype("string")
            cats = sorted(values.dropna().unique())
            codes = (
                values.map({v: float(i) for i, v in enumerate(cats)})
                .astype("Float64")
                .to_numpy(dtype=float, na_value=np.nan)
            )
            X_cols.append(codes)
            nominal.append(True)
            n_cat.append(len(cats))
        cols.append(str(c))
    X = np.column_stack(X_cols) if X_cols else np.empty((len(df), 0))
    return _finish(name, X, y, cols, nominal, n_cat, where=f" column {class_column!r}", class_column=class_column)


#: How many times its size in memory reading a text data file may take (pandas' table and its parser).
TEXT_MEMORY_FACTOR = 3

#: The most columns a data set may have (attributes and the class).  Microarray data, the widest that
#: classifier comparisons use, have tens of thousands.  At this limit the pipeline still carries an assessment
#: out on a 24 GiB machine: a CSV of 100,000 columns and 40 rows loads in 7 s, and the default assessment of NB
#: against C4.5 on it (5x2 cv, five repeats) takes 5 minutes in 0.6 GB.  A wider file is refused from its first
#: two lines, before it is parsed: a header of 10^6 columns took pandas and the per-column checks over 15 minutes.
MAX_COLUMNS = 100_000

#: The most bytes of a text file's first line read to count its columns (a line longer than this holds more
#: columns than :data:`MAX_COLUMNS` allows, or is not the header of a table).
_HEADER_BYTES = 64 * 1024 * 1024


def _too_wide(where: str, what: str) -> ValueError:
    """The one line refusing a table wider than :data:`MAX_COLUMNS`: ``where`` names it, ``what`` its width."""
    return InputError(
        f"{where}: {what}, more than the {MAX_COLUMNS:,} an assessment takes; select the attributes first"
    )


def _not_flat(text: str, column, what: str) -> ValueError:
    """The one line refusing a column that holds several values per case (``what`` says what it holds)."""
    return InputError(
        f"DATA: {text}: column {str(column)!r} {what}, not one value per case; an attribute must be a single number "
        "or category per case (flatten it into columns first)"
    )


def _first_lines(path: Path, count: int) -> list:
    """The first ``count`` lines of a file, each ended by ``\\n``, ``\\r\\n`` or ``\\r`` (as pandas reads them) and
    read as Latin-1 (one character per byte: a delimiter counts as it would in any ASCII-based encoding); None
    for a line longer than :data:`_HEADER_BYTES`.  Fewer lines when the file has fewer."""
    lines = []
    with open(path, encoding="latin-1", newline=None) as f:
        while len(lines) < count:
            line = f.readline(_HEADER_BYTES)
            if not line:
                break
            if len(line) >= _HEADER_BYTES and not line.endswith("\n"):
                lines.append(None)
                break
            lines.append(line.rstrip("\n"))
    return lines


def _n_fields(line: str, sep: str) -> int:
    """How many fields a CSV line holds (its delimiters counted, then parsed only when that is near the limit)."""
    import csv

    n = line.count(sep) + 1
    if n <= MAX_COLUMNS:
        return n
    return len(next(csv.reader([line], delimiter=sep, skipinitialspace=True), []))


def _check_width(path: Path, text: str, sep: str) -> None:
    """Refuse, before parsing, a text table whose header or first data line has more than :data:`MAX_COLUMNS`
    fields (one line): reading it would take minutes to hours."""
    try:
        lines = _first_lines(path, 2)
    except OSError:
        return  # the reading names the cause
    if None in lines:
        which = "first" if lines[0] is None else "second"
        raise InputError(
            f"DATA: {text}: the {which} line is longer than {bytes_text(_HEADER_BYTES)}, far more than a line of "
            f"at most {MAX_COLUMNS:,} columns; not a table simstudy can assess"
        )
    n = _n_fields(lines[0], sep) if lines else 0
    if n > MAX_COLUMNS:
        raise _too_wide(f"DATA: {text}", f"the header names {n:,} columns")
    m = _n_fields(lines[1], sep) if len(lines) > 1 else 0
    if m > MAX_COLUMNS:
        raise InputError(
            f"DATA: {text}: the first data line holds {m:,} values, more than the {MAX_COLUMNS:,} columns an "
            f"assessment takes (the header names {n:,}); every line needs one value per column"
        )


def _check_arff_width(path: Path, text: str) -> None:
    """Refuse, before parsing, an ARFF file that declares more than :data:`MAX_COLUMNS` attributes (one line)."""
    n = 0
    try:
        with open(path, "rb") as f:
            for line in f:
                head = line.lstrip()[:10].lower()
                if head.startswith(b"@data"):
                    break
                n += head.startswith(b"@attribute")
    except OSError:
        return  # the reading names the cause
    if n > MAX_COLUMNS:
        raise _too_wide(f"DATA: {text}", f"{n:,} attributes")


_PLAIN_TYPES = frozenset({str, float, int, bool, type(None), np.float64, np.int64})


def _first_nested(values) -> int | None:
    """The position of the first value that holds several (a list, tuple, set, mapping, array, iterator), or None."""
    from collections import abc

    for i, v in enumerate(values):
        if type(v) in _PLAIN_TYPES or isinstance(v, (str, bytes, bytearray)):
            continue
        if isinstance(v, (abc.Collection, abc.Iterator)):
            return i
    return None


def _check_flat(df: pd.DataFrame, text: str) -> None:
    """Refuse columns whose cells are lists, arrays, sets, mappings or records rather than single values (one line).

    Every cell of a column of Python objects is looked at (a list in any row would become a category of its
    own), as are the categories of a categorical column and the type of an Arrow column.
    """
    for c in df.columns:
        s = df[c]
        if isinstance(s.dtype, pd.ArrowDtype):
            import pyarrow as pa

            if pa.types.is_nested(s.dtype.pyarrow_dtype):
                raise _not_flat(text, c, f"is of the nested type {s.dtype.pyarrow_dtype}")
            continue
        if isinstance(s.dtype, pd.CategoricalDtype):
            values = s.cat.categories.to_numpy(dtype=object)
        elif s.dtype == object:
            values = s.to_numpy(dtype=object)
        else:
            continue
        at = _first_nested(values)
        if at is None:
            continue
        cell = values[at]
        where = "a category" if isinstance(s.dtype, pd.CategoricalDtype) else f"row {at + 1}"
        raise _not_flat(text, c, f"holds a {type(cell).__name__} ({where})")


def _check_file(path: Path, text: str, suffix: str) -> None:
    """Refuse, before reading it, what is not a regular file or would not fit in memory (one line)."""
    if not path.is_file():
        raise InputError(
            f"DATA: {text}: not a regular file (a device, a pipe or a socket); give a CSV, ARFF or Parquet file"
        )
    size = path.stat().st_size
    needed = size * TEXT_MEMORY_FACTOR
    if suffix in (".parquet", ".pq"):
        try:
            import pyarrow.parquet as pq

            meta = pq.ParquetFile(path).metadata
            needed = 2 * sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
        except Exception:  # not readable as Parquet: its reading says so
            needed = 0
    have = available_memory()
    if have is not None and needed > have:
        raise InputError(
            f"DATA: {text}: {bytes_text(size)}, which needs about {bytes_text(needed)} of memory to read, and "
            f"{bytes_text(have)} are available; use a smaller sample of it"
        )


def _check_header(path: Path, text: str, sep: str, df: pd.DataFrame) -> None:
    """Refuse a CSV whose first line repeats a column name, or looks like data rather than a header (one line)."""
    import csv

    try:
        with open(path, newline="", encoding="utf-8", errors="replace") as f:
            first = f.readline()
    except OSError:
        return
    cells = [c.strip() for c in next(csv.reader([first], delimiter=sep, skipinitialspace=True), [])]
    seen: dict[str, list[int]] = {}
    for i, cell in enumerate(cells):
        seen.setdefault(cell, []).append(i + 1)
    twice = {c: where for c, where in seen.items() if len(where) > 1}
    if twice:
        cell, where = next(iter(twice.items()))
        raise InputError(
            f"DATA: {text}: the column name {cell!r} appears {len(where)} times in the header (columns "
            f"{', '.join(map(str, where))}); every column needs a name of its own"
        )
    if len(cells) != df.shape[1]:
        return

    def number(cell):
        try:
            float(cell)
            return True
        except ValueError:
            return False

    numeric = [pd.api.types.is_numeric_dtype(df.iloc[:, j]) for j in range(df.shape[1])]
    named_by_number = [number(c) for c in cells]
    if not any(numeric) or not all(named_by_number[j] for j in range(len(cells)) if numeric[j]):
        return
    # a text cell that is also a value of its own column (a class label, say) is data, not a name
    repeated = [
        cells[j]
        for j in range(len(cells))
        if not named_by_number[j] and cells[j] in set(df.iloc[:, j].dropna().astype(str).str.strip())
    ]
    if all(named_by_number) or repeated:
        shown = ", ".join(map(repr, cells[:4])) + (", ..." if len(cells) > 4 else "")
        why = f"{repeated[0]!r} is also a value of its column" if repeated else "every cell is a number"
        raise InputError(
            f"DATA: {text}: the first line ({shown}) looks like data, not a header ({why}); the first line of a "
            "CSV must name the columns: add a header line"
        )


def _check_parquet_schema(path: Path, text: str) -> None:
    """Refuse a Parquet file with more than :data:`MAX_COLUMNS` columns or a nested column (list, struct, map)."""
    try:
        import pyarrow.parquet as pq

        schema = pq.read_schema(path)
    except Exception:  # not readable as Parquet: its reading says so
        return
    if len(schema) > MAX_COLUMNS:
        raise _too_wide(f"DATA: {text}", f"{len(schema):,} columns")
    import pyarrow as pa

    for f in schema:
        if pa.types.is_nested(f.type):  # list, large list, fixed-size list, struct, map, union
            raise _not_flat(text, f.name, f"is of the nested type {f.type}")


def load_data(data, *, class_column: str | None = None, nominal=()) -> Dataset:
    """Read a data set for an assessment.

    Parameters
    ----------
    data : str or os.PathLike
        A CSV file (a header line; the class column named by ``class_column``
        or the last one), an ARFF file (the class attribute named, or the
        last), a Parquet file, or the name of a shipped data set (see
        :func:`simstudy.pipeline.data.uci_datasets`).  Columns that are not numbers are
        nominal attributes; empty cells (and ``?`` in ARFF) are missing values.
        Rows without a class are left out, as Weka does, and counted
        (:attr:`Dataset.n_dropped`; the reports state it).
    class_column : str, optional
        Name of the class column.
    nominal : sequence of str
        Columns of a CSV or Parquet file to take as nominal attributes even
        where their cells are numbers (``--nominal``).

    Returns
    -------
    Dataset

    Raises
    ------
    ValueError
        One line naming the file (and line or column where known): not a
        regular file (a device such as ``/dev/zero``, a pipe), a file larger
        than the memory available can read, more than :data:`MAX_COLUMNS`
        columns (in a CSV's header or first data line, counted before it is
        parsed), a first data line with more values than the header names,
        a column of lists, sets, structs or maps (one value per case is
        needed), a file that cannot be read or parsed, a CSV whose first line repeats a column name or looks like data
        rather than a header, a column that holds numbers but for a few cells
        (naming the column and the rows; ``--nominal`` takes it as nominal),
        no such column, a class with fewer than two values, fewer than 10
        cases, infinite attribute values (``inf``, ``-inf``, or numbers beyond
        the float range such as ``1e400``; the columns are named).
    """
    from simstudy.pipeline.data import load_uci, uci_datasets
    from simstudy.pipeline.data.arff import read_arff

    text = str(data)
    path = Path(text)
    if not path.exists() and text in uci_datasets():
        if nominal:
            raise InputError(
                f"{_option('nominal')}: {text} is a shipped ARFF data set, which declares its attribute types"
            )
        arff = load_uci(text)
        return _arff_dataset(arff, text, class_column)
    if not path.exists():
        raise InputError(
            f"DATA: {text}: no such file, and not a shipped data set (shipped: {', '.join(uci_datasets())})"
        )
    if path.is_dir():
        raise InputError(f"DATA: {text}: is a directory, expected a CSV, ARFF or Parquet file")
    suffix = path.suffix.lower()
    nominal = tuple(nominal or ())
    _check_file(path, text, suffix)
    try:
        if suffix == ".arff":
            if nominal:
                raise InputError(
                    f"{_option('nominal')}: {text} is an ARFF file, which declares the type of every attribute"
                )
            _check_arff_width(path, text)
            return _arff_dataset(read_arff(path), text, class_column)
        if suffix in (".parquet", ".pq"):
            _check_parquet_schema(path, text)
            try:
                df = pd.read_parquet(path)
            except Exception as exc:  # pyarrow raises its own error types
                raise InputError(
                    f"DATA: {text}: not a readable Parquet file ({type(exc).__name__}: "
                    f"{str(exc).splitlines()[0] if str(exc) else ''})"
                ) from None
            return _from_frame(df, text, class_column, nominal)
        if suffix in (".csv", ".txt", ".tsv", ""):
            sep = "\t" if suffix == ".tsv" else ","
            _check_width(path, text, sep)
            try:
                with warnings.catch_warnings():
                    # a first data line longer than the header would silently become the row labels (pandas'
                    # implicit index), shifting every value into the next column; refused instead
                    warnings.simplefilter("error", pd.errors.ParserWarning)
                    # a column of mixed numbers and text is judged below (_mostly_numbers), not warned about
                    warnings.simplefilter("ignore", pd.errors.DtypeWarning)
                    df = pd.read_csv(
                        path,
                        sep=sep,
                        skipinitialspace=True,
                        na_values=["?", "NA", "NaN", ""],
                        keep_default_na=True,
                        index_col=False,
                    )
            except pd.errors.ParserWarning:
                n = len(pd.read_csv(path, sep=sep, nrows=0, skipinitialspace=True).columns)
                raise InputError(
                    f"DATA: {text}: the first data line holds more values than the {n:,} columns the header names; "
                    "every line needs one value per column (a value too many, or a name missing from the header?)"
                ) from None
            except UnicodeDecodeError as exc:
                raise InputError(f"DATA: {text}: not a text file ({exc.reason} at byte {exc.start})") from None
            except pd.errors.EmptyDataError:
                raise InputError(f"DATA: {text}: the file is empty") from None
            except pd.errors.ParserError as exc:
                msg = str(exc).strip().splitlines()[-1]
                raise InputError(f"DATA: {text}: cannot parse: {msg}") from None
            if df.empty:
                raise InputError(f"DATA: {text}: a header but no data lines")
            _check_header(path, text, sep, df)
            return _from_frame(df, text, class_column, nominal)
    except OSError as exc:
        raise InputError(f"DATA: {text}: cannot read: {exc.strerror or exc}") from None
    raise InputError(f"DATA: {text}: unknown file type {suffix!r}; expected .csv, .tsv, .arff or .parquet")


def check_metric_for(metric: str, data: Dataset, option: str | None = None) -> str:
    """Refuse, before anything is fitted, a scorer that does not score classifiers on ``data`` (one line).

    Only scikit-learn's classification scorers compare classifiers (a
    regression or clustering scorer is refused), and a scorer for two classes
    (``roc_auc``, ``f1``, ``precision``, ...) is refused on data with more,
    naming its multi-class variants to choose from: each scorer is tried on a
    trivial classifier of the data's classes, so what fails here would have
    failed in every split.  ``option``: the argument the messages name (default ``metric``).
    """
    from sklearn.dummy import DummyClassifier
    from sklearn.metrics import get_scorer, get_scorer_names

    option = _option("metric") if option is None else option
    scorer = get_scorer(metric)
    module = getattr(getattr(scorer, "_score_func", None), "__module__", "") or ""
    classification = module.endswith(("_classification", "_ranking")) or metric in (
        "positive_likelihood_ratio",
        "neg_negative_likelihood_ratio",
    )
    if not classification:
        kind = "a regression" if module.endswith("_regression") else "a clustering" if "cluster" in module else "not a"
        raise InputError(
            f"{option}: {metric!r} is {kind} scorer; an assessment compares classifiers, so use a classification "
            "scorer (accuracy, balanced_accuracy, f1_macro, roc_auc_ovr, neg_log_loss, ...)"
        )
    n_classes = len(data.classes)
    X = np.zeros((data.y.size, 1))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = DummyClassifier(strategy="stratified", random_state=0).fit(X, data.y)
            scorer(est, X, data.y)
    except Exception as exc:
        variants = [
            n for n in get_scorer_names() if n.startswith(f"{metric}_") and not n.endswith("_samples") and n != metric
        ]
        if n_classes > 2 and variants:
            raise InputError(
                f"{option}: {metric!r} scores two classes and {data.name} has {n_classes}; choose one of its "
                f"multi-class variants: {', '.join(variants)}"
            ) from None
        raise InputError(f"{option}: {metric!r} cannot score classifiers on {data.name}: {_one_line(exc)}") from None
    return metric


def _arff_dataset(arff, name, class_column) -> Dataset:
    X, y, names = arff.X, arff.y, list(arff.names)
    cats = list(arff.categories)
    class_name, class_cats = arff.class_name, arff.class_categories
    if class_column is not None and class_column != class_name:
        if class_column not in names:
            raise InputError(
                f"{_option('class_column', flag='class')}: {name} has no attribute {class_column!r}; "
                f"its attributes: {', '.join([*names, class_name])}"
            )
        j = names.index(class_column)
        # the named attribute becomes the class, the file's last attribute an ordinary one
        new_y = X[:, j]
        y_cats = cats[j]
        X = np.column_stack([np.delete(X, j, axis=1), y])
        names = [*names[:j], *names[j + 1 :], class_name]
        cats = [*cats[:j], *cats[j + 1 :], class_cats]
        y, class_cats = new_y, y_cats
    labels = np.array(
        [None if np.isnan(v) else (class_cats[int(v)] if class_cats else repr(float(v))) for v in y], dtype=object
    )
    nominal = [c is not None for c in cats]
    return _finish(
        name,
        X,
        labels,
        names,
        nominal,
        [len(c) if c is not None else 0 for c in cats],
        where=f" attribute {class_column or class_name!r}",
        class_column=class_column or class_name,
    )


def _array_dataset(X, y, name: str = "arrays") -> Dataset:
    try:
        X = np.asarray(X)
    except ValueError:  # rows of different lengths
        raise InputError("X: must be a table of numbers, a row per case and as many values in every row") from None
    if X.ndim != 2:
        raise InputError(f"X: expected a 2-d array (cases x attributes), got shape {X.shape}")
    if X.shape[1] > MAX_COLUMNS:
        raise _too_wide("X", f"{X.shape[1]:,} attributes")
    try:
        Xf = X.astype(float)
    except (TypeError, ValueError):
        raise InputError("X: must hold numbers (encode nominal attributes first, or pass a data file)") from None
    if y is None:
        raise InputError("y: the class labels are needed with an array X")
    try:
        y = np.asarray(y)
    except ValueError:  # sequences of different lengths
        raise InputError("y: holds sequences of different lengths; every case needs a single class label") from None
    if y.ndim != 1 or y.size != Xf.shape[0]:
        raise InputError(f"y: expected {Xf.shape[0]} labels (one per row of X), got shape {y.shape}")
    if y.dtype == object and (at := _first_nested(y)) is not None:
        raise InputError(
            f"y: label {at + 1} is a {type(y[at]).__name__}, not one value; every case needs a single class label"
        )
    return _finish(
        name, Xf, y.astype(object), [f"x{j}" for j in range(Xf.shape[1])], [False] * Xf.shape[1], [0] * Xf.shape[1]
    )


def as_dataset(data, y=None, *, class_column=None, name: str | None = None, nominal=()) -> Dataset:
    """A :class:`Dataset` from a file or shipped name, a DataFrame (the class in ``class_column``, else the
    last column), arrays ``X, y`` or a Dataset; ``name`` replaces the one it would get; ``nominal``: columns of
    a file or DataFrame taken as nominal (see :func:`load_data`)."""
    import dataclasses

    if isinstance(data, Dataset):
        ds = data
    elif isinstance(data, (str, os.PathLike)) and y is None:
        ds = load_data(data, class_column=class_column, nominal=nominal)
    elif isinstance(data, pd.DataFrame) and y is None:
        ds = _from_frame(data, name or "data frame", class_column, tuple(nominal or ()))
    else:
        ds = _array_dataset(data, y, name or "arrays")
    return dataclasses.replace(ds, name=str(name)) if name and ds.name != name else ds
