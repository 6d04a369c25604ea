"""simstudy assess: the user's data and learners, bad input refused on one line, deterministic and resumable."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

from simstudy.apps.assess import assess, designs_for_data, load_assessment, load_data, parse_learner
from simstudy.cli import main
from simstudy.errors import StoredDataError

SMALL = dict(designs=("cv2x5", "5x2cv", "resampled3"), n_repeats=3)


@pytest.fixture(scope="module")
def iris_csv(tmp_path_factory):
    from sklearn.datasets import load_iris

    d = load_iris(as_frame=True)
    df = d.frame.rename(columns={"target": "species"})
    df["species"] = df["species"].map(dict(enumerate(d.target_names)))
    path = tmp_path_factory.mktemp("data") / "iris.csv"
    df.to_csv(path, index=False)
    return path


def _rows(run):
    return {
        t: run.table(t).sort_values(list(run.table(t).columns[:6])).reset_index(drop=True)
        for t in ("scores", "outcomes")
    }


# -- data ----------------------------------------------------------------------------------------


def test_csv_with_a_named_class_and_a_nominal_column(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("colour,size,label\nred,1.5,yes\nblue,,no\nred,2.0,yes\n" + "blue,3.0,no\n" * 9)
    data = load_data(path, class_column="label")
    assert data.columns == ("colour", "size") and data.nominal == (True, False)
    assert data.n_categories == (2, 0) and data.classes == ("no", "yes")
    assert np.isnan(data.X[1, 1]) and data.y.tolist()[:3] == [1, 0, 1]


@pytest.mark.parametrize(
    "content, message",
    [
        ("a,b,c\n1,2,x\n1,2,3,4\n", "cannot parse"),
        ("a,b\n" + "1,x\n" * 12, "has 1 distinct value"),
        ("", "empty"),
        ("a,b\n", "no data lines"),
    ],
)
def test_bad_csv_is_one_line_naming_the_file(tmp_path, content, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    with pytest.raises(ValueError, match=message) as err:
        load_data(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)


def test_unknown_file_and_class_column(tmp_path, iris_csv):
    with pytest.raises(ValueError, match="no such file, and not a shipped data set"):
        load_data(tmp_path / "nothing.csv")
    with pytest.raises(ValueError, match="^class_column: .* has no column 'kind'"):
        load_data(iris_csv, class_column="kind")


def test_shipped_data_set_and_arff(tmp_path):
    data = load_data("iris")
    assert data.X.shape == (150, 4) and len(data.classes) == 3
    from simstudy.pipeline.data import write_arff

    write_arff(tmp_path / "x.arff", data.X, data.y, names=list(data.columns), class_categories=data.classes)
    again = load_data(tmp_path / "x.arff")
    assert np.array_equal(again.X, data.X) and np.array_equal(again.y, data.y)


# -- learners ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec, params, message",
    [
        ("NoSuchLearner", None, "--a: unknown learner 'NoSuchLearner'"),
        ("nosuchmodule:Thing", None, "cannot import module 'nosuchmodule'"),
        ("sklearn.tree:NoTree", None, "has no 'NoTree'"),
        ("sklearn.tree:DecisionTreeClassifier", "{max_depth: 3", "--a-params: not valid JSON"),
        ("sklearn.tree:DecisionTreeClassifier", '{"depth": 3}', "has no parameter 'depth'; its parameters"),
    ],
)
def test_bad_learner_specifications(spec, params, message):
    with pytest.raises(ValueError, match=message):
        parse_learner(spec, params, option="--a")


def test_estimator_that_needs_numbers_or_no_missing_values_is_refused(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("colour,size,label\n" + "red,1.5,yes\nblue,2.5,no\n" * 8)
    with pytest.raises(ValueError, match="needs numbers, but column\\(s\\) 'colour'"):
        assess(path, None, "sklearn.linear_model:LogisticRegression", "NB", out=tmp_path / "o", **SMALL)
    path.write_text("x,size,label\n" + "1,1.5,yes\n2,,no\n" * 8)
    with pytest.raises(ValueError, match="cannot take missing values.*'size'"):
        assess(path, None, "NB", "sklearn.linear_model:LogisticRegression", out=tmp_path / "o", **SMALL)
    assert not (tmp_path / "o").exists()


def test_a_pipeline_that_imputes_takes_data_with_missing_values(tmp_path):
    # scikit-learn leaves a pipeline's allow_nan tag False whatever its first step: the trial fit decides
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.utils import get_tags

    path = tmp_path / "d.csv"
    rows = [f"{i % 7},{'' if i % 5 == 0 else 1.5 + (i % 3)},{'yes' if i % 2 else 'no'}" for i in range(40)]
    path.write_text("x,size,label\n" + "\n".join(rows) + "\n")
    imputing = make_pipeline(SimpleImputer(), LogisticRegression())
    assert not get_tags(imputing).input_tags.allow_nan
    a = assess(path, None, ("imputed", imputing), "NB", out=tmp_path / "o", **SMALL)
    assert a.conclusion is not None


def test_designs_are_checked():
    y = np.repeat([0, 1], [20, 4])
    with pytest.raises(ValueError, match="^designs: unknown design 'loo'"):
        designs_for_data(["loo"], y)
    with pytest.raises(ValueError, match="smallest class has 4 cases"):
        designs_for_data(["cv10x10"], y)
    keys = [d.key for d in designs_for_data("cv2x4 5x2cv resampled5", y)]
    assert keys == ["cv2x4", "5x2cv", "resampled5"]


# -- the command line: one line, exit 2, nothing written ------------------------------------------


@pytest.mark.parametrize(
    "argv, message",
    [
        (["assess", "{tmp}/missing.csv", "--a", "NB", "--b", "C4.5"], "no such file"),
        (["assess", "iris", "--a", "NB", "--b", "Nope"], "--b: unknown learner"),
        (["assess", "iris", "--a", "NB", "--b", "C4.5", "--repeats", "0"], "--repeats: must be an integer >= 1"),
        (["assess", "iris", "--a", "NB", "--b", "C4.5", "--designs", "cv1x400"], "--designs"),
        (["assess", "iris", "--a", "NB", "--b", "C4.5", "--tests", "nosuch"], "--tests: unknown test"),
        (
            ["assess", "iris", "--a", "NB", "--b", "C4.5", "--tests", "5x2cv_t", "--designs", "cv2x5"],
            "applies to none of the designs",
        ),
        (["assess", "iris", "--a", "NB", "--b", "sklearn.svm:SVC", "--b-params", "[1]"], "JSON object"),
    ],
)
def test_cli_bad_input(tmp_path, capsys, argv, message):
    out = tmp_path / "run"
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv] + ["--out", str(out), "--quiet"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert not out.exists()


# -- a real assessment -----------------------------------------------------------------------------


def test_assessment_is_deterministic_resumable_and_resummarised(tmp_path, iris_csv):
    kw = dict(a="NB", b="sklearn.tree:DecisionTreeClassifier", b_params={"max_depth": 2}, evidence=None, **SMALL)
    one = assess(iris_csv, None, out=tmp_path / "one", jobs=1, **kw)
    two = assess(iris_csv, None, out=tmp_path / "two", jobs=2, **kw)
    rows1, rows2 = _rows(one.run), _rows(two.run)
    for t in rows1:
        pd.testing.assert_frame_equal(rows1[t], rows2[t])
    pd.testing.assert_frame_equal(one.table, two.table)

    # a crash: one chunk lost; the same call recomputes it and gives the same rows
    chunks = sorted(p.parent for p in (tmp_path / "one" / "chunks").rglob("chunk.json"))
    shutil.rmtree(chunks[len(chunks) // 2])
    again = assess(iris_csv, None, out=tmp_path / "one", jobs=1, **kw)
    for t, df in _rows(again.run).items():
        pd.testing.assert_frame_equal(df, rows1[t])

    # re-summarised from the stored rows without fitting
    stored = load_assessment(
        tmp_path / "one",
        iris_csv,
        kw["a"],
        kw["b"],
        b_params=kw["b_params"],
        designs=SMALL["designs"],
        n_repeats=3,
        evidence=None,
    )
    pd.testing.assert_frame_equal(stored.table, one.table)

    t = one.table
    assert set(t["design"]) == {"cv2x5", "5x2cv", "resampled3"}
    cv = t[t["design"] == "cv2x5"]
    assert set(cv["scheme"]) - {""} == {
        "resampling",
        "kfold_cv",
        "use_all_data",
        "average_over_folds",
        "average_over_runs",
        "average_over_sorted_runs",
    }
    assert (t["A better"] + t["B better"] + t["not significant"] == 3).all()
    assert t["R2"].between(0, 1).all()
    tt = t[(t["design"] == "cv2x5") & (t["test"] == "corrected_cv_t")].iloc[0]
    assert tt["P_rep model"] == "non-central t" and 0 <= tt["P_rep"] <= 1
    assert any("corrected 2x5 cv t-test" in v for v in one.verdicts)


def test_other_data_or_learners_in_the_same_directory_are_refused(tmp_path, iris_csv):
    kw = dict(evidence=None, **SMALL)
    assess(iris_csv, None, "NB", "C4.5", out=tmp_path / "r", **kw)
    with pytest.raises(StoredDataError, match="fresh"):
        assess(iris_csv, None, "NB", "NN", out=tmp_path / "r", **kw)


def test_python_api_with_arrays_and_estimators(tmp_path):
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.naive_bayes import GaussianNB

    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[::4], y[::4]
    kw = dict(designs=("cv2x5",), n_repeats=2, evidence=None)
    forest = RandomForestClassifier(n_estimators=10)
    one = assess(X, y, GaussianNB(), forest, out=tmp_path / "a", **kw)
    two = assess(X, y, GaussianNB(), forest, out=tmp_path / "b", **kw)
    pd.testing.assert_frame_equal(one.run.table("scores"), two.run.table("scores").reset_index(drop=True))
    scores = one.run.table("scores")
    # the forest gets a new random_state per repeat: its accuracies differ between repeats' identical folds
    assert scores.groupby("replication")["acc_b"].mean().nunique() == 2
    text = str(one)
    assert any(w in text for w in ("A beats B", "B beats A", "Neither is significantly better"))


def test_cli_writes_the_pages_and_benches_a_new_test(tmp_path, iris_csv, capsys):
    out = tmp_path / "run"
    argv = [
        "assess",
        str(iris_csv),
        "--a",
        "NB",
        "--b",
        "C4.5",
        "--designs",
        "cv2x5",
        "resampled3",
        "--repeats",
        "3",
        "--out",
        str(out),
        "--quiet",
        "--results",
        str(tmp_path / "none"),
        "--bench",
        "welch_t",
    ]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "Verdicts across repeats" in text and "welch_t" in text
    for name in ("assessment.md", "assessment.html", "assessment.png", "assessment.csv"):
        assert (out / name).stat().st_size > 0
    assert "n/a" in (out / "assessment.html").read_text() or "nan" not in (out / "assessment.html").read_text()


def _evidence(procs, *, n=200, n_exp=10, seed=0):
    """Synthetic evidence of one stored run: per procedure (design, scheme, test) -> (null hits, alternative hits),
    boolean arrays of data sets x repeats; a hit has p = 0.001 (A's direction), a miss p uniform on (0.2, 1)."""
    from simstudy.apps.evidence import Evidence

    rng = np.random.default_rng(seed)
    frames = []
    for (d, s, t), hits in procs.items():
        for cond, hit in zip(("null", "alt"), hits):
            rep, exp = np.meshgrid(np.arange(hit.shape[0]), np.arange(hit.shape[1]), indexing="ij")
            frames.append(
                pd.DataFrame(
                    {
                        "condition": cond,
                        "replication": rep.ravel(),
                        "experiment": exp.ravel(),
                        "design": d,
                        "scheme": s,
                        "test": t,
                        "pvalue": np.where(hit, 0.001, rng.uniform(0.2, 1.0, hit.shape)).ravel(),
                        "sign": 1.0,
                    }
                )
            )
    truths = {"null": {"truth": "null", "twin": ""}, "alt": {"truth": "A", "twin": "null"}}
    return Evidence(pd.concat(frames, ignore_index=True), truths, 0.5, "sim").prefixed("sim/quick")


def _hits(rate, n=200, n_exp=10, seed=0):
    return np.random.default_rng(seed).random((n, n_exp)) < rate


def test_recommendation_rests_on_size_and_size_adjusted_power_not_on_replicability_alone():
    from simstudy.apps.assess import recommend

    designs = designs_for_data(["cv10x10"], np.repeat([0, 1], 50))
    table = pd.DataFrame(
        {
            "design": "cv10x10",
            "scheme": ["kfold_cv", "average_over_sorted_runs", ""],
            "test": ["sign", "paired_t", "cv_t"],
            "repeats": 10,
            "A better": [0, 6, 10],
            "B better": 0,
            "R2": [1.0, 0.47, 1.0],
            "R2 se": np.nan,
        }
    )
    ev = _evidence(
        {
            ("cv10x10", "kfold_cv", "sign"): (_hits(0.01, seed=1), _hits(0.05, seed=2)),
            ("cv10x10", "average_over_sorted_runs", "paired_t"): (_hits(0.03, seed=3), _hits(0.6, seed=4)),
            ("cv10x10", "", "cv_t"): (_hits(0.3, seed=5), _hits(0.9, seed=6)),
        }
    )
    out, text = recommend(table, designs, [ev])
    assert out["size"].tolist() == ["controls size", "controls size", "liberal"]
    assert out["rank"].tolist()[:2] == [2, 1] and np.isnan(out["rank"].iloc[2])
    # not the never-rejecting sign test (R2 1 on the user's data), nor the liberal cv t-test
    assert text.startswith("Recommended: `paired_t` with cv10x10, scheme average_over_sorted_runs.")
    assert "liberal (Type I error shown above alpha on a null scenario): cv_t [cv10x10] (" in text


def test_ties_in_size_adjusted_power_go_to_simulated_replicability_then_to_the_users_r2():
    from simstudy.apps.assess import recommend

    designs = designs_for_data(["cv10x10"], np.repeat([0, 1], 50))
    quiet = np.zeros((200, 10), dtype=bool)
    whole = np.repeat(np.arange(200) % 2 == 0, 10).reshape(200, 10)  # every repeat of half the data sets
    half = np.tile(np.arange(10) % 2 == 0, (200, 1))  # half the repeats of every data set
    ev = _evidence(
        {
            ("cv10x10", "", "corrected_cv_t"): (quiet, whole),
            ("cv10x10", "", "cv_t"): (quiet, half),
            ("cv10x10", "kfold_cv", "paired_t"): (quiet, half),
        }
    )
    table = pd.DataFrame(
        {
            "design": "cv10x10",
            "scheme": ["", "", "kfold_cv"],
            "test": ["corrected_cv_t", "cv_t", "paired_t"],
            "repeats": 10,
            "A better": [5, 5, 5],
            "B better": 0,
            "R2": [0.5, 0.9, 0.8],
            "R2 se": np.nan,
        }
    )
    out, text = recommend(table, designs, [ev])
    assert (out["rank"] == 1).all() and (out["tied with"] == 2).all()  # the same power per data set on average
    assert out["simulated R2 (lowest over sources)"].round(3).tolist() == [1.0, 0.444, 0.444]
    assert text.startswith("Recommended: `corrected_cv_t` with cv10x10.")
    assert "the tie is broken by simulated replicability" in text
    # equal simulated replicability: R2 on the user's data decides
    out, text = recommend(table.iloc[1:], designs, [ev])
    assert text.startswith("Recommended: `cv_t` with cv10x10.")


def test_the_command_states_the_library_defaults():
    from simstudy.apps.assess import DEFAULT_DESIGNS, DEFAULT_REPEATS, FULL_DESIGNS, FULL_REPEATS
    from simstudy.cli import build_parser

    help_text = " ".join(build_parser()._subparsers._group_actions[0].choices["assess"].format_help().split())
    assert f"(default {' '.join(DEFAULT_DESIGNS)})" in help_text
    assert f"(with --full: {' '.join(FULL_DESIGNS)})" in help_text
    assert f"(default {DEFAULT_REPEATS}; with --full {FULL_REPEATS};" in help_text


def test_scoring_again_with_another_metric_writes_beside_the_first_pages(tmp_path, iris_csv):
    out = tmp_path / "o"
    first = assess(iris_csv, None, "NB", "C4.5", out=out, **SMALL).save(out)
    before = first["markdown"].read_bytes()
    again = assess(iris_csv, None, "NB", "C4.5", out=out, metric="balanced_accuracy", **SMALL).save(out)
    assert again["markdown"].name == "assessment-balanced_accuracy.md" and first["markdown"].name == "assessment.md"
    assert first["markdown"].read_bytes() == before  # the accuracy pages are left as they were
    assert {p.name for p in again.values()}.isdisjoint(p.name for p in first.values())
