"""The shipped UCI data sets: present, unchanged, and as the UCI repository describes them."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from simstudy.pipeline.data import MISSING_UCI, load_uci, uci_datasets
from simstudy.pipeline.data import uci as uci_module
from simstudy.pipeline.data.uci import uci_provenance, verify_uci
from simstudy.protocols.bouckaert import UCI_SETS

KNOWN = {  # instances, attributes (class excluded), classes
    "iris": (150, 4, 3),
    "vote": (435, 16, 2),
    "German credit": (1000, 20, 2),
    "pima diabetes": (768, 8, 2),
    "soybean": (683, 35, 19),
    "sonar": (208, 60, 2),
    "Wisconsin breast cancer": (699, 9, 2),
    "zoo": (101, 16, 7),
    "autos": (205, 25, 7),
    "anneal": (898, 38, 6),
    "arrhythmia": (452, 279, 16),
    "audiology": (226, 69, 24),
    "balance-scale": (625, 4, 3),
    "credit-rating": (690, 15, 2),
    "ecoli": (336, 7, 8),
    "heart-statlog": (270, 13, 2),
    "hepatitis": (155, 19, 2),
    "horse-colic": (368, 22, 2),
    "Hungarian heart": (294, 13, 5),
    "lymphography": (148, 18, 4),
    "primary-tumor": (339, 17, 22),
}
# the twelve sets taken as Weka's datasets-UCI files, with the @relation line each file has
WEKA_UCI_RELATIONS = {
    "anneal": "anneal",
    "arrhythmia": "arrhythmia",
    "audiology": "audiology",
    "balance-scale": "balance-scale",
    "credit-rating": "credit-rating",
    "ecoli": "ecoli",
    "heart-statlog": "heart-statlog",
    "hepatitis": "hepatitis",
    "horse-colic": "horse-colic",
    "Hungarian heart": "hungarian-14-heart-disease",
    "lymphography": "lymphography",
    "primary-tumor": "primary-tumor",
}


def test_all_27_sets_of_table_2_ship():
    assert sorted(uci_datasets()) == sorted(UCI_SETS.values()) and not MISSING_UCI


@pytest.mark.parametrize("name", uci_datasets())
def test_every_file_loads_and_matches_its_provenance(name):
    data = load_uci(name, verify=True)
    prov = uci_provenance()[name]
    assert data.X.shape == (prov["instances"], prov["attributes"])
    assert len(data.class_categories) == prov["classes"]
    assert bool(np.isnan(data.X).any()) == prov["missing_values"]
    assert prov["source"] and prov["licence"] and prov["transformation"]


@pytest.mark.parametrize("name, shape", KNOWN.items())
def test_known_facts(name, shape):
    data = load_uci(name)
    assert (*data.X.shape, len(data.class_categories)) == shape


def test_missing_values_where_uci_has_them():
    assert np.isnan(load_uci("vote").X).sum() == 392
    assert np.isnan(load_uci("Wisconsin breast cancer").X).sum() == 16
    assert np.isnan(load_uci("autos").X).sum() == 59


def test_autos_is_shaped_like_wekas():
    """Weka's autos: symboling is the class, declared -3..3 though no car has -3."""
    data = load_uci("autos")
    assert data.class_name == "symboling" and tuple(data.class_categories) == ("-3", "-2", "-1", "0", "1", "2", "3")
    assert np.bincount(data.y.astype(int), minlength=7).tolist() == [0, 3, 22, 67, 54, 32, 27]
    assert data.names[0] == "normalized-losses" and data.names[-1] == "price"
    assert data.categories[data.names.index("num-of-cylinders")][:3] == ("eight", "five", "four")


def test_an_unknown_name_is_refused():
    with pytest.raises(ValueError, match="'lymph' is not shipped; shipped: .*lymphography"):
        load_uci("lymph")


