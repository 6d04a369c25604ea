"""The UCI data sets of Bouckaert (2004) Table 2 that ship with simstudy.

They are ARFF files under ``simstudy/pipeline/data/uci/`` with ``provenance.json`` (source
package and version, licence, transformation, counts, SHA-256), converted once by
``scripts/convert_uci.py`` from Debian's ``weka`` examples, the R package
``mlbench`` and (for autos) the UCI file carried in the Orange3 wheel.  Loading needs neither R nor a network.  Names are those of the
paper's Table 2 (``"German credit"``, ``"pima diabetes"``, ...).
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

from simstudy.pipeline.data.arff import ArffData, read_arff

__all__ = ["uci_datasets", "load_uci", "uci_provenance", "MISSING_UCI"]

_DIR = Path(__file__).resolve().parent / "uci"

# Table 2 data sets that no package reachable from this machine provides (SPEC section 6).
MISSING_UCI = {
    name: "not in Debian's weka examples, mlbench or the Orange3 wheel, and the UCI repository is not reachable"
    for name in (
        "anneal",
        "arrhythmia",
        "audiology",
        "balance-scale",
        "credit-rating",
        "ecoli",
        "heart-statlog",
        "hepatitis",
        "horse-colic",
        "Hungarian heart",
        "lymphography",
        "primary-tumor",
    )
}


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


def load_uci(name: str, *, verify: bool = False) -> ArffData:
    """Load one shipped data set.

    Parameters
    ----------
    name : str
        The data set's name as in Bouckaert's Table 2 (see `uci_datasets`).
    verify : bool, optional
        Also check the file against the SHA-256 recorded in ``provenance.json``.

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
        `MISSING_UCI` when it is a Table 2 set), or ``verify`` finds the file changed.
    """
    prov = uci_provenance()
    if name not in prov:
        why = MISSING_UCI.get(name)
        raise ValueError(
            f"name: {name!r} is not shipped" + (f" ({why})" if why else "") + f"; shipped: {', '.join(uci_datasets())}"
        )
    path = _DIR / prov[name]["file"]
    if verify and hashlib.sha256(path.read_bytes()).hexdigest() != prov[name]["sha256"]:
        raise ValueError(f"name: {path} does not match its recorded checksum")
    return read_arff(path)
