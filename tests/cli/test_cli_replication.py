"""``simstudy replication-probability``: Berrar's examples through the command line."""

import json

import pytest

from simstudy.cli import main


def run_json(capsys, *argv):
    assert main(["replication-probability", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_binomial_example_1_text(capsys):
    assert main(["replication-probability", "--model", "binomial", "--wins", "29", "--n", "44"]) == 0
    out = capsys.readouterr().out
    assert "0.5696" in out and "[0.0250, 0.9890]" in out
    assert "29 of 44" in out and ">= 29 wins" in out and "0.04877" in out


def test_binomial_example_1_json(capsys):
    rec = run_json(capsys, "--model", "binomial", "--wins", "29", "--n", "44")
    assert rec["model"] == "binomial"
    assert rec["inputs"] == {"wins": 29, "n": 44, "alpha": 0.05, "level": 0.95}
    assert rec["estimate"] == pytest.approx(0.5696, abs=5e-5)
    assert rec["interval"] == pytest.approx([0.0250, 0.9890], abs=5e-5)
    assert rec["clopper_pearson"] == pytest.approx([0.501, 0.795], abs=5e-4)
    assert rec["min_significant_wins"] == 29
    assert rec["pvalue"] == pytest.approx(0.0488, abs=5e-5)


def test_bayes_example_2(capsys):
    rec = run_json(capsys, "--model", "bayes", "--wins", "29", "--n", "44")
    assert rec["theta_m"] == pytest.approx(0.652, abs=5e-4)
    assert rec["estimate"] == pytest.approx(0.5311, abs=5e-5)
    assert rec["hdi"] == pytest.approx([0.515, 0.785], abs=5e-4)
    assert rec["interval"] == pytest.approx([0.0384, 0.983], abs=5e-4)


def test_wilcoxon_from_z_and_from_p(capsys):
    rec = run_json(capsys, "--model", "wilcoxon", "--statistic", "2.437", "--s-star", "0.779")
    assert rec["estimate"] == pytest.approx(0.730, abs=5e-4)
    rec = run_json(capsys, "--model", "wilcoxon", "--p", "0.05")
    assert rec["estimate"] == pytest.approx(0.5, abs=1e-9)
    assert rec["interval"] == pytest.approx([0.025, 0.975], abs=1e-9)


def test_t_example_4_and_figure_4(capsys):
    rec = run_json(capsys, "--model", "t", "--statistic", "2.262", "--df", "9")
    assert rec["estimate"] == pytest.approx(0.5235, abs=5e-5)
    assert rec["nct_quantiles"] == pytest.approx([0.305, 5.489], abs=5e-4)
    assert rec["interval"] == pytest.approx([0.046, 0.998], abs=5e-4)
    rec = run_json(capsys, "--model", "t", "--p", "0.00281", "--df", "9")
    assert rec["estimate"] == pytest.approx(0.95, abs=5e-3)
    assert rec["interval"] == pytest.approx([0.417, 1.000], abs=5e-4)


def test_alpha_and_level_options(capsys):
    wide = run_json(capsys, "--model", "t", "--statistic", "2.262", "--df", "9")
    narrow = run_json(capsys, "--model", "t", "--statistic", "2.262", "--df", "9", "--level", "0.5", "--alpha", "0.1")
    assert narrow["inputs"]["alpha"] == 0.1 and narrow["inputs"]["level"] == 0.5
    assert narrow["estimate"] > wide["estimate"]
    assert narrow["interval"][1] - narrow["interval"][0] < wide["interval"][1] - wide["interval"][0]


def test_text_output_of_every_model(capsys):
    for argv in (
        ["--model", "bayes", "--wins", "15", "--n", "20"],
        ["--model", "wilcoxon", "--statistic", "1.96"],
        ["--model", "t", "--p", "0.05", "--df", "9"],
        ["--model", "binomial", "--wins", "5", "--n", "5"],
    ):
        assert main(["replication-probability", *argv]) == 0
        out = capsys.readouterr().out
        assert "replication probability" in out and "prediction interval" in out and "p-value" in out


@pytest.mark.parametrize(
    "argv,option",
    [
        (["--model", "binomial", "--wins", "45", "--n", "44"], "--wins"),
        (["--model", "binomial", "--wins", "-1", "--n", "44"], "--wins"),
        (["--model", "binomial", "--wins", "2.5", "--n", "44"], "--wins"),
        (["--model", "bayes", "--wins", "x", "--n", "44"], "--wins"),
        (["--model", "bayes", "--wins", "0", "--n", "0"], "--n"),
        (["--model", "binomial", "--wins", "3", "--n", "10", "--alpha", "1"], "--alpha"),
        (["--model", "binomial", "--wins", "3", "--n", "10", "--level", "nan"], "--level"),
        (["--model", "wilcoxon", "--statistic", "2", "--s-star", "0"], "--s-star"),
        (["--model", "wilcoxon", "--p", "0"], "--p"),
        (["--model", "t", "--statistic", "2", "--df", "0"], "--df"),
        (["--model", "t", "--statistic", "inf", "--df", "9"], "--statistic"),
        (["--model", "t", "--p", "1.5", "--df", "9"], "--p"),
    ],
)
def test_bad_input_is_a_one_line_error_naming_the_option(capsys, argv, option):
    assert main(["replication-probability", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"simstudy: error: {option}:")


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--model", "poisson", "--wins", "3"],
        ["--wins", "3", "--n", "10"],
        ["binomial", "--wins", "3", "--n", "10"],
    ],
)
def test_usage_errors_exit_2(capsys, argv):
    assert main(["replication-probability", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("simstudy: error:")


@pytest.mark.parametrize(
    "argv,option",
    [
        (["--model", "t", "--statistic", "2.262"], "--df"),
        (["--model", "t", "--df", "9"], "--statistic"),
        (["--model", "t", "--statistic", "2", "--p", "0.05", "--df", "9"], "--statistic"),
        (["--model", "wilcoxon"], "--statistic"),
        (["--model", "binomial", "--wins", "3"], "--n"),
        (["--model", "bayes", "--n", "44"], "--wins"),
        (["--model", "t", "--statistic", "2", "--df", "9", "--wins", "3"], "--wins"),
        (["--model", "binomial", "--wins", "3", "--n", "10", "--df", "9"], "--df"),
        (["--model", "wilcoxon", "--statistic", "2", "--df", "9"], "--df"),
        (["--model", "bayes", "--wins", "3", "--n", "10", "--s-star", "1"], "--s-star"),
    ],
)
def test_missing_or_foreign_option_is_named(capsys, argv, option):
    assert main(["replication-probability", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"simstudy: error: {option}:")


def test_issue_examples(capsys):
    # the four calls as the issue writes them
    assert run_json(capsys, "--model", "t", "--statistic", "2.262", "--df", "9")["estimate"] == pytest.approx(
        0.5235, abs=5e-5
    )
    assert run_json(capsys, "--model", "binomial", "--wins", "29", "--n", "44")["estimate"] == pytest.approx(
        0.5696, abs=5e-5
    )
    assert run_json(capsys, "--model", "bayes", "--wins", "29", "--n", "44")["estimate"] == pytest.approx(
        0.5311, abs=5e-5
    )
    rec = run_json(capsys, "--model", "wilcoxon", "--statistic", "1.96", "--s-star", "1")
    assert rec["estimate"] == pytest.approx(0.5, abs=1e-4)
    assert rec["inputs"] == {"statistic": 1.96, "s_star": 1.0, "alpha": 0.05, "level": 0.95}
    # --s-star defaults to 1
    assert run_json(capsys, "--model", "wilcoxon", "--statistic", "1.96")["estimate"] == rec["estimate"]


def test_huge_t_statistic_gives_valid_json_with_not_computable_fields(capsys):
    # scipy's non-central t has no quantiles at T = 1e6: null with a reason, never NaN
    assert main(["replication-probability", "--model", "t", "--statistic", "1e6", "--df", "9", "--json"]) == 0
    out = capsys.readouterr().out
    assert "NaN" not in out and "Infinity" not in out
    rec = json.loads(out)
    assert rec["estimate"] == 1.0
    assert rec["interval"] == [None, None] and rec["nct_quantiles"] == [None, None]
    assert rec["not_computable"]["fields"] == ["interval", "nct_quantiles"]
    assert "non-central t" in rec["not_computable"]["reason"]
    # the text says so too
    assert main(["replication-probability", "--model", "t", "--statistic", "1e6", "--df", "9"]) == 0
    out = capsys.readouterr().out
    assert "nan" not in out.lower() and "not computable" in out


def test_ordinary_t_result_has_no_not_computable_entry(capsys):
    rec = run_json(capsys, "--model", "t", "--statistic", "2.262", "--df", "9")
    assert "not_computable" not in rec


def test_tiny_p_value_is_converted_not_blamed_on_statistic(capsys):
    # scipy's t.isf gives -inf at p = 1e-300, df = 9; the statistic is computed another way
    assert main(["replication-probability", "--model", "t", "--p", "1e-300", "--df", "9", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["t"] == pytest.approx(5.5617e33, rel=1e-4)
    assert rec["pvalue"] == pytest.approx(1e-300, rel=1e-6)
    assert "not_computable" in rec
    # a subnormal p-value cannot be converted: the error names --p
    assert main(["replication-probability", "--model", "t", "--p", "1e-320", "--df", "9"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("simstudy: error: --p:") and "too small" in err[0]


def test_infinite_option_values_are_refused(capsys):
    # an infinite Z_w would print Infinity, which is not JSON
    assert main(["replication-probability", "--model", "wilcoxon", "--statistic", "inf", "--json"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("simstudy: error: --statistic:") and "finite" in err[0]
