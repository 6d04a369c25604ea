"""Convert the 27 UCI data sets of Bouckaert (2004) Table 2 into the package.

Run once, where Debian's ``weka`` and ``r-cran-mlbench`` are installed::

    .venv/bin/python scripts/convert_uci.py [--uci-weka DIR] [--only SOURCE ...]

``--only uci-weka`` (or ``weka``, ``mlbench``, ``orange``) converts the sets of those sources
only and keeps the other records of ``provenance.json`` as they are.

* Weka 3.6's example ARFF files (/usr/share/doc/weka/examples) are copied byte for byte.
* mlbench's .rda data frames are exported by Rscript to CSV (factor levels kept in order)
  and written as ARFF with the class last, shaped like Weka's UCI versions where mlbench
  allows (transformations recorded in ``provenance.json``).
* autos (UCI imports-85) is read from the test data inside the Orange3 wheel on PyPI
  (``pip download orange3 --no-deps``; pass the wheel's path with ``--orange-wheel``, else
  the script downloads it to a temporary directory) and shaped like Weka's autos.arff.
* The other twelve (anneal, arrhythmia, audiology, balance-scale, credit-rating, ecoli,
  heart-statlog, hepatitis, horse-colic, Hungarian heart, lymphography, primary-tumor) are
  Weka's own ARFF versions (its "datasets-UCI" collection), byte-for-byte copies of files held
  in public GitHub repositories, gathered with their provenance (repository, commit, path,
  SHA-256, the independent copies that match) in one folder (``--uci-weka``, default
  ``/work/shared/data/uci-weka``).  They are copied byte for byte after their SHA-256 is checked
  against that folder's ``provenance.json``, whose record of each file is carried into ours.

The package itself reads only the ARFF files and ``provenance.json``: no R, no network.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from simstudy.pipeline.data.arff import read_arff, write_arff

OUT = Path(__file__).resolve().parents[1] / "simstudy" / "pipeline" / "data" / "uci"
WEKA = Path("/usr/share/doc/weka/examples")
UCI_WEKA = Path("/work/shared/data/uci-weka")
SOURCES = ("weka", "mlbench", "orange", "uci-weka")
UCI_LICENCE = (
    "UCI Machine Learning Repository data, licensed by the repository under CC BY 4.0 with credit given "
    "by citing Dua, D. and Graff, C. (2019), UCI Machine Learning Repository, University of California, "
    "Irvine, School of Information and Computer Sciences"
)

# Table 2 name -> Weka example file
FROM_WEKA = {
    "breast-cancer": "breast-cancer.arff",
    "German credit": "credit-g.arff",
    "pima diabetes": "diabetes.arff",
    "glass": "glass.arff",
    "ionosphere": "ionosphere.arff",
    "iris": "iris.arff",
    "labor": "labor.arff",
    "soybean": "soybean.arff",
    "vote": "vote.arff",
}

# Table 2 name -> file of Weka's datasets-UCI collection in --uci-weka
FROM_UCI_WEKA = {
    "anneal": "anneal.arff",
    "arrhythmia": "arrhythmia.arff",
    "audiology": "audiology.arff",
    "balance-scale": "balance-scale.arff",
    "credit-rating": "credit-a.arff",
    "ecoli": "ecoli.arff",
    "heart-statlog": "heart-statlog.arff",
    "hepatitis": "hepatitis.arff",
    "horse-colic": "colic.arff",
    "Hungarian heart": "heart-h.arff",
    "lymphography": "lymph.arff",
    "primary-tumor": "primary-tumor.arff",
}
# fields of the folder's provenance record carried into ours (the upstream file's identity, counts and checks;
# its "attributes" count the class, ours do not)
UCI_WEKA_FIELDS = (
    "repo",
    "commit",
    "first_commit",
    "path",
    "url",
    "size_bytes",
    "instances",
    "attributes",
    "numeric_attributes",
    "nominal_attributes",
    "relation",
    "class_attribute",
    "identical_copies",
    "identical_after_crlf_to_lf",
    "identical_after_trailing_whitespace_normalisation",
    "notes",
)

# Table 2 name -> (mlbench data set, columns to drop, columns made numeric, transformation note)
FROM_MLBENCH = {
    "Wisconsin breast cancer": (
        "BreastCancer",
        ["Id"],
        [
            "Cl.thickness",
            "Cell.size",
            "Cell.shape",
            "Marg.adhesion",
            "Epith.c.size",
            "Bare.nuclei",
            "Bl.cromatin",
            "Normal.nucleoli",
            "Mitoses",
        ],
        "Id dropped; the nine ordered factors 1..10 made numeric, as in Weka's breast-w",
    ),
    "sonar": ("Sonar", [], [], "as in mlbench (60 numeric attributes, class M/R)"),
    "vehicle": ("Vehicle", [], [], "as in mlbench (18 numeric attributes, 4 classes)"),
    "vowel": (
        "Vowel",
        [],
        [],
        "as in mlbench: V1 (a 15-level factor) and V2..V10 numeric; Weka's vowel also has "
        "Train_or_Test, Speaker_Number and Sex, which mlbench does not have",
    ),
    "zoo": (
        "Zoo",
        [],
        ["legs"],
        "logical attributes as nominal {FALSE, TRUE}, legs numeric as in Weka's zoo; "
        "Weka's zoo also has the animal's name, which mlbench does not have",
    ),
}

# Weka's autos.arff: symboling is the class (moved last) and the nominal values are
# declared in the order of the UCI file imports-85.names, not in order of appearance.
AUTOS_NOMINAL = {
    "make": [
        "alfa-romero",
        "audi",
        "bmw",
        "chevrolet",
        "dodge",
        "honda",
        "isuzu",
        "jaguar",
        "mazda",
        "mercedes-benz",
        "mercury",
        "mitsubishi",
        "nissan",
        "peugot",
        "plymouth",
        "porsche",
        "renault",
        "saab",
        "subaru",
        "toyota",
        "volkswagen",
        "volvo",
    ],
    "fuel-type": ["diesel", "gas"],
    "aspiration": ["std", "turbo"],
    "num-of-doors": ["four", "two"],
    "body-style": ["hardtop", "wagon", "sedan", "hatchback", "convertible"],
    "drive-wheels": ["4wd", "fwd", "rwd"],
    "engine-location": ["front", "rear"],
    "engine-type": ["dohc", "dohcv", "l", "ohc", "ohcf", "ohcv", "rotor"],
    "num-of-cylinders": ["eight", "five", "four", "six", "three", "twelve", "two"],
    "fuel-system": ["1bbl", "2bbl", "4bbl", "idi", "mfi", "mpfi", "spdi", "spfi"],
}
AUTOS_CLASS = ("symboling", ["-3", "-2", "-1", "0", "1", "2", "3"])
ORANGE_AUTOS = "Orange/tests/datasets/imports-85.tab"

R_EXPORT = r"""
args <- commandArgs(trailingOnly = TRUE)
suppressMessages(library(mlbench))
data(list = args[1], package = "mlbench", envir = environment())
df <- get(args[1])
lv <- sapply(df, function(col) if (is.factor(col)) paste(levels(col), collapse = "\t") else
             if (is.logical(col)) "FALSE\tTRUE" else "")
