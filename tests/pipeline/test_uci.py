"""The shipped UCI data sets: present, unchanged, and as the UCI repository describes them."""

from __future__ import annotations

import numpy as np
import pytest

from simstudy.pipeline.data import MISSING_UCI, load_uci, uci_datasets
from simstudy.pipeline.data.uci import uci_provenance

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
}


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


def test_unshipped_set_names_the_reason():
    assert "lymphography" in MISSING_UCI
    with pytest.raises(ValueError, match="lymphography.*not shipped"):
        load_uci("lymphography")
    assert len(uci_datasets()) + len(MISSING_UCI) == 27


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