@pytest.mark.parametrize("name", sorted(WEKA_UCI_RELATIONS))
def test_wekas_uci_files_match_their_upstream_record(name):
    """Counts, relation, class and checksum as the record of the repository the bytes came from says."""
    prov = uci_provenance()[name]
    up = prov["upstream"]
    data = load_uci(name)
    assert prov["transformation"] == "copied byte for byte" and "Dua" in prov["licence"]
    assert up["repo"] in prov["source"] and up["commit"] in prov["source"] and up["path"] in prov["source"]
    assert data.relation == WEKA_UCI_RELATIONS[name] == up["relation"]
    assert data.class_name == up["class_attribute"]
    assert len(data.y) == prov["instances"] == up["instances"]
    assert data.X.shape[1] == prov["attributes"] == up["attributes"] - 1  # upstream counts the class too
    assert int((~data.nominal).sum()) == up["numeric_attributes"]
    assert (uci_module._DIR / prov["file"]).stat().st_size == up["size_bytes"]
    assert any(c["sha256"] == prov["sha256"] for c in up["identical_copies"]) or up["identical_after_crlf_to_lf"]


def test_citation_and_licence_of_the_uci_repository_are_recorded():
    import json

    whole = json.loads((uci_module._DIR / "provenance.json").read_text())
    assert "Dua" in whole["citation"] and "Graff" in whole["citation"] and "CC BY 4.0" in whole["licence"]


def test_every_shipped_file_is_checked_on_load(monkeypatch):
    seen = []
    real = uci_module.verify_uci
    monkeypatch.setattr(uci_module, "verify_uci", lambda name, path=None: seen.append(name) or real(name, path))
    for name in uci_datasets():
        load_uci(name)
    assert seen == uci_datasets()


def test_a_damaged_copy_is_refused_in_one_line(tmp_path, monkeypatch):
    name = "lymphography"
    prov = uci_provenance()[name]
    bad = tmp_path / prov["file"]
    shutil.copyfile(uci_module._DIR / prov["file"], bad)
    bad.write_bytes(bad.read_bytes() + b"% edited\n")  # still a valid ARFF file: only the checksum tells
    with pytest.raises(ValueError) as err:
        verify_uci(name, bad)
    assert "\n" not in str(err.value) and str(err.value).startswith(f"{bad}: SHA-256 ")
    assert "provenance.json" in str(err.value) and repr(name) in str(err.value)
    monkeypatch.setattr(uci_module, "_DIR", tmp_path)  # load_uci itself reads the damaged copy and refuses it
    with pytest.raises(ValueError, match="SHA-256 .* is not the"):
        load_uci(name)
    assert load_uci(name, verify=False).X.shape == (148, 18)


def test_what_the_new_sets_bring():
    """Quoted '?' is a category (anneal, as Weka reads it), unquoted ? is missing; declared classes no case has."""
    anneal = load_uci("anneal")
    assert not np.isnan(anneal.X).any() and anneal.categories[0][0] == "?"
    assert np.bincount(anneal.y.astype(int), minlength=6).tolist() == [8, 99, 684, 0, 67, 40]
    assert np.isnan(load_uci("horse-colic").X).sum() == 1927
    assert np.isnan(load_uci("Hungarian heart").X).sum() == 782
    assert np.isnan(load_uci("arrhythmia").X).sum() == 408
    tumor = load_uci("primary-tumor")
    assert (np.bincount(tumor.y.astype(int), minlength=22) == 1).sum() == 3  # classes of a single case
    credit = load_uci("credit-rating")
    assert max(len(c) for c in credit.categories if c) == 14


WEKA_JAR = "/usr/share/java/weka.jar"


@pytest.mark.needs_weka
@pytest.mark.skipif(
    not __import__("os").path.exists(WEKA_JAR) or __import__("shutil").which("java") is None,
    reason="java or Debian's weka.jar missing",
)
def test_weka_agrees_on_a_converted_data_set():
    """zoo comes from mlbench through our conversion: Weka 3.6 must predict as our learners do on its folds."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks" / "weka"))
    import crosscheck
    import j48_crosscheck

    d = load_uci("zoo")
    rows = crosscheck.crosscheck(d, learners=("NaiveBayes", "IB1"))
    assert sum(r[4] for r in rows) == 0
    assert sum(r[3] for r in j48_crosscheck.crosscheck_j48(d)) == 0