writeLines(paste(names(df), lv, sep = "\t=\t"), args[3])
out <- as.data.frame(lapply(df, function(col) if (is.logical(col)) ifelse(col, "TRUE", "FALSE") else as.character(col)),
                     stringsAsFactors = FALSE)
write.table(out, args[2], sep = "\t", row.names = FALSE, col.names = TRUE, na = "?", quote = FALSE)
"""


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def describe(path: Path) -> dict:
    d = read_arff(path)
    return {
        "instances": int(d.X.shape[0]),
        "attributes": int(d.X.shape[1]),
        "classes": len(d.class_categories) if d.class_categories else None,
        "missing_values": bool(np.isnan(d.X).any()),
        "sha256": sha256(path),
    }


def mlbench_to_arff(dataset: str, drop, numeric, target: Path, tmp: Path):
    csv_path, levels_path, script = tmp / f"{dataset}.tsv", tmp / f"{dataset}.levels", tmp / "export.R"
    script.write_text(R_EXPORT)
    subprocess.run(["Rscript", str(script), dataset, str(csv_path), str(levels_path)], check=True)
    levels = {}
    for line in levels_path.read_text().splitlines():
        name, lv = line.split("\t=\t")
        levels[name] = lv.split("\t") if lv else None
    with open(csv_path) as f:
        rows = list(csv.reader(f, delimiter="\t"))
    header, body = rows[0], rows[1:]
    cols = [c for c in header if c not in drop]
    class_col = cols[-1]
    X, names, cats = [], [], []
    for c in cols[:-1]:
        j = header.index(c)
        raw = [r[j] for r in body]
        if levels[c] is not None and c not in numeric:
            lv = levels[c]
            X.append([np.nan if v == "?" else float(lv.index(v)) for v in raw])
            cats.append(lv)
        else:
            X.append([np.nan if v == "?" else float(v) for v in raw])
            cats.append(None)
        names.append(c)
    lv = levels[class_col]
    y = [np.nan if r[header.index(class_col)] == "?" else float(lv.index(r[header.index(class_col)])) for r in body]
    write_arff(
        target,
        np.array(X).T,
        np.array(y),
        names=names,
        categories=cats,
        class_categories=lv,
        class_name=class_col,
        relation=dataset,
    )


def orange_autos_to_arff(wheel: Path, target: Path):
    """UCI imports-85 from Orange's three-header-line tab file, written as Weka's autos.arff is laid out."""
    with zipfile.ZipFile(wheel) as zf:
        text = zf.read(ORANGE_AUTOS).decode("utf-8")
    rows = [line.split("\t") for line in text.splitlines() if line.strip()]
    header, body = [h.strip() for h in rows[0]], [[v.strip() for v in r] for r in rows[3:]]
    class_name, class_levels = AUTOS_CLASS
    X, names, cats = [], [], []
    for j, c in enumerate(header):
        if c == class_name:
            continue
        raw = [r[j] for r in body]
        lv = AUTOS_NOMINAL.get(c)
        X.append([np.nan if v == "?" else float(v if lv is None else lv.index(v)) for v in raw])
        names.append(c)
        cats.append(lv)
    j = header.index(class_name)
    y = [float(class_levels.index(r[j])) for r in body]
    write_arff(
        target,
        np.array(X).T,
        np.array(y),
        names=names,
        categories=cats,
        class_categories=class_levels,
        class_name=class_name,
        relation="autos",
    )


def orange_wheel(given: str | None, tmp: Path) -> Path:
    if given:
        return Path(given)
    subprocess.run([sys.executable, "-m", "pip", "download", "orange3", "--no-deps", "-d", str(tmp)], check=True)
    return next(tmp.glob("orange3-*.whl"))


def from_uci_weka(folder: Path) -> dict:
    """Copy the twelve Weka datasets-UCI files of ``folder`` byte for byte; their provenance records.

    Each file's SHA-256 is checked against ``folder/provenance.json`` before it is copied, and the
    copy's against the same value after.
    """
    upstream = json.loads((folder / "provenance.json").read_text())
    records = {}
    for name, fname in FROM_UCI_WEKA.items():
        src, up = folder / fname, upstream[fname]
        if sha256(src) != up["sha256"]:
            raise SystemExit(f"{src}: SHA-256 {sha256(src)} is not the {up['sha256']} its provenance.json records")
        target = OUT / f"{name.replace(' ', '_')}.arff"
        shutil.copyfile(src, target)
        if sha256(target) != up["sha256"]:
            raise SystemExit(f"{target}: the copy's SHA-256 differs from its source's")
        records[name] = {
            "file": target.name,
            "source": f"Weka's datasets-UCI file {fname}, from GitHub {up['repo']} at commit {up['commit']}, "
            f"path {up['path']}",
            "licence": UCI_LICENCE + "; Weka's ARFF version",
            "transformation": "copied byte for byte",
            "upstream": {k: up[k] for k in UCI_WEKA_FIELDS if k in up},
            **describe(target),
        }
    return records


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--orange-wheel", help="path of a downloaded orange3 wheel (for autos)")
    ap.add_argument(
        "--uci-weka", default=str(UCI_WEKA), help=f"folder of Weka's datasets-UCI files (default {UCI_WEKA})"
    )
    ap.add_argument(
        "--only", nargs="+", choices=SOURCES, default=list(SOURCES), help="convert these sources' sets only"
    )
    args = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    old = OUT / "provenance.json"
    prov = {
        "description": "UCI data sets of Bouckaert (2004) Table 2 shipped with simstudy, converted by "
        "scripts/convert_uci.py",
        "citation": "Dua, D. and Graff, C. (2019). UCI Machine Learning Repository "
        "[http://archive.ics.uci.edu/ml]. Irvine, CA: University of California, School of Information and "
        "Computer Science.",
        "licence": "The data are the UCI Machine Learning Repository's, which licenses its data sets under CC BY "
        "4.0 and asks that it be cited (see citation); each record names the licence of the package or "
        "file the ARFF was taken from.",
        "datasets": json.loads(old.read_text())["datasets"] if old.exists() and set(args.only) != set(SOURCES) else {},
    }
    if "weka" in args.only:
        weka_version = subprocess.run(
            ["dpkg-query", "-W", "-f=${Version}", "weka"], capture_output=True, text=True
        ).stdout
        for name, fname in FROM_WEKA.items():
            target = OUT / f"{name.replace(' ', '_')}.arff"
            shutil.copyfile(WEKA / fname, target)
            prov["datasets"][name] = {
                "file": target.name,
                "source": f"Debian package weka {weka_version}, /usr/share/doc/weka/examples/{fname}",
                "licence": "GPL-2+ (Debian package weka); UCI Machine Learning Repository data",
                "transformation": "copied byte for byte",
                **describe(target),
            }
    with tempfile.TemporaryDirectory() as tmp:
        if "mlbench" in args.only:
            mlbench_version = subprocess.run(
                ["Rscript", "-e", 'cat(as.character(packageVersion("mlbench")))'], capture_output=True, text=True
            ).stdout
            for name, (dataset, drop, numeric, note) in FROM_MLBENCH.items():
                target = OUT / f"{name.replace(' ', '_')}.arff"
                mlbench_to_arff(dataset, drop, numeric, target, Path(tmp))
                prov["datasets"][name] = {
                    "file": target.name,
                    "source": f"R package mlbench {mlbench_version} (Debian r-cran-mlbench), data set {dataset}",
                    "licence": "GPL-2 (mlbench); UCI Machine Learning Repository data",
                    "transformation": note,
                    **describe(target),
                }
        if "orange" in args.only:
            wheel = orange_wheel(args.orange_wheel, Path(tmp))
            target = OUT / "autos.arff"
            orange_autos_to_arff(wheel, target)
            prov["datasets"]["autos"] = {
                "file": target.name,
                "source": f"PyPI wheel {wheel.name} (Orange3 {wheel.name.split('-')[1]}), "
                f"file {ORANGE_AUTOS} (UCI imports-85)",
                "licence": "GPL-3+ (Orange3); UCI Machine Learning Repository data",
                "transformation": "symboling made the class (nominal -3..3) and moved last, as "
                "in Weka's autos; nominal values declared in the order of UCI's imports-85.names as Weka does; "
                "Orange's 'class' role on price dropped (price is a numeric attribute)",
                **describe(target),
            }
    if "uci-weka" in args.only:
        prov["datasets"].update(from_uci_weka(Path(args.uci_weka)))
    old.write_text(json.dumps(prov, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(args.only)} source(s); {len(prov['datasets'])} data sets in {OUT}")


if __name__ == "__main__":
    main()
