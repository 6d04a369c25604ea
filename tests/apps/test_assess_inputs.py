"""simstudy assess: what comes from the user's data and learners is escaped, refused or stated, never passed on.

* the Markdown page carries class labels, file names and learner labels as text: no HTML or Markdown from them;
* infinite feature values, estimators that are not classifiers, classes too small for a design and learners
  that fail in a split are refused on one line (exit code 2 from the command line), rows without a class are
  counted in the output and the pages;
* a finished assessment is re-read from a read-only folder.
"""

from __future__ import annotations

import html
import re
import sys

import numpy as np
import pytest

from simstudy.apps.assess import (
    Dataset,
    LearnerChoice,
    assess,
    designs_for_data,
    load_data,
    parse_learner,
)
from simstudy.apps.assess.checks import _check_learnable
from simstudy.apps.assess.report import assessment_markdown, md_text
from simstudy.cli import main

TINY = ["--designs", "cv2x2", "--repeats", "2", "--quiet"]
TINY_KW = dict(designs=("cv2x2",), n_repeats=2, evidence=None)


def _csv(path, n=40, *, labels=("no", "yes"), first=None):
    """A small two-class CSV (x1 informative, x2 noise); ``first`` replaces the first data rows."""
    rng = np.random.default_rng(0)
    lines = ["x1,x2,label"]
    for i in range(n):
        c = i % len(labels)
        lines.append(f"{rng.normal(c, 1):.4f},{rng.normal():.4f},{labels[c]}")
    for i, row in enumerate(first or []):
        lines[1 + i] = row
    path.write_text("\n".join(lines) + "\n")
    return path


