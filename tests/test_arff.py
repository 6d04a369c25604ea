import math

import numpy as np
import pytest

from simstudy.data import read_arff, write_arff
from simstudy.data.arff import parse_arff

TEXT = """% a comment
@relation 'toy data'
@attribute 'my attr' { 'a b', c}
@attribute x numeric
@attribute class {yes,no}
@data
'a b', 1.5, yes
c, ?, no
?, -2, 'no'
"""


def test_parse_codes_and_missing():
    d = parse_arff(TEXT)
    assert d.relation == "toy data"
    assert d.names == ("my attr", "x")
    assert d.categories == (("a b", "c"), None)
    assert d.class_categories == ("yes", "no")
    np.testing.assert_array_equal(d.nominal, [True, False])
    assert d.X[0].tolist() == [0.0, 1.5]
    assert d.X[1, 0] == 1.0 and math.isnan(d.X[1, 1])
    assert math.isnan(d.X[2, 0]) and d.X[2, 1] == -2.0
    assert d.y.tolist() == [0.0, 1.0, 1.0]


def test_roundtrip(tmp_path):
    d = parse_arff(TEXT)
    p = tmp_path / "t.arff"
    write_arff(p, d.X, d.y, names=d.names, categories=d.categories,
               class_categories=d.class_categories, class_name=d.class_name, relation=d.relation)
    e = read_arff(p)
    np.testing.assert_array_equal(e.X, d.X)
    np.testing.assert_array_equal(e.y, d.y)
    assert e.names == d.names and e.categories == d.categories


@pytest.mark.parametrize("bad, msg", [
    ("@relation r\n@attribute s string\n@data\n", "unsupported attribute type"),
    ("@relation r\n@attribute a {x,y}\n@data\n{0 x}\n", "sparse"),
    ("@relation r\n@attribute a {x,y}\n@data\nz\n", "not a category"),
    ("@relation r\n@attribute a numeric\n@data\n1,2\n", "expected 1 values"),
])
def test_rejections(bad, msg):
    with pytest.raises(ValueError, match=msg):
        parse_arff(bad)


def test_weka_examples_if_present():
    import os
    path = "/usr/share/doc/weka/examples/vote.arff"
    if not os.path.exists(path):
        pytest.skip("weka examples not installed")
    d = read_arff(path)
    assert d.X.shape == (435, 16) and d.nominal.all()
    assert int(np.isnan(d.X).sum()) == 392  # missing values in vote.arff
