import math
import re

import numpy as np
import pytest

from simstudy.pipeline.data import read_arff, write_arff
from simstudy.pipeline.data.arff import parse_arff

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
    write_arff(
        p,
        d.X,
        d.y,
        names=d.names,
        categories=d.categories,
        class_categories=d.class_categories,
        class_name=d.class_name,
        relation=d.relation,
    )
    e = read_arff(p)
    np.testing.assert_array_equal(e.X, d.X)
    np.testing.assert_array_equal(e.y, d.y)
    assert e.names == d.names and e.categories == d.categories


@pytest.mark.parametrize(
    "bad, msg",
    [
        ("@relation r\n@attribute s string\n@data\n", "unsupported attribute type"),
        ("@relation r\n@attribute a {x,y}\n@data\n{0 x}\n", "sparse"),
        ("@relation r\n@attribute a {x,y}\n@data\nz\n", "not a category"),
        ("@relation r\n@attribute a numeric\n@data\n1,2\n", "expected 1 values"),
    ],
)
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


# ---------------------------------------------------------------- malformed files

HEAD = "@relation r\n@attribute a numeric\n@attribute c {x,y}\n@data\n"


def _write(tmp_path, data: bytes, name="bad.arff"):
    p = tmp_path / name
    p.write_bytes(data)
    return p


def test_file_without_data_section_is_refused(tmp_path):
    p = _write(tmp_path, b"@relation r\n@attribute a numeric\n@attribute c {x,y}\n")
    with pytest.raises(ValueError, match=rf"^{re.escape(str(p))}: no @data line"):
        read_arff(p)


@pytest.mark.parametrize("index", [2, 5, -3])
def test_class_index_past_the_attributes_does_not_wrap(index):
    with pytest.raises(ValueError, match=rf"^class_index: {index} is not the position"):
        parse_arff(HEAD + "1,x\n", index)


def test_class_index_inside_the_range_still_works():
    assert parse_arff(HEAD + "1,x\n", 0).class_name == "a"
    assert parse_arff(HEAD + "1,x\n", -2).class_name == "a"
    with pytest.raises(ValueError, match="^class_index: must be an integer"):
        parse_arff(HEAD + "1,x\n", 1.0)


@pytest.mark.parametrize(
    "text, msg",
    [
        (
            "@relation r\n@attribute a numeric\n@attribute a {x,y}\n@data\n",
            r"^text: line 3: duplicate attribute name 'a' \(first declared on line 2\)",
        ),
        ("@relation r\n@attribute c {x,y,x}\n@data\n", r"^text: line 2: attribute 'c': duplicate nominal value 'x'"),
        ("@relation r\n@attribute c {}\n@data\n", r"^text: line 2: attribute 'c': empty nominal specification"),
        ("@relation r\n@attribute c { }\n@data\n", r"^text: line 2: attribute 'c': empty nominal specification"),
        ("@relation r\n@attribute c {x,,y}\n@data\n", r"^text: line 2: attribute 'c': empty nominal value"),
        (
            "@relation r\n@attribute 'a numeric\n@data\n",
            r"^text: line 2: unterminated quote \(.\) in the attribute name",
        ),
        (HEAD + "1,'x\n", r"^text: line 5: unterminated quote"),
        (HEAD + "1,x\n2,z\n", r"^text: line 6: column 2 \(attribute 'c'\): 'z' is not a category of 'c'"),
    ],
)
def test_malformed_header_or_data_names_the_line(text, msg):
    with pytest.raises(ValueError, match=msg):
        parse_arff(text)


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-Infinity", "1e400", "1_000", "0x10", "1.5.2"])
def test_non_finite_or_foreign_numbers_are_refused(value):
    with pytest.raises(ValueError, match=rf"^text: line 6: column 1 \(attribute 'a'\): '{value}' is "):
        parse_arff(HEAD + f"1,x\n{value},y\n")


@pytest.mark.parametrize(
    "value, expected", [("1", 1.0), ("-2.5", -2.5), (".5", 0.5), ("3.", 3.0), ("+1e-3", 1e-3), ("'4.25'", 4.25)]
)
def test_ordinary_numbers_are_read(value, expected):
    assert parse_arff(HEAD + f"{value},x\n").X[0, 0] == expected


def test_utf8_byte_order_mark_is_skipped(tmp_path):
    p = _write(tmp_path, b"\xef\xbb\xbf" + (HEAD + "1,x\n").encode())
    d = read_arff(p)
    assert d.relation == "r" and d.X.tolist() == [[1.0]]
    assert parse_arff("\ufeff" + HEAD + "1,x\n").X.tolist() == [[1.0]]


def test_non_utf8_bytes_name_file_line_and_position(tmp_path):
    p = _write(tmp_path, (HEAD + "1,x\n").encode() + b"2,\xe9\n")
    with pytest.raises(ValueError, match=rf"^{re.escape(str(p))}: line 6, byte 3 of the line: not UTF-8 \(byte 0xe9\)"):
        read_arff(p)


def test_errors_from_a_file_name_the_file(tmp_path):
    p = _write(tmp_path, (HEAD + "1,x\nnan,y\n").encode())
    with pytest.raises(ValueError, match=rf"^{re.escape(str(p))}: line 6: column 1"):
        read_arff(p)


def test_gzipped_file_that_is_not_gzip_is_a_value_error(tmp_path):
    p = _write(tmp_path, (HEAD + "1,x\n").encode(), name="bad.arff.gz")
    with pytest.raises(ValueError, match=rf"^{re.escape(str(p))}: not a readable gzip file"):
        read_arff(p)