def _refused(capsys, argv, out, *needles):
    """The command refuses on one line of stderr with exit code 2 and writes nothing."""
    assert main([*map(str, argv), "--out", str(out)]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert len(err.splitlines()) == 1, err
    for needle in needles:
        assert needle in err, (needle, err)
    assert not out.exists()
    return err


# -- 1. nothing from the data becomes HTML or Markdown ----------------------------------------------------------

HOSTILE = [
    "<img src=x onerror=alert(1)>",
    "a|b`c`",
    "[link](http://evil.example/x)",
    "![i](x.png)",
    "**bold** _em_ ~~gone~~ $x$",
    "# head",
    "http://evil.example",
    "www.evil.example",
    "me@evil.example",
    "&amp; entity",
    "back\\slash|",
    ":smile: @user",
    "{: .class}",
    "snake_case_name",
]


def _unescape(md: str) -> str:
    """What a CommonMark renderer shows for inline text made by md_text (code span, escapes, entities)."""
    md = md.replace("`@`", "@")
    md = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", md)
    return html.unescape(md)


@pytest.mark.parametrize("text", HOSTILE)
def test_md_text_renders_as_the_text_and_nothing_else(text):
    md = md_text(text)
    assert "<" not in md and ">" not in md  # no tag, no autolink
    # every structural character is escaped (preceded by an odd number of backslashes); "@" in a code span
    bare = md.replace("`@`", "")
    for m in re.finditer(r"[`|*\[\]~$#{}]", bare):
        assert _backslashes_before(bare, m.start()) % 2 == 1, (text, md)
    assert "http:" not in md and "www." not in md and "://" not in md.replace("\\://", "")
    assert _unescape(md) == text  # readable: it shows exactly the text
    assert "\n" not in md_text(text + "\nnext line")
    assert md_text("paired_t") == "paired_t"  # names stay as they are


def _backslashes_before(text: str, i: int) -> int:
    return len(text[:i]) - len(text[:i].rstrip("\\"))


def _cells(line: str) -> int:
    """Table cells of one Markdown table line (a | preceded by an even number of backslashes separates)."""
    return sum(1 for m in re.finditer(r"\|", line) if _backslashes_before(line, m.start()) % 2 == 0) - 1


def test_markdown_page_escapes_labels_file_name_and_learner_labels(tmp_path, capsys):
    odd = tmp_path / "d<b>|`x`[y](z).csv"
    labels = ("<img src=x onerror=alert(1)>", "a|b`c`[l](http://evil.example)")
    _csv(odd, labels=labels)
    out = tmp_path / "run"
    b_params = '{"strategy": "prior", "constant": "<script>|`x`"}'
    argv = [
        "assess",
        odd,
        "--a",
        "NB",
        "--b",
        "sklearn.dummy:DummyClassifier",
        "--b-params",
        b_params,
        *TINY,
        "--out",
        out,
        "--results",
        tmp_path / "none",
    ]
    assert main(list(map(str, argv))) == 0
    capsys.readouterr()
    md = (out / "assessment.md").read_text()
    assert "<img" not in md and "<script" not in md and "<b>" not in md
    assert "<" not in md.replace("&lt;", "")  # no tag at all on the page
    for text in (*labels, str(odd), "<script>|`x`"):
        assert _unescape(md_text(text)) == text
    assert md_text(labels[0]) in md and md_text(str(odd)) in md
    assert md_text(labels[1]) in md
    # tables keep their shape: every row has as many cells as its header
    lines = md.splitlines()
    tables = [i for i in range(len(lines) - 1) if lines[i].startswith("| ") and lines[i + 1][:2] in ("|:", "|-")]
    assert len(tables) == 2
    for i in tables:
        n, j = _cells(lines[i]), i + 2
        while j < len(lines) and lines[j].startswith("|"):
            assert _cells(lines[j]) == n, lines[j]
            j += 1
        assert j > i + 2
    # the data's backticks are escaped: no code span comes from the data
    assert "`x`" not in md and "`c`" not in md and "\\`x\\`" in md and "\\`c\\`" in md
    page = (out / "assessment.html").read_text()
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page


def test_markdown_page_from_the_python_api_is_escaped_too(tmp_path):
    X = np.random.default_rng(1).normal(size=(30, 2))
    y = np.array(["<i>one</i>", "two|`2`"] * 15)
    X[y == "two|`2`", 0] += 2
    a = assess(X, y, "NB", "C4.5", out=tmp_path / "run", **TINY_KW)
    md = assessment_markdown(a)
    assert "<i>" not in md and md_text("<i>one</i>") in md and md_text("two|`2`") in md


# -- 2a. infinite feature values ----------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["inf", "-inf", "1e400", "-1e400", "Infinity"])
def test_infinite_feature_values_are_refused_naming_the_columns(tmp_path, capsys, value):
    path = _csv(tmp_path / "d.csv", first=[f"0.5,{value},no", f"{value},0.1,yes"])
    err = _refused(
        capsys,
        ["assess", path, "--a", "NB", "--b", "C4.5", *TINY],
        tmp_path / "run",
        "DATA:",
        "'x1', 'x2'",
        "infinite",
        "1e400",
    )
    assert "data row 1, column 'x2'" in err
    with pytest.raises(ValueError, match=r"column\(s\) 'x1', 'x2' hold 2 infinite value"):
        load_data(path)


def test_infinite_values_in_arrays_are_refused_and_missing_values_stay_allowed(tmp_path):
    X = np.random.default_rng(2).normal(size=(20, 3))
    y = np.repeat([0, 1], 10)
    bad = X.copy()
    bad[3, 2] = np.inf
    with pytest.raises(ValueError, match=r"column\(s\) 'x2' hold 1 infinite value"):
        assess(bad, y, "NB", "C4.5", out=tmp_path / "run", **TINY_KW)
    assert not (tmp_path / "run").exists()
    # NaN means missing: kept, for the learners that handle it
    gaps = X.copy()
    gaps[3, 2] = np.nan
    a = assess(gaps, y, "NB", "C4.5", out=tmp_path / "gaps", **TINY_KW)
    assert a.data.has_missing and len(a.table)
    path = _csv(tmp_path / "g.csv", first=["0.5,,no", "NaN,0.1,yes"])
    data = load_data(path)
    assert np.isnan(data.X[0, 1]) and np.isnan(data.X[1, 0])


# -- 2b. learners that are not classifiers -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec, kind",
    [("sklearn.linear_model:LinearRegression", "is a regressor"), ("sklearn.cluster:KMeans", "is a clusterer")],
)
def test_an_estimator_that_is_not_a_classifier_is_refused(tmp_path, capsys, spec, kind):
    path = _csv(tmp_path / "d.csv")
    _refused(
        capsys,
        ["assess", path, "--a", "NB", "--b", spec, *TINY],
        tmp_path / "run",
        f"--b: {spec} {kind}, not a classifier",
    )


