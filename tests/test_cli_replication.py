"""``simstudy replication-probability``: Berrar's examples through the command line."""

import json

import pytest

from simstudy.cli import main


def run_json(capsys, *argv):
    assert main(["replication-probability", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_binomial_example_1_text(capsys):
    assert main(["replication-probability", "binomial", "--wins", "29", "--n", "44"]) == 0
    out = capsys.readouterr().out
    assert "0.5696" in out and "[0.0250, 0.9890]" in out
    assert "29 of 44" in out and ">= 29 wins" in out and "0.04877" in out


def test_binomial_example_1_json(capsys):
    rec = run_json(capsys, "binomial", "--wins", "29", "--n", "44")
    assert rec["model"] == "binomial"
    assert rec["inputs"] == {"wins": 29, "n": 44, "alpha": 0.05, "confidence": 0.95}
    assert rec["estimate"] == pytest.approx(0.5696, abs=5e-5)
    assert rec["interval"] == pytest.approx([0.0250, 0.9890], abs=5e-5)
    assert rec["clopper_pearson"] == pytest.approx([0.501, 0.795], abs=5e-4)
    assert rec["min_significant_wins"] == 29
    assert rec["pvalue"] == pytest.approx(0.0488, abs=5e-5)


def test_bayes_example_2(capsys):
    rec = run_json(capsys, "bayes", "--wins", "29", "--n", "44")
    assert rec["theta_m"] == pytest.approx(0.652, abs=5e-4)
    assert rec["estimate"] == pytest.approx(0.5311, abs=5e-5)
    assert rec["hdi"] == pytest.approx([0.515, 0.785], abs=5e-4)
    assert rec["interval"] == pytest.approx([0.0384, 0.983], abs=5e-4)


def test_wilcoxon_from_z_and_from_p(capsys):
    rec = run_json(capsys, "wilcoxon", "--z", "2.437", "--s-star", "0.779")
    assert rec["estimate"] == pytest.approx(0.730, abs=5e-4)
    rec = run_json(capsys, "wilcoxon", "--p", "0.05")
    assert rec["estimate"] == pytest.approx(0.5, abs=1e-9)
    assert rec["interval"] == pytest.approx([0.025, 0.975], abs=1e-9)


def test_t_example_4_and_figure_4(capsys):
    rec = run_json(capsys, "t", "--t", "2.262", "--df", "9")
    assert rec["estimate"] == pytest.approx(0.5235, abs=5e-5)
    assert rec["nct_quantiles"] == pytest.approx([0.305, 5.489], abs=5e-4)
    assert rec["interval"] == pytest.approx([0.046, 0.998], abs=5e-4)
    rec = run_json(capsys, "t", "--p", "0.00281", "--df", "9")
    assert rec["estimate"] == pytest.approx(0.95, abs=5e-3)
    assert rec["interval"] == pytest.approx([0.417, 1.000], abs=5e-4)


def test_alpha_and_confidence_options(capsys):
    wide = run_json(capsys, "t", "--t", "2.262", "--df", "9")
    narrow = run_json(capsys, "t", "--t", "2.262", "--df", "9", "--confidence", "0.5", "--alpha", "0.1")
    assert narrow["inputs"]["alpha"] == 0.1 and narrow["inputs"]["confidence"] == 0.5
    assert narrow["estimate"] > wide["estimate"]
    assert narrow["interval"][1] - narrow["interval"][0] < wide["interval"][1] - wide["interval"][0]


def test_text_output_of_every_model(capsys):
    for argv in (["bayes", "--wins", "15", "--n", "20"], ["wilcoxon", "--z", "1.96"],
                 ["t", "--p", "0.05", "--df", "9"], ["binomial", "--wins", "5", "--n", "5"]):
        assert main(["replication-probability", *argv]) == 0
        out = capsys.readouterr().out
        assert "replication probability" in out and "prediction interval" in out and "p-value" in out


@pytest.mark.parametrize("argv,option", [
    (["binomial", "--wins", "45", "--n", "44"], "--wins"),
    (["binomial", "--wins", "-1", "--n", "44"], "--wins"),
    (["binomial", "--wins", "2.5", "--n", "44"], "--wins"),
    (["bayes", "--wins", "x", "--n", "44"], "--wins"),
    (["bayes", "--wins", "0", "--n", "0"], "--n"),
    (["binomial", "--wins", "3", "--n", "10", "--alpha", "1"], "--alpha"),
    (["binomial", "--wins", "3", "--n", "10", "--confidence", "nan"], "--confidence"),
    (["wilcoxon", "--z", "2", "--s-star", "0"], "--s-star"),
    (["wilcoxon", "--p", "0"], "--p"),
    (["t", "--t", "2", "--df", "0"], "--df"),
    (["t", "--t", "inf", "--df", "9"], "--t"),
    (["t", "--p", "1.5", "--df", "9"], "--p"),
])
def test_bad_input_is_a_one_line_error_naming_the_option(capsys, argv, option):
    assert main(["replication-probability", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"simstudy: error: {option}:")


@pytest.mark.parametrize("argv", [
    [],
    ["wilcoxon"],
    ["t", "--t", "2", "--p", "0.05", "--df", "9"],
    ["binomial", "--wins", "3"],
    ["poisson", "--wins", "3"],
])
def test_usage_errors_exit_2(capsys, argv):
    assert main(["replication-probability", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("simstudy: error:")
