"""The three kinds of failure are types of their own, and the command line tells them apart."""

import pytest

from simstudy.cli import main
from simstudy.engine.store import ConfigMismatch, StoreError
from simstudy.errors import EXIT_INPUT, EXIT_INTERNAL, InputError, StoredDataError


def test_stored_data_errors_are_not_value_errors():
    # code that catches a ValueError to try another value must not swallow a refused run directory
    for kind in (StoreError, ConfigMismatch):
        assert issubclass(kind, StoredDataError) and not issubclass(kind, ValueError)
    assert issubclass(InputError, ValueError)


def test_bad_input_is_one_line_with_exit_2(capsys):
    assert main(["run", "no_such_study", "--profile", "smoke"]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert err.startswith("simstudy: error: ") and err.count("\n") == 1


@pytest.mark.parametrize("raised", [ValueError("a bug"), KeyError("key"), ZeroDivisionError("x")])
def test_an_error_nobody_raised_on_purpose_is_an_internal_failure(monkeypatch, capsys, raised):
    import simstudy.cli.commands.engine as engine

    def broken(args):
        raise raised

    monkeypatch.setattr(engine, "cmd_list", broken)
    assert main(["list"]) == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert "Traceback" in err and f"simstudy: internal error: {type(raised).__name__}" in err
    assert "not of the command's input" in err and "please report" in err.lower()