class _PlainRegressor:
    """Not scikit-learn: fit/predict, numbers out."""

    def fit(self, X, y):
        self.mean_ = float(np.mean(y)) + 0.1
        return self

    def predict(self, X):
        return np.full(len(X), self.mean_)


class _PlainClassifier(_PlainRegressor):
    """Not scikit-learn, but a classifier: classes_, and classes out."""

    def fit(self, X, y):
        self.classes_, counts = np.unique(y, return_counts=True)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])


def test_regressors_are_refused_in_python_too(tmp_path):
    from sklearn.linear_model import LinearRegression

    path = _csv(tmp_path / "d.csv")
    with pytest.raises(ValueError, match="^a: .*LinearRegression.* is a regressor, not a classifier"):
        assess(path, None, LinearRegression(), "NB", out=tmp_path / "run", **TINY_KW)
    with pytest.raises(ValueError, match="^b: .* does not look like a classifier: after a fit it has neither"):
        assess(path, None, "NB", lambda: _PlainRegressor(), out=tmp_path / "run", **TINY_KW)  # a factory
    assert not (tmp_path / "run").exists()
    data = load_data(path)
    _check_learnable(data, parse_learner(lambda: _PlainClassifier(), option="--a"), "--a")  # accepted


def test_a_learner_that_predicts_values_that_are_no_classes_is_refused():
    data = Dataset("d", np.arange(20.0)[:, None], np.repeat([0, 1], 10), ("x",), (False,), (0,), ("a", "b"))

    class Rounding(_PlainClassifier):
        def predict(self, X):
            return np.full(len(X), 0.61)

    with pytest.raises(ValueError, match="--a: .* predicts values that are not classes of the data \\(e.g. 0.61"):
        _check_learnable(data, LearnerChoice("rounding", template=lambda: Rounding()), "--a")


# -- 2c. classes too small for a design ----------------------------------------------------------------------------


def test_classes_of_one_case_are_refused_whatever_the_design(tmp_path, capsys):
    path = tmp_path / "twelve.csv"
    path.write_text("x1,x2,label\n" + "".join(f"{i},{2 * i},c{i}\n" for i in range(12)))
    for design in ("cv10x10", "cv1x2", "5x2cv", "resampled10"):
        _refused(
            capsys,
            ["assess", path, "--a", "NB", "--b", "C4.5", "--designs", design, "--repeats", "2", "--quiet"],
            tmp_path / "run",
            "--designs: 12 class(es) have a single case",
            "'c0'",
        )
    with pytest.raises(ValueError, match="single case"):
        assess(path, None, "NB", "C4.5", out=tmp_path / "run", designs=("5x2cv",), n_repeats=2, evidence=None)
    assert not (tmp_path / "run").exists()


def test_a_small_class_names_the_designs_that_fit(tmp_path, capsys):
    y = np.repeat([0, 1, 2], [20, 20, 3])
    with pytest.raises(
        ValueError,
        match=r"cv10x10: 10 folds but the smallest class has 3 cases \('c'\).*"
        r"designs=\['cv10x3', '5x2cv', 'resampled10'\]$",
    ):
        designs_for_data(["cv10x10", "5x2cv", "resampled10"], y, classes=("a", "b", "c"))
    # every design is checked, the resampled one included: one case of a class
    for design in ("5x2cv", "resampled10", "cv1x2"):
        with pytest.raises(ValueError, match="1 class\\(es\\) have a single case \\('c'\\)"):
            designs_for_data([design], np.repeat([0, 1, 2], [20, 20, 1]), classes=("a", "b", "c"))
    assert [d.key for d in designs_for_data(["cv10x3", "5x2cv", "resampled10"], y)] == [
        "cv10x3",
        "5x2cv",
        "resampled10",
    ]
    path = _csv(tmp_path / "d.csv", labels=("no", "yes", "no", "yes", "no", "yes", "no", "yes", "no", "rare"))
    _refused(
        capsys,
        ["assess", path, "--a", "NB", "--b", "C4.5", "--full", "--quiet"],
        tmp_path / "run",
        "smallest class has 4 cases ('rare')",
        "--designs cv10x4 5x2cv resampled10",
    )


# -- 2d. rows without a class ----------------------------------------------------------------------------------------


