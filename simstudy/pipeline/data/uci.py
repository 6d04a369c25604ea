"""The 27 UCI data sets of Bouckaert (2004) Table 2, shipped with simstudy.

They are ARFF files under ``simstudy/pipeline/data/uci/`` with ``provenance.json`` (source
package or repository and version, licence, transformation, counts, SHA-256), converted once by
``scripts/convert_uci.py`` from Debian's ``weka`` examples, the R package ``mlbench``, (for
autos) the UCI file carried in the Orange3 wheel, and (for the other twelve) Weka's own
ARFF versions taken byte for byte from public repositories.  Every file is checked against its
recorded SHA-256 when it is loaded.  Loading needs neither R nor a network.  Names are those of
the paper's Table 2 (``"German credit"``, ``"pima diabetes"``, ...).

The data are the UCI Machine Learning Repository's (CC BY 4.0; cite Dua, D. and Graff, C. (2019),
UCI Machine Learning Repository, University of California, Irvine, School of Information and
Computer Sciences); ``provenance.json`` records the citation and each file's source.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

from simstudy.errors import InputError
from simstudy.pipeline.data.arff import ArffData, read_arff

__all__ = ["uci_datasets", "load_uci", "uci_provenance", "verify_uci", "MISSING_UCI"]

_DIR = Path(__file__).resolve().parent / "uci"

# Table 2 data sets that are not shipped, with the reason (SPEC section 6): none since all 27 ship.
MISSING_UCI: dict[str, str] = {}


@lru_cache(maxsize=1)
def uci_provenance() -> dict:
    """Where each shipped file comes from, how it was transformed, and its checksum.

    Returns
    -------
    dict
        ``{data set name: record}``, each record as ``provenance.json`` stores it
        (source package and file, transformation, SHA-256 of the shipped ARFF).
    """
    return json.loads((_DIR / "provenance.json").read_text())["datasets"]


def uci_datasets() -> list[str]:
    """Names of the shipped data sets (as in Bouckaert's Table 2)."""
    return sorted(uci_provenance())


def verify_uci(name: str, path: Path | None = None) -> Path:
    """Check the file of the shipped data set ``name`` against the SHA-256 ``provenance.json`` records.

    Parameters
    ----------
    name : str
        A shipped data set (see `uci_datasets`).
    path : Path, optional
        The file to check in place of the shipped one (for tests of a damaged copy).

    Returns
    -------
    Path
        The file checked.

    Raises
    ------
    ValueError
        One line naming the file, when its SHA-256 differs from the recorded one.
    """
    record = uci_provenance()[name]
    path = _DIR / record["file"] if path is None else Path(path)
    actual = hashlib.sha256(path.read_bytes()).hexdigest()
    if actual != record["sha256"]:
        raise InputError(
            f"{path}: SHA-256 {actual[:16]}... is not the {record['sha256'][:16]}... that provenance.json records "
            f"for {name!r}: the file was changed or damaged (reinstall simstudy or rerun scripts/convert_uci.py)"
        )
    return path


def load_uci(name: str, *, verify: bool = True) -> ArffData:
    """Load one shipped data set, its file checked against its recorded SHA-256.

    Parameters
    ----------
    name : str
        The data set's name as in Bouckaert's Table 2 (see `uci_datasets`).
    verify : bool, optional
        Check the file against the SHA-256 recorded in ``provenance.json`` (default).

    Returns
    -------
    ArffData
        As `read_arff` gives it: the class is the last attribute of the file,
        nominal values are coded 0..k-1 in their declared order, missing values
        are NaN.

    Raises
    ------
    ValueError
        If ``name`` is not shipped (the message gives the reason from
        `MISSING_UCI` when it is a Table 2 set), or the file's checksum differs
        from the recorded one (one line naming the file, see `verify_uci`).
    """
    prov = uci_provenance()
    if name not in prov:
        why = MISSING_UCI.get(name)
        raise InputError(
            f"name: {name!r} is not shipped" + (f" ({why})" if why else "") + f"; shipped: {', '.join(uci_datasets())}"
        )
    path = verify_uci(name) if verify else _DIR / prov[name]["file"]
    return read_arff(path)