def test_rows_without_a_class_are_counted_in_the_output_and_the_pages(tmp_path, capsys):
    path = _csv(tmp_path / "d.csv", n=43, first=["0.1,0.2,", "0.3,0.4,?", "0.5,0.6,NA"])
    data = load_data(path)
    assert data.n_dropped == 3 and data.y.size == 40
    note = "3 row(s) without a class (an empty or missing value in 'label') were left out"
    out = tmp_path / "run"
    assert (
        main(
            list(
                map(
                    str,
                    ["assess", path, "--a", "NB", "--b", "C4.5", *TINY, "--out", out, "--results", tmp_path / "none"],
                )
            )
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert note in printed and "the 40 cases are the rows that have one" in printed
    assert md_text(note) in (out / "assessment.md").read_text()
    assert html.escape(note) in (out / "assessment.html").read_text()
    complete = load_data(_csv(tmp_path / "e.csv"))
    assert complete.n_dropped == 0 and complete.dropped_note == ""


# -- 2e. a learner that fails in a split --------------------------------------------------------------------------

FLAKY = '''
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin


class FailsOnSplits(ClassifierMixin, BaseEstimator):
    """Learns from the whole data set (the trial fit), fails on every smaller training set."""

    def __init__(self, min_rows=30):
        self.min_rows = min_rows

    def fit(self, X, y):
        if len(X) < self.min_rows:
            raise ValueError(f"needs {self.min_rows} rows, got {len(X)}")
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])
'''


@pytest.fixture
def flaky(tmp_path, monkeypatch):
    (tmp_path / "flaky_learner.py").write_text(FLAKY)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "flaky_learner:FailsOnSplits"
    sys.modules.pop("flaky_learner", None)


def test_a_learner_failing_in_the_splits_is_one_line_and_its_failures_are_kept(tmp_path, capsys, flaky):
    path = _csv(tmp_path / "d.csv")
    out = tmp_path / "run"
    argv = ["assess", path, "--a", "NB", "--b", flaky, *TINY, "--out", out, "--results", tmp_path / "none"]
    assert main(list(map(str, argv))) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert (
        f"--b: {flaky} failed in 2 of 2 repeats; first: design cv2x2 repeat 0: ValueError: needs 30 rows, got 20"
    ) in err
    assert str(out) in err and "--fresh" in err
    assert "KeyError" not in err and "Traceback" not in err
    failures = sorted(out.glob("chunks/*/*/failures.parquet"))
    assert len(failures) == 2 and not (out / "assessment.md").exists()
    import pandas as pd

    rows = pd.concat(pd.read_parquet(f) for f in failures)
    assert rows["error"].str.startswith(f"LearnerFailed: learner B ({flaky}) failed: ValueError").all()
    assert rows["traceback"].str.contains("needs 30 rows").all()
    # the same from Python, also when the stored run is read again
    with pytest.raises(ValueError, match=f"^b: {flaky} failed in 2 of 2 repeats"):
        assess(path, None, "NB", flaky, out=out, **TINY_KW)


# -- 3. a finished assessment is re-read from a read-only folder -------------------------------------------------


def _snapshot(directory):
    return {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in sorted(directory.rglob("*")) if p.is_file()}


def test_a_finished_assessment_is_re_read_from_a_read_only_folder(tmp_path, capsys, monkeypatch):
    import simstudy._files
    from simstudy.engine.store import RunLock

    path = _csv(tmp_path / "d.csv")
    out = tmp_path / "run"
    argv = list(
        map(str, ["assess", path, "--a", "NB", "--b", "C4.5", *TINY, "--out", out, "--results", tmp_path / "none"])
    )
    assert main(argv) == 0
    first = capsys.readouterr().out
    before = _snapshot(out)

    def refused(*args, **kwargs):  # what a read-only folder answers (also when the tests run as root)
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(RunLock, "acquire", refused)
    monkeypatch.setattr(simstudy._files, "write_atomic", refused)
    modes = {p: p.stat().st_mode for p in [out, *out.rglob("*")]}
    for p in modes:
        p.chmod(modes[p] & ~0o222)
    try:
        assert main(argv) == 0
        again = capsys.readouterr()
        assert again.out.split("\nPages up to date")[0] == first.split("\nWrote")[0]
        assert "Pages up to date" in again.out and again.err == ""
        a = assess(path, None, "NB", "C4.5", out=out, **TINY_KW)
        assert a.run.complete and len(a.table)
    finally:
        for p, mode in modes.items():
            p.chmod(mode)
    assert _snapshot(out) == before  # nothing was written


# -- checks before work: the data, the metric, the designs and the plan --------------------------------------


def test_a_column_of_numbers_with_a_few_other_cells_is_refused_naming_them(tmp_path, capsys):
    path = _csv(tmp_path / "typo.csv", first=["1.5,0.1,no", "1;5,0.2,yes", "0.7,0.3,no", "abc,0.4,yes"])
    err = _refused(capsys, ["assess", path, "--a", "NB", "--b", "C4.5", *TINY], tmp_path / "never", "column 'x1'")
    assert "2 cell(s)" in err and "data row(s) 2 ('1;5'), 4 ('abc')" in err and "--nominal x1" in err
    # declared nominal, the column is taken as it is: one level per value
    data = load_data(path, nominal=["x1"])
    assert data.nominal == (True, False) and data.n_categories[0] == 40
    with pytest.raises(ValueError, match=r"^nominal: .* has no column 'x9'"):
        load_data(path, nominal=["x9"])
    # a column of words with a few numbers stays nominal: most of its cells are not numbers
    words = tmp_path / "words.csv"
    words.write_text(
        "c,x2,label\n" + "".join(f"{'7' if i < 3 else 'rgb'[i % 3]},{i},{'ny'[i % 2]}\n" for i in range(40))
    )
    assert load_data(words).nominal == (True, False)


def test_a_csv_without_a_header_or_with_a_name_twice_is_refused(tmp_path, capsys):
    path = _csv(tmp_path / "d.csv")
    lines = path.read_text().splitlines()
    (tmp_path / "nohead.csv").write_text("\n".join(lines[1:]) + "\n")
    err = _refused(capsys, ["assess", tmp_path / "nohead.csv", "--a", "NB", "--b", "C4.5", *TINY], tmp_path / "n1")
    assert "looks like data, not a header" in err and "is also a value of its column" in err
    numbers = tmp_path / "numbers.csv"
    numbers.write_text("\n".join(f"{i * 0.5},{(i + 2) % 3},{i % 2}" for i in range(1, 41)) + "\n")
    err = _refused(capsys, ["assess", numbers, "--a", "NB", "--b", "C4.5", *TINY], tmp_path / "n2")
    assert "every cell is a number" in err
    (tmp_path / "dup.csv").write_text("\n".join(["x,x,label"] + lines[1:]) + "\n")
    err = _refused(capsys, ["assess", tmp_path / "dup.csv", "--a", "NB", "--b", "C4.5", *TINY], tmp_path / "n3")
    assert "the column name 'x' appears 2 times in the header (columns 1, 2)" in err
    # numbers as column names are fine when the data below them are not their kind
    ok = tmp_path / "named.csv"
    ok.write_text("\n".join(["1,2,class"] + lines[1:]) + "\n")
    assert load_data(ok).columns == ("1", "2")


def test_what_is_not_a_regular_file_or_too_large_is_not_read(tmp_path, capsys, monkeypatch):
    err = _refused(capsys, ["assess", "/dev/zero", "--a", "NB", "--b", "C4.5", *TINY], tmp_path / "z")
    assert "DATA: /dev/zero: not a regular file" in err
    import simstudy.apps.assess.data as module

    path = _csv(tmp_path / "d.csv")
    monkeypatch.setattr(module, "available_memory", lambda: 100)  # bytes: the file needs more
    with pytest.raises(ValueError, match=r"^DATA: .*d\.csv: .* which needs about .* of memory to read"):
        load_data(path)


@pytest.mark.parametrize(
    "metric, classes, needle",
    [
        ("r2", 2, "'r2' is a regression scorer"),
        ("neg_mean_squared_error", 2, "is a regression scorer"),
        ("adjusted_rand_score", 2, "is a clustering scorer"),
        (
            "roc_auc",
            3,
            "three.csv has 3; choose one of its multi-class variants: "
            "roc_auc_ovo, roc_auc_ovo_weighted, roc_auc_ovr, roc_auc_ovr_weighted",
        ),  # fmt: skip
        ("f1", 3, "variants: f1_macro, f1_micro, f1_weighted"),
        ("f1_samples", 2, "cannot score classifiers"),
    ],
)
def test_a_metric_that_does_not_fit_the_task_is_refused_before_fitting(tmp_path, capsys, metric, classes, needle):
    path = _csv(tmp_path / ("three.csv" if classes == 3 else "two.csv"), n=60, labels=("a", "b", "c")[:classes])
    err = _refused(capsys, ["assess", path, "--a", "NB", "--b", "C4.5", "--metric", metric, *TINY], tmp_path / "m")
    assert err.startswith("simstudy: error: --metric: ") and needle in err


@pytest.mark.parametrize("metric", ["roc_auc_ovr", "f1_macro", "neg_log_loss", "balanced_accuracy"])
def test_classification_scorers_of_multi_class_data_pass_the_check(tmp_path, metric):
    from simstudy.apps.assess import check_metric_for

    data = load_data(_csv(tmp_path / "three.csv", n=60, labels=("a", "b", "c")))
    assert check_metric_for(metric, data) == metric


def test_a_design_no_test_can_give_a_result_on_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    """The old cv1x10: with one run, two schemes have one value per repeat. Checked on stand-in learners."""
    import simstudy.apps.assess.designs as module
    from simstudy.pipeline.schemes import SCHEMES

    path = _csv(tmp_path / "d.csv")
    monkeypatch.setattr(module, "_schemes_for", lambda design: SCHEMES)  # the schemes as they were
    with pytest.raises(ValueError, match=r"^designs: cv1x10 cannot give a result on .*d\.csv: test 'paired_t' "):
        assess(path, None, "NB", "C4.5", designs=("cv1x10",), n_repeats=2, out=tmp_path / "never", evidence=None)
    assert not (tmp_path / "never").exists()


def test_cv1x10_is_a_plain_10_fold_cv_with_its_tests(tmp_path):
    path = _csv(tmp_path / "d.csv")
    a = assess(path, None, "NB", "C4.5", designs=("cv1x10",), n_repeats=2, out=tmp_path / "cv", evidence=None)
    outcomes = a.run.table("outcomes")
    assert set(outcomes["scheme"]) == {"kfold_cv", ""}
    assert set(outcomes["test"]) == {"paired_t", "sign", "signed_rank", "corrected_cv_t"}
    assert not a.run.n_failures()


@pytest.mark.parametrize("repeats", ["1000000000", "100000000"])
def test_a_plan_larger_than_the_machine_is_refused_with_its_estimates(tmp_path, capsys, repeats):
    path = _csv(tmp_path / "d.csv")
    err = _refused(capsys, ["assess", path, "--a", "NB", "--b", "C4.5", "--full", "--repeats", repeats, "--quiet"],
                   tmp_path / "big")  # fmt: skip
    assert err.startswith(f"simstudy: error: --repeats: {int(repeats):,} repeats of 3 design(s)")
    assert "of memory" in err and "of disk" in err and "fitting them would take about" in err


def test_a_plan_refused_for_its_time_alone(tmp_path):
    from simstudy.apps.assess import check_budget

    with pytest.raises(ValueError, match=r"^n_repeats: 3 repeats make 3 stored chunks, .*fitting them would take "
                       r"about 2\.0 years at the speed of the trial fits \(more than the year"):  # fmt: skip
        check_budget(3, 2 * 365 * 86400.0, tmp_path, what="3 repeats")
    check_budget(3, 60.0, tmp_path, what="3 repeats")  # a minute: carried out


def test_several_data_sets_a_learner_that_cannot_take_one_is_one_line_naming_both(tmp_path, capsys):
    out = tmp_path / "many"
    assert main(["assess", "iris", "labor", "--learners", "sklearn.linear_model:LogisticRegression", "NB",
                 "--quiet", "--out", str(out)]) == 2  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--learners: sklearn.linear_model:LogisticRegression needs numbers" in err[0]
    assert "of labor are not numeric" in err[0]
    assert not out.exists()


# -- tables that cannot be a table of attributes: refused before they are parsed or learnt from ------------
def test_a_header_of_a_million_columns_is_refused_at_once_naming_the_limit(tmp_path):
    # parsing it and checking each column took minutes (a 10^6-column header was still loading after 15 minutes);
    # the header alone is counted now.  A subprocess with a bound, so that a return of the slow path fails, not hangs.
    import subprocess

    path = tmp_path / "wide.csv"
    with open(path, "w") as f:
        f.write(",".join(f"c{i}" for i in range(1_000_000)) + "\n")
        f.write("1,y\n2,n\n")
    proc = subprocess.run(
        [sys.executable, "-m", "simstudy.cli", "assess", str(path), "--a", "NB", "--b", "C4.5", "--quiet"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1 and "1,000,000 columns" in err[0] and "100,000" in err[0], err
    assert not (tmp_path / "results").exists()


def test_a_first_line_longer_than_any_header_is_refused(tmp_path, capsys, monkeypatch):
    from simstudy.apps.assess import data

    monkeypatch.setattr(data, "_HEADER_BYTES", 1024)
    path = tmp_path / "line.csv"
    path.write_text("x" * 5000 + "\n1\n")
    assert main(["assess", str(path), "--a", "NB", "--b", "C4.5", "--quiet", "--out", str(tmp_path / "o")]) == 2
    assert "first line is longer than" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def _nested_frame():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "x": rng.normal(size=40),
            "tags": [[int(v), 1] for v in rng.integers(0, 3, 40)],
            "label": ["ny"[i % 2] for i in range(40)],
        }
    )


def test_a_parquet_column_of_lists_is_refused_not_taken_as_one_category_per_row(tmp_path, capsys):
    _nested_frame().to_parquet(tmp_path / "lists.parquet")
    argv = ["assess", str(tmp_path / "lists.parquet"), "--a", "NB", "--b", "C4.5", "--quiet"]
    assert main([*argv, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "column 'tags' is of the nested type list" in err[0], err
    assert not (tmp_path / "o").exists()


def test_a_struct_column_and_a_frame_of_lists_are_refused_too(tmp_path):
    from simstudy.apps.assess.data import as_dataset

    frame = _nested_frame()
    frame["tags"] = [{"a": v[0], "b": v[1]} for v in frame["tags"]]
    frame.to_parquet(tmp_path / "struct.parquet")
    with pytest.raises(ValueError, match="column 'tags' is of the nested type struct"):
        load_data(tmp_path / "struct.parquet")
    with pytest.raises(ValueError, match=r"column 'tags' holds a list \(row 1\), not one value"):
        as_dataset(_nested_frame(), class_column="label")


def _frame_with(column):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    return pd.DataFrame({"x": rng.normal(size=40), "t": column, "label": ["ny"[i % 2] for i in range(40)]})


def test_a_frame_holding_a_list_in_any_row_or_category_is_refused():
    # only the first present cell was looked at: a list in a later row (or after pd.NA), a set, a categorical of
    # tuples and an Arrow list column became nominal attributes with a category per distinct list
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    from simstudy.apps.assess.data import as_dataset

    for column, needle in (
        ([1.0] + [[1, 2]] * 39, "holds a list (row 2)"),
        ([pd.NA] + [[1, 2]] * 39, "holds a list (row 2)"),
        ([frozenset({i % 3}) for i in range(40)], "holds a frozenset (row 1)"),
        (pd.Categorical([(1, 2), (3,)] * 20), "holds a tuple (a category)"),
        (pd.Series([[1, 2]] * 40, dtype=pd.ArrowDtype(pa.list_(pa.int64()))), "is of the nested type list"),
    ):
        with pytest.raises(ValueError, match="^DATA: data frame: column 't' " + re.escape(needle)):
            as_dataset(_frame_with(column), class_column="label")
    # single values of any kind stay attributes
    for column in (["a", "b"] * 20, pd.Categorical(["a", "b"] * 20), [b"a", b"b"] * 20):
        assert as_dataset(_frame_with(column), class_column="label").n_categories == (0, 2)


def test_arrays_of_nested_labels_ragged_rows_or_too_many_attributes_are_refused_naming_the_argument():
    from simstudy.apps.assess.data import MAX_COLUMNS, as_dataset

    X = np.random.default_rng(0).normal(size=(40, 2))
    for y, needle in (
        ([[1], [1, 2]] * 20, "y: holds sequences of different lengths"),  # was numpy's own message
        (np.array([[1], [1, 2]] * 20, dtype=object), "y: label 1 is a list, not one value"),
    ):
        with pytest.raises(ValueError, match="^" + re.escape(needle)):
            as_dataset(X, y)
    with pytest.raises(ValueError, match="^X: must be a table of numbers"):
        as_dataset([[1.0], [1.0, 2.0]] * 20, [0, 1] * 20)
    with pytest.raises(ValueError, match=f"^X: {MAX_COLUMNS + 1:,} attributes, more than the {MAX_COLUMNS:,}"):
        as_dataset(np.zeros((2, MAX_COLUMNS + 1)), [0, 1])


def test_a_first_data_line_longer_than_the_header_is_refused_not_shifted(tmp_path, monkeypatch):
    # pandas took the extra leading values as row labels and shifted every value into the next column
    from simstudy.apps.assess import data

    rows = "".join(f"{i},{i % 3},{'ny'[i % 2]}\n" for i in range(40))
    (tmp_path / "extra.csv").write_text("a,b,label\n7,1,2,y\n" + rows)
    with pytest.raises(ValueError, match=r"extra.csv: the first data line holds more values than the 3 columns"):
        load_data(tmp_path / "extra.csv")
    # a first data line of absurd width is refused from the line itself, before pandas parses it (it took minutes)
    monkeypatch.setattr(data, "MAX_COLUMNS", 50)
    (tmp_path / "wide.csv").write_text("a,b,label\n" + ",".join(["1"] * 100_000) + "\n" + rows)
    with pytest.raises(ValueError, match=r"the first data line holds 100,000 values, more than the 50 columns"):
        load_data(tmp_path / "wide.csv")


def test_a_csv_with_carriage_return_line_ends_is_counted_by_its_lines(tmp_path, monkeypatch):
    # the whole file was taken as its header, and its parsing raised the csv module's own error
    from simstudy.apps.assess import data

    monkeypatch.setattr(data, "MAX_COLUMNS", 5)
    rows = [f"{i},{i % 3},{'ny'[i % 2]}" for i in range(40)]
    path = tmp_path / "mac.csv"
    path.write_bytes("\r".join(["a,b,label", *rows, ""]).encode())
    assert load_data(path).X.shape == (40, 2)
    path.write_bytes("\r".join([",".join(f"c{i}" for i in range(6)), *rows, ""]).encode())
    with pytest.raises(ValueError, match="the header names 6 columns, more than the 5"):
        load_data(path)


def test_a_long_column_of_numbers_with_a_late_text_cell_is_refused_without_a_parser_warning(tmp_path):
    # pandas parsed the file in chunks, and its DtypeWarning (naming its own options) reached stderr
    import warnings

    n = 300_000
    cells = np.arange(n).astype(str)
    cells[-1] = "oops"
    labels = np.where(np.arange(n) % 2 == 0, "n", "y")
    path = tmp_path / "long.csv"
    path.write_text("x,label\n" + "\n".join(np.char.add(np.char.add(cells, ","), labels)) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"column 'x' holds numbers but for 1 cell\(s\), in data row\(s\) 300000"):
            load_data(path)


@pytest.mark.parametrize("rope", ["1e308", "1", "2.5"])
def test_a_rope_as_wide_as_any_difference_is_refused_before_fitting(tmp_path, capsys, rope):
    path = tmp_path / "d.csv"
    rng = np.random.default_rng(1)
    path.write_text("x,label\n" + "".join(f"{rng.normal(i % 2):.3f},{'ny'[i % 2]}\n" for i in range(40)))
    argv = ["assess", str(path), "--a", "NB", "--b", "C4.5", "--quiet", "--rope", rope, "--out", str(tmp_path / "o")]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("simstudy: error: --rope:") and "largest difference" in err[0], err
    assert not (tmp_path / "o").exists()


def test_a_rope_within_an_unbounded_metrics_range_is_accepted():
    from simstudy.apps.assess.checks import check_rope

    assert check_rope(5.0, "neg_log_loss") == 5.0
    assert check_rope(1.5, "matthews_corrcoef") == 1.5
    with pytest.raises(ValueError, match="^rope: 1 is at least the largest difference of accuracy"):
        check_rope(1, "accuracy")


def test_an_arff_file_declaring_too_many_attributes_is_refused_before_parsing(tmp_path, monkeypatch):
    from simstudy.apps.assess import data

    monkeypatch.setattr(data, "MAX_COLUMNS", 5)
    path = tmp_path / "wide.arff"
    head = "".join(f"@attribute a{i} numeric\n" for i in range(6))
    path.write_text(f"@relation wide\n{head}@attribute class {{n,y}}\n@data\n" + "1,2,3,4,5,6,y\n" * 12)
    with pytest.raises(ValueError, match="wide.arff: 7 attributes, more than the 5 an assessment takes"):
        load_data(path)
